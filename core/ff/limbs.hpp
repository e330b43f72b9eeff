// Word-level helpers of the prime fields (montgomery_field.hpp, over N limbs): 64-bit
// multiply-accumulate and carry/borrow steps written so nvcc compiles them for the
// device too, plus the host-only hex conversions of little-endian limb arrays.
#pragma once

#include "core/util/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#if defined(__x86_64__) && !defined(__CUDACC__)
#define ZKB_X86_CARRY_INTRINSICS 1
#include <x86intrin.h>
#else
#define ZKB_X86_CARRY_INTRINSICS 0
#endif

namespace zkbatch::ff::detail {

// The 64x64 -> 128-bit product.
ZKB_HOST_DEVICE ZKB_FORCEINLINE void mul_wide(uint64_t a, uint64_t b, uint64_t& lo, uint64_t& hi) {
#if defined(__CUDA_ARCH__)
    lo = a * b;
    hi = __umul64hi(a, b);
#else
    __extension__ typedef unsigned __int128 uint128;
    const uint128 product = static_cast<uint128>(a) * b;
    lo = static_cast<uint64_t>(product);
    hi = static_cast<uint64_t>(product >> 64);
#endif
}

// Returns the low word of acc + x*y + carry and leaves the high word in carry.
// Cannot overflow: (2^64-1)^2 + 2*(2^64-1) = 2^128 - 1.
ZKB_HOST_DEVICE ZKB_FORCEINLINE uint64_t mul_add(uint64_t acc, uint64_t x, uint64_t y, uint64_t& carry) {
    uint64_t lo;
    uint64_t hi;
    mul_wide(x, y, lo, hi);
    lo += acc;
    hi += (lo < acc);
    lo += carry;
    hi += (lo < carry);
    carry = hi;
    return lo;
}

#if ZKB_X86_CARRY_INTRINSICS
// x + y + flag through ADC, or x - y - flag through SBB; the flag (0 or 1) in and out. On an
// x86-64 host (not in CUDA files, whose host front end need not know the intrinsics)
// add_carry and sub_borrow take these: GCC 12 does not turn their word comparisons into a
// carry chain, and a 6-limb field addition went from 9.2 to 5.6 ns.
template <bool kSubtract>
ZKB_FORCEINLINE uint64_t x86_chain_step(uint64_t x, uint64_t y, uint64_t& flag) {
    unsigned long long result;
    const auto flag_in = static_cast<unsigned char>(flag);
    flag = kSubtract ? _subborrow_u64(flag_in, x, y, &result) : _addcarry_u64(flag_in, x, y, &result);
    return result;
}
#endif

// x + y + carry (carry is 0 or 1 in and out). constexpr for montgomery_field.hpp's
// compile-time constants.
ZKB_HOST_DEVICE ZKB_FORCEINLINE constexpr uint64_t add_carry(uint64_t x, uint64_t y, uint64_t& carry) {
#if ZKB_X86_CARRY_INTRINSICS
    if (!std::is_constant_evaluated()) return x86_chain_step<false>(x, y, carry);
#endif
    const uint64_t sum = x + y;
    const uint64_t carry1 = sum < x;
    const uint64_t total = sum + carry;
    const uint64_t carry2 = total < sum;
    carry = carry1 | carry2;
    return total;
}

// x - y - borrow (borrow is 0 or 1 in and out).
ZKB_HOST_DEVICE ZKB_FORCEINLINE constexpr uint64_t sub_borrow(uint64_t x, uint64_t y, uint64_t& borrow) {
#if ZKB_X86_CARRY_INTRINSICS
    if (!std::is_constant_evaluated()) return x86_chain_step<true>(x, y, borrow);
#endif
    const uint64_t diff = x - y;
    const uint64_t borrow1 = x < y;
    const uint64_t total = diff - borrow;
    const uint64_t borrow2 = diff < borrow;
    borrow = borrow1 | borrow2;
    return total;
}

// ---- host only ---------------------------------------------------------------------

// "0x" followed by 16 * count lowercase hex digits, big-endian.
inline std::string limbs_to_hex(const uint64_t* limbs, size_t count) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex = "0x";
    hex.reserve(2 + 16 * count);
    for (size_t limb = count; limb-- > 0;) {
        for (int nibble = 15; nibble >= 0; --nibble) hex.push_back(kDigits[(limbs[limb] >> (4 * nibble)) & 0xf]);
    }
    return hex;
}

// Parses an optional 0x/0X prefix and 1..16*count hex digits into `count` little-endian
// limbs. False on an empty, overlong or non-hex string (the range check is the caller's).
inline bool hex_to_limbs(std::string_view hex, uint64_t* limbs, size_t count) {
    if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
    if (hex.empty() || hex.size() > 16 * count) return false;
    for (size_t i = 0; i < count; ++i) limbs[i] = 0;
    for (size_t i = 0; i < hex.size(); ++i) {
        const char ch = hex[hex.size() - 1 - i];  // least significant digit first
        uint64_t digit;
        if (ch >= '0' && ch <= '9') {
            digit = static_cast<uint64_t>(ch - '0');
        } else if (ch >= 'a' && ch <= 'f') {
            digit = static_cast<uint64_t>(ch - 'a' + 10);
        } else if (ch >= 'A' && ch <= 'F') {
            digit = static_cast<uint64_t>(ch - 'A' + 10);
        } else {
            return false;
        }
        limbs[i / 16] |= digit << (4 * (i % 16));
    }
    return true;
}

}  // namespace zkbatch::ff::detail
