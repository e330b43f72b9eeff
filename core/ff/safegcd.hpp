// Modular inversion by Bernstein and Yang's divsteps ("Fast constant-time gcd computation
// and modular inversion", 2019), in batches of 30 on 32-bit words, for any odd modulus
// m below 2^(64 n - 2) given as n 64-bit limbs (Fp::inverse uses it, n = 6).
//
// A divstep maps (delta, f, g), f odd, to
//   (1 - delta, g, (g - f) / 2)   when delta > 0 and g is odd,
//   (1 + delta, f, (g + f) / 2)   when g is odd otherwise,
//   (1 + delta, f, g / 2)         when g is even.
// From (1, m, x) the paper's Theorem 11.2 bounds the steps until g = 0, where f = +-gcd:
// floor((49 b + 57) / 17) for a b-bit modulus, b >= 46 (1101 for BLS12-381's 381-bit p).
// Beside f and g the algorithm keeps d and e with d x = f and e x = g (mod m), so at the
// end x^-1 = +-d.
//
// The first 30 steps depend only on the low 30 bits of f and g, so a batch runs them on
// one word each (`divsteps`), recording the transition matrix T, then applies T to the
// full-width f, g (`apply_to_fg`: an exact division by 2^30) and to d, e (`apply_to_de`:
// a multiple of m added to make the division by 2^30 exact, Montgomery-style, so d and e
// stay congruent to what they mean). The iteration count is fixed (ceil(1101 / 30) = 37
// batches for p) and the steps choose by masks, not branches, so on a GPU the 32 lanes of
// a warp run in step and the time does not depend on x.
//
// 30 rather than 62 steps a batch: the GPU's words are 32 bits, where a step is about
// twenty 32-bit operations and T's entries (|u| + |v| <= 2^30) multiply the 30-bit limbs
// in one IMAD.WIDE each; 62-step batches would pay two instructions for every 64-bit
// operation. In PTX for sm_90 a batch is ~1,240 instructions, an inversion ~46,000
// against Fermat's ~450,000 (608 products of ~740).
#pragma once

#include "core/util/host_device.hpp"

#include <cstdint>

namespace zkbatch::ff::safegcd {

inline constexpr int kLimbBits = 30;
inline constexpr uint32_t kLimbMask = (uint32_t{1} << kLimbBits) - 1;
inline constexpr int kBatchSteps = 30;  // T's rows then have |u| + |v| <= 2^30: int32 entries

// T scaled by 2^30 after a batch: 2^30 f' = u f + v g, 2^30 g' = q f + r g.
struct Transition {
    int32_t u, v, q, r;
};

// The algorithm for a field type whose `limbs` are 64-bit words and whose modulus is read
// from Field::modulus_limb(i), a constexpr function (Fp's).
template <class Field>
struct Inverter {
    static constexpr int kWords = sizeof(Field::limbs) / sizeof(uint64_t);
    // Signed integers as kLimbs limbs of 30 bits: limbs below the top in [0, 2^30), the top
    // one signed. 64 n / 30 + 1 limbs hold n words plus a sign.
    static constexpr int kLimbs = 64 * kWords / kLimbBits + 1;
    struct Signed30 {
        int32_t limbs[kLimbs];
    };

    ZKB_HOST_DEVICE static constexpr int modulus_bits() {
        int bits = 64 * kWords;
        for (uint64_t top = Field::modulus_limb(kWords - 1); (top >> 63) == 0; top <<= 1) --bits;
        return bits;
    }
    // Theorem 11.2's bound, for f = m and 0 <= g < m.
    static constexpr int kDivsteps = modulus_bits() >= 46 ? (49 * modulus_bits() + 57) / 17
                                                          : (49 * modulus_bits() + 80) / 17;
    static constexpr int kBatches = (kDivsteps + kBatchSteps - 1) / kBatchSteps;
    static_assert(modulus_bits() <= 64 * kWords - 2, "the result (below 3m) must fit in kWords words");
    static_assert((Field::modulus_limb(0) & 1) == 1, "divsteps need an odd modulus");

    // Limb i (30 bits) of a little-endian array of words, and the inverse operation.
    ZKB_HOST_DEVICE static constexpr uint32_t limb_of(const uint64_t* words, int i) {
        const int bit = kLimbBits * i, word = bit / 64, shift = bit % 64;
        uint64_t value = word < kWords ? words[word] >> shift : 0;
        if (shift + kLimbBits > 64 && word + 1 < kWords) value |= words[word + 1] << (64 - shift);
        return static_cast<uint32_t>(value) & kLimbMask;
    }
    ZKB_HOST_DEVICE static constexpr uint32_t modulus_limb30(int i) {
        uint64_t words[kWords] = {};
        for (int w = 0; w < kWords; ++w) words[w] = Field::modulus_limb(w);
        return limb_of(words, i);
    }
    // m^-1 mod 2^30 by Newton's iteration (each step doubles the correct low bits; an odd
    // m is its own inverse mod 8).
    ZKB_HOST_DEVICE static constexpr uint32_t modulus_inverse30() {
        const uint32_t m = static_cast<uint32_t>(Field::modulus_limb(0));
        uint32_t inverse = m;
        for (int i = 0; i < 4; ++i) inverse *= 2 - m * inverse;  // 3 -> 6 -> 12 -> 24 -> 48 bits
        return inverse & kLimbMask;
    }

    // kBatchSteps divsteps on the low words of f (odd) and g; returns T and advances delta.
    // A step with delta > 0 and g odd first swaps to (-delta, g, -f) and the rows of T
    // likewise, which turns it into the odd case; then g += f when g is odd, and g halves
    // (the f row doubles instead, keeping T integral). The swap is folded in with masks:
    // g += (swap ? -f : f), after which f += g gives the old g.
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE Transition divsteps(int32_t& delta, uint32_t f, uint32_t g) {
        uint32_t u = 1, v = 0, q = 0, r = 1;
        ZKB_UNROLL
        for (int step = 0; step < kBatchSteps; ++step) {
            const uint32_t odd = 0u - (g & 1);                                 // all ones when g is odd
            const uint32_t swap = odd & (0u - static_cast<uint32_t>(delta > 0));  // all ones for case 1
            // (x ^ swap) - swap is -x or x; masking the xor with `odd` suffices, since swap
            // is inside odd.
            g += ((f ^ swap) & odd) - swap;
            q += ((u ^ swap) & odd) - swap;
            r += ((v ^ swap) & odd) - swap;
            f += g & swap;
            u += q & swap;
            v += r & swap;
            delta = (delta ^ static_cast<int32_t>(swap)) - static_cast<int32_t>(swap) + 1;
            g >>= 1;  // the top bits are no longer exact, but the low 30 - step are
            u <<= 1;
            v <<= 1;
        }
        return {static_cast<int32_t>(u), static_cast<int32_t>(v), static_cast<int32_t>(q), static_cast<int32_t>(r)};
    }

    // (f, g) <- T (f, g) / 2^30; the division is exact (the divsteps made the low 30 bits
    // zero). Sums stay below 2^62: |u| + |v| <= 2^30 times limbs below 2^30.
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE void apply_to_fg(Signed30& f, Signed30& g, const Transition& t) {
        int64_t carry_f = (int64_t{t.u} * f.limbs[0] + int64_t{t.v} * g.limbs[0]) >> kLimbBits;
        int64_t carry_g = (int64_t{t.q} * f.limbs[0] + int64_t{t.r} * g.limbs[0]) >> kLimbBits;
        ZKB_UNROLL
        for (int i = 1; i < kLimbs; ++i) {
            carry_f += int64_t{t.u} * f.limbs[i] + int64_t{t.v} * g.limbs[i];
            carry_g += int64_t{t.q} * f.limbs[i] + int64_t{t.r} * g.limbs[i];
            f.limbs[i - 1] = static_cast<int32_t>(static_cast<uint32_t>(carry_f) & kLimbMask);
            g.limbs[i - 1] = static_cast<int32_t>(static_cast<uint32_t>(carry_g) & kLimbMask);
            carry_f >>= kLimbBits;
            carry_g >>= kLimbBits;
        }
        f.limbs[kLimbs - 1] = static_cast<int32_t>(carry_f);
        g.limbs[kLimbs - 1] = static_cast<int32_t>(carry_g);
    }

    // One row of apply_to_de: (a d + b e + k m) / 2^30 for the k in (-2^31, 2^30] that
    // makes the division exact and keeps the result in (-2m, m).
    //
    // Why that range holds: d, e in (-2m, m); a negative one counts as itself plus m
    // (a m or b m joins k), which lies in (-m, m), so |a d + b e| < 2^30 m (|a| + |b| <= 2^30).
    // The rest of k, chosen in (-2^30, 0], subtracts less than 2^30 m: the sum / 2^30
    // lands in (-2m, m).
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE void de_row(const Signed30& d, const Signed30& e, int32_t a, int32_t b,
                                                       int32_t d_negative, int32_t e_negative, Signed30& out) {
        constexpr uint32_t kInverse = modulus_inverse30();
        int32_t k = (a & d_negative) + (b & e_negative);
        int64_t carry = int64_t{a} * d.limbs[0] + int64_t{b} * e.limbs[0];
        const uint32_t low = static_cast<uint32_t>(carry) + static_cast<uint32_t>(k) * modulus_limb30(0);
        k -= static_cast<int32_t>((low * kInverse) & kLimbMask);  // the low limb now cancels
        carry = (carry + int64_t{k} * modulus_limb30(0)) >> kLimbBits;
        ZKB_UNROLL
        for (int i = 1; i < kLimbs; ++i) {
            // |a d_i + b e_i| <= 2^60, |k m_i| < 2^61: below 2^62 with the carry.
            carry += int64_t{a} * d.limbs[i] + int64_t{b} * e.limbs[i] + int64_t{k} * modulus_limb30(i);
            out.limbs[i - 1] = static_cast<int32_t>(static_cast<uint32_t>(carry) & kLimbMask);
            carry >>= kLimbBits;
        }
        out.limbs[kLimbs - 1] = static_cast<int32_t>(carry);
    }

    // (d, e) <- T (d, e) / 2^30 mod m, kept in (-2m, m).
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE void apply_to_de(Signed30& d, Signed30& e, const Transition& t) {
        const int32_t d_negative = d.limbs[kLimbs - 1] >> 31;  // all ones when negative
        const int32_t e_negative = e.limbs[kLimbs - 1] >> 31;
        Signed30 new_d, new_e;
        de_row(d, e, t.u, t.v, d_negative, e_negative, new_d);
        de_row(d, e, t.q, t.r, d_negative, e_negative, new_e);
        d = new_d;
        e = new_e;
    }

    // x^-1 mod m for x < m (x's limbs as an integer), as a value below 3m (not reduced);
    // 0, m or 2m for x = 0. On the device a called function, and by value in and out so
    // nothing goes through local memory: one copy of its code per kernel rather than one
    // per call site (the MSM kernels use it from several), and its ~4 x 13 limbs of state
    // are allocated on their own rather than beside the caller's live values.
    ZKB_HOST_DEVICE
#if defined(__CUDA_ARCH__)
    __noinline__
#endif
    static Field inverse_below_3m(const Field x) {
        Signed30 f, g, d = {}, e = {};
        ZKB_UNROLL
        for (int i = 0; i < kLimbs; ++i) {
            f.limbs[i] = static_cast<int32_t>(modulus_limb30(i));
            g.limbs[i] = static_cast<int32_t>(limb_of(x.limbs, i));
        }
        e.limbs[0] = 1;  // d x = 0 = f and e x = g (mod m)
        int32_t delta = 1;
        // Not unrolled: the batch is a few thousand instructions already.
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
        for (int batch = 0; batch < kBatches; ++batch) {
            const Transition t = divsteps(delta, static_cast<uint32_t>(f.limbs[0]), static_cast<uint32_t>(g.limbs[0]));
            apply_to_fg(f, g, t);
            apply_to_de(d, e, t);
        }
        // Now g = 0 and f = +-1 (f = m when x = 0, and d = 0). x^-1 = +-d with d in (-2m, m):
        // -d + m or d + 2m, both in (0, 3m), carried into 30-bit limbs and packed.
        const int32_t f_negative = f.limbs[kLimbs - 1] >> 31;
        int64_t carry = 0;
        uint32_t limbs[kLimbs];
        ZKB_UNROLL
        for (int i = 0; i < kLimbs; ++i) {
            carry += ((d.limbs[i] ^ f_negative) - f_negative) + int64_t{2 + f_negative} * modulus_limb30(i);
            limbs[i] = static_cast<uint32_t>(carry) & kLimbMask;
            carry >>= kLimbBits;
        }
        Field y;
        ZKB_UNROLL
        for (int w = 0; w < kWords; ++w) y.limbs[w] = 0;
        ZKB_UNROLL
        for (int i = 0; i < kLimbs; ++i) {
            const int bit = kLimbBits * i, word = bit / 64, shift = bit % 64;
            if (word < kWords) y.limbs[word] |= uint64_t{limbs[i]} << shift;
            if (shift + kLimbBits > 64 && word + 1 < kWords) y.limbs[word + 1] |= uint64_t{limbs[i]} >> (64 - shift);
        }
        return y;
    }
};

}  // namespace zkbatch::ff::safegcd
