// Fr arithmetic over eight 32-bit limbs, the form the GPU's integer pipeline works in.
//
// A GPU multiplies 32x32 bits per instruction (IMAD), so fr.hpp's 64-bit limbs cost it
// extra instructions per product plus compare-and-add carries. Here every step is one
// PTX carry-chain instruction (mad.lo.cc, madc.hi.cc, addc.cc, ...). The algorithm is a
// template over the chain: `PtxChain` emits the instructions on the device, and
// `HostChain` models them exactly (a carry flag in a variable) so the host tests run the
// very instruction sequence the GPU runs, against fr.hpp's 64-bit code and GMP.
//
// Montgomery multiplication (CIOS, R = 2^256 as in fr.hpp, so results are the same
// bits) uses the shape of r's two low limbs, r0 = 1 and r1 = 2^32 - 1: with
// -r^-1 = 2^32 - 1 (mod 2^32), the reduction factor of a round is m = -u for u = the
// lowest limb, and m * (r1:r0) = (~u:u) << 32 | (-u) whenever u != 0 (all zero when
// u = 0). So those two limbs cost adds instead of 4 IMADs and m costs a negation:
// 28 IMADs per round instead of 33, 224 instead of 264 per product
// (docs/ntt.md#32-bit-carry-chains has the measurements).
#pragma once

#include "core/ff/carry_chain.hpp"
#include "core/util/host_device.hpp"

#include <cstdint>

namespace zkbatch::ff::fr32 {

// r in 32-bit limbs, little-endian (the halves of fr.hpp's; it static_asserts that they agree).
inline constexpr uint32_t kP0 = 0x00000001u, kP1 = 0xffffffffu, kP2 = 0xfffe5bfeu, kP3 = 0x53bda402u,
                          kP4 = 0x09a1d805u, kP5 = 0x3339d808u, kP6 = 0x299d7d48u, kP7 = 0x73eda753u;

// r's limbs by index, and those of 2r: 2r < 2^256 still fits eight limbs (the partly
// reduced values of the NTT passes are below it).
ZKB_HOST_DEVICE constexpr uint32_t modulus_limb(int j) {
    constexpr uint32_t kLimbs[8] = {kP0, kP1, kP2, kP3, kP4, kP5, kP6, kP7};
    return kLimbs[j];
}
ZKB_HOST_DEVICE constexpr uint32_t twice_modulus_limb(int j) {
    return (modulus_limb(j) << 1) | (j == 0 ? 0u : modulus_limb(j - 1) >> 31);
}
static_assert((kP7 >> 31) == 0, "2r must fit in 256 bits");

// The carry-chain instructions (carry_chain.hpp), under the names this file's users know.
using HostChain = ff::HostChain;
#if defined(__CUDA_ARCH__)
using PtxChain = ff::PtxChain;
#endif
using NativeChain = ff::NativeChain;

// out = v - r if v >= r, else v (v < 2r).
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void reduce_once(Chain& chain, const uint32_t v[8], uint32_t out[8]) {
    uint32_t d[8];
    d[0] = chain.sub_cc(v[0], kP0);
    d[1] = chain.subc_cc(v[1], kP1);
    d[2] = chain.subc_cc(v[2], kP2);
    d[3] = chain.subc_cc(v[3], kP3);
    d[4] = chain.subc_cc(v[4], kP4);
    d[5] = chain.subc_cc(v[5], kP5);
    d[6] = chain.subc_cc(v[6], kP6);
    d[7] = chain.subc_cc(v[7], kP7);
    const uint32_t keep = chain.subc(0, 0);  // all ones when v < r (the subtraction borrowed)
    ZKB_UNROLL
    for (int j = 0; j < 8; ++j) out[j] = (v[j] & keep) | (d[j] & ~keep);
}

namespace detail {

// One CIOS round on two accumulators: `even` holds limbs at positions 0..7 and `odd`
// at positions 1..8, so the 64-bit products a[j] * bi of even j land on even's aligned
// limb pairs and those of odd j on odd's (ptxas needs aligned register pairs for its
// wide multiply-add; one shifting accumulator cost a register move per limb).
// After the round, value * 2^32 = even + odd * 2^32 with even[0] = 0; mont_mul then
// swaps the roles for the next round.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mul_reduce_round(Chain& chain, uint32_t even[8], uint32_t odd[8],
                                                      const uint32_t a[8], uint32_t bi, bool first) {
    if (first) {  // both start at zero: the products of one parity are disjoint
        ZKB_UNROLL
        for (int j = 0; j < 8; j += 2) {
            odd[j] = Chain::mul_lo(a[j + 1], bi);
            odd[j + 1] = Chain::mul_hi(a[j + 1], bi);
            even[j] = Chain::mul_lo(a[j], bi);
            even[j + 1] = Chain::mul_hi(a[j], bi);
        }
    } else {
        // `odd` was the previous round's reduced even accumulator: its limb 1 moves to
        // position 0 (into even[0]) and the rest shift down two limbs (odd[j] <- odd[j+2]),
        // all inside the chain that adds the odd products.
        even[0] = chain.add_cc(even[0], odd[1]);
        ZKB_UNROLL
        for (int j = 0; j < 6; j += 2) {
            odd[j] = chain.madc_lo_cc(a[j + 1], bi, odd[j + 2]);
            odd[j + 1] = chain.madc_hi_cc(a[j + 1], bi, odd[j + 3]);
        }
        odd[6] = chain.madc_lo_cc(a[7], bi, 0);
        odd[7] = chain.madc_hi(a[7], bi, 0);
        even[0] = chain.mad_lo_cc(a[0], bi, even[0]);
        even[1] = chain.madc_hi_cc(a[0], bi, even[1]);
        ZKB_UNROLL
        for (int j = 2; j < 8; j += 2) {
            even[j] = chain.madc_lo_cc(a[j], bi, even[j]);
            even[j + 1] = chain.madc_hi_cc(a[j], bi, even[j + 1]);
        }
        odd[7] = chain.addc(odd[7], 0);  // even's carry out of position 7 is position 8
    }
    // Add m * r with m = -u, u = even[0], which clears even[0]. m * r0 = (0 : m) and
    // m * r1 = (~u : u) for u != 0 (both zero for u = 0): adds, not multiplications.
    // The high word ~u (or 0) is m minus the borrow of m = 0 - u: two chained adds, no
    // compare and select.
    const uint32_t u = even[0];
    const uint32_t m = chain.sub_cc(0, u);
    const uint32_t high_of_m_r1 = chain.subc(m, 0);
    odd[0] = chain.add_cc(odd[0], u);
    odd[1] = chain.addc_cc(odd[1], high_of_m_r1);
    odd[2] = chain.madc_lo_cc(m, kP3, odd[2]);
    odd[3] = chain.madc_hi_cc(m, kP3, odd[3]);
    odd[4] = chain.madc_lo_cc(m, kP5, odd[4]);
    odd[5] = chain.madc_hi_cc(m, kP5, odd[5]);
    odd[6] = chain.madc_lo_cc(m, kP7, odd[6]);
    odd[7] = chain.madc_hi(m, kP7, odd[7]);  // no carry out: value < 2^288 (mont_mul_partial)
    (void)chain.add_cc(u, m);                // 0, with carry (u != 0)
    even[1] = chain.addc_cc(even[1], 0);
    even[2] = chain.madc_lo_cc(m, kP2, even[2]);
    even[3] = chain.madc_hi_cc(m, kP2, even[3]);
    even[4] = chain.madc_lo_cc(m, kP4, even[4]);
    even[5] = chain.madc_hi_cc(m, kP4, even[5]);
    even[6] = chain.madc_lo_cc(m, kP6, even[6]);
    even[7] = chain.madc_hi_cc(m, kP6, even[7]);
    odd[7] = chain.addc(odd[7], 0);
    even[0] = 0;
}

}  // namespace detail

// out = a * b / 2^256 mod r, only partly reduced: out < 2r. a < r and b any 256-bit
// value (b's words are the rounds): the value after round i, before its division, is
// below (a * b_{<=i} + M_{<=i} * r) / 2^(32i) < 2r * 2^32 < 2^288, and at the end below
// a * b / 2^256 + r < 2r < 2^256. `out` may alias a or b.
// Rounds alternate which array is the even accumulator: after a round the odd one is
// aligned to position 0 once the value is divided by 2^32, so it becomes the next
// round's even one, and the reduced even one (shifted) the next odd one.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_mul_partial(const uint32_t a[8], const uint32_t b[8], uint32_t out[8]) {
    Chain chain;
    uint32_t first[8], second[8];
    ZKB_UNROLL
    for (int i = 0; i < 8; i += 2) {
        detail::mul_reduce_round(chain, first, second, a, b[i], i == 0);
        detail::mul_reduce_round(chain, second, first, a, b[i + 1], false);
    }
    // value = second / 2^32 + first, second[0] = 0.
    out[0] = chain.add_cc(first[0], second[1]);
    ZKB_UNROLL
    for (int j = 1; j < 7; ++j) out[j] = chain.addc_cc(first[j], second[j + 1]);
    out[7] = chain.addc(first[7], 0);
}

// out = a * b / 2^256 mod r, fully reduced; a, b < r. `out` may alias a or b.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_mul(const uint32_t a[8], const uint32_t b[8], uint32_t out[8]) {
    Chain chain;
    uint32_t t[8];
    mont_mul_partial<Chain>(a, b, t);
    reduce_once(chain, t, out);
}

// out = a + b mod r; a, b < r, so a + b < 2r < 2^256 needs no ninth limb.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add(const uint32_t a[8], const uint32_t b[8], uint32_t out[8]) {
    Chain chain;
    uint32_t s[8];
    s[0] = chain.add_cc(a[0], b[0]);
    ZKB_UNROLL
    for (int j = 1; j < 7; ++j) s[j] = chain.addc_cc(a[j], b[j]);
    s[7] = chain.addc(a[7], b[7]);
    reduce_once(chain, s, out);
}

namespace detail {

// out = a - b, plus kMultiple * r when that borrows: a - b mod r for a, b < kMultiple * r,
// in [0, kMultiple * r).
template <class Chain, int kMultiple>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void sub_adding_back(const uint32_t a[8], const uint32_t b[8], uint32_t out[8]) {
    static_assert(kMultiple == 1 || kMultiple == 2, "r or 2r");
    Chain chain;
    uint32_t d[8];
    d[0] = chain.sub_cc(a[0], b[0]);
    ZKB_UNROLL
    for (int j = 1; j < 8; ++j) d[j] = chain.subc_cc(a[j], b[j]);
    const uint32_t add_back = chain.subc(0, 0);  // all ones when a < b
    ZKB_UNROLL
    for (int j = 0; j < 8; ++j) {
        const uint32_t limb = (kMultiple == 1 ? modulus_limb(j) : twice_modulus_limb(j)) & add_back;
        if (j == 0) {
            out[j] = chain.add_cc(d[j], limb);
        } else if (j < 7) {
            out[j] = chain.addc_cc(d[j], limb);
        } else {
            out[j] = chain.addc(d[j], limb);
        }
    }
}

}  // namespace detail

// out = a - b mod r; a, b < r.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void sub(const uint32_t a[8], const uint32_t b[8], uint32_t out[8]) {
    detail::sub_adding_back<Chain, 1>(a, b, out);
}

// Partly reduced values, v < 2r (the NTT passes between their reductions); 4r does not
// fit eight limbs, so a sum keeps its carry out.

// out = a + b mod r, in [0, 2r); a, b < 2r. The 257-bit sum s is < 4r; s - 2r is kept
// unless it is negative, i.e. unless s has no carry out and the subtraction borrows (a
// carry out implies the borrow: s - 2^256 < 4r - 2^256 < 2r).
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add_partial(const uint32_t a[8], const uint32_t b[8], uint32_t out[8]) {
    Chain chain;
    uint32_t s[8], d[8];
    s[0] = chain.add_cc(a[0], b[0]);
    ZKB_UNROLL
    for (int j = 1; j < 8; ++j) s[j] = chain.addc_cc(a[j], b[j]);
    const uint32_t carry_out = chain.addc(0, 0);
    d[0] = chain.sub_cc(s[0], twice_modulus_limb(0));
    ZKB_UNROLL
    for (int j = 1; j < 8; ++j) d[j] = chain.subc_cc(s[j], twice_modulus_limb(j));
    const uint32_t keep_sum = chain.subc(carry_out, 0);  // all ones when negative, else 0
    ZKB_UNROLL
    for (int j = 0; j < 8; ++j) out[j] = (s[j] & keep_sum) | (d[j] & ~keep_sum);
}

// out = a - b mod r, in [0, 2r); a, b < 2r.
template <class Chain>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void sub_partial(const uint32_t a[8], const uint32_t b[8], uint32_t out[8]) {
    detail::sub_adding_back<Chain, 2>(a, b, out);
}

// The 64-bit limbs of fr.hpp <-> 32-bit limbs (register moves on the device).
ZKB_HOST_DEVICE ZKB_FORCEINLINE void split(const uint64_t in[4], uint32_t out[8]) {
    ZKB_UNROLL
    for (int i = 0; i < 4; ++i) {
        out[2 * i] = static_cast<uint32_t>(in[i]);
        out[2 * i + 1] = static_cast<uint32_t>(in[i] >> 32);
    }
}
ZKB_HOST_DEVICE ZKB_FORCEINLINE void join(const uint32_t in[8], uint64_t out[4]) {
    ZKB_UNROLL
    for (int i = 0; i < 4; ++i) out[i] = (uint64_t{in[2 * i + 1]} << 32) | in[2 * i];
}

// Fr's arithmetic on the device, which fr.hpp's description names (F is Fr): its 64-bit
// limbs split into these and joined back (register moves).
struct DeviceArithmetic {
#if defined(__CUDA_ARCH__)
    template <class F>
    __device__ static ZKB_FORCEINLINE F add(const F& x, const F& y) {
        return apply<fr32::add<PtxChain>>(x, y);
    }
    template <class F>
    __device__ static ZKB_FORCEINLINE F sub(const F& x, const F& y) {
        return apply<fr32::sub<PtxChain>>(x, y);
    }
    template <class F>
    __device__ static ZKB_FORCEINLINE F mont_mul(const F& x, const F& y) {
        return apply<fr32::mont_mul<PtxChain>>(x, y);
    }

private:
    template <void (*kOp)(const uint32_t*, const uint32_t*, uint32_t*), class F>
    __device__ static ZKB_FORCEINLINE F apply(const F& x, const F& y) {
        uint32_t a[8], b[8], out[8];
        split(x.limbs, a);
        split(y.limbs, b);
        kOp(a, b, out);
        F result;
        join(out, result.limbs);
        return result;
    }
#endif
};

}  // namespace zkbatch::ff::fr32
