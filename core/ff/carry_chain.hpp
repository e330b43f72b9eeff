// The carry-chain instructions of the GPU's 32-bit integer pipeline (PTX add.cc, addc,
// mad.lo.cc, madc.hi, ...), as a policy type the field code is a template over:
// `PtxChain` emits them on the device, and `HostChain` models them exactly (the carry
// flag is a variable), so host tests run the very instruction sequence the GPU runs.
// Every field's device arithmetic is written over it (field32.hpp).
#pragma once

#include "core/util/host_device.hpp"

#include <cstdint>

namespace zkbatch::ff {

// The model of the instructions on the host. `carry` is PTX's CC.CF.
// For subtraction CF is the borrow, as in PTX (sub.cc sets it, subc consumes it).
struct HostChain {
    uint32_t carry = 0;

    static uint64_t wide(uint32_t a, uint32_t b) { return uint64_t{a} * b; }
    uint32_t put(uint64_t sum, bool set_carry) {
        if (set_carry) carry = static_cast<uint32_t>(sum >> 32);
        return static_cast<uint32_t>(sum);
    }
    uint32_t add_cc(uint32_t a, uint32_t b) { return put(uint64_t{a} + b, true); }
    uint32_t addc_cc(uint32_t a, uint32_t b) { return put(uint64_t{a} + b + carry, true); }
    uint32_t addc(uint32_t a, uint32_t b) { return put(uint64_t{a} + b + carry, false); }
    uint32_t sub_cc(uint32_t a, uint32_t b) {
        const uint32_t difference = a - b;
        carry = a < b;
        return difference;
    }
    uint32_t subc_cc(uint32_t a, uint32_t b) {
        const uint64_t subtrahend = uint64_t{b} + carry;
        const uint32_t difference = static_cast<uint32_t>(uint64_t{a} - subtrahend);
        carry = uint64_t{a} < subtrahend;
        return difference;
    }
    uint32_t subc(uint32_t a, uint32_t b) { return static_cast<uint32_t>(uint64_t{a} - b - carry); }
    uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put((wide(a, b) & 0xffffffffu) + c, true); }
    uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
        return put((wide(a, b) & 0xffffffffu) + c + carry, true);
    }
    uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put((wide(a, b) >> 32) + c, true); }
    uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put((wide(a, b) >> 32) + c + carry, true); }
    uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return put((wide(a, b) >> 32) + c + carry, false); }
    static uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
    static uint32_t mul_hi(uint32_t a, uint32_t b) { return static_cast<uint32_t>(wide(a, b) >> 32); }
};

#if defined(__CUDA_ARCH__)
// The same instructions in PTX. Each is its own asm statement; `volatile` keeps the
// compiler from reordering them, which would break the chain through the carry flag
// (ptxas itself tracks CC as a dependency).
struct PtxChain {
#define ZKB_PTX2(name, op)                                                          \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b) {               \
        uint32_t d;                                                                  \
        asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));                  \
        return d;                                                                    \
    }
#define ZKB_PTX3(name, op)                                                          \
    __device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c) {   \
        uint32_t d;                                                                  \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));      \
        return d;                                                                    \
    }
    ZKB_PTX2(add_cc, "add.cc.u32")
    ZKB_PTX2(addc_cc, "addc.cc.u32")
    ZKB_PTX2(addc, "addc.u32")
    ZKB_PTX2(sub_cc, "sub.cc.u32")
    ZKB_PTX2(subc_cc, "subc.cc.u32")
    ZKB_PTX2(subc, "subc.u32")
    ZKB_PTX3(mad_lo_cc, "mad.lo.cc.u32")
    ZKB_PTX3(madc_lo_cc, "madc.lo.cc.u32")
    ZKB_PTX3(mad_hi_cc, "mad.hi.cc.u32")
    ZKB_PTX3(madc_hi_cc, "madc.hi.cc.u32")
    ZKB_PTX3(madc_hi, "madc.hi.u32")
#undef ZKB_PTX2
#undef ZKB_PTX3
    __device__ __forceinline__ static uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
    __device__ __forceinline__ static uint32_t mul_hi(uint32_t a, uint32_t b) { return __umulhi(a, b); }
};
using NativeChain = PtxChain;
#else
using NativeChain = HostChain;
#endif

}  // namespace zkbatch::ff
