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
#pragma once

#include "core/circuit/synthetic_r1cs.hpp"
#include "core/ff/fr.hpp"
#include "core/groth16/keys.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace zkbatch::groth16 {

// The secrets a key is made from. All nonzero; tau is outside the domain.
struct ToxicWaste {
    ff::Fr tau, alpha, beta, gamma, delta;
};

// Deterministic in the seed. Throws std::invalid_argument for a seed whose tau lands
// in the domain of 2^log_n (probability ~2^-220; a different seed fixes it).
ToxicWaste toxic_waste_from_seed(uint64_t setup_seed, uint32_t log_n);

// What identifies a seeded setup (recorded in key files): "setup=seeded\nseed=N\n".
std::string seeded_setup_description(uint64_t setup_seed);
// The seed of such a description; throws std::invalid_argument for any other text.
uint64_t seeded_setup_seed(const std::string& description);

// The scalars each query point is a generator times (docs/architecture.md#the-groth16-key): with u_i,
// v_i, w_i the columns of A, B, C interpolated over the domain and evaluated at tau.
struct KeyScalars {
    std::vector<ff::Fr> a;   // u_i, m: the A-query ([.]1)
    std::vector<ff::Fr> b;   // v_i, m: the B-queries ([.]1 and [.]2)
    std::vector<ff::Fr> l;   // (beta u_i + alpha v_i + w_i) / delta for the private i: m - l - 1
    std::vector<ff::Fr> h;   // tau^j Z(tau) / delta, j = 0..n-2
    std::vector<ff::Fr> ic;  // (beta u_i + alpha v_i + w_i) / gamma for i = 0..l
};

// Every scalar of the key, on up to `threads` threads; the result does not depend on
// them (Fr sums are exact, whatever their order).
KeyScalars key_scalars(const circuit::SyntheticR1cs& circuit, const ToxicWaste& secrets, unsigned threads);

// The key without its queries: sizes, H convention (bellman's), the verifying key,
// beta_g1 and delta_g1 (a few points from the secrets and `ic`). Empty spans, no storage.
ProvingKey key_header(const circuit::SyntheticR1cs& circuit, const ToxicWaste& secrets,
                      const std::vector<ff::Fr>& ic, unsigned threads);

// The verifying key alone, without the O(m) memory of key_scalars: the IC scalars come
// from the same pass over the rows, kept only for the public variables. What the runner
// verifies with when a backend makes the key itself.
VerifyingKey seeded_verifying_key(const circuit::SyntheticR1cs& circuit, const ToxicWaste& secrets, unsigned threads);

// The proving key of `circuit` for these secrets, in memory (the key owns vectors),
// with bellman's H convention (HConvention::coefficients). Uses up to `threads` threads;
// the result does not depend on them.
ProvingKey generate_key(const circuit::SyntheticR1cs& circuit, const ToxicWaste& secrets, unsigned threads);

}  // namespace zkbatch::groth16
