// One partition on the CPU (core/groth16/cpu_partition.hpp).
#include "core/groth16/cpu_partition.hpp"

#include "core/quotient/quotient.hpp"
#include "core/util/parallel.hpp"

#include <chrono>

namespace zkbatch::groth16 {

namespace {

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

template <class Fr>
void quotient_on_cpu(uint32_t log_n, HConvention convention, const Fr* a, const Fr* b, const Fr* c, Fr* h,
                     Fr* scratch, unsigned threads, const StepTimer& on_step) {
    const int64_t start_ns = now_ns();
    if (convention == HConvention::coefficients)
        prove::compute_quotient_cpu(log_n, a, b, c, h, scratch, threads);
    else
        prove::compute_odd_coset_quotient_cpu(log_n, a, b, c, h, scratch, threads);
    const int64_t quotient_end_ns = now_ns();
    // In place: each element is read whole before its 32 bytes are written.
    util::parallel_for(0, size_t{1} << log_n, threads, [h](size_t begin, size_t end) {
        ff::to_canonical_le(h + begin, end - begin, reinterpret_cast<uint8_t*>(h + begin));
    });
    if (on_step) {
        on_step("quotient", start_ns, quotient_end_ns);
        on_step("canonical_h", quotient_end_ns, now_ns());
    }
}

template <class Curve>
generic::Proof<Curve> prove_from_quotient_on_cpu(const generic::ProvingKey<Curve>& key, const typename Curve::Fr* z,
                                                 const typename Curve::Fr* h, msm::Scalar* witness,
                                                 const generic::ProofRandomness<Curve>& blinding, unsigned threads,
                                                 const StepTimer& on_step) {
    const int64_t witness_start_ns = now_ns();
    util::parallel_for(0, key.num_variables, threads, [z, witness](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) z[i].to_canonical(witness[i].limbs);
    });
    if (on_step) on_step("witness", witness_start_ns, now_ns());
    // h's canonical little-endian limbs are the H-MSM's scalars as they lie.
    const auto* h_scalars = reinterpret_cast<const msm::Scalar*>(h);
    return prove(key, witness, h_scalars, blinding, threads, [&](ProofMsm msm, int64_t start_ns, int64_t end_ns) {
        if (on_step) on_step(phase_name(msm), start_ns, end_ns);
    });
}

template <class Curve, class Fr>
generic::Proof<Curve> prove_partition_on_cpu(const generic::ProvingKey<Curve>& key, const Fr* z, const Fr* a,
                                             const Fr* b, const Fr* c, Fr* h, Fr* scratch, msm::Scalar* witness,
                                             const generic::ProofRandomness<Curve>& blinding, unsigned threads,
                                             const StepTimer& on_step) {
    quotient_on_cpu(key.log_n, key.h_convention, a, b, c, h, scratch, threads, on_step);
    return prove_from_quotient_on_cpu(key, z, h, witness, blinding, threads, on_step);
}

#define ZKB_CPU_PARTITION_INSTANTIATE(Curve)                                                                     \
    template void quotient_on_cpu(uint32_t, HConvention, const Curve::Fr*, const Curve::Fr*, const Curve::Fr*,   \
                                  Curve::Fr*, Curve::Fr*, unsigned, const StepTimer&);                          \
    template generic::Proof<Curve> prove_from_quotient_on_cpu(const generic::ProvingKey<Curve>&, const Curve::Fr*, \
                                                              const Curve::Fr*, msm::Scalar*,                   \
                                                              const generic::ProofRandomness<Curve>&, unsigned, \
                                                              const StepTimer&);                                \
    template generic::Proof<Curve> prove_partition_on_cpu(                                                      \
        const generic::ProvingKey<Curve>&, const Curve::Fr*, const Curve::Fr*, const Curve::Fr*, const Curve::Fr*, \
        Curve::Fr*, Curve::Fr*, msm::Scalar*, const generic::ProofRandomness<Curve>&, unsigned, const StepTimer&);
ZKB_CPU_PARTITION_INSTANTIATE(curve::Bls12_381)
ZKB_CPU_PARTITION_INSTANTIATE(curve::Bn254)
#undef ZKB_CPU_PARTITION_INSTANTIATE

}  // namespace zkbatch::groth16
