// A Groth16 proving key made from a seed, for measurement only.
//
// tau, alpha, beta, gamma, delta are drawn from the seed (SplitMix64 streams), as
// bellperson's generate_random_parameters does for tests and benchmarks: WHOEVER KNOWS
// THE SEED CAN FORGE PROOFS. Keys for real use come from a ceremony (a snarkjs .zkey).
//
// Making a key is two steps: the scalars (key_scalars: the circuit's column polynomials
// at tau and their combinations, field arithmetic only) and the points (each scalar
// times a generator). generate_key does both on the host; a backend that makes its key
// on a GPU computes the same scalars here and only the points there, so both give the
// same bytes.
//
// Written over a curve description and instantiated in setup.cpp for BLS12-381 and
// BN254; ToxicWaste, KeyScalars and toxic_waste_from_seed() without a template argument
// are BLS12-381's. The secrets come from the same streams on either curve, drawn in its Fr.
#pragma once

#include "core/circuit/synthetic_r1cs.hpp"
#include "core/ff/fr.hpp"
#include "core/groth16/keys.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace zkbatch::groth16 {

namespace generic {

// The secrets a key is made from. All nonzero; tau is outside the domain.
template <class Curve>
struct ToxicWaste {
    typename Curve::Fr tau, alpha, beta, gamma, delta;
};

// The scalars each query point is a generator times (docs/architecture.md#the-groth16-key): with u_i,
// v_i, w_i the columns of A, B, C interpolated over the domain and evaluated at tau.
template <class Curve>
struct KeyScalars {
    using Fr = typename Curve::Fr;
    std::vector<Fr> a;   // u_i, m: the A-query ([.]1)
    std::vector<Fr> b;   // v_i, m: the B-queries ([.]1 and [.]2)
    std::vector<Fr> l;   // (beta u_i + alpha v_i + w_i) / delta for the private i: m - l - 1
    std::vector<Fr> h;   // tau^j Z(tau) / delta, j = 0..n-2
    std::vector<Fr> ic;  // (beta u_i + alpha v_i + w_i) / gamma for i = 0..l
};

}  // namespace generic

using ToxicWaste = generic::ToxicWaste<curve::Bls12_381>;
using KeyScalars = generic::KeyScalars<curve::Bls12_381>;

// Deterministic in the seed. Throws std::invalid_argument for a seed whose tau lands
// in the domain of 2^log_n (probability ~2^-220; a different seed fixes it).
template <class Curve = curve::Bls12_381>
generic::ToxicWaste<Curve> toxic_waste_from_seed(uint64_t setup_seed, uint32_t log_n);

// What identifies a seeded setup (recorded in key files): "setup=seeded\nseed=N\n".
std::string seeded_setup_description(uint64_t setup_seed);
// The seed of such a description; throws std::invalid_argument for any other text.
uint64_t seeded_setup_seed(const std::string& description);

// Every scalar of the key, on up to `threads` threads; the result does not depend on
// them (Fr sums are exact, whatever their order).
template <class Curve>
generic::KeyScalars<Curve> key_scalars(const circuit::SyntheticR1cs& circuit, const generic::ToxicWaste<Curve>& secrets,
                                       unsigned threads);

// The key without its queries: sizes, H convention (bellman's), the verifying key,
// beta_g1 and delta_g1 (a few points from the secrets and `ic`). Empty spans, no storage.
template <class Curve>
generic::ProvingKey<Curve> key_header(const circuit::SyntheticR1cs& circuit, const generic::ToxicWaste<Curve>& secrets,
                                      const std::vector<typename Curve::Fr>& ic, unsigned threads);

// The verifying key alone, without the O(m) memory of key_scalars: the IC scalars come
// from the same pass over the rows, kept only for the public variables. What the runner
// verifies with when a backend makes the key itself.
template <class Curve>
generic::VerifyingKey<Curve> seeded_verifying_key(const circuit::SyntheticR1cs& circuit,
                                                  const generic::ToxicWaste<Curve>& secrets, unsigned threads);

// The proving key of `circuit` for these secrets, in memory (the key owns vectors),
// with bellman's H convention (HConvention::coefficients). Uses up to `threads` threads;
// the result does not depend on them.
template <class Curve>
generic::ProvingKey<Curve> generate_key(const circuit::SyntheticR1cs& circuit, const generic::ToxicWaste<Curve>& secrets,
                                        unsigned threads);

}  // namespace zkbatch::groth16
