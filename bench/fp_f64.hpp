// Fp's Montgomery product on the double-precision FMA pipe, in field32.hpp's form.
//
// Fp32's product keeps the GPU's IMAD.WIDE pipe busy and leaves the FP64 pipe (64 lanes
// an SM on Hopper) idle (docs/msm.md#what-bounds-the-product). This form is slower than
// Fp32's, alone and interleaved with it (docs/msm.md#tried-and-rejected), so only
// fp_product_bench uses it. Here the operands are eight
// limbs of 48 bits held exactly in doubles, and each 96-bit limb product comes out of two
// FMAs as two doubles whose bit patterns, less a known bias, are its high and low 48-bit
// halves (the technique of Emmart, Zheng and Weems, "Faster modular exponentiation using
// double precision floating point arithmetic on the GPU", ARITH 2018):
//   hi = fma(a, b, 2^100)                 the exponent pins the ulp at 2^48, so hi's
//                                          mantissa is H = a b / 2^48 rounded (to nearest)
//   lo = fma(a, b, (2^100 + 3 2^51) - hi)  = a b - H 2^48 + 3 2^51, exact: L = a b - H 2^48
//                                          lies in [-2^47, 2^47], so lo lies in one binade
// bits(hi) = kHiBias + H and bits(lo) = kLoBias + L. The column sums are 64-bit integer
// additions of those bit patterns; every bias is a multiple of 2^48, so a column's low 48
// bits never see them, and each column starts at minus its biases' sum, so it holds its
// true value once all its terms are in.
//
// Montgomery's reduction runs over the same 48-bit limbs with R = 2^384 = 2^(8 * 48):
// Fp32's radix, so for the same operands the result is Fp32::mont_mul_partial's, bit
// for bit ((a b + M p) / R with the unique M < R that makes the sum divisible by R).
// Operation scanning is separated (SOS): the product's 16 columns first, then 8 rounds
// that each read one column's low 48 bits t, take m = t (-p^-1) mod 2^48 (integer
// multiply) and add m p. Per product: 128 limb products (3 FP64 instructions each) and
// their 256 column additions, against Fp32's 288 IMAD.WIDE.
//
// Host and device compute the same bits (both round FMAs to nearest, IEEE 754), so host
// tests check the device's algorithm against Fp32 and GMP.
#pragma once

#include "core/ff/fp.hpp"
#include "core/util/host_device.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

namespace zkbatch::ff::fp_f64 {

inline constexpr int kLimbs = 8;  // 8 x 48 = 384 bits: R = 2^384, Fp32's radix
inline constexpr int kLimbBits = 48;
inline constexpr uint64_t kLimbMask = (uint64_t{1} << kLimbBits) - 1;

using Fp32 = Field32<bls12_381::FpDescription>;

// 48-bit limb j of twelve 32-bit words: limb 2k is word 3k and the low half of word
// 3k + 1, limb 2k + 1 the high half of word 3k + 1 and word 3k + 2.
ZKB_HOST_DEVICE constexpr uint64_t limb_of_words(const uint32_t words[Fp32::kLimbs], int j) {
    const int k = 3 * (j / 2);
    return j % 2 == 0 ? uint64_t{words[k]} | (uint64_t{words[k + 1] & 0xffffu} << 32)
                      : uint64_t{words[k + 1] >> 16} | (uint64_t{words[k + 2]} << 16);
}

ZKB_HOST_DEVICE constexpr uint64_t modulus_limb(int j) {
    uint32_t words[Fp32::kLimbs] = {};
    for (int w = 0; w < Fp32::kLimbs; ++w) words[w] = Fp32::modulus_limb(w);
    return limb_of_words(words, j);
}

// -p^-1 mod 2^48, by Newton's iteration (each step doubles the correct low bits).
constexpr uint64_t montgomery_inverse() {
    const uint64_t p0 = modulus_limb(0);
    uint64_t inverse = p0;  // p0 p0 = 1 mod 8: three bits
    for (int step = 0; step < 5; ++step) inverse *= 2 - p0 * inverse;
    return (0 - inverse) & kLimbMask;
}
inline constexpr uint64_t kMontInv = montgomery_inverse();
static_assert(((modulus_limb(0) * kMontInv) & kLimbMask) == kLimbMask, "kMontInv must be -p^-1 mod 2^48");

namespace detail {

inline constexpr double kTwo52 = 0x1p52;
inline constexpr uint64_t kTwo52Bits = 0x4330000000000000;  // 2^52 with a zero mantissa
inline constexpr double kHiShift = 0x1p100;
inline constexpr double kLoShift = 0x1p100 + 0x1.8p52;      // 2^100 + 3 2^51
inline constexpr uint64_t kHiBias = 0x4630000000000000;     // bits(2^100)
inline constexpr uint64_t kLoBias = 0x4338000000000000;     // bits(2^52) + 2^51
static_assert((kHiBias & kLimbMask) == 0 && (kLoBias & kLimbMask) == 0, "biases must leave the low 48 bits alone");

ZKB_HOST_DEVICE ZKB_FORCEINLINE double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}
ZKB_HOST_DEVICE ZKB_FORCEINLINE double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
ZKB_HOST_DEVICE ZKB_FORCEINLINE uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint64_t>(__double_as_longlong(x));
#else
    return std::bit_cast<uint64_t>(x);
#endif
}
ZKB_HOST_DEVICE ZKB_FORCEINLINE double double_of(uint64_t bits) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(bits));
#else
    return std::bit_cast<double>(bits);
#endif
}

// A value below 2^52 as an exact double: its bits under 2^52's exponent, less 2^52.
ZKB_HOST_DEVICE ZKB_FORCEINLINE double exact_double(uint64_t value) {
    return sub_rn(double_of(kTwo52Bits | value), kTwo52);
}

// Adds a b (a, b < 2^48, exact) to columns `low` and `low + 1`.
ZKB_HOST_DEVICE ZKB_FORCEINLINE void add_limb_product(double a, double b, uint64_t& low, uint64_t& high) {
    const double hi = fma_rn(a, b, kHiShift);
    const double lo = fma_rn(a, b, sub_rn(kLoShift, hi));
    low += bits_of(lo);
    high += bits_of(hi);
}

// The terms column k receives before its last read: the product's a_i b_j with i + j = k
// (lo) or k - 1 (hi), and reduction round r's m_r p_j with r + j = k (lo) or k - 1 (hi).
constexpr int pairs_summing_to(int k) { return k < 0 || k > 14 ? 0 : (k < 8 ? k + 1 : 15 - k); }
constexpr int rounds_reaching(int k) {  // rounds r in 0..7 with 0 <= k - r <= 7
    int count = 0;
    for (int r = 0; r < kLimbs; ++r) count += k - r >= 0 && k - r < kLimbs;
    return count;
}
ZKB_HOST_DEVICE constexpr uint64_t column_start(int k) {
    const auto lo_terms = static_cast<uint64_t>(pairs_summing_to(k) + rounds_reaching(k));
    const auto hi_terms = static_cast<uint64_t>(pairs_summing_to(k - 1) + rounds_reaching(k - 1));
    return 0 - (lo_terms * kLoBias + hi_terms * kHiBias);
}

}  // namespace detail

// out = a * b / 2^384 mod p, below 2p for a, b < 2p (as Fp32::mont_mul_partial: the same
// bits), in Fp32's twelve 32-bit limbs. `out` may alias a or b.
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mont_mul_partial(const uint32_t a[Fp32::kLimbs], const uint32_t b[Fp32::kLimbs],
                                                      uint32_t out[Fp32::kLimbs]) {
    using namespace detail;
    double x[kLimbs], y[kLimbs];
    ZKB_UNROLL
    for (int j = 0; j < kLimbs; ++j) {
        x[j] = exact_double(limb_of_words(a, j));
        y[j] = exact_double(limb_of_words(b, j));
    }
    uint64_t column[2 * kLimbs];
    ZKB_UNROLL
    for (int k = 0; k < 2 * kLimbs; ++k) column[k] = column_start(k);
    ZKB_UNROLL
    for (int i = 0; i < kLimbs; ++i) {
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; ++j) add_limb_product(x[i], y[j], column[i + j], column[i + j + 1]);
    }
    // Round r clears column r's low 48 bits (reading them is exact however many terms are
    // still to come: the biases are multiples of 2^48) and carries the rest up.
    ZKB_UNROLL
    for (int r = 0; r < kLimbs; ++r) {
        const double m = exact_double(((column[r] & kLimbMask) * kMontInv) & kLimbMask);
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; ++j) {
            add_limb_product(m, static_cast<double>(modulus_limb(j)), column[r + j], column[r + j + 1]);
        }
        column[r + 1] += static_cast<uint64_t>(static_cast<int64_t>(column[r]) >> kLimbBits);
    }
    // (a b + m p) / 2^384 < 2p < 2^382: columns 8..15 with their carries, nothing above.
    uint64_t limb[kLimbs];
    ZKB_UNROLL
    for (int j = 0; j < kLimbs; ++j) {
        limb[j] = column[kLimbs + j] & kLimbMask;
        if (j + 1 < kLimbs) {
            column[kLimbs + j + 1] += static_cast<uint64_t>(static_cast<int64_t>(column[kLimbs + j]) >> kLimbBits);
        }
    }
    ZKB_UNROLL
    for (int k = 0; k < kLimbs / 2; ++k) {
        out[3 * k] = static_cast<uint32_t>(limb[2 * k]);
        out[3 * k + 1] = static_cast<uint32_t>(limb[2 * k] >> 32) | static_cast<uint32_t>(limb[2 * k + 1] << 16);
        out[3 * k + 2] = static_cast<uint32_t>(limb[2 * k + 1] >> 16);
    }
}

}  // namespace zkbatch::ff::fp_f64
