// Eight elements of a prime field at once, in AVX-512 IFMA: the MSM's affine additions on
// hosts that have it (AMD since Zen 4, Intel since Ice Lake). Host only, x86-64 only.
//
// Why: one VPMADD52LUQ/HUQ multiplies eight pairs of 52-bit limbs, and the products of
// a Montgomery multiplication need no carry chains when each 64-bit accumulator has 12
// bits of room. On a 2-core EPYC (Zen 4) eight BN254 Fq products took 4.3 ns each, against
// 20 ns for one MULX/ADX product (x86_mont_mul.hpp).
//
// Representation. An element a of F (a MontgomeryField, p its modulus) is held as
// a * R' mod p with R' = 2^(52 L), in L limbs of 52 bits (one __m512i per limb, lane k of
// every limb being element k), where 52 L >= bits(p) + 6, so that 64 p < R': BN254's
// fields take L = 5, BLS12-381's Fp L = 8. The scalar field's representation
// (a * 2^(64 N), N 64-bit limbs) converts to and from this one by one lane product each
// way (to_lanes, from_lanes).
//
// Bounds. Every function takes and returns "loose" values: below 2p, every limb below
// 2^52. Montgomery's product of inputs below 8p is below (64 p^2 / R') + p < 2p, so
// products need no final subtraction; sums and differences take one conditional
// subtraction of 2p. `canonical` brings a loose value below p, which equality needs.
//
// Every function is compiled for AVX-512F/IFMA/DQ/VL (ZKB_LANES52_TARGET) and callable
// only from functions compiled so; call them only where lanes52::cpu_supported() holds.
#pragma once

#include "core/ff/batch_inverse.hpp"
#include "core/ff/montgomery_field.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define ZKB_LANES52 1
#include <immintrin.h>
#else
#define ZKB_LANES52 0
#endif

namespace zkbatch::ff::lanes52 {

// Whether this CPU (and its OS, which must save the zmm registers) runs AVX-512F and IFMA.
inline bool cpu_supported() {
#if ZKB_LANES52
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

constexpr int kLanes = 8;
constexpr int kLimbBits = 52;
constexpr uint64_t kLimbMask = (uint64_t{1} << kLimbBits) - 1;

// 52-bit limbs of a field of `modulus_bits` bits.
constexpr int limbs_for(int modulus_bits) { return (modulus_bits + 6 + kLimbBits - 1) / kLimbBits; }

// The little-endian integer of `count64` 64-bit words as `count52` 52-bit limbs and back
// (the integer must fit both).
constexpr void split52(const uint64_t* words, int count64, uint64_t* limbs, int count52) {
    ZKB_UNROLL
    for (int i = 0; i < count52; ++i) {
        const int bit = kLimbBits * i, word = bit / 64, shift = bit % 64;
        uint64_t value = word < count64 ? words[word] >> shift : 0;
        if (shift > 64 - kLimbBits && word + 1 < count64) value |= words[word + 1] << (64 - shift);
        limbs[i] = value & kLimbMask;
    }
}
constexpr void join52(const uint64_t* limbs, int count52, uint64_t* words, int count64) {
    ZKB_UNROLL
    for (int w = 0; w < count64; ++w) words[w] = 0;
    ZKB_UNROLL
    for (int i = 0; i < count52; ++i) {
        const int bit = kLimbBits * i, word = bit / 64, shift = bit % 64;
        if (word < count64) words[word] |= limbs[i] << shift;
        if (shift > 64 - kLimbBits && word + 1 < count64) words[word + 1] |= limbs[i] >> (64 - shift);
    }
}

// F's constants in radix 2^52, made at compile time.
template <class F>
struct Constants {
    static constexpr int N = F::kLimbs;
    static constexpr int L = limbs_for(F::kModulusBits);
    uint64_t p[L]{}, two_p[L]{};
    uint64_t k0 = F::kMontInv & kLimbMask;  // -p^-1 mod 2^52
    uint64_t one[L]{};                      // R' mod p, the element 1
    uint64_t to_lanes[L]{};                 // 2^(52 L - 64 N) R' mod p: a 2^(64 N) times it is a R'
    uint64_t from_lanes[L]{};               // 2^(64 N) mod p: a R' times it is a 2^(64 N)

    constexpr Constants() {
        const auto modulus = F::modulus();
        split52(modulus.limbs, N, p, L);
        uint64_t twice[N + 1]{};
        ZKB_UNROLL
        for (int i = 0; i < N; ++i) twice[i] = (modulus.limbs[i] << 1) | (i > 0 ? modulus.limbs[i - 1] >> 63 : 0);
        twice[N] = modulus.limbs[N - 1] >> 63;
        split52(twice, N + 1, two_p, L);
        power_of_two(kLimbBits * L, one);
        power_of_two(2 * kLimbBits * L - 64 * N, to_lanes);
        power_of_two(64 * N, from_lanes);
    }

private:
    // 2^k mod p as 52-bit limbs.
    static constexpr void power_of_two(int k, uint64_t* limbs) {
        Limbs<N> value{};
        value.limbs[0] = 1;
        value = detail::times_power_of_two(value, k, F::modulus());
        split52(value.limbs, N, limbs, L);
    }
};

template <class F>
inline constexpr Constants<F> kConstants{};

#if ZKB_LANES52

#define ZKB_LANES52_TARGET __attribute__((target("avx512f,avx512ifma,avx512dq,avx512vl")))
#define ZKB_LANES52_INLINE ZKB_LANES52_TARGET __attribute__((always_inline)) inline

// Eight elements of F.
template <class F>
struct Lanes {
    static constexpr int L = Constants<F>::L;
    __m512i limb[L];
};

ZKB_LANES52_INLINE __m512i broadcast(uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }

// What is above a limb's 52 bits, as an unsigned and as a signed number. (The zero-masked
// forms: GCC 12 warns that the plain ones' undefined source may be used uninitialized.)
ZKB_LANES52_INLINE __m512i high(__m512i a) { return _mm512_maskz_srli_epi64(0xff, a, kLimbBits); }
ZKB_LANES52_INLINE __m512i signed_high(__m512i a) { return _mm512_maskz_srai_epi64(0xff, a, kLimbBits); }

template <class F>
ZKB_LANES52_INLINE Lanes<F> broadcast(const uint64_t (&limbs)[Lanes<F>::L]) {
    Lanes<F> r;
    ZKB_UNROLL
    for (int i = 0; i < Lanes<F>::L; ++i) r.limb[i] = broadcast(limbs[i]);
    return r;
}

template <class F>
ZKB_LANES52_INLINE Lanes<F> one() {
    return broadcast<F>(kConstants<F>.one);
}

template <class F>
ZKB_LANES52_INLINE Lanes<F> zero() {
    Lanes<F> r;
    ZKB_UNROLL
    for (int i = 0; i < Lanes<F>::L; ++i) r.limb[i] = _mm512_setzero_si512();
    return r;
}

// a * b / R' mod p, below 2p for inputs below 8p (limbs below 2^52): L rounds of
// operand-scanning Montgomery, each adding a * b_i and m * p (m = t_0 k0 mod 2^52) into
// 64-bit accumulators and shifting them down a limb. An accumulator gathers at most 4 L
// terms below 2^52 and a carry: 2^57 for L = 8.
template <class F>
ZKB_LANES52_INLINE Lanes<F> mul(const Lanes<F>& a, const Lanes<F>& b) {
    constexpr int L = Lanes<F>::L;
    const Constants<F>& c = kConstants<F>;
    const __m512i zero = _mm512_setzero_si512();
    const __m512i k0 = broadcast(c.k0);
    __m512i p[L];
    ZKB_UNROLL
    for (int j = 0; j < L; ++j) p[j] = broadcast(c.p[j]);
    __m512i t[L + 1];
    ZKB_UNROLL
    for (int j = 0; j <= L; ++j) t[j] = zero;
    ZKB_UNROLL
    for (int i = 0; i < L; ++i) {
        const __m512i bi = b.limb[i];
        ZKB_UNROLL
        for (int j = 0; j < L; ++j) t[j] = _mm512_madd52lo_epu64(t[j], a.limb[j], bi);
        ZKB_UNROLL
        for (int j = 0; j < L; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.limb[j], bi);
        const __m512i m = _mm512_madd52lo_epu64(zero, t[0], k0);
        ZKB_UNROLL
        for (int j = 0; j < L; ++j) t[j] = _mm512_madd52lo_epu64(t[j], p[j], m);
        ZKB_UNROLL
        for (int j = 0; j < L; ++j) t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], p[j], m);
        // t_0 is now 0 mod 2^52: carry its top into t_1 and drop a limb.
        t[1] = _mm512_add_epi64(t[1], high(t[0]));
        ZKB_UNROLL
        for (int j = 0; j < L; ++j) t[j] = t[j + 1];
        t[L] = zero;
    }
    Lanes<F> r;
    const __m512i mask = broadcast(kLimbMask);
    ZKB_UNROLL
    for (int j = 0; j + 1 < L; ++j) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], high(t[j]));
        r.limb[j] = _mm512_and_si512(t[j], mask);
    }
    r.limb[L - 1] = t[L - 1];
    return r;
}

template <class F>
ZKB_LANES52_INLINE Lanes<F> sqr(const Lanes<F>& a) {
    return mul(a, a);
}

// Limbs of any sign (each within +-2^62) carried into 52-bit limbs; the top limb keeps the
// sign of the value.
template <class F>
ZKB_LANES52_INLINE void carry_signed(Lanes<F>& a) {
    const __m512i mask = broadcast(kLimbMask);
    ZKB_UNROLL
    for (int j = 0; j + 1 < Lanes<F>::L; ++j) {
        a.limb[j + 1] = _mm512_add_epi64(a.limb[j + 1], signed_high(a.limb[j]));
        a.limb[j] = _mm512_and_si512(a.limb[j], mask);
    }
}

// a - m where that is not negative, else a (m given as 52-bit limbs).
template <class F>
ZKB_LANES52_INLINE Lanes<F> subtract_if_not_below(const Lanes<F>& a, const uint64_t* m) {
    constexpr int L = Lanes<F>::L;
    Lanes<F> d;
    ZKB_UNROLL
    for (int j = 0; j < L; ++j) d.limb[j] = _mm512_sub_epi64(a.limb[j], broadcast(m[j]));
    carry_signed(d);
    const __mmask8 negative = _mm512_movepi64_mask(d.limb[L - 1]);
    ZKB_UNROLL
    for (int j = 0; j < L; ++j) d.limb[j] = _mm512_mask_blend_epi64(negative, d.limb[j], a.limb[j]);
    return d;
}

template <class F>
ZKB_LANES52_INLINE Lanes<F> add(const Lanes<F>& a, const Lanes<F>& b) {
    Lanes<F> s;
    ZKB_UNROLL
    for (int j = 0; j < Lanes<F>::L; ++j) s.limb[j] = _mm512_add_epi64(a.limb[j], b.limb[j]);
    carry_signed(s);
    return subtract_if_not_below(s, kConstants<F>.two_p);
}

// a - b + 2p, then below 2p.
template <class F>
ZKB_LANES52_INLINE Lanes<F> sub(const Lanes<F>& a, const Lanes<F>& b) {
    const Constants<F>& c = kConstants<F>;
    Lanes<F> d;
    ZKB_UNROLL
    for (int j = 0; j < Lanes<F>::L; ++j) {
        d.limb[j] = _mm512_sub_epi64(_mm512_add_epi64(a.limb[j], broadcast(c.two_p[j])), b.limb[j]);
    }
    carry_signed(d);
    return subtract_if_not_below(d, c.two_p);
}

template <class F>
ZKB_LANES52_INLINE Lanes<F> neg(const Lanes<F>& a) {
    return sub(zero<F>(), a);
}

template <class F>
ZKB_LANES52_INLINE Lanes<F> canonical(const Lanes<F>& a) {
    return subtract_if_not_below(a, kConstants<F>.p);
}

// Lanes where a == b; both canonical.
template <class F>
ZKB_LANES52_INLINE __mmask8 equal(const Lanes<F>& a, const Lanes<F>& b) {
    __mmask8 same = 0xff;
    ZKB_UNROLL
    for (int j = 0; j < Lanes<F>::L; ++j) same &= _mm512_cmpeq_epi64_mask(a.limb[j], b.limb[j]);
    return same;
}

// Scalar F (limbs a 2^(64 N)) and lanes: eight elements in, eight out.
template <class F>
ZKB_LANES52_INLINE Lanes<F> to_lanes(const F* values) {
    constexpr int L = Lanes<F>::L;
    alignas(64) uint64_t rows[L][kLanes];
    ZKB_UNROLL
    for (int k = 0; k < kLanes; ++k) {
        uint64_t limbs[L];
        split52(values[k].limbs, F::kLimbs, limbs, L);
        ZKB_UNROLL
        for (int j = 0; j < L; ++j) rows[j][k] = limbs[j];
    }
    Lanes<F> a;
    ZKB_UNROLL
    for (int j = 0; j < L; ++j) a.limb[j] = _mm512_load_si512(rows[j]);
    return canonical(mul(a, broadcast<F>(kConstants<F>.to_lanes)));
}

template <class F>
ZKB_LANES52_INLINE void from_lanes(const Lanes<F>& a, F* values) {
    constexpr int L = Lanes<F>::L;
    const Lanes<F> scalar = canonical(mul(a, broadcast<F>(kConstants<F>.from_lanes)));
    alignas(64) uint64_t rows[L][kLanes];
    ZKB_UNROLL
    for (int j = 0; j < L; ++j) _mm512_store_si512(rows[j], scalar.limb[j]);
    ZKB_UNROLL
    for (int k = 0; k < kLanes; ++k) {
        uint64_t limbs[L];
        ZKB_UNROLL
        for (int j = 0; j < L; ++j) limbs[j] = rows[j][k];
        join52(limbs, L, values[k].limbs, F::kLimbs);
    }
}

// 1/a in every lane (0 stays 0), by F's scalar arithmetic: one inversion for the eight
// (ff::batch_inverse).
template <class F>
ZKB_LANES52_INLINE Lanes<F> inverse(const Lanes<F>& a) {
    F values[kLanes];
    from_lanes(a, values);
    std::vector<F> prefix;
    batch_inverse(values, kLanes, prefix);
    return to_lanes(values);
}

#endif  // ZKB_LANES52

}  // namespace zkbatch::ff::lanes52
