// Fp: the base field of BLS12-381, one implementation for host C++ and CUDA device code.
//
// p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
// (381 bits, p = 3 mod 4). An element is six little-endian 64-bit limbs holding a*R mod p
// with R = 2^384 (Montgomery form), always fully reduced (< p), so equal values have
// equal bits. This is exactly the coordinate layout of snarkjs's .zkey and .ptau points
// (48 bytes little-endian Montgomery), so those load without conversion. "Canonical"
// means the plain integer a < p; the Zcash encodings write it big-endian.
//
// Multiplication is CIOS Montgomery multiplication over 6x64-bit limbs, written like
// fr.hpp (the same word helpers, limbs.hpp). Measured on this 2-core EPYC under GCC 12
// -O2, the compare-carry form used here beat a version built on unsigned __int128
// additions and one on _addcarry_u64 intrinsics (bench_curve BM_FpMul gives the figure).
// Device code multiplies, adds and subtracts over 32-bit limbs in PTX carry chains
// instead (fp32.hpp): the same R, so the same bits, in the GPU's native word size.
#pragma once

#include "core/ff/fp32.hpp"
#include "core/ff/limbs.hpp"
#include "core/ff/safegcd.hpp"
#include "core/util/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace zkbatch::ff {

// ---- Constants (little-endian 64-bit limbs) ------------------------------------------
// Scalars rather than arrays: CUDA device code may read namespace-scope constexpr
// scalars directly, but not index constexpr arrays.

// The modulus p.
inline constexpr uint64_t kFpModulus0 = 0xb9feffffffffaaabULL;
inline constexpr uint64_t kFpModulus1 = 0x1eabfffeb153ffffULL;
inline constexpr uint64_t kFpModulus2 = 0x6730d2a0f6b0f624ULL;
inline constexpr uint64_t kFpModulus3 = 0x64774b84f38512bfULL;
inline constexpr uint64_t kFpModulus4 = 0x4b1ba7b6434bacd7ULL;
inline constexpr uint64_t kFpModulus5 = 0x1a0111ea397fe69aULL;
// R mod p = Montgomery form of 1.
inline constexpr uint64_t kFpOneMont0 = 0x760900000002fffdULL;
inline constexpr uint64_t kFpOneMont1 = 0xebf4000bc40c0002ULL;
inline constexpr uint64_t kFpOneMont2 = 0x5f48985753c758baULL;
inline constexpr uint64_t kFpOneMont3 = 0x77ce585370525745ULL;
inline constexpr uint64_t kFpOneMont4 = 0x5c071a97a256ec6dULL;
inline constexpr uint64_t kFpOneMont5 = 0x15f65ec3fa80e493ULL;
// R^2 mod p: Montgomery-multiplying a canonical value by it yields its Montgomery form.
inline constexpr uint64_t kFpRSquared0 = 0xf4df1f341c341746ULL;
inline constexpr uint64_t kFpRSquared1 = 0x0a76e6a609d104f1ULL;
inline constexpr uint64_t kFpRSquared2 = 0x8de5476c4c95b6d5ULL;
inline constexpr uint64_t kFpRSquared3 = 0x67eb88a9939d83c0ULL;
inline constexpr uint64_t kFpRSquared4 = 0x9a793e85b519952dULL;
inline constexpr uint64_t kFpRSquared5 = 0x11988fe592cae3aaULL;
// -p^-1 mod 2^64.
inline constexpr uint64_t kFpMontInv = 0x89f3fffcfffcfffdULL;
// R^3 mod p: inverse's divsteps invert the stored integer x R, and a Montgomery product by
// R^3 turns (x R)^-1 into x^-1 R ((x R)^-1 R^3 / R). Computed by GMP (fp_test checks it).
inline constexpr uint64_t kFpRCubed0 = 0xed48ac6bd94ca1e0ULL;
inline constexpr uint64_t kFpRCubed1 = 0x315f831e03a7adf8ULL;
inline constexpr uint64_t kFpRCubed2 = 0x9a53352a615e29ddULL;
inline constexpr uint64_t kFpRCubed3 = 0x34c04e5e921e1761ULL;
inline constexpr uint64_t kFpRCubed4 = 0x2512d43565724728ULL;
inline constexpr uint64_t kFpRCubed5 = 0x0aa6346091755d4dULL;

// fp32.hpp's 32-bit limbs are these constants' halves.
static_assert(kFpModulus0 == (uint64_t{fp32::kP1} << 32 | fp32::kP0) && kFpModulus1 == (uint64_t{fp32::kP3} << 32 | fp32::kP2) &&
              kFpModulus2 == (uint64_t{fp32::kP5} << 32 | fp32::kP4) && kFpModulus3 == (uint64_t{fp32::kP7} << 32 | fp32::kP6) &&
              kFpModulus4 == (uint64_t{fp32::kP9} << 32 | fp32::kP8) && kFpModulus5 == (uint64_t{fp32::kP11} << 32 | fp32::kP10));
static_assert(static_cast<uint32_t>(kFpMontInv) == fp32::kMontInv);

namespace detail {
template <class F>
struct PlainSquare {
    ZKB_HOST_DEVICE F operator()(const F& x) const { return x.sqr(); }
};

// x^e for a little-endian exponent of `count` limbs, square-and-multiply from the top
// set bit; F is any field type of the tower (one(), *, and sqr() unless `square` says
// otherwise, as Fp12's cyclotomic squaring does). The exponent is public, so its bits
// may steer branches.
template <class F, class Square = PlainSquare<F>>
ZKB_HOST_DEVICE F pow_by_limbs(const F& x, const uint64_t* exponent, int count, Square square = {}) {
    F result = F::one();
    bool started = false;
    for (int limb = count - 1; limb >= 0; --limb) {
        for (int bit = 63; bit >= 0; --bit) {
            if (started) result = square(result);
            if ((exponent[limb] >> bit) & 1) {
                result = started ? result * x : x;
                started = true;
            }
        }
    }
    return result;
}
}  // namespace detail

struct Fp {
    uint64_t limbs[6];  // Montgomery form, little-endian, < p

    // Limb i of p (a function, so device code can index it).
    ZKB_HOST_DEVICE static constexpr uint64_t modulus_limb(int i) {
        constexpr uint64_t kLimbs[6] = {kFpModulus0, kFpModulus1, kFpModulus2,
                                        kFpModulus3, kFpModulus4, kFpModulus5};
        return kLimbs[i];
    }

    // True when the little-endian integer v is < p (a valid canonical value).
    ZKB_HOST_DEVICE static constexpr bool is_canonical(const uint64_t v[6]) {
        for (int i = 5; i >= 0; --i) {
            if (v[i] != modulus_limb(i)) return v[i] < modulus_limb(i);
        }
        return false;  // equal to p
    }

    // ---- construction --------------------------------------------------------------
    ZKB_HOST_DEVICE static constexpr Fp zero() { return Fp{{0, 0, 0, 0, 0, 0}}; }
    ZKB_HOST_DEVICE static constexpr Fp one() {
        return Fp{{kFpOneMont0, kFpOneMont1, kFpOneMont2, kFpOneMont3, kFpOneMont4, kFpOneMont5}};
    }

    ZKB_HOST_DEVICE static Fp from_u64(uint64_t value) {
        const Fp plain{{value, 0, 0, 0, 0, 0}};
        return mont_mul(plain, r_squared());
    }

    // `canonical` must be < p (see is_canonical; the host parsers check it).
    ZKB_HOST_DEVICE static Fp from_canonical(const uint64_t canonical[6]) {
        Fp plain;
        for (int i = 0; i < 6; ++i) plain.limbs[i] = canonical[i];
        return mont_mul(plain, r_squared());
    }

    ZKB_HOST_DEVICE void to_canonical(uint64_t canonical[6]) const {
        // Montgomery reduction alone: six rounds of t = (t + m*p) / 2^64 divide by R.
        uint64_t t[6];
        for (int i = 0; i < 6; ++i) t[i] = limbs[i];
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) {
            const uint64_t m = t[0] * kFpMontInv;
            uint64_t carry = 0;
            (void)detail::mul_add(t[0], m, modulus_limb(0), carry);  // low word is 0 by the choice of m
            ZKB_UNROLL
            for (int j = 1; j < 6; ++j) t[j - 1] = detail::mul_add(t[j], m, modulus_limb(j), carry);
            t[5] = carry;
        }
        subtract_modulus_if_needed(t);
        for (int i = 0; i < 6; ++i) canonical[i] = t[i];
    }

    // ---- arithmetic ----------------------------------------------------------------
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST Fp operator+(const Fp& other) const {
#if defined(__CUDA_ARCH__)
        return device_op<fp32::add<PtxChain>>(*this, other);
#else
        Fp sum;
        uint64_t carry = 0;
        // p < 2^381, so the sum of two reduced values fits in 384 bits.
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) sum.limbs[i] = detail::add_carry(limbs[i], other.limbs[i], carry);
        subtract_modulus_if_needed(sum.limbs);
        return sum;
#endif
    }

    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST Fp operator-(const Fp& other) const {
#if defined(__CUDA_ARCH__)
        return device_op<fp32::sub<PtxChain>>(*this, other);
#else
        Fp diff;
        uint64_t borrow = 0;
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) diff.limbs[i] = detail::sub_borrow(limbs[i], other.limbs[i], borrow);
        // On underflow add p back (branch-free: add p & mask).
        const uint64_t add_mask = uint64_t{0} - borrow;
        uint64_t carry = 0;
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) diff.limbs[i] = detail::add_carry(diff.limbs[i], modulus_limb(i) & add_mask, carry);
        return diff;
#endif
    }

    ZKB_HOST_DEVICE Fp operator-() const { return zero() - *this; }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST Fp operator*(const Fp& other) const { return mont_mul(*this, other); }
    ZKB_HOST_DEVICE Fp& operator+=(const Fp& other) { return *this = *this + other; }
    ZKB_HOST_DEVICE Fp& operator-=(const Fp& other) { return *this = *this - other; }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST Fp& operator*=(const Fp& other) { return *this = mont_mul(*this, other); }

    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST Fp sqr() const { return mont_mul(*this, *this); }

    // (a0 + a1) b and (a0 + a1)(b0 + b1): on the device the sums stay unreduced (below
    // 2p, which fp32::mont_mul takes), a reduction fewer each; the same bits as
    // (a0 + a1) * b and (a0 + a1) * (b0 + b1). For Fp2's products (Karatsuba's sums).
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST static Fp sum_times(const Fp& a0, const Fp& a1, const Fp& b) {
#if defined(__CUDA_ARCH__)
        uint32_t sum[fp32::kLimbs], factor[fp32::kLimbs];
        device_sum(a0, a1, sum);
        fp32::split(b.limbs, factor);
        return device_product(sum, factor);
#else
        return mont_mul(a0 + a1, b);
#endif
    }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST static Fp sum_times_sum(const Fp& a0, const Fp& a1, const Fp& b0,
                                                               const Fp& b1) {
#if defined(__CUDA_ARCH__)
        uint32_t first[fp32::kLimbs], second[fp32::kLimbs];
        device_sum(a0, a1, first);
        device_sum(b0, b1, second);
        return device_product(first, second);
#else
        return mont_mul(a0 + a1, b0 + b1);
#endif
    }
    // a b - c d: on the device one reduction for both products (fp32::product_difference);
    // the same bits.
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST static Fp product_difference(const Fp& a, const Fp& b, const Fp& c,
                                                                    const Fp& d) {
#if defined(__CUDA_ARCH__)
        uint32_t x[fp32::kLimbs], y[fp32::kLimbs], z[fp32::kLimbs], w[fp32::kLimbs];
        fp32::split(a.limbs, x);
        fp32::split(b.limbs, y);
        fp32::split(c.limbs, z);
        fp32::split(d.limbs, w);
        fp32::product_difference<PtxChain>(x, y, z, w, x);
        Fp result;
        fp32::join(x, result.limbs);
        return result;
#else
        return mont_mul(a, b) - mont_mul(c, d);
#endif
    }
    ZKB_HOST_DEVICE Fp dbl() const { return *this + *this; }

    // x/2: x + p is even when x is odd (p is odd), and below 2^382.
    ZKB_HOST_DEVICE Fp half() const {
        const uint64_t add_mask = uint64_t{0} - (limbs[0] & 1);
        uint64_t sum[6];
        uint64_t carry = 0;
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) sum[i] = detail::add_carry(limbs[i], modulus_limb(i) & add_mask, carry);
        Fp result;
        ZKB_UNROLL
        for (int i = 0; i < 5; ++i) result.limbs[i] = (sum[i] >> 1) | (sum[i + 1] << 63);
        result.limbs[5] = sum[5] >> 1;
        return result;
    }

    // x^e for a little-endian exponent of `count` limbs (detail::pow_by_limbs).
    ZKB_HOST_DEVICE Fp pow(const uint64_t* exponent, int count) const {
        return detail::pow_by_limbs(*this, exponent, count);
    }
    ZKB_HOST_DEVICE Fp pow(uint64_t exponent) const { return pow(&exponent, 1); }

    // 1/x by Bernstein-Yang divsteps (safegcd.hpp: 37 batches of 30 steps, a fixed count),
    // several times fewer instructions than Fermat's x^(p-2) (~570 products), which stays
    // available as pow. The inverse of 0 is 0 (callers that care check is_zero first).
    ZKB_HOST_DEVICE Fp inverse() const {
        // The divsteps see the integer x R: (x R)^-1, below 3p, reduced, times R^3 / R.
        Fp result = safegcd::Inverter<Fp>::inverse_below_3m(*this);
        subtract_modulus_if_needed(result.limbs);  // below 2p
        subtract_modulus_if_needed(result.limbs);  // below p
        return mont_mul(result, r_cubed());
    }

    // p = 3 mod 4, so x^((p+1)/4) is a square root of x whenever x has one. Returns
    // false (root unspecified) when x is not a square; sqrt(0) = 0.
    ZKB_HOST_DEVICE bool sqrt(Fp& root) const {
        uint64_t exponent[6];  // (p + 1) / 4; p + 1 does not carry out of the low limb
        for (int i = 0; i < 6; ++i) {
            const uint64_t low = modulus_limb(i) + (i == 0 ? 1 : 0);
            const uint64_t high = i < 5 ? modulus_limb(i + 1) : 0;
            exponent[i] = (low >> 2) | (high << 62);
        }
        root = pow(exponent, 6);
        return root.sqr() == *this;
    }

    ZKB_HOST_DEVICE bool is_zero() const {
        return (limbs[0] | limbs[1] | limbs[2] | limbs[3] | limbs[4] | limbs[5]) == 0;
    }
    ZKB_HOST_DEVICE bool is_one() const { return *this == one(); }

    ZKB_HOST_DEVICE bool operator==(const Fp& other) const {
        uint64_t difference = 0;
        for (int i = 0; i < 6; ++i) difference |= limbs[i] ^ other.limbs[i];
        return difference == 0;
    }
    ZKB_HOST_DEVICE bool operator!=(const Fp& other) const { return !(*this == other); }

    // Zcash's sign flag: the canonical value is greater than (p - 1) / 2.
    ZKB_HOST_DEVICE bool is_lexicographically_largest() const {
        uint64_t canonical[6];
        to_canonical(canonical);
        for (int i = 5; i >= 0; --i) {
            // limb i of (p - 1) / 2 = p >> 1 (p is odd)
            const uint64_t half = (modulus_limb(i) >> 1) | (i < 5 ? modulus_limb(i + 1) << 63 : 0);
            if (canonical[i] != half) return canonical[i] > half;
        }
        return false;  // equal to (p - 1) / 2
    }

    // ---- Montgomery multiplication ---------------------------------------------------
    // CIOS with the "no final carry" shortcut (Gautam/gnark) as in Fr: the top limb of p
    // is below (2^64 - 1)/2 - 1, so the running value never needs a seventh limb.
    // Inputs < p give an output < p.
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE Fp mont_mul(const Fp& x, const Fp& y) {
#if defined(__CUDA_ARCH__)
        return device_op<fp32::mont_mul<PtxChain>>(x, y);
#else
        uint64_t t[6] = {0, 0, 0, 0, 0, 0};
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) {
            uint64_t carry_a = 0;  // carry of t + x*y[i]
            t[0] = detail::mul_add(t[0], x.limbs[0], y.limbs[i], carry_a);
            const uint64_t m = t[0] * kFpMontInv;
            uint64_t carry_m = 0;  // carry of t + m*p; the low word of t[0] + m*p[0] is 0
            (void)detail::mul_add(t[0], m, modulus_limb(0), carry_m);
            ZKB_UNROLL
            for (int j = 1; j < 6; ++j) {
                t[j] = detail::mul_add(t[j], x.limbs[j], y.limbs[i], carry_a);
                t[j - 1] = detail::mul_add(t[j], m, modulus_limb(j), carry_m);
            }
            t[5] = carry_m + carry_a;
        }
        subtract_modulus_if_needed(t);
        return Fp{{t[0], t[1], t[2], t[3], t[4], t[5]}};
#endif
    }

    // ---- host-only conversions (canonical big-endian bytes, hex) ----------------------
    // Returns false (and leaves `out` untouched) when the 48 bytes encode a value >= p.
    static bool try_from_be_bytes(const uint8_t* bytes48, Fp& out);
    void to_be_bytes(uint8_t* out48) const;
    // "0x" followed by 96 lowercase hex digits, big-endian, canonical.
    std::string to_hex() const;
    // Accepts an optional 0x/0X prefix and 1..96 hex digits of a value < p.
    static bool try_from_hex(std::string_view hex, Fp& out);
    // Throws std::invalid_argument naming the offending text.
    static Fp from_hex(std::string_view hex);

private:
#if defined(__CUDA_ARCH__)
    // x op y through fp32's 32-bit limbs (splitting and joining are register moves).
    template <void (*kOp)(const uint32_t*, const uint32_t*, uint32_t*)>
    __device__ static ZKB_FORCEINLINE Fp device_op(const Fp& x, const Fp& y) {
        uint32_t a[fp32::kLimbs], b[fp32::kLimbs], out[fp32::kLimbs];
        fp32::split(x.limbs, a);
        fp32::split(y.limbs, b);
        kOp(a, b, out);
        Fp result;
        fp32::join(out, result.limbs);
        return result;
    }
    // a0 + a1 in fp32's limbs, unreduced (below 2p).
    __device__ static ZKB_FORCEINLINE void device_sum(const Fp& a0, const Fp& a1, uint32_t sum[fp32::kLimbs]) {
        uint32_t a[fp32::kLimbs], b[fp32::kLimbs];
        fp32::split(a0.limbs, a);
        fp32::split(a1.limbs, b);
        fp32::add_unreduced<PtxChain>(a, b, sum);
    }
    // x y / R mod p, reduced, for x, y < 2p in fp32's limbs.
    __device__ static ZKB_FORCEINLINE Fp device_product(const uint32_t x[fp32::kLimbs], const uint32_t y[fp32::kLimbs]) {
        uint32_t out[fp32::kLimbs];
        fp32::mont_mul<PtxChain>(x, y, out);
        Fp result;
        fp32::join(out, result.limbs);
        return result;
    }
#endif
    ZKB_HOST_DEVICE static constexpr Fp r_squared() {
        return Fp{{kFpRSquared0, kFpRSquared1, kFpRSquared2, kFpRSquared3, kFpRSquared4, kFpRSquared5}};
    }
    ZKB_HOST_DEVICE static constexpr Fp r_cubed() {
        return Fp{{kFpRCubed0, kFpRCubed1, kFpRCubed2, kFpRCubed3, kFpRCubed4, kFpRCubed5}};
    }

    // Replaces v by v - p when v >= p. Branch-free select.
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE void subtract_modulus_if_needed(uint64_t v[6]) {
        uint64_t reduced[6];
        uint64_t borrow = 0;
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) reduced[i] = detail::sub_borrow(v[i], modulus_limb(i), borrow);
        const uint64_t keep_mask = uint64_t{0} - borrow;  // borrow == 1: v < p, keep v
        ZKB_UNROLL
        for (int i = 0; i < 6; ++i) v[i] = (v[i] & keep_mask) | (reduced[i] & ~keep_mask);
    }
};

static_assert(sizeof(Fp) == 48, "Fp must be exactly 48 bytes (the .zkey point layout relies on it)");
static_assert(std::is_trivially_copyable_v<Fp>, "Fp must be trivially copyable");
static_assert(std::is_standard_layout_v<Fp>, "Fp must be standard layout");

// ---- host-only definitions -------------------------------------------------------

inline bool Fp::try_from_be_bytes(const uint8_t* bytes48, Fp& out) {
    uint64_t canonical[6];
    for (int limb = 0; limb < 6; ++limb) {
        uint64_t word = 0;
        const uint8_t* most_significant = bytes48 + 8 * (5 - limb);
        for (int byte = 0; byte < 8; ++byte) word = (word << 8) | most_significant[byte];
        canonical[limb] = word;
    }
    if (!is_canonical(canonical)) return false;
    out = from_canonical(canonical);
    return true;
}

inline void Fp::to_be_bytes(uint8_t* out48) const {
    uint64_t canonical[6];
    to_canonical(canonical);
    for (int limb = 0; limb < 6; ++limb) {
        uint8_t* most_significant = out48 + 8 * (5 - limb);
        for (int byte = 0; byte < 8; ++byte) most_significant[byte] = static_cast<uint8_t>(canonical[limb] >> (56 - 8 * byte));
    }
}

inline std::string Fp::to_hex() const {
    uint64_t canonical[6];
    to_canonical(canonical);
    return detail::limbs_to_hex(canonical, 6);
}

inline bool Fp::try_from_hex(std::string_view hex, Fp& out) {
    uint64_t canonical[6];
    if (!detail::hex_to_limbs(hex, canonical, 6) || !is_canonical(canonical)) return false;
    out = from_canonical(canonical);
    return true;
}

inline Fp Fp::from_hex(std::string_view hex) {
    Fp value;
    if (!try_from_hex(hex, value)) {
        throw std::invalid_argument("Fp::from_hex: '" + std::string(hex) +
                                    "' is not a BLS12-381 base field element; expected up to 96 hex digits "
                                    "(optional 0x prefix) of a value below p = 0x1a0111ea...ffffaaab");
    }
    return value;
}

}  // namespace zkbatch::ff
