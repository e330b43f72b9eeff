// One partition's proof on the CPU, step by step as cpu-ref makes it (and the test
// backends that wrap it): the quotient of the key's H convention into h, h to canonical
// form (its limbs are then also the H-MSM's scalars), the witness to canonical scalars,
// the five MSMs and the combination. One implementation for every CPU backend, so
// their proofs are cpu-ref's by construction. Templates over the curve (or its Fr),
// instantiated in cpu_partition.cpp for BLS12-381 and BN254.
#pragma once

#include "core/ff/fr.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"
#include "core/groth16/prover.hpp"
#include "core/msm/pippenger.hpp"

#include <cstdint>
#include <functional>

namespace zkbatch::groth16 {

// Called after each step with its name ("quotient", "canonical_h", "witness", "msm.a",
// ...) and its start and end (steady clock, ns).
using StepTimer = std::function<void(const char* step, int64_t start_ns, int64_t end_ns)>;

// The quotient alone (the quotient workload, or a Groth16 partition's first steps): h
// of a, b, c, for `convention`, written to `h` in canonical little-endian form.
// `scratch` holds 2n elements.
template <class Fr>
void quotient_on_cpu(uint32_t log_n, HConvention convention, const Fr* a, const Fr* b, const Fr* c, Fr* h,
                     Fr* scratch, unsigned threads, const StepTimer& on_step = {});

// The proof from a quotient already in h (canonical, as quotient_on_cpu leaves it) and
// the witness z (key.num_variables elements, Montgomery form); `witness` holds
// key.num_variables scalars of scratch.
template <class Curve>
generic::Proof<Curve> prove_from_quotient_on_cpu(const generic::ProvingKey<Curve>& key, const typename Curve::Fr* z,
                                                 const typename Curve::Fr* h, msm::Scalar* witness,
                                                 const generic::ProofRandomness<Curve>& blinding, unsigned threads,
                                                 const StepTimer& on_step = {});

// The whole proof of one partition: quotient_on_cpu of a, b, c into h, then
// prove_from_quotient_on_cpu.
template <class Curve, class Fr = typename Curve::Fr>
generic::Proof<Curve> prove_partition_on_cpu(const generic::ProvingKey<Curve>& key, const Fr* z, const Fr* a,
                                             const Fr* b, const Fr* c, Fr* h, Fr* scratch, msm::Scalar* witness,
                                             const generic::ProofRandomness<Curve>& blinding, unsigned threads,
                                             const StepTimer& on_step = {});

}  // namespace zkbatch::groth16
