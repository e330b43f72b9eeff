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
// ptxas fuses into 288 IMAD.WIDE(.X) plus 12 IMAD for the m's (core/cuda/MSM-NOTES.md
// has the SASS counts). As in fr32.hpp, two accumulators alternate roles every round
// so each 64-bit product lands on an aligned register pair (fr32.hpp, mul_reduce_round).
//
// No thirteenth limb is needed anywhere: p < 2^381, so a value of a round stays below
// (a * b_{<=i} + M_{<=i} p) / 2^(32 i) < 2p * 2^32 < 2^414 < 2^416 (13 positions, the
// odd accumulator's top limb being position 12), and sums of two reduced values are
// below 2p < 2^382.
#pragma once

#include <zkbatch/ff/carry_chain.hpp>
#include <zkbatch/util/host_device.hpp>

#include <cstdint>

namespace zkbatch::ff::fp32 {

inline constexpr int kLimbs = 12;

// p in 32-bit limbs, little-endian (fp.hpp's kFpModulus0..5 split in halves; fp.hpp
// static_asserts that they agree).
inline constexpr uint32_t kP0 = 0xffffaaabu, kP1 = 0xb9feffffu, kP2 = 0xb153ffffu, kP3 = 0x1eabfffeu,
                          kP4 = 0xf6b0f624u, kP5 = 0x6730d2a0u, kP6 = 0xf38512bfu, kP7 = 0x64774b84u,
                          kP8 = 0x434bacd7u, kP9 = 0x4b1ba7b6u, kP10 = 0x397fe69au, kP11 = 0x1a0111eau;
// -p^-1 mod 2^32 (the low half of fp.hpp's kFpMontInv).
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

// One CIOS round on two accumulators (fr32.hpp's scheme over 12 limbs): `even` holds
// positions 0..11 and `odd` positions 1..12, so a[j] * bi for even j lands on even's
// aligned pairs (j, j + 1) and for odd j on odd's (j - 1, j). On entry (after the first
// round) `even` is the previous round's odd accumulator, already aligned to position 0,
// and `odd` the previous round's reduced even one, whose limb k sits at position k - 1
// (its limb 0 is zero): its limb 1 goes into even[0], the rest shift down two limbs,
// inside the chain that adds the odd products. After the round,
// value * 2^32 = even + odd * 2^32 with even[0] = 0.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                             const uint32_t a[kLimbs], uint32_t bi, bool first) {
    if (first) {  // both start at zero: the products of one parity are disjoint
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; j += 2) {
            odd[j] = Chain::mul_lo(a[j + 1], bi);
            odd[j + 1] = Chain::mul_hi(a[j + 1], bi);
            even[j] = Chain::mul_lo(a[j], bi);
            even[j + 1] = Chain::mul_hi(a[j], bi);
        }
    } else {
        even[0] = chain.add_cc(even[0], odd[1]);
        ZKB_UNROLL
        for (int j = 0; j < kLimbs - 2; j += 2) {
            odd[j] = chain.madc_lo_cc(a[j + 1], bi, odd[j + 2]);
            odd[j + 1] = chain.madc_hi_cc(a[j + 1], bi, odd[j + 3]);
        }
        odd[kLimbs - 2] = chain.madc_lo_cc(a[kLimbs - 1], bi, 0);
        odd[kLimbs - 1] = chain.madc_hi(a[kLimbs - 1], bi, 0);
        even[0] = chain.mad_lo_cc(a[0], bi, even[0]);
        even[1] = chain.madc_hi_cc(a[0], bi, even[1]);
        ZKB_UNROLL
        for (int j = 2; j < kLimbs; j += 2) {
            even[j] = chain.madc_lo_cc(a[j], bi, even[j]);
            even[j + 1] = chain.madc_hi_cc(a[j], bi, even[j + 1]);
        }
        odd[kLimbs - 1] = chain.addc(odd[kLimbs - 1], 0);  // even's carry out of position 11 is position 12
    }
}

// The round's second half: adds m * p with m = even[0] * -p^-1, which clears even[0]
// (value * 2^32 = even + odd * 2^32 afterwards).
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void reduce_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs]) {
    const uint32_t m = Chain::mul_lo(even[0], kMontInv);
    odd[0] = chain.mad_lo_cc(m, modulus_limb(1), odd[0]);
    odd[1] = chain.madc_hi_cc(m, modulus_limb(1), odd[1]);
    ZKB_UNROLL
    for (int j = 2; j < kLimbs - 2; j += 2) {
        odd[j] = chain.madc_lo_cc(m, modulus_limb(j + 1), odd[j]);
        odd[j + 1] = chain.madc_hi_cc(m, modulus_limb(j + 1), odd[j + 1]);
    }
    odd[kLimbs - 2] = chain.madc_lo_cc(m, modulus_limb(kLimbs - 1), odd[kLimbs - 2]);
    odd[kLimbs - 1] = chain.madc_hi(m, modulus_limb(kLimbs - 1), odd[kLimbs - 1]);  // no carry out: < 2^416
    (void)chain.mad_lo_cc(m, modulus_limb(0), even[0]);  // 0, with the carry of the clearing
    even[1] = chain.madc_hi_cc(m, modulus_limb(0), even[1]);
    ZKB_UNROLL
    for (int j = 2; j < kLimbs; j += 2) {
        even[j] = chain.madc_lo_cc(m, modulus_limb(j), even[j]);
        even[j + 1] = chain.madc_hi_cc(m, modulus_limb(j), even[j + 1]);
    }
    odd[kLimbs - 1] = chain.addc(odd[kLimbs - 1], 0);
    even[0] = 0;
}

// A round of reduction alone (no product to add): add_row's realignment of the previous
// round's accumulators (odd's limb 1 into even[0], the rest two limbs down) without its
// products, so only additions.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void shift_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs]) {
    even[0] = chain.add_cc(even[0], odd[1]);
    ZKB_UNROLL
    for (int j = 0; j < kLimbs - 2; ++j) odd[j] = chain.addc_cc(odd[j + 2], 0);
    odd[kLimbs - 2] = chain.addc(0, 0);
    odd[kLimbs - 1] = 0;
}

// One CIOS round: the product a * bi, then the reduction.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mul_reduce_round(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                      const uint32_t a[kLimbs], uint32_t bi, bool first) {
    add_row(chain, even, odd, a, bi, first);
    reduce_row(chain, even, odd);
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
    // value = second / 2^32 + first, second[0] = 0.
    out[0] = chain.add_cc(first[0], second[1]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(first[j], second[j + 1]);
    out[kLimbs - 1] = chain.addc(first[kLimbs - 1], 0);
}

// out = a * b / 2^384 mod p, fully reduced; a, b < p. `out` may alias a or b.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_mul(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                              uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t t[kLimbs];
    mont_mul_partial<Chain>(a, b, t);
    reduce_once(chain, t, out);
}

// ---- squaring: the product and the reduction apart (SOS) ----------------------------
// CIOS interleaves reduction with the product, so it cannot use a * a's symmetry. A
// square computes the 768-bit a^2 first, with each cross product a_i a_j (i < j) once
// and doubled, 66 + 12 limb products instead of 144, then reduces: the multiply
// instructions of a product go from about 300 to about 234 (core/cuda/MSM-NOTES.md, v3).
inline constexpr int kWideLimbs = 2 * kLimbs;

namespace detail {

// acc += a[j] * m * 2^(32 (shift + j)) for j = first, first + 2, ..., <= last: each
// product lands on its own pair (shift + j, shift + j + 1) of one carry chain, the form
// ptxas fuses into IMAD.WIDE(.X), and the chain's carry goes into acc[shift + last + 2].
// Rows are added from the lowest shift up, so that limb holds at most an earlier row's
// carry and nothing carries further; past the top limb the carry is zero (acc <= a * b
// < 2^768).
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add_products(Chain& chain, uint32_t acc[kWideLimbs], const uint32_t a[kLimbs],
                                                  uint32_t m, int shift, int first, int last) {
    if (first > last) return;
    acc[shift + first] = chain.mad_lo_cc(a[first], m, acc[shift + first]);
    acc[shift + first + 1] = chain.madc_hi_cc(a[first], m, acc[shift + first + 1]);
    ZKB_UNROLL
    for (int j = first + 2; j <= last; j += 2) {
        acc[shift + j] = chain.madc_lo_cc(a[j], m, acc[shift + j]);
        acc[shift + j + 1] = chain.madc_hi_cc(a[j], m, acc[shift + j + 1]);
    }
    if (shift + last + 2 < kWideLimbs) acc[shift + last + 2] = chain.addc(acc[shift + last + 2], 0);
}

}  // namespace detail

// t = a * a, all 768 bits; any 384-bit a.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void sqr_wide(const uint32_t a[kLimbs], uint32_t t[kWideLimbs]) {
    Chain chain;
    uint32_t odd[kWideLimbs];  // the cross products that start at odd positions
    ZKB_UNROLL
    for (int k = 0; k < kWideLimbs; ++k) t[k] = odd[k] = 0;
    // Row i: a_i a_j for j > i; j of i's parity start at even positions (t), the others at
    // odd ones (odd), so within a row each accumulator's pairs are disjoint.
    ZKB_UNROLL
    for (int i = 0; i < kLimbs - 1; ++i) {
        detail::add_products(chain, t, a, a[i], i, i + 2, kLimbs - 2 + (i & 1));
        detail::add_products(chain, odd, a, a[i], i, i + 1, kLimbs - 1 - (i & 1));
    }
    // The cross products' sum (t + odd < a^2 / 2 < 2^767, odd[0] = t[0] = 0), doubled.
    t[1] = chain.add_cc(t[1], odd[1]);
    ZKB_UNROLL
    for (int k = 2; k < kWideLimbs - 1; ++k) t[k] = chain.addc_cc(t[k], odd[k]);
    t[kWideLimbs - 1] = chain.addc(t[kWideLimbs - 1], odd[kWideLimbs - 1]);
    ZKB_UNROLL
    for (int k = kWideLimbs - 1; k > 0; --k) t[k] = (t[k] << 1) | (t[k - 1] >> 31);
    t[0] <<= 1;
    // Plus the squares a_i^2 on the even pairs.
    t[0] = chain.mad_lo_cc(a[0], a[0], t[0]);
    t[1] = chain.madc_hi_cc(a[0], a[0], t[1]);
    ZKB_UNROLL
    for (int i = 1; i < kLimbs - 1; ++i) {
        t[2 * i] = chain.madc_lo_cc(a[i], a[i], t[2 * i]);
        t[2 * i + 1] = chain.madc_hi_cc(a[i], a[i], t[2 * i + 1]);
    }
    t[kWideLimbs - 2] = chain.madc_lo_cc(a[kLimbs - 1], a[kLimbs - 1], t[kWideLimbs - 2]);
    t[kWideLimbs - 1] = chain.madc_hi(a[kLimbs - 1], a[kLimbs - 1], t[kWideLimbs - 1]);
}

// out = t / 2^384 mod p for t < p * 2^384, fully reduced. Montgomery's reduction of t
// is t_hi + (t_lo + M p) / 2^384 with M fixed by t_lo alone: mont_mul_partial's rounds
// with t_lo in place of the products (shift_row, reduce_row), at most p, so the sum
// with t_hi (< p) is below 2p.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_reduce(const uint32_t t[kWideLimbs], uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t first[kLimbs], second[kLimbs];
    ZKB_UNROLL
    for (int k = 0; k < kLimbs; ++k) first[k] = t[k], second[k] = 0;
    detail::reduce_row(chain, first, second);
    detail::shift_row(chain, second, first);
    detail::reduce_row(chain, second, first);
    ZKB_UNROLL
    for (int i = 2; i < kLimbs; i += 2) {
        detail::shift_row(chain, first, second);
        detail::reduce_row(chain, first, second);
        detail::shift_row(chain, second, first);
        detail::reduce_row(chain, second, first);
    }
    uint32_t sum[kLimbs];  // second / 2^32 + first, as in mont_mul_partial
    sum[0] = chain.add_cc(first[0], second[1]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) sum[j] = chain.addc_cc(first[j], second[j + 1]);
    sum[kLimbs - 1] = chain.addc(first[kLimbs - 1], 0);
    sum[0] = chain.add_cc(sum[0], t[kLimbs]);
    ZKB_UNROLL
    for (int k = 1; k < kLimbs - 1; ++k) sum[k] = chain.addc_cc(sum[k], t[kLimbs + k]);
    sum[kLimbs - 1] = chain.addc(sum[kLimbs - 1], t[kWideLimbs - 1]);
    reduce_once(chain, sum, out);
}

// out = a * a / 2^384 mod p, fully reduced; a < p. `out` may alias a.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_sqr(const uint32_t a[kLimbs], uint32_t out[kLimbs]) {
    uint32_t t[kWideLimbs];
    sqr_wide<Chain>(a, t);
    mont_reduce<Chain>(t, out);
}

// ---- Fp2's product with two reductions instead of three ---------------------------
// Karatsuba over Fp2 = Fp[u]/(u^2 + 1) needs three Fp products; kept in 768 bits, the
// two coordinates' combinations of them are reduced once each (lazy reduction): 3 x 144
// limb products and 2 reductions instead of 3 x (144 + 144).

// p^2, 24 limbs little-endian: added before subtracting a product of reduced values
// (< p^2), so the difference stays non-negative and its residue unchanged.
ZKB_HOST_DEVICE constexpr uint32_t modulus_squared_limb(int k) {
    constexpr uint32_t kModulusSquared[kWideLimbs] = {
        0x1c718e39u, 0x26aa0000u, 0x76382eabu, 0x7ced6b1du, 0x62113cfdu, 0x162c3383u, 0x3e71b743u, 0x66bf91edu,
        0x7091a049u, 0x292e85a8u, 0x86185c7bu, 0x1d68619cu, 0x0978ef01u, 0xf5314933u, 0x16ddca6eu, 0x50a62cfdu,
        0x349e8bd0u, 0x66e59e49u, 0x0e7046b4u, 0xe2dc90e5u, 0xa22f25e9u, 0x4bd278eau, 0xb8c35fc7u, 0x02a437a4u};
    return kModulusSquared[k];
}

// t = a * b, all 768 bits; any 384-bit a and b.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mul_wide(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                              uint32_t t[kWideLimbs]) {
    Chain chain;
    uint32_t odd[kWideLimbs];  // the products that start at odd positions, as in sqr_wide
    ZKB_UNROLL
    for (int k = 0; k < kWideLimbs; ++k) t[k] = odd[k] = 0;
    ZKB_UNROLL
    for (int i = 0; i < kLimbs; ++i) {  // row i: a_j b_i with j of i's parity in t
        detail::add_products(chain, t, a, b[i], i, i & 1, kLimbs - 2 + (i & 1));
        detail::add_products(chain, odd, a, b[i], i, 1 - (i & 1), kLimbs - 1 - (i & 1));
    }
    t[1] = chain.add_cc(t[1], odd[1]);  // odd[0] = 0
    ZKB_UNROLL
    for (int k = 2; k < kWideLimbs - 1; ++k) t[k] = chain.addc_cc(t[k], odd[k]);
    t[kWideLimbs - 1] = chain.addc(t[kWideLimbs - 1], odd[kWideLimbs - 1]);
}

namespace detail {

// acc -= v over 768 bits (the caller knows the difference is non-negative).
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void sub_wide(Chain& chain, uint32_t acc[kWideLimbs], const uint32_t v[kWideLimbs]) {
    acc[0] = chain.sub_cc(acc[0], v[0]);
    ZKB_UNROLL
    for (int k = 1; k < kWideLimbs - 1; ++k) acc[k] = chain.subc_cc(acc[k], v[k]);
    acc[kWideLimbs - 1] = chain.subc(acc[kWideLimbs - 1], v[kWideLimbs - 1]);
}

}  // namespace detail

// (c0 + c1 u) = (a0 + a1 u)(b0 + b1 u) / 2^384 mod p, fully reduced; all inputs < p.
// c0 = a0 b0 - a1 b1 + p^2 and c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 = a0 b1 + a1 b0
// are both below 2p^2 < p 2^384, what mont_reduce takes. Outputs may alias inputs.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void fp2_mont_mul(const uint32_t a0[kLimbs], const uint32_t a1[kLimbs],
                                                  const uint32_t b0[kLimbs], const uint32_t b1[kLimbs],
                                                  uint32_t c0[kLimbs], uint32_t c1[kLimbs]) {
    Chain chain;
    uint32_t sum_a[kLimbs], sum_b[kLimbs];  // below 2p < 2^382: no reduction needed
    sum_a[0] = chain.add_cc(a0[0], a1[0]);
    ZKB_UNROLL
    for (int k = 1; k < kLimbs - 1; ++k) sum_a[k] = chain.addc_cc(a0[k], a1[k]);
    sum_a[kLimbs - 1] = chain.addc(a0[kLimbs - 1], a1[kLimbs - 1]);
    sum_b[0] = chain.add_cc(b0[0], b1[0]);
    ZKB_UNROLL
    for (int k = 1; k < kLimbs - 1; ++k) sum_b[k] = chain.addc_cc(b0[k], b1[k]);
    sum_b[kLimbs - 1] = chain.addc(b0[kLimbs - 1], b1[kLimbs - 1]);
    uint32_t cross[kWideLimbs], low[kWideLimbs], high[kWideLimbs];
    mul_wide<Chain>(sum_a, sum_b, cross);
    mul_wide<Chain>(a0, b0, low);
    detail::sub_wide(chain, cross, low);
    mul_wide<Chain>(a1, b1, high);
    detail::sub_wide(chain, cross, high);
    low[0] = chain.add_cc(low[0], modulus_squared_limb(0));
    ZKB_UNROLL
    for (int k = 1; k < kWideLimbs - 1; ++k) low[k] = chain.addc_cc(low[k], modulus_squared_limb(k));
    low[kWideLimbs - 1] = chain.addc(low[kWideLimbs - 1], modulus_squared_limb(kWideLimbs - 1));
    detail::sub_wide(chain, low, high);
    mont_reduce<Chain>(low, c0);
    mont_reduce<Chain>(cross, c1);
}

// out = a + b mod p; a, b < p, so a + b < 2p < 2^384 needs no thirteenth limb.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add(const uint32_t a[kLimbs], const uint32_t b[kLimbs], uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t s[kLimbs];
    s[0] = chain.add_cc(a[0], b[0]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) s[j] = chain.addc_cc(a[j], b[j]);
    s[kLimbs - 1] = chain.addc(a[kLimbs - 1], b[kLimbs - 1]);
    reduce_once(chain, s, out);
}

// out = a - b mod p; a, b < p: a - b, plus p when that borrows.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void sub(const uint32_t a[kLimbs], const uint32_t b[kLimbs], uint32_t out[kLimbs]) {
    Chain chain;
    uint32_t d[kLimbs];
    d[0] = chain.sub_cc(a[0], b[0]);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs; ++j) d[j] = chain.subc_cc(a[j], b[j]);
    const uint32_t add_back = chain.subc(0, 0);  // all ones when a < b
    out[0] = chain.add_cc(d[0], modulus_limb(0) & add_back);
    ZKB_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(d[j], modulus_limb(j) & add_back);
    out[kLimbs - 1] = chain.addc(d[kLimbs - 1], modulus_limb(kLimbs - 1) & add_back);
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

}  // namespace zkbatch::ff::fp32
