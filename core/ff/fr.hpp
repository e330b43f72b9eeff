// Fr: the scalar field of BLS12-381, one implementation for host C++ and CUDA device code.
//
// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (255 bits).
// An element is four little-endian 64-bit limbs holding a*R mod r with R = 2^256
// (Montgomery form), always fully reduced (< r), so equal values have equal bits.
// "Canonical" means the plain integer a < r, also as little-endian limbs/bytes; it is
// what users see (dumps, digests, hex). Montgomery form never leaves a backend.
//
// On the host, multiplication is CIOS Montgomery multiplication over 4x64-bit limbs.
// Device code multiplies, adds and subtracts over 8x32-bit limbs in PTX carry chains
// instead (fr32.hpp): the same R, so the same bits, in the GPU's native word size.
#pragma once

#include "core/ff/fr32.hpp"
#include "core/ff/limbs.hpp"
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

// The modulus r.
inline constexpr uint64_t kModulus0 = 0xffffffff00000001ULL;
inline constexpr uint64_t kModulus1 = 0x53bda402fffe5bfeULL;
inline constexpr uint64_t kModulus2 = 0x3339d80809a1d805ULL;
inline constexpr uint64_t kModulus3 = 0x73eda753299d7d48ULL;
// R mod r = Montgomery form of 1.
inline constexpr uint64_t kOneMont0 = 0x00000001fffffffeULL;
inline constexpr uint64_t kOneMont1 = 0x5884b7fa00034802ULL;
inline constexpr uint64_t kOneMont2 = 0x998c4fefecbc4ff5ULL;
inline constexpr uint64_t kOneMont3 = 0x1824b159acc5056fULL;
// R^2 mod r: Montgomery-multiplying a canonical value by it yields its Montgomery form.
inline constexpr uint64_t kRSquared0 = 0xc999e990f3f29c6dULL;
inline constexpr uint64_t kRSquared1 = 0x2b6cedcb87925c23ULL;
inline constexpr uint64_t kRSquared2 = 0x05d314967254398fULL;
inline constexpr uint64_t kRSquared3 = 0x0748d9d99f59ff11ULL;
// -r^-1 mod 2^64.
inline constexpr uint64_t kMontInv = 0xfffffffeffffffffULL;
// r - 1 = 2^32 * t with t odd: the largest power-of-two domain is 2^32.
inline constexpr uint32_t kTwoAdicity = 32;
// The coset shift g of the quotient computation (also the multiplicative generator
// from which ROOT is derived: ROOT = 7^((r-1)/2^32)).
inline constexpr uint64_t kCosetShift = 7;
// ROOT, a primitive 2^32-nd root of unity, canonical:
// 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b
inline constexpr uint64_t kRootOfUnity0 = 0x3829971f439f0d2bULL;
inline constexpr uint64_t kRootOfUnity1 = 0xb63683508c2280b9ULL;
inline constexpr uint64_t kRootOfUnity2 = 0xd09b681922c813b4ULL;
inline constexpr uint64_t kRootOfUnity3 = 0x16a2a19edfe81f20ULL;
// ROOT in Montgomery form.
inline constexpr uint64_t kRootOfUnityMont0 = 0xb9b58d8c5f0e466aULL;
inline constexpr uint64_t kRootOfUnityMont1 = 0x5b1b4c801819d7ecULL;
inline constexpr uint64_t kRootOfUnityMont2 = 0x0af53ae352a31e64ULL;
inline constexpr uint64_t kRootOfUnityMont3 = 0x5bf3adda19e9b27bULL;
// g = 7 in Montgomery form.
inline constexpr uint64_t kCosetShiftMont0 = 0x0000000efffffff1ULL;
inline constexpr uint64_t kCosetShiftMont1 = 0x17e363d300189c0fULL;
inline constexpr uint64_t kCosetShiftMont2 = 0xff9c57876f8457b0ULL;
inline constexpr uint64_t kCosetShiftMont3 = 0x351332208fc5a8c4ULL;

namespace detail {

// Replaces v by v - r when v >= r (v < 2r on entry).
ZKB_HOST_DEVICE ZKB_FORCEINLINE void subtract_modulus_if_needed(uint64_t v[4]) {
    const uint64_t q[4] = {kModulus0, kModulus1, kModulus2, kModulus3};
    uint64_t reduced[4];
    uint64_t borrow = 0;
    ZKB_UNROLL
    for (int i = 0; i < 4; ++i) reduced[i] = sub_borrow(v[i], q[i], borrow);
    // borrow == 1 means v < r: keep v. Branch-free select.
    const uint64_t keep_mask = uint64_t{0} - borrow;
    ZKB_UNROLL
    for (int i = 0; i < 4; ++i) v[i] = (v[i] & keep_mask) | (reduced[i] & ~keep_mask);
}

}  // namespace detail

// True when the little-endian integer v is < r (a valid canonical value).
ZKB_HOST_DEVICE constexpr bool is_canonical(const uint64_t v[4]) {
    const uint64_t q[4] = {kModulus0, kModulus1, kModulus2, kModulus3};
    for (int i = 3; i >= 0; --i) {
        if (v[i] != q[i]) return v[i] < q[i];
    }
    return false;  // equal to r
}

struct Fr {
    uint64_t limbs[4];  // Montgomery form, little-endian, < r

    // ---- construction --------------------------------------------------------------
    ZKB_HOST_DEVICE static constexpr Fr zero() { return Fr{{0, 0, 0, 0}}; }
    ZKB_HOST_DEVICE static constexpr Fr one() { return Fr{{kOneMont0, kOneMont1, kOneMont2, kOneMont3}}; }
    // g = 7, the coset shift.
    ZKB_HOST_DEVICE static constexpr Fr coset_shift() {
        return Fr{{kCosetShiftMont0, kCosetShiftMont1, kCosetShiftMont2, kCosetShiftMont3}};
    }
    // ROOT, the primitive 2^32-nd root of unity.
    ZKB_HOST_DEVICE static constexpr Fr max_root_of_unity() {
        return Fr{{kRootOfUnityMont0, kRootOfUnityMont1, kRootOfUnityMont2, kRootOfUnityMont3}};
    }

    ZKB_HOST_DEVICE static Fr from_u64(uint64_t value) {
        const Fr plain{{value, 0, 0, 0}};
        return mont_mul(plain, r_squared());
    }

    // `canonical` must be < r (see is_canonical; the host byte/hex parsers check it).
    ZKB_HOST_DEVICE static Fr from_canonical(const uint64_t canonical[4]) {
        const Fr plain{{canonical[0], canonical[1], canonical[2], canonical[3]}};
        return mont_mul(plain, r_squared());
    }

    ZKB_HOST_DEVICE void to_canonical(uint64_t canonical[4]) const {
        // Montgomery reduction alone (mont_mul by the integer 1 without its x*y half):
        // four rounds of t = (t + m*r) / 2^64 divide by R. Every digest and dump goes
        // through here, so it is worth half a multiplication per element.
        const uint64_t q[4] = {kModulus0, kModulus1, kModulus2, kModulus3};
        uint64_t t[4] = {limbs[0], limbs[1], limbs[2], limbs[3]};
        ZKB_UNROLL
        for (int i = 0; i < 4; ++i) {
            const uint64_t m = t[0] * kMontInv;
            uint64_t carry = 0;
            (void)detail::mul_add(t[0], m, q[0], carry);  // low word is 0 by the choice of m
            ZKB_UNROLL
            for (int j = 1; j < 4; ++j) t[j - 1] = detail::mul_add(t[j], m, q[j], carry);
            t[3] = carry;
        }
        detail::subtract_modulus_if_needed(t);
        for (int i = 0; i < 4; ++i) canonical[i] = t[i];
    }

    // ---- arithmetic ----------------------------------------------------------------
    ZKB_HOST_DEVICE Fr operator+(const Fr& other) const {
#if defined(__CUDA_ARCH__)
        return device_op<fr32::add<fr32::PtxChain>>(*this, other);
#else
        Fr sum;
        uint64_t carry = 0;
        // r < 2^255, so the sum of two reduced values fits in 256 bits.
        ZKB_UNROLL
        for (int i = 0; i < 4; ++i) sum.limbs[i] = detail::add_carry(limbs[i], other.limbs[i], carry);
        detail::subtract_modulus_if_needed(sum.limbs);
        return sum;
#endif
    }

    ZKB_HOST_DEVICE Fr operator-(const Fr& other) const {
#if defined(__CUDA_ARCH__)
        return device_op<fr32::sub<fr32::PtxChain>>(*this, other);
#else
        const uint64_t q[4] = {kModulus0, kModulus1, kModulus2, kModulus3};
        Fr diff;
        uint64_t borrow = 0;
        ZKB_UNROLL
        for (int i = 0; i < 4; ++i) diff.limbs[i] = detail::sub_borrow(limbs[i], other.limbs[i], borrow);
        // On underflow add r back (branch-free: add r & mask).
        const uint64_t add_mask = uint64_t{0} - borrow;
        uint64_t carry = 0;
        ZKB_UNROLL
        for (int i = 0; i < 4; ++i) diff.limbs[i] = detail::add_carry(diff.limbs[i], q[i] & add_mask, carry);
        return diff;
#endif
    }

    ZKB_HOST_DEVICE Fr operator-() const { return zero() - *this; }

    ZKB_HOST_DEVICE Fr operator*(const Fr& other) const { return mont_mul(*this, other); }

    ZKB_HOST_DEVICE Fr& operator+=(const Fr& other) { return *this = *this + other; }
    ZKB_HOST_DEVICE Fr& operator-=(const Fr& other) { return *this = *this - other; }
    ZKB_HOST_DEVICE Fr& operator*=(const Fr& other) { return *this = mont_mul(*this, other); }

    ZKB_HOST_DEVICE Fr sqr() const { return mont_mul(*this, *this); }

    ZKB_HOST_DEVICE Fr pow(uint64_t exponent) const {
        Fr result = one();
        for (int bit = 63; bit >= 0; --bit) {
            result = result.sqr();
            if ((exponent >> bit) & 1) result *= *this;
        }
        return result;
    }

    // Fermat: a^(r-2). The inverse of 0 is 0 (callers that care check is_zero first).
    ZKB_HOST_DEVICE Fr inverse() const {
        const uint64_t exponent[4] = {kModulus0 - 2, kModulus1, kModulus2, kModulus3};
        Fr result = one();
        for (int limb = 3; limb >= 0; --limb) {
            for (int bit = 63; bit >= 0; --bit) {
                result = result.sqr();
                if ((exponent[limb] >> bit) & 1) result *= *this;
            }
        }
        return result;
    }

    ZKB_HOST_DEVICE bool is_zero() const { return (limbs[0] | limbs[1] | limbs[2] | limbs[3]) == 0; }

    ZKB_HOST_DEVICE bool operator==(const Fr& other) const {
        return ((limbs[0] ^ other.limbs[0]) | (limbs[1] ^ other.limbs[1]) | (limbs[2] ^ other.limbs[2]) |
                (limbs[3] ^ other.limbs[3])) == 0;
    }
    ZKB_HOST_DEVICE bool operator!=(const Fr& other) const { return !(*this == other); }

    // ---- Montgomery multiplication ---------------------------------------------------
    // CIOS with the "no final carry" shortcut (Gautam/gnark): valid because the top limb
    // of r is below (2^64 - 1)/2 - 1, so the running value never needs a fifth limb.
    // Inputs < r give an output < r.
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE Fr mont_mul(const Fr& x, const Fr& y) {
#if defined(__CUDA_ARCH__)
        return device_op<fr32::mont_mul<fr32::PtxChain>>(x, y);
#else
        const uint64_t q[4] = {kModulus0, kModulus1, kModulus2, kModulus3};
        uint64_t t[4] = {0, 0, 0, 0};
        ZKB_UNROLL
        for (int i = 0; i < 4; ++i) {
            uint64_t carry_a = 0;  // carry of t + x*y[i]
            t[0] = detail::mul_add(t[0], x.limbs[0], y.limbs[i], carry_a);
            const uint64_t m = t[0] * kMontInv;
            uint64_t carry_m = 0;  // carry of t + m*r; the low word of t[0] + m*q[0] is 0
            (void)detail::mul_add(t[0], m, q[0], carry_m);
            ZKB_UNROLL
            for (int j = 1; j < 4; ++j) {
                t[j] = detail::mul_add(t[j], x.limbs[j], y.limbs[i], carry_a);
                t[j - 1] = detail::mul_add(t[j], m, q[j], carry_m);
            }
            t[3] = carry_m + carry_a;
        }
        detail::subtract_modulus_if_needed(t);
        return Fr{{t[0], t[1], t[2], t[3]}};
#endif
    }

    // ---- host-only conversions (canonical little-endian bytes, hex) -------------------
    // Returns false (and leaves `out` untouched) when the 32 bytes encode a value >= r.
    static bool try_from_canonical_le_bytes(const uint8_t* bytes32, Fr& out);
    // Throws std::invalid_argument when the value is >= r.
    static Fr from_canonical_le_bytes(const uint8_t* bytes32);
    void to_canonical_le_bytes(uint8_t* out32) const;
    // "0x" followed by 64 lowercase hex digits, big-endian, canonical.
    std::string to_hex() const;
    // Accepts an optional 0x/0X prefix and 1..64 hex digits of a value < r.
    static bool try_from_hex(std::string_view hex, Fr& out);
    // Throws std::invalid_argument naming the offending text.
    static Fr from_hex(std::string_view hex);

private:
#if defined(__CUDA_ARCH__)
    // x op y through fr32's 32-bit limbs (splitting and joining are register moves).
    template <void (*kOp)(const uint32_t*, const uint32_t*, uint32_t*)>
    __device__ static ZKB_FORCEINLINE Fr device_op(const Fr& x, const Fr& y) {
        uint32_t a[8], b[8], out[8];
        fr32::split(x.limbs, a);
        fr32::split(y.limbs, b);
        kOp(a, b, out);
        Fr result;
        fr32::join(out, result.limbs);
        return result;
    }
#endif
    ZKB_HOST_DEVICE static constexpr Fr r_squared() {
        return Fr{{kRSquared0, kRSquared1, kRSquared2, kRSquared3}};
    }
};

static_assert(sizeof(Fr) == 32, "Fr must be exactly 32 bytes (the plugin ABI relies on it)");
static_assert(std::is_trivially_copyable_v<Fr>, "Fr must be trivially copyable");
static_assert(std::is_standard_layout_v<Fr>, "Fr must be standard layout");

// omega_n = ROOT^(2^(32 - log_n)), a primitive 2^log_n-th root of unity (the domain
// generator of docs/architecture.md#the-scalar-field-fr-and-its-domains). Precondition log_n <= 32; returns zero otherwise.
ZKB_HOST_DEVICE inline Fr root_of_unity(uint32_t log_n) {
    if (log_n > kTwoAdicity) return Fr::zero();
    Fr root = Fr::max_root_of_unity();
    for (uint32_t i = log_n; i < kTwoAdicity; ++i) root = root.sqr();
    return root;
}

// ---- host-only definitions -------------------------------------------------------

inline bool Fr::try_from_canonical_le_bytes(const uint8_t* bytes32, Fr& out) {
    uint64_t canonical[4];
    for (int limb = 0; limb < 4; ++limb) {
        uint64_t word = 0;
        for (int byte = 7; byte >= 0; --byte) word = (word << 8) | bytes32[limb * 8 + byte];
        canonical[limb] = word;
    }
    if (!is_canonical(canonical)) return false;
    out = from_canonical(canonical);
    return true;
}

inline Fr Fr::from_canonical_le_bytes(const uint8_t* bytes32) {
    Fr value;
    if (!try_from_canonical_le_bytes(bytes32, value)) {
        throw std::invalid_argument(
            "Fr::from_canonical_le_bytes: the 32 bytes encode a value >= r (the BLS12-381 scalar modulus); "
            "canonical field elements must be reduced");
    }
    return value;
}

inline void Fr::to_canonical_le_bytes(uint8_t* out32) const {
    uint64_t canonical[4];
    to_canonical(canonical);
    for (int limb = 0; limb < 4; ++limb) {
        for (int byte = 0; byte < 8; ++byte) {
            out32[limb * 8 + byte] = static_cast<uint8_t>(canonical[limb] >> (8 * byte));
        }
    }
}

inline std::string Fr::to_hex() const {
    uint64_t canonical[4];
    to_canonical(canonical);
    return detail::limbs_to_hex(canonical, 4);
}

inline bool Fr::try_from_hex(std::string_view hex, Fr& out) {
    uint64_t canonical[4];
    if (!detail::hex_to_limbs(hex, canonical, 4) || !is_canonical(canonical)) return false;
    out = from_canonical(canonical);
    return true;
}

inline Fr Fr::from_hex(std::string_view hex) {
    Fr value;
    if (!try_from_hex(hex, value)) {
        throw std::invalid_argument("Fr::from_hex: '" + std::string(hex) +
                                    "' is not a BLS12-381 scalar; expected up to 64 hex digits (optional 0x "
                                    "prefix) of a value below r = 0x73eda753...00000001");
    }
    return value;
}

// Writes n elements as canonical little-endian 32-byte values (n*32 bytes), the form of
// every user-visible dump and digest. `out` may be `in` itself (a backend's h, ABI v3):
// each element is read whole before its 32 bytes are written.
inline void to_canonical_le(const Fr* in, size_t n, uint8_t* out) {
    for (size_t i = 0; i < n; ++i) in[i].to_canonical_le_bytes(out + 32 * i);
}

}  // namespace zkbatch::ff
