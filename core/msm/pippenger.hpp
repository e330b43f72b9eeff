// Multi-scalar multiplication on the CPU: sum_i [s_i] P_i by Pippenger's bucket method.
//
// What a Groth16 prover spends its time on (docs/architecture.md#the-proof: four G1 MSMs and one G2
// MSM per proof), so the cases real witnesses are made of are cheap:
// - a zero scalar, or a base at infinity, costs nothing;
// - a scalar equal to one is added directly (one mixed addition, no bucket work), so a
//   mostly boolean witness costs in proportion to its few full-size values;
// - the rest go through Pippenger with signed c-bit digits (2^(c-1) buckets per window,
//   negative digits add -P), c chosen from their number (pippenger_window_bits). Below
//   2^9 of them the buckets are XYZZ points filled by mixed additions (8M + 2S); from
//   there on they are affine points filled by rounds of affine additions sharing one
//   inversion (5M + 1S each), which measured 1.35-1.8x faster at 2^10..2^13.
// Where the CPU has AVX-512 IFMA, the affine buckets add eight points at a time
// (lane_buckets.hpp) and make the same buckets.
// Work is cut into tasks that depend on n and the scalars only (one per window, plus
// fixed chunks of the ones), run by up to `threads` threads and combined in a fixed
// order, so the result is the same, bit for bit, for every thread count. There are
// about 255/c + 1 windows (17..22 at 2^16..2^20), so more threads than that sit idle.
//
// Written over the group's parameter struct C (ec/point.hpp); instantiated in
// pippenger.cpp for both groups of BLS12-381 and of BN254.
#pragma once

#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/fr.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace zkbatch::msm {

// A scalar in canonical little-endian form, < r (either curve's r is below 2^256).
struct Scalar {
    uint64_t limbs[4];
};

template <class ScalarDescription>
Scalar to_scalar(const ff::MontgomeryField<ScalarDescription>& x) {
    static_assert(ff::MontgomeryField<ScalarDescription>::kLimbs == 4, "scalars are 256-bit");
    Scalar s;
    x.to_canonical(s.limbs);
    return s;
}

// The window width for n scalars that need bucket work (1..16).
unsigned pippenger_window_bits(size_t n);

// How the affine buckets add: on AVX-512 IFMA lanes where msm::lane_arithmetic_enabled(),
// or always by the portable 64-bit arithmetic (tests compare the two, benchmarks time them).
enum class Arithmetic { best_available, portable };

// What best_available runs on this host: "avx512-ifma" or "portable" (cpu-ref reports it
// as the backend fact backend.msm_arithmetic).
std::string_view best_arithmetic_name();

template <class C>
ec::Jacobian<C> pippenger(const ec::Affine<C>* bases, const Scalar* scalars, size_t n, unsigned threads,
                          Arithmetic arithmetic = Arithmetic::best_available);

extern template ec::G1 pippenger<ec::G1Params>(const ec::G1Affine*, const Scalar*, size_t, unsigned, Arithmetic);
extern template ec::G2 pippenger<ec::G2Params>(const ec::G2Affine*, const Scalar*, size_t, unsigned, Arithmetic);
extern template ec::bn254::G1 pippenger<ec::bn254::G1Params>(const ec::bn254::G1Affine*, const Scalar*, size_t,
                                                             unsigned, Arithmetic);
extern template ec::bn254::G2 pippenger<ec::bn254::G2Params>(const ec::bn254::G2Affine*, const Scalar*, size_t,
                                                             unsigned, Arithmetic);

}  // namespace zkbatch::msm
