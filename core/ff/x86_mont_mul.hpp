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
// portable path. tests/math/field_test.cpp (built at -O1) compares the two paths.
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
// chains), shifting t down a word. Limbs are read from memory at offsets of the arrays'
// addresses (J*8(%[x])), so the only other registers are t, three temporaries and RDX. The
// first round's t is zero: its products are written, not added (one chain).
#define ZKB_X86_FIRST_STEP(J, T_PREVIOUS, T)                                                       \
    "mulxq " #J "*8(%[x]), %[lo], %[" #T "]\n\t"                                                   \
    "adcxq %[lo], %[" #T_PREVIOUS "]\n\t"
#define ZKB_X86_FIRST_START                                                                        \
    "movq (%[y]), %%rdx\n\t"                                                                       \
    "xorl %k[lo], %k[lo]\n\t"                                                                      \
    "mulxq (%[x]), %[t0], %[t1]\n\t"
#define ZKB_X86_FIRST_LAST(J, T_PREVIOUS)                                                          \
    "mulxq " #J "*8(%[x]), %[lo], %[a]\n\t"                                                        \
    "adcxq %[lo], %[" #T_PREVIOUS "]\n\t"                                                          \
    "movl $0, %k[lo]\n\t"                                                                          \
    "adcxq %[lo], %[a]\n\t"
#define ZKB_X86_MUL_STEP(J, T, T_NEXT)                                                             \
    "mulxq " #J "*8(%[x]), %[lo], %[hi]\n\t"                                                       \
    "adoxq %[lo], %[" #T "]\n\t"                                                                   \
    "adcxq %[hi], %[" #T_NEXT "]\n\t"
#define ZKB_X86_MUL_LAST(J, T)                                                                     \
    "mulxq " #J "*8(%[x]), %[lo], %[a]\n\t"                                                        \
    "adoxq %[lo], %[" #T "]\n\t"                                                                   \
    "movl $0, %k[lo]\n\t"                                                                          \
    "adcxq %[lo], %[a]\n\t"                                                                        \
    "adoxq %[lo], %[a]\n\t"
#define ZKB_X86_REDUCE_FIRST                                                                       \
    "movq %[inv], %%rdx\n\t"                                                                       \
    "imulq %[t0], %%rdx\n\t"                                                                       \
    "xorl %k[lo], %k[lo]\n\t"                                                                      \
    "mulxq (%[m]), %[lo], %[hi]\n\t"                                                               \
    "adcxq %[t0], %[lo]\n\t"                                                                       \
    "movq %[hi], %[t0]\n\t"
#define ZKB_X86_REDUCE_STEP(J, T, T_PREVIOUS)                                                      \
    "mulxq " #J "*8(%[m]), %[lo], %[hi]\n\t"                                                       \
    "adcxq %[" #T "], %[" #T_PREVIOUS "]\n\t"                                                      \
    "adoxq %[lo], %[" #T_PREVIOUS "]\n\t"                                                          \
    "movq %[hi], %[" #T "]\n\t"
#define ZKB_X86_REDUCE_LAST(J, T, T_PREVIOUS)                                                      \
    "mulxq " #J "*8(%[m]), %[lo], %[hi]\n\t"                                                       \
    "adcxq %[" #T "], %[" #T_PREVIOUS "]\n\t"                                                      \
    "adoxq %[lo], %[" #T_PREVIOUS "]\n\t"                                                          \
    "movl $0, %k[lo]\n\t"                                                                          \
    "adcxq %[lo], %[hi]\n\t"                                                                       \
    "adoxq %[a], %[hi]\n\t"                                                                        \
    "movq %[hi], %[" #T "]\n\t"
// The final subtraction, t >= m ? t - m : t, for 4 limbs: t - m into (lo, hi, a, RDX),
// then CMOVs. GCC compiled the C select through SSE registers; this took BN254's Fq
// products from 16.3 to 15.6 ns and its G1 MSM of 2^16 points, one thread, from 252 to
// 244 ms (bench_curve). R is the register operand as the assembler reads it.
#define ZKB_X86_SUBTRACT_STEP(T, J, R, SUB)                                                        \
    "movq %[" #T "], " R "\n\t"                                                                    \
    #SUB "q " #J "*8(%[m]), " R "\n\t"
#define ZKB_X86_SELECT(T, R) "cmovncq " R ", %[" #T "]\n\t"
#define ZKB_X86_ROUND_START(I)                                                                     \
    "movq " #I "*8(%[y]), %%rdx\n\t"                                                               \
    "xorl %k[lo], %k[lo]\n\t"

#define ZKB_X86_REDUCE_4                                                                           \
    ZKB_X86_REDUCE_FIRST ZKB_X86_REDUCE_STEP(1, t1, t0) ZKB_X86_REDUCE_STEP(2, t2, t1)             \
    ZKB_X86_REDUCE_LAST(3, t3, t2)
#define ZKB_X86_FIRST_ROUND_4                                                                      \
    ZKB_X86_FIRST_START ZKB_X86_FIRST_STEP(1, t1, t2) ZKB_X86_FIRST_STEP(2, t2, t3)                \
    ZKB_X86_FIRST_LAST(3, t3) ZKB_X86_REDUCE_4
#define ZKB_X86_ROUND_4(I)                                                                         \
    ZKB_X86_ROUND_START(I)                                                                         \
    ZKB_X86_MUL_STEP(0, t0, t1) ZKB_X86_MUL_STEP(1, t1, t2) ZKB_X86_MUL_STEP(2, t2, t3)            \
    ZKB_X86_MUL_LAST(3, t3) ZKB_X86_REDUCE_4

#define ZKB_X86_REDUCE_6                                                                           \
    ZKB_X86_REDUCE_FIRST ZKB_X86_REDUCE_STEP(1, t1, t0) ZKB_X86_REDUCE_STEP(2, t2, t1)             \
    ZKB_X86_REDUCE_STEP(3, t3, t2) ZKB_X86_REDUCE_STEP(4, t4, t3) ZKB_X86_REDUCE_LAST(5, t5, t4)
#define ZKB_X86_FIRST_ROUND_6                                                                      \
    ZKB_X86_FIRST_START ZKB_X86_FIRST_STEP(1, t1, t2) ZKB_X86_FIRST_STEP(2, t2, t3)                \
    ZKB_X86_FIRST_STEP(3, t3, t4) ZKB_X86_FIRST_STEP(4, t4, t5) ZKB_X86_FIRST_LAST(5, t5)          \
    ZKB_X86_REDUCE_6
#define ZKB_X86_ROUND_6(I)                                                                         \
    ZKB_X86_ROUND_START(I)                                                                         \
    ZKB_X86_MUL_STEP(0, t0, t1) ZKB_X86_MUL_STEP(1, t1, t2) ZKB_X86_MUL_STEP(2, t2, t3)            \
    ZKB_X86_MUL_STEP(3, t3, t4) ZKB_X86_MUL_STEP(4, t4, t5) ZKB_X86_MUL_LAST(5, t5)                \
    ZKB_X86_REDUCE_6

// t = x * y / 2^(64 N) mod m for inputs below m, m's top limb below (2^64 - 1)/2 - 1
// (MontgomeryField's static_assert), kInv = -m^-1 mod 2^64. For 4 limbs t < m. For 6, t < 2m
// and the caller subtracts: the copy of t the CMOVs need takes registers that are not left,
// and subtracting in place, then adding m back under a mask, measured slower than the C
// select (BLS12-381's Fp products 34.3 against 32.1 ns).
//
// The operands are the three arrays' addresses, in registers, and kInv, an immediate; the
// "memory" clobber says the limbs are read. Each limb a memory operand of its own let GCC
// address some with a base and an index register, and clang's fuzzing build (-Og, ASan,
// frame pointer) found no register for kInv or for the arrays as memory operands: more
// than x86-64 has where the caller indexes two arrays. BLS12-381's and BN254's MSMs
// measured no slower with the clobber; BM_FpMul's loop, which then reloads its vectors
// after every product, 5% slower (35.9 against 34.3 us).
template <int N, uint64_t kInv>
inline __attribute__((always_inline)) void x86_mont_mul(uint64_t (&t)[N], const uint64_t* x, const uint64_t* y,
                                                         const uint64_t (&m)[N]) {
    static_assert(N == 4 || N == 6, "MULX/ADX CIOS is written for 4 and 6 limbs");
    uint64_t a, lo, hi;
    if constexpr (N == 4) {
        uint64_t t0, t1, t2, t3;
        asm(ZKB_X86_FIRST_ROUND_4 ZKB_X86_ROUND_4(1) ZKB_X86_ROUND_4(2) ZKB_X86_ROUND_4(3)
                ZKB_X86_SUBTRACT_STEP(t0, 0, "%[lo]", sub) ZKB_X86_SUBTRACT_STEP(t1, 1, "%[hi]", sbb)
                    ZKB_X86_SUBTRACT_STEP(t2, 2, "%[a]", sbb) ZKB_X86_SUBTRACT_STEP(t3, 3, "%%rdx", sbb)
                        ZKB_X86_SELECT(t0, "%[lo]") ZKB_X86_SELECT(t1, "%[hi]") ZKB_X86_SELECT(t2, "%[a]")
                            ZKB_X86_SELECT(t3, "%%rdx")
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [a] "=&r"(a), [lo] "=&r"(lo),
              [hi] "=&r"(hi)
            : [x] "r"(x), [y] "r"(y), [m] "r"(m), [inv] "n"(kInv)
            : "rdx", "cc", "memory");
        t[0] = t0, t[1] = t1, t[2] = t2, t[3] = t3;
    } else {
        uint64_t t0, t1, t2, t3, t4, t5;
        asm(ZKB_X86_FIRST_ROUND_6 ZKB_X86_ROUND_6(1) ZKB_X86_ROUND_6(2) ZKB_X86_ROUND_6(3)
                ZKB_X86_ROUND_6(4) ZKB_X86_ROUND_6(5)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
              [a] "=&r"(a), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [x] "r"(x), [y] "r"(y), [m] "r"(m), [inv] "n"(kInv)
            : "rdx", "cc", "memory");
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
#undef ZKB_X86_SUBTRACT_STEP
#undef ZKB_X86_SELECT
#undef ZKB_X86_ROUND_4
#undef ZKB_X86_ROUND_6

}  // namespace zkbatch::ff::detail
#endif
