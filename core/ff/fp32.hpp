// Fp arithmetic over twelve 32-bit limbs, the form the GPU's integer pipeline works in.
//
// fp.hpp's 64-bit limbs cost a GPU four 32-bit multiplies per limb product plus
// compare-and-add carries; here every step is one PTX carry-chain instruction
// (carry_chain.hpp), as fr32.hpp does for Fr. The algorithm is a template over the
// chain: `PtxChain` emits the instructions on the device and `HostChain` models them on
// the host, so tests run the very instruction sequence the GPU runs against fp.hpp's
// 64-bit code and GMP. Fp's device paths (mont_mul, +, -) dispatch here, so every
// Fp2 and curve formula of the shared headers runs on it.
//
// Montgomery multiplication (CIOS) with R = 2^384 as in fp.hpp: the same bits. Unlike
// r, p's low limbs have no shape to exploit, so a round is 12 products a_j * b_i, the
// factor m = t_0 * (-p^-1 mod 2^32) and 12 products m * p_j: 49 multiply instructions
// (lo and hi halves counted apart: 2 * 12 + 1 + 2 * 12), 588 per product in PTX, which
// ptxas fuses into 288 wide multiply-adds (IMAD.WIDE, a few m * p_j left as IMAD.X +
// IMAD.HI pairs) plus 12 IMAD for the m's (docs/msm.md#the-field-product has the SASS
// counts). As in fr32.hpp, two accumulators alternate roles every round
// so each 64-bit product lands on an aligned register pair (fr32.hpp, mul_reduce_round).
//
// No thirteenth limb is needed anywhere: p < 2^381, so a value of a round stays below
// (a * b_{<=i} + M_{<=i} p) / 2^(32 i) < 2p * 2^32 < 2^414 < 2^416 (13 positions, the
// odd accumulator's top limb being position 12), and sums of two reduced values are
// below 2p < 2^382.
#pragma once

#include "core/ff/carry_chain.hpp"
#include "core/util/host_device.hpp"

#include <cstdint>

namespace zkbatch::ff::fp32 {

inline constexpr int kLimbs = 12;

// p in 32-bit limbs, little-endian (the halves of fp.hpp's; it static_asserts that they
// agree).
inline constexpr uint32_t kP0 = 0xffffaaabu, kP1 = 0xb9feffffu, kP2 = 0xb153ffffu, kP3 = 0x1eabfffeu,
                          kP4 = 0xf6b0f624u, kP5 = 0x6730d2a0u, kP6 = 0xf38512bfu, kP7 = 0x64774b84u,
                          kP8 = 0x434bacd7u, kP9 = 0x4b1ba7b6u, kP10 = 0x397fe69au, kP11 = 0x1a0111eau;
// -p^-1 mod 2^32 (the low half of fp.hpp's Fp::kMontInv).
inline constexpr uint32_t kMontInv = 0xfffcfffdu;
static_assert(uint32_t(kP0 * kMontInv) == 0xffffffffu, "kMontInv must be -p^-1 mod 2^32");
static_assert(kP11 < (1u << 29), "p < 2^381: sums of two reduced values need no thirteenth limb");

// p's limbs by index (a function, so device code can index it; after unrolling, an
// immediate).
ZKB_HOST_DEVICE constexpr uint32_t modulus_limb(int j) {
    constexpr uint32_t kModulus[kLimbs] = {kP0, kP1, kP2, kP3, kP4, kP5, kP6, kP7, kP8, kP9, kP10, kP11};
    return kModulus[j];
}

// out = v - p if v >= p, else v (v < 2p). `out` may alias v.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void reduce_once(Chain& chain, const uint32_t v[kLimbs], uint32_t out[kLimbs]) {
    uint32_t d[kLimbs];
    d[0] = chain.sub_cc(v[0], modulus_limb(0));
    ZKB_UNROLL
    for (int j = 1; j < kLimbs; ++j) d[j] = chain.subc_cc(v[j], modulus_limb(j));
    const uint32_t keep = chain.subc(0, 0);  // all ones when v < p (the subtraction borrowed)
    ZKB_UNROLL
    for (int j = 0; j < kLimbs; ++j) out[j] = (v[j] & keep) | (d[j] & ~keep);
}

namespace detail {

// The rows of the products below, on two accumulators (fr32.hpp's scheme over 12 limbs):
// `even` holds positions 0..11 and `odd` positions 1..12, so v[j] * x for even j lands
// on even's aligned pairs (j, j + 1) and for odd j on odd's (j - 1, j), and ptxas fuses
// each lo/hi pair into one IMAD.WIDE. A value is even + odd * 2^32.
//
// A row that divides by 2^32 as it goes (the next position becomes position 0) swaps
// the roles: the new `even` is the old `odd`, already aligned to position 0, and the new
// `odd` the old `even`, whose limb k sits at position k - 1 and whose limb 0 has left (it
// is zero, or a product's finished limb). Its limb 1 goes into even[0] (merge_row), the
// rest shift down two limbs inside the chain that adds the odd products (shifted_row).

// v[j] * x into fresh accumulators.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void first_row(uint32_t even[kLimbs], uint32_t odd[kLimbs], const uint32_t v[kLimbs],
                                               uint32_t x) {
    ZKB_UNROLL
    for (int j = 0; j < kLimbs; j += 2) {
        odd[j] = Chain::mul_lo(v[j + 1], x);
        odd[j + 1] = Chain::mul_hi(v[j + 1], x);
        even[j] = Chain::mul_lo(v[j], x);
        even[j + 1] = Chain::mul_hi(v[j], x);
    }
}

// even[0] += the old even's limb 1; its carry stays in the chain for shifted_row.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void merge_row(Chain& chain, uint32_t even[kLimbs], const uint32_t odd[kLimbs]) {
    even[0] = chain.add_cc(even[0], odd[1]);
}

// After merge_row: v * x added with the old even's limbs 2..11 shifted down two.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void shifted_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                 const uint32_t v[kLimbs], uint32_t x) {
    ZKB_UNROLL
    for (int j = 0; j < kLimbs - 2; j += 2) {
        odd[j] = chain.madc_lo_cc(v[j + 1], x, odd[j + 2]);
        odd[j + 1] = chain.madc_hi_cc(v[j + 1], x, odd[j + 3]);
    }
    odd[kLimbs - 2] = chain.madc_lo_cc(v[kLimbs - 1], x, 0);
    odd[kLimbs - 1] = chain.madc_hi(v[kLimbs - 1], x, 0);
    even[0] = chain.mad_lo_cc(v[0], x, even[0]);
    even[1] = chain.madc_hi_cc(v[0], x, even[1]);
    ZKB_UNROLL
    for (int j = 2; j < kLimbs; j += 2) {
        even[j] = chain.madc_lo_cc(v[j], x, even[j]);
        even[j + 1] = chain.madc_hi_cc(v[j], x, even[j + 1]);
    }
    odd[kLimbs - 1] = chain.addc(odd[kLimbs - 1], 0);  // even's carry out of position 11 is position 12
}

// v * x added in place. The caller's bound keeps the value below 2^416 (no carry out of
// position 12).
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void in_place_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                  const uint32_t v[kLimbs], uint32_t x) {
    odd[0] = chain.mad_lo_cc(x, v[1], odd[0]);
    odd[1] = chain.madc_hi_cc(x, v[1], odd[1]);
    ZKB_UNROLL
    for (int j = 2; j < kLimbs - 2; j += 2) {
        odd[j] = chain.madc_lo_cc(x, v[j + 1], odd[j]);
        odd[j + 1] = chain.madc_hi_cc(x, v[j + 1], odd[j + 1]);
    }
    odd[kLimbs - 2] = chain.madc_lo_cc(x, v[kLimbs - 1], odd[kLimbs - 2]);
    odd[kLimbs - 1] = chain.madc_hi(x, v[kLimbs - 1], odd[kLimbs - 1]);
    even[0] = chain.mad_lo_cc(x, v[0], even[0]);
    even[1] = chain.madc_hi_cc(x, v[0], even[1]);
    ZKB_UNROLL
    for (int j = 2; j < kLimbs; j += 2) {
        even[j] = chain.madc_lo_cc(x, v[j], even[j]);
        even[j + 1] = chain.madc_hi_cc(x, v[j], even[j + 1]);
    }
    odd[kLimbs - 1] = chain.addc(odd[kLimbs - 1], 0);
}

// p's limbs as an array, for the rows (immediates after unrolling).
struct Modulus {
    uint32_t limbs[kLimbs];
    ZKB_HOST_DEVICE constexpr Modulus() : limbs{} {
        for (int j = 0; j < kLimbs; ++j) limbs[j] = modulus_limb(j);
    }
};

// Adds m * p with m = even[0] * -p^-1, which clears even[0].
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void reduce_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs]) {
    constexpr Modulus kModulus;
    const uint32_t m = Chain::mul_lo(even[0], kMontInv);
    in_place_row(chain, even, odd, kModulus.limbs, m);
    even[0] = 0;
}

// a * bi added: into fresh accumulators on the first row, else dividing by 2^32.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void product_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                 const uint32_t a[kLimbs], uint32_t bi, bool first) {
    if (first) {  // both start at zero: the products of one parity are disjoint
        first_row<Chain>(even, odd, a, bi);
    } else {
        merge_row(chain, even, odd);
        shifted_row(chain, even, odd, a, bi);
    }
}

// One CIOS round: a * bi, then m * p. After the round, value * 2^32 = even + odd * 2^32
// with even[0] = 0.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mul_reduce_round(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                      const uint32_t a[kLimbs], uint32_t bi, bool first) {
    product_row(chain, even, odd, a, bi, first);
    reduce_row(chain, even, odd);
}

// out = first + second / 2^32, second's limb 0 having left: what the accumulators hold
// after the last row, in 12 limbs (the caller's bound keeps it below 2^384).
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void fold_accumulators(Chain& chain, const uint32_t first[kLimbs],
                                                       const uint32_t second[kLimbs], uint32_t out[kLimbs]) {
    out[0] = chain.add_cc(first[0], second[1]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(first[j], second[j + 1]);
    out[kLimbs - 1] = chain.addc(first[kLimbs - 1], 0);
}

}  // namespace detail

// out = a * b / 2^384 mod p, only partly reduced: out < 2p for a < p and any 384-bit b
// (the value at the end is below a * b / 2^384 + p < 2p). `out` may alias a or b.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_mul_partial(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                      uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t first[kLimbs], second[kLimbs];
    ZKB_UNROLL
    for (int i = 0; i < kLimbs; i += 2) {
        detail::mul_reduce_round(chain, first, second, a, b[i], i == 0);
        detail::mul_reduce_round(chain, second, first, a, b[i + 1], false);
    }
    detail::fold_accumulators(chain, first, second, out);  // value = second / 2^32 + first, second[0] = 0
}

// out = a * b / 2^384 mod p, fully reduced; a, b < 2p (so either may be an unreduced
// sum, add_unreduced): every round stays below (a + p) 2^32 < 3p 2^32 < 2^416, and
// mont_mul_partial's value below a b / 2^384 + p < 4p^2 / 2^384 + p < 2p, which
// reduce_once brings below p. `out` may alias a or b.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_mul(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                              uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t t[kLimbs];
    mont_mul_partial<Chain>(a, b, t);
    reduce_once(chain, t, out);
}

// out = (a b - c d) / 2^384 mod p, fully reduced, for a, b, c, d < p: both products in
// one CIOS pass, so one reduction where a * b - c * d takes two (12 * 12 fewer multiplies
// and 12 fewer m's, 444 against 600). -c d is (p - c) d. Every round stays below
// (a + p - c + p) 2^32 < 3p 2^32 < 2^416; the end value below 2p^2 / 2^384 + p < 2p.
// `out` may alias any input. For the curves' Y3 = r (q - X3) - s t.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void product_difference(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                        const uint32_t c[kLimbs], const uint32_t d[kLimbs],
                                                        uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t negated[kLimbs];  // p - c, in (0, p]
    negated[0] = chain.sub_cc(modulus_limb(0), c[0]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) negated[j] = chain.subc_cc(modulus_limb(j), c[j]);
    negated[kLimbs - 1] = chain.subc(modulus_limb(kLimbs - 1), c[kLimbs - 1]);
    uint32_t first[kLimbs], second[kLimbs];
    ZKB_UNROLL
    for (int i = 0; i < kLimbs; i += 2) {
        detail::product_row(chain, first, second, a, b[i], i == 0);
        detail::in_place_row(chain, first, second, negated, d[i]);
        detail::reduce_row(chain, first, second);
        detail::product_row(chain, second, first, a, b[i + 1], false);
        detail::in_place_row(chain, second, first, negated, d[i + 1]);
        detail::reduce_row(chain, second, first);
    }
    uint32_t t[kLimbs];
    detail::fold_accumulators(chain, first, second, t);
    reduce_once(chain, t, out);
}

// out = a + b, not reduced: below 2p for a, b < p (no thirteenth limb: 2p < 2^384). For
// a sum whose only use is a factor of mont_mul, which takes it as it is.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add_unreduced(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                   uint32_t out[kLimbs]) {
    Chain chain;
    out[0] = chain.add_cc(a[0], b[0]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(a[j], b[j]);
    out[kLimbs - 1] = chain.addc(a[kLimbs - 1], b[kLimbs - 1]);
}

// out = a + b mod p; a, b < p.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add(const uint32_t a[kLimbs], const uint32_t b[kLimbs], uint32_t out[kLimbs]) {
    uint32_t s[kLimbs];
    add_unreduced<Chain>(a, b, s);
    Chain chain;
    reduce_once(chain, s, out);
}

namespace detail {

// out = v + (p & mask): p added back where a subtraction borrowed (mask all ones), or
// nothing (mask zero); the carry out is dropped. `out` may alias v.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add_masked_modulus(Chain& chain, const uint32_t v[kLimbs], uint32_t mask,
                                                        uint32_t out[kLimbs]) {
    out[0] = chain.add_cc(v[0], modulus_limb(0) & mask);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(v[j], modulus_limb(j) & mask);
    out[kLimbs - 1] = chain.addc(v[kLimbs - 1], modulus_limb(kLimbs - 1) & mask);
}

}  // namespace detail

// out = a - b mod p; a, b < p: a - b, plus p when that borrows.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void sub(const uint32_t a[kLimbs], const uint32_t b[kLimbs], uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t d[kLimbs];
    d[0] = chain.sub_cc(a[0], b[0]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs; ++j) d[j] = chain.subc_cc(a[j], b[j]);
    const uint32_t add_back = chain.subc(0, 0);  // all ones when a < b
    detail::add_masked_modulus(chain, d, add_back, out);
}

// ---- Products reduced later (lazy reduction) --------------------------------------
// A Montgomery product spends half its multiplies on the reduction (m * p). Where
// products are added before they are used, as in Fp2's c0 = a0 b0 - a1 b1, the sum can
// be reduced once: Fp2's product then costs three 768-bit products and two reductions,
// 3 * 144 + 2 * 156 = 744 multiply instructions against Karatsuba over mont_mul's 900.

// wide = a * b, 24 limbs (low limbs first); a, b < 2^384. The rows of mont_mul_partial
// without the reduction: each round's finished limb leaves as limb i of the product.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mul_wide(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                              uint32_t wide[2 * kLimbs]) {
    Chain chain;
    uint32_t first[kLimbs], second[kLimbs];
    ZKB_UNROLL
    for (int i = 0; i < kLimbs; i += 2) {
        detail::product_row(chain, first, second, a, b[i], i == 0);
        wide[i] = first[0];
        detail::product_row(chain, second, first, a, b[i + 1], false);
        wide[i + 1] = second[0];
    }
    detail::fold_accumulators(chain, first, second, wide + kLimbs);  // below 2^384: a b < 2^768
}

// out = wide / 2^384 mod p, fully reduced, for wide < p 2^384 (Montgomery's REDC). The
// low half reduced alone, (low + m p) / 2^384 with m = -low p^-1 mod 2^384, is at most p;
// the high half, below p, is added after: below 2p, which reduce_once brings below p.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void reduce_wide(const uint32_t wide[2 * kLimbs], uint32_t out[kLimbs]) {
    constexpr detail::Modulus kModulus;
    Chain chain;
    uint32_t first[kLimbs], second[kLimbs];
    ZKB_UNROLL
    for (int j = 0; j < kLimbs; ++j) {
        first[j] = wide[j];
        second[j] = 0;
    }
    ZKB_UNROLL
    for (int i = 0; i < kLimbs; i += 2) {
        if (i == 0) {
            detail::reduce_row(chain, first, second);
        } else {
            detail::merge_row(chain, first, second);
            detail::shifted_row(chain, first, second, kModulus.limbs, Chain::mul_lo(first[0], kMontInv));
        }
        detail::merge_row(chain, second, first);
        detail::shifted_row(chain, second, first, kModulus.limbs, Chain::mul_lo(second[0], kMontInv));
    }
    uint32_t low[kLimbs];
    detail::fold_accumulators(chain, first, second, low);
    uint32_t sum[kLimbs];
    add_unreduced<Chain>(low, wide + kLimbs, sum);
    reduce_once(chain, sum, out);
}

namespace detail {

// wide -= other (24 limbs); returns all ones when it borrowed.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE uint32_t sub_wide(Chain& chain, uint32_t wide[2 * kLimbs],
                                                  const uint32_t other[2 * kLimbs]) {
    wide[0] = chain.sub_cc(wide[0], other[0]);
    ZKB_UNROLL
    for (int j = 1; j < 2 * kLimbs; ++j) wide[j] = chain.subc_cc(wide[j], other[j]);
    return chain.subc(0, 0);
}

}  // namespace detail

// (c0 + c1 u) = (a0 + a1 u)(b0 + b1 u) in Fp2 = Fp[u]/(u^2 + 1), Montgomery forms, inputs
// below p, outputs fully reduced: the bits of Karatsuba over mont_mul. With t = a0 b0 and
// s = a1 b1: c1 from (a0 + a1)(b0 + b1) - t - s = a0 b1 + a1 b0 < 2p^2, c0 from t - s
// plus p 2^384 when that is negative (so below p 2^384). The cross product comes first
// and t and s are taken off it as they come: at most three 768-bit values live at once.
// Outputs may alias inputs.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void fp2_mul(const uint32_t a0[kLimbs], const uint32_t a1[kLimbs],
                                             const uint32_t b0[kLimbs], const uint32_t b1[kLimbs],
                                             uint32_t c0[kLimbs], uint32_t c1[kLimbs]) {
    constexpr int kWide = 2 * kLimbs;
    uint32_t cross[kWide], t[kWide], s[kWide];
    {
        uint32_t a_sum[kLimbs], b_sum[kLimbs];  // below 2p
        add_unreduced<Chain>(a0, a1, a_sum);
        add_unreduced<Chain>(b0, b1, b_sum);
        mul_wide<Chain>(a_sum, b_sum, cross);
    }
    mul_wide<Chain>(a0, b0, t);
    Chain chain;
    (void)detail::sub_wide(chain, cross, t);
    mul_wide<Chain>(a1, b1, s);
    (void)detail::sub_wide(chain, cross, s);
    const uint32_t add_back = detail::sub_wide(chain, t, s);  // t - s, all ones when negative
    detail::add_masked_modulus(chain, t + kLimbs, add_back, t + kLimbs);  // p 2^384
    reduce_wide<Chain>(t, c0);
    reduce_wide<Chain>(cross, c1);
}

// fp.hpp's six 64-bit limbs <-> twelve 32-bit limbs (register moves on the device).
ZKB_HOST_DEVICE ZKB_FORCEINLINE void split(const uint64_t in[6], uint32_t out[kLimbs]) {
    ZKB_UNROLL
    for (int i = 0; i < 6; ++i) {
        out[2 * i] = static_cast<uint32_t>(in[i]);
        out[2 * i + 1] = static_cast<uint32_t>(in[i] >> 32);
    }
}
ZKB_HOST_DEVICE ZKB_FORCEINLINE void join(const uint32_t in[kLimbs], uint64_t out[6]) {
    ZKB_UNROLL
    for (int i = 0; i < 6; ++i) out[i] = (uint64_t{in[2 * i + 1]} << 32) | in[2 * i];
}

// Fp's arithmetic on the device, which fp.hpp's description names (F is Fp): its 64-bit
// limbs split into these and joined back (register moves). Beside add, sub and mont_mul,
// the lazy products of montgomery_field.hpp: Karatsuba's sums left unreduced (below 2p,
// which mont_mul takes), a reduction fewer each, and a b - c d with one reduction.
struct DeviceArithmetic {
#if defined(__CUDA_ARCH__)
    template <class F>
    __device__ static ZKB_FORCEINLINE F add(const F& x, const F& y) {
        return apply<fp32::add<PtxChain>>(x, y);
    }
    template <class F>
    __device__ static ZKB_FORCEINLINE F sub(const F& x, const F& y) {
        return apply<fp32::sub<PtxChain>>(x, y);
    }
    template <class F>
    __device__ static ZKB_FORCEINLINE F mont_mul(const F& x, const F& y) {
        return apply<fp32::mont_mul<PtxChain>>(x, y);
    }
    // (a0 + a1) b
    template <class F>
    __device__ static ZKB_FORCEINLINE F sum_times(const F& a0, const F& a1, const F& b) {
        uint32_t sum[kLimbs], factor[kLimbs];
        unreduced_sum(a0, a1, sum);
        split(b.limbs, factor);
        return product<F>(sum, factor);
    }
    // (a0 + a1)(b0 + b1)
    template <class F>
    __device__ static ZKB_FORCEINLINE F sum_times_sum(const F& a0, const F& a1, const F& b0, const F& b1) {
        uint32_t first[kLimbs], second[kLimbs];
        unreduced_sum(a0, a1, first);
        unreduced_sum(b0, b1, second);
        return product<F>(first, second);
    }
    // a b - c d
    template <class F>
    __device__ static ZKB_FORCEINLINE F product_difference(const F& a, const F& b, const F& c, const F& d) {
        uint32_t x[kLimbs], y[kLimbs], z[kLimbs], w[kLimbs];
        split(a.limbs, x);
        split(b.limbs, y);
        split(c.limbs, z);
        split(d.limbs, w);
        fp32::product_difference<PtxChain>(x, y, z, w, x);
        F result;
        join(x, result.limbs);
        return result;
    }

private:
    template <void (*kOp)(const uint32_t*, const uint32_t*, uint32_t*), class F>
    __device__ static ZKB_FORCEINLINE F apply(const F& x, const F& y) {
        uint32_t a[kLimbs], b[kLimbs], out[kLimbs];
        split(x.limbs, a);
        split(y.limbs, b);
        kOp(a, b, out);
        F result;
        join(out, result.limbs);
        return result;
    }
    // a0 + a1 in 32-bit limbs, unreduced (below 2p).
    template <class F>
    __device__ static ZKB_FORCEINLINE void unreduced_sum(const F& a0, const F& a1, uint32_t sum[kLimbs]) {
        uint32_t a[kLimbs], b[kLimbs];
        split(a0.limbs, a);
        split(a1.limbs, b);
        add_unreduced<PtxChain>(a, b, sum);
    }
    // x y / R mod p, reduced, for x, y < 2p.
    template <class F>
    __device__ static ZKB_FORCEINLINE F product(const uint32_t x[kLimbs], const uint32_t y[kLimbs]) {
        uint32_t out[kLimbs];
        fp32::mont_mul<PtxChain>(x, y, out);
        F result;
        join(out, result.limbs);
        return result;
    }
#endif
};

}  // namespace zkbatch::ff::fp32
