// The Montgomery product on x86-64 hosts with BMI2 and ADX (Intel since Broadwell, AMD
// since Zen): CIOS for 4 limbs (both fields of BN254, BLS12-381's Fr) and 6 (BLS12-381's
// Fp) in MULX, ADCX and ADOX, which carry the low and the high halves of the products in
// two independent chains (CF and OF) where portable C has one. The same algorithm as
// MontgomeryField's portable mont_mul (the no-final-carry CIOS, montgomery_field.hpp), so
// the same bits. On a 2-core EPYC under GCC 12, bench_curve's BM_FpMul (6 limbs) went
// from 56.6 to 43.6 us and BM_FpMulLatency from 60.6 to 41.7 us; BN254's G1 mixed
// addition from 307 to 237 ns, its pairing from 1.30 to 0.84 ms.
//
// Chosen at run time (x86_mulx_adx()): a CPU without the instructions, a static
// initializer that multiplies before the CPU was asked, and device code all take the
// portable path. tests/math/field_test.cpp compares the two paths.
#pragma once

#include <cstdint>

#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define ZKB_X86_MONT_MUL 1
#include <cpuid.h>
#else
#define ZKB_X86_MONT_MUL 0
#endif

#if ZKB_X86_MONT_MUL
namespace zkbatch::ff::detail {

// CPUID leaf 7: EBX bit 8 is BMI2 (MULX), bit 19 ADX (ADCX, ADOX).
inline bool cpu_has_mulx_adx() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ebx & (1u << 8)) != 0 && (ebx & (1u << 19)) != 0;
}
inline const bool kCpuHasMulxAdx = cpu_has_mulx_adx();
inline bool x86_mulx_adx() { return kCpuHasMulxAdx; }

// One CIOS round, t = (t + x * y_i + k * m) / 2^64 with k = t_0 * inv: first x * y_i into
// t (low halves on OF, high halves on CF, the top word into a), then k * m (the same two
// chains), shifting t down a word. y_i is at byte offset OFF of y. The first round's t is
// zero: its products are written, not added (one chain).
#define ZKB_X86_FIRST_STEP(XOFF, T_PREVIOUS, T)                           \
    "mulxq " XOFF "(%[x]), %[lo], %[" #T "]\n\t"                           \
    "adcxq %[lo], %[" #T_PREVIOUS "]\n\t"
#define ZKB_X86_FIRST_START                                               \
    "movq 0(%[y]), %%rdx\n\t"                                            \
    "xorl %k[lo], %k[lo]\n\t"                                            \
    "mulxq 0(%[x]), %[t0], %[t1]\n\t"
#define ZKB_X86_FIRST_LAST(XOFF, T_PREVIOUS)                              \
    "mulxq " XOFF "(%[x]), %[lo], %[a]\n\t"                               \
    "adcxq %[lo], %[" #T_PREVIOUS "]\n\t"                                 \
    "movl $0, %k[lo]\n\t"                                                 \
    "adcxq %[lo], %[a]\n\t"
#define ZKB_X86_MUL_STEP(XOFF, T, T_NEXT)                                 \
    "mulxq " XOFF "(%[x]), %[lo], %[hi]\n\t"                             \
    "adoxq %[lo], %[" #T "]\n\t"                                          \
    "adcxq %[hi], %[" #T_NEXT "]\n\t"
#define ZKB_X86_MUL_LAST(XOFF, T)                                         \
    "mulxq " XOFF "(%[x]), %[lo], %[a]\n\t"                              \
    "adoxq %[lo], %[" #T "]\n\t"                                          \
    "movl $0, %k[lo]\n\t"                                                 \
    "adcxq %[lo], %[a]\n\t"                                               \
    "adoxq %[lo], %[a]\n\t"
#define ZKB_X86_REDUCE_FIRST                                              \
    "movq %[inv], %%rdx\n\t"                                              \
    "imulq %[t0], %%rdx\n\t"                                              \
    "xorl %k[lo], %k[lo]\n\t"                                             \
    "mulxq %[q0], %[lo], %[hi]\n\t"                                       \
    "adcxq %[t0], %[lo]\n\t"                                              \
    "movq %[hi], %[t0]\n\t"
#define ZKB_X86_REDUCE_STEP(Q, T, T_PREVIOUS)                             \
    "mulxq %[" #Q "], %[lo], %[hi]\n\t"                                   \
    "adcxq %[" #T "], %[" #T_PREVIOUS "]\n\t"                             \
    "adoxq %[lo], %[" #T_PREVIOUS "]\n\t"                                 \
    "movq %[hi], %[" #T "]\n\t"
#define ZKB_X86_REDUCE_LAST(Q, T, T_PREVIOUS)                             \
    "mulxq %[" #Q "], %[lo], %[hi]\n\t"                                   \
    "adcxq %[" #T "], %[" #T_PREVIOUS "]\n\t"                             \
    "adoxq %[lo], %[" #T_PREVIOUS "]\n\t"                                 \
    "movl $0, %k[lo]\n\t"                                                 \
    "adcxq %[lo], %[hi]\n\t"                                              \
    "adoxq %[a], %[hi]\n\t"                                               \
    "movq %[hi], %[" #T "]\n\t"
#define ZKB_X86_ROUND_START(OFF)                                          \
    "movq " OFF "(%[y]), %%rdx\n\t"                                       \
    "xorl %k[lo], %k[lo]\n\t"

#define ZKB_X86_REDUCE_4                                                                           \
    ZKB_X86_REDUCE_FIRST ZKB_X86_REDUCE_STEP(q1, t1, t0) ZKB_X86_REDUCE_STEP(q2, t2, t1)           \
    ZKB_X86_REDUCE_LAST(q3, t3, t2)
#define ZKB_X86_FIRST_ROUND_4                                                                      \
    ZKB_X86_FIRST_START ZKB_X86_FIRST_STEP("8", t1, t2) ZKB_X86_FIRST_STEP("16", t2, t3)           \
    ZKB_X86_FIRST_LAST("24", t3) ZKB_X86_REDUCE_4
#define ZKB_X86_ROUND_4(OFF)                                                                       \
    ZKB_X86_ROUND_START(OFF)                                                                       \
    ZKB_X86_MUL_STEP("0", t0, t1) ZKB_X86_MUL_STEP("8", t1, t2) ZKB_X86_MUL_STEP("16", t2, t3)     \
    ZKB_X86_MUL_LAST("24", t3) ZKB_X86_REDUCE_4

#define ZKB_X86_REDUCE_6                                                                           \
    ZKB_X86_REDUCE_FIRST ZKB_X86_REDUCE_STEP(q1, t1, t0) ZKB_X86_REDUCE_STEP(q2, t2, t1)           \
    ZKB_X86_REDUCE_STEP(q3, t3, t2) ZKB_X86_REDUCE_STEP(q4, t4, t3) ZKB_X86_REDUCE_LAST(q5, t5, t4)
#define ZKB_X86_FIRST_ROUND_6                                                                      \
    ZKB_X86_FIRST_START ZKB_X86_FIRST_STEP("8", t1, t2) ZKB_X86_FIRST_STEP("16", t2, t3)           \
    ZKB_X86_FIRST_STEP("24", t3, t4) ZKB_X86_FIRST_STEP("32", t4, t5) ZKB_X86_FIRST_LAST("40", t5) \
    ZKB_X86_REDUCE_6
#define ZKB_X86_ROUND_6(OFF)                                                                       \
    ZKB_X86_ROUND_START(OFF)                                                                       \
    ZKB_X86_MUL_STEP("0", t0, t1) ZKB_X86_MUL_STEP("8", t1, t2) ZKB_X86_MUL_STEP("16", t2, t3)     \
    ZKB_X86_MUL_STEP("24", t3, t4) ZKB_X86_MUL_STEP("32", t4, t5) ZKB_X86_MUL_LAST("40", t5)       \
    ZKB_X86_REDUCE_6

// t = x * y / 2^(64 N) mod m, before the final subtraction (t < 2m): inputs below m, m's
// top limb below (2^64 - 1)/2 - 1 (MontgomeryField's static_assert), inv = -m^-1 mod 2^64.
template <int N>
inline __attribute__((always_inline)) void x86_mont_mul(uint64_t (&t)[N], const uint64_t* x, const uint64_t* y,
                                                         const uint64_t (&m)[N], const uint64_t& inv) {
    static_assert(N == 4 || N == 6, "MULX/ADX CIOS is written for 4 and 6 limbs");
    uint64_t a, lo, hi;
    if constexpr (N == 4) {
        uint64_t t0, t1, t2, t3;
        asm(ZKB_X86_FIRST_ROUND_4 ZKB_X86_ROUND_4("8") ZKB_X86_ROUND_4("16") ZKB_X86_ROUND_4("24")
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [a] "=&r"(a), [lo] "=&r"(lo),
              [hi] "=&r"(hi)
            : [x] "r"(x), [y] "r"(y), [q0] "m"(m[0]), [q1] "m"(m[1]), [q2] "m"(m[2]), [q3] "m"(m[3]),
              [inv] "m"(inv), "m"(*reinterpret_cast<const uint64_t(*)[N]>(x)),
              "m"(*reinterpret_cast<const uint64_t(*)[N]>(y))
            : "rdx", "cc");
        t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3;
    } else {
        uint64_t t0, t1, t2, t3, t4, t5;
        asm(ZKB_X86_FIRST_ROUND_6 ZKB_X86_ROUND_6("8") ZKB_X86_ROUND_6("16") ZKB_X86_ROUND_6("24")
                ZKB_X86_ROUND_6("32") ZKB_X86_ROUND_6("40")
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
              [a] "=&r"(a), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [x] "r"(x), [y] "r"(y), [q0] "m"(m[0]), [q1] "m"(m[1]), [q2] "m"(m[2]), [q3] "m"(m[3]),
              [q4] "m"(m[4]), [q5] "m"(m[5]), [inv] "m"(inv), "m"(*reinterpret_cast<const uint64_t(*)[N]>(x)),
              "m"(*reinterpret_cast<const uint64_t(*)[N]>(y))
            : "rdx", "cc");
        t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3, t[4] = t4, t[5] = t5;
    }
}

#undef ZKB_X86_FIRST_STEP
#undef ZKB_X86_FIRST_START
#undef ZKB_X86_FIRST_LAST
#undef ZKB_X86_REDUCE_4
#undef ZKB_X86_REDUCE_6
#undef ZKB_X86_FIRST_ROUND_4
#undef ZKB_X86_FIRST_ROUND_6
#undef ZKB_X86_MUL_STEP
#undef ZKB_X86_MUL_LAST
#undef ZKB_X86_REDUCE_FIRST
#undef ZKB_X86_REDUCE_STEP
#undef ZKB_X86_REDUCE_LAST
#undef ZKB_X86_ROUND_START
#undef ZKB_X86_ROUND_4
#undef ZKB_X86_ROUND_6

}  // namespace zkbatch::ff::detail
#endif
