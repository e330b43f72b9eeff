// The Groth16 prover on the CPU (docs/architecture.md#the-proof): five
// multi-scalar multiplications named after the query they use, then the combination
//   A = [alpha]1 + sum z_i [u_i]1 + r [delta]1
//   B = [beta]2 + sum z_i [v_i]2 + s [delta]2          (B1: the same sum in G1)
//   C = sum_private z_i L_i + sum_j h_j H_j + s A + r B1 - r s [delta]1.
// cpu-ref proves with it; the GPU backends must produce the same bytes.
//
// Written once over a curve description (core/curve/description.hpp), instantiated in
// proof.cpp for BLS12-381 and BN254; the names without a curve (ProofRandomness,
// MsmSums, derived_randomness() without a template argument) are BLS12-381's.
#pragma once

#include "core/ff/fr.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"
#include "core/msm/pippenger.hpp"

#include <cstdint>
#include <functional>

namespace zkbatch::groth16 {

namespace generic {

// The proof's blinding. Derived ones make every backend's proof of a partition the
// same bytes, so A/B runs and nights compare; a prover for real use draws them at random.
template <class Curve>
struct ProofRandomness {
    typename Curve::Fr r, s;
};

// The five MSMs' sums: what the combination takes from wherever they were computed.
template <class Curve>
struct MsmSums {
    curve::G1<Curve> a, b_g1, l, h;
    curve::G2<Curve> b_g2;
};

}  // namespace generic

using ProofRandomness = generic::ProofRandomness<curve::Bls12_381>;
using MsmSums = generic::MsmSums<curve::Bls12_381>;

// From (job seed, partition index), SplitMix64 streams: the same on every machine.
template <class Curve = curve::Bls12_381>
generic::ProofRandomness<Curve> derived_randomness(uint64_t job_seed, uint64_t partition_index);
// From the operating system's random source (getrandom).
template <class Curve = curve::Bls12_381>
generic::ProofRandomness<Curve> random_randomness();

// The MSMs of one proof, in the order the prover runs them; also the names of their
// phases ("msm.a", ...), which every backend reports.
enum class ProofMsm { a, b_g1, b_g2, l, h };
inline constexpr ProofMsm kProofMsms[] = {ProofMsm::a, ProofMsm::b_g1, ProofMsm::b_g2, ProofMsm::l, ProofMsm::h};
const char* phase_name(ProofMsm msm);

// Called after each MSM with its start and end (steady clock, ns).
using MsmTimer = std::function<void(ProofMsm, int64_t start_ns, int64_t end_ns)>;

// A, B and C from the sums and the blinding (the equations above): the last step of
// every backend, on the host. Uses the key's alpha, beta and delta only, so a key whose
// queries live on a device (its header) serves.
template <class Curve>
generic::Proof<Curve> combine(const generic::ProvingKey<Curve>& key, const generic::MsmSums<Curve>& sums,
                              const generic::ProofRandomness<Curve>& blinding);

// z: the key's num_variables witness values, canonical (msm::Scalar); h_scalars: the
// key's h_points() scalars of its H convention, canonical. Uses up to `threads` threads;
// the proof does not depend on them.
template <class Curve>
generic::Proof<Curve> prove(const generic::ProvingKey<Curve>& key, const msm::Scalar* z, const msm::Scalar* h_scalars,
                            const generic::ProofRandomness<Curve>& blinding, unsigned threads,
                            const MsmTimer& on_msm = {});

}  // namespace zkbatch::groth16
