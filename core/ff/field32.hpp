// A prime field's arithmetic over 32-bit limbs, the form the GPU's integer pipeline works
// in, written once for every field zkbatch runs on a device: BLS12-381's Fp (12 limbs)
// and Fr (8), BN254's Fq and Fr (8 each).
//
// A GPU multiplies 32x32 bits per instruction (IMAD), so montgomery_field.hpp's 64-bit
// limbs cost it four multiplies per limb product plus compare-and-add carries. Here
// every step is one PTX carry-chain instruction (mad.lo.cc, madc.hi.cc, addc.cc, ...).
// The algorithms are templates over the chain (carry_chain.hpp): `PtxChain` emits the
// instructions on the device and `HostChain` models them exactly, so host tests run the
// very instruction sequence the GPU runs against GMP and the 64-bit code.
//
// Field32<Description> takes a MontgomeryField description (montgomery_field.hpp) and
// derives the rest from its modulus m: the 32-bit limbs, -m^-1 mod 2^32, and which of
// the optional paths the modulus allows. R = 2^(32 K), montgomery_field.hpp's R, so
// the results are the same bits as the host's.
//
// Montgomery multiplication is CIOS. A round adds a * b_i, then m_i * modulus with
// m_i = t_0 * (-m^-1 mod 2^32), which clears the lowest limb: 2 K + 1 + 2 K multiply
// instructions for K limbs (lo and hi halves counted apart), which ptxas fuses into
// wide multiply-adds (IMAD.WIDE). Two accumulators alternate roles every round so each
// 64-bit product lands on an aligned register pair (mul_reduce_round). One modulus
// shape is cheaper: BLS12-381's r has low limbs 1 and 2^32 - 1, so -r^-1 = 2^32 - 1
// (mod 2^32), m_i = -t_0, and m_i * (r1:r0) = (~t_0 : t_0) << 32 | m_i: adds instead of
// four multiplies, 28 IMADs a round instead of 33 (kSparseLowLimbs;
// docs/ntt.md#32-bit-carry-chains has the measurements).
//
// Bounds. Every field here has m < 2^(32 K - 1), so two reduced values sum below 2^(32 K)
// and a partly reduced value (< 2m) fits K limbs. Where also 3m < 2^(32 K) (all but
// BLS12-381's r), mont_mul takes factors below 2m, so an unreduced sum can be a factor:
// the lazy products (kLazyProducts) build on that.
#pragma once

#include "core/ff/carry_chain.hpp"
#include "core/ff/montgomery_field.hpp"
#include "core/util/host_device.hpp"

#include <cstdint>

namespace zkbatch::ff {

namespace field32_detail {

// The modulus's 32-bit limbs, as a constexpr array: what modulus_limb and the rows read.
template <class Description>
struct ModulusWords {
    uint32_t words[2 * Description::kLimbs];
    ZKB_HOST_DEVICE constexpr ModulusWords() : words{} {
        for (int j = 0; j < 2 * Description::kLimbs; ++j) {
            words[j] = static_cast<uint32_t>(Description::modulus().limbs[j / 2] >> (32 * (j % 2)));
        }
    }
};

// The modulus's 32-bit limb j (a function, so device code can index it; after unrolling,
// an immediate). Outside Field32: its constants are computed from it in the class body.
template <class Description>
ZKB_HOST_DEVICE constexpr uint32_t modulus_limb(int j) {
    constexpr ModulusWords<Description> kModulus;
    return kModulus.words[j];
}

}  // namespace field32_detail

template <class Description>
struct Field32 {
    static constexpr int kLimbs = 2 * Description::kLimbs;

    // The modulus's limbs by index, and those of 2m.
    ZKB_HOST_DEVICE static constexpr uint32_t modulus_limb(int j) {
        return field32_detail::modulus_limb<Description>(j);
    }
    ZKB_HOST_DEVICE static constexpr uint32_t twice_modulus_limb(int j) {
        return (modulus_limb(j) << 1) | (j == 0 ? 0u : modulus_limb(j - 1) >> 31);
    }
    // -m^-1 mod 2^32: the low half of -m^-1 mod 2^64.
    static constexpr uint32_t kMontInv =
        static_cast<uint32_t>(detail::negated_inverse(Description::modulus().limbs[0]));
    // r's shape (above): the reduction's two low limbs are adds.
    static constexpr bool kSparseLowLimbs = field32_detail::modulus_limb<Description>(0) == 1u &&
                                            field32_detail::modulus_limb<Description>(1) == 0xffffffffu;
    // 3m < 2^(32 K): products take factors below 2m (sufficient: top limb below 2^64 / 3).
    static constexpr bool kLazyProducts =
        Description::modulus().limbs[Description::kLimbs - 1] < 0x5555555555555555ULL;

    static_assert(uint32_t(field32_detail::modulus_limb<Description>(0) * kMontInv) == 0xffffffffu,
                  "kMontInv must be -m^-1 mod 2^32");
    static_assert((Description::modulus().limbs[Description::kLimbs - 1] >> 63) == 0, "2m must fit in K limbs");

    // out = v - m if v >= m, else v (v < 2m). `out` may alias v.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void reduce_once(Chain& chain, const uint32_t v[kLimbs],
                                                            uint32_t out[kLimbs]) {
        uint32_t d[kLimbs];
        d[0] = chain.sub_cc(v[0], modulus_limb(0));
        ZKB_UNROLL
        for (int j = 1; j < kLimbs; ++j) d[j] = chain.subc_cc(v[j], modulus_limb(j));
        const uint32_t keep = chain.subc(0, 0);  // all ones when v < m (the subtraction borrowed)
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; ++j) out[j] = (v[j] & keep) | (d[j] & ~keep);
    }

    // out = a * b / R mod m, only partly reduced: out < 2m for a < m and any K-limb b
    // (the value after round i, before its division, is below (a b_{<=i} + M_{<=i} m) /
    // 2^(32 i) < 2m 2^32, and at the end below a b / R + m < 2m). `out` may alias a or b.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void mont_mul_partial(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                                 uint32_t out[kLimbs]) {
        Chain chain;
        uint32_t first[kLimbs], second[kLimbs];
        ZKB_UNROLL
        for (int i = 0; i < kLimbs; i += 2) {
            mul_reduce_round(chain, first, second, a, b[i], i == 0);
            mul_reduce_round(chain, second, first, a, b[i + 1], false);
        }
        fold_accumulators(chain, first, second, out);  // value = second / 2^32 + first, second[0] = 0
    }

    // out = a * b / R mod m, fully reduced, for a, b < m; with kLazyProducts for a, b < 2m
    // too (every round stays below (a + m) 2^32 < 3m 2^32, the end value below
    // 4m^2 / R + m < 2m). `out` may alias a or b.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void mont_mul(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                         uint32_t out[kLimbs]) {
        Chain chain;
        uint32_t t[kLimbs];
        mont_mul_partial<Chain>(a, b, t);
        reduce_once(chain, t, out);
    }

    // out = a + b, not reduced: below 2m for a, b < m. For a sum whose only use is a
    // factor of mont_mul (kLazyProducts).
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void add_unreduced(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                              uint32_t out[kLimbs]) {
        Chain chain;
        out[0] = chain.add_cc(a[0], b[0]);
        ZKB_UNROLL
        for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(a[j], b[j]);
        out[kLimbs - 1] = chain.addc(a[kLimbs - 1], b[kLimbs - 1]);
    }

    // out = a + b mod m; a, b < m.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void add(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                    uint32_t out[kLimbs]) {
        uint32_t s[kLimbs];
        add_unreduced<Chain>(a, b, s);
        Chain chain;
        reduce_once(chain, s, out);
    }

    // out = a - b mod m; a, b < m: a - b, plus m when that borrows.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void sub(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                    uint32_t out[kLimbs]) {
        sub_adding_back<Chain, 1>(a, b, out);
    }

    // Partly reduced values, v < 2m (the NTT passes between their reductions). 4m may not
    // fit K limbs, so a sum keeps its carry out.

    // out = a + b mod m, in [0, 2m); a, b < 2m. The sum s (K limbs and a carry) is < 4m;
    // s - 2m is kept unless it is negative, i.e. unless s has no carry out and the
    // subtraction borrows (a carry out implies the borrow: s - 2^(32 K) < 2m).
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void add_partial(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                            uint32_t out[kLimbs]) {
        Chain chain;
        uint32_t s[kLimbs], d[kLimbs];
        s[0] = chain.add_cc(a[0], b[0]);
        ZKB_UNROLL
        for (int j = 1; j < kLimbs; ++j) s[j] = chain.addc_cc(a[j], b[j]);
        const uint32_t carry_out = chain.addc(0, 0);
        d[0] = chain.sub_cc(s[0], twice_modulus_limb(0));
        ZKB_UNROLL
        for (int j = 1; j < kLimbs; ++j) d[j] = chain.subc_cc(s[j], twice_modulus_limb(j));
        const uint32_t keep_sum = chain.subc(carry_out, 0);  // all ones when negative, else 0
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; ++j) out[j] = (s[j] & keep_sum) | (d[j] & ~keep_sum);
    }

    // out = a - b mod m, in [0, 2m); a, b < 2m.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void sub_partial(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                            uint32_t out[kLimbs]) {
        sub_adding_back<Chain, 2>(a, b, out);
    }

    // out = (a b - c d) / R mod m, fully reduced, for a, b, c, d < m: both products in
    // one CIOS pass, so one reduction where a b - c d takes two. -c d is (m - c) d. Every
    // round stays below (a + m - c + m) 2^32 < 3m 2^32; the end value below
    // 2m^2 / R + m < 2m. `out` may alias any input. For the curves' Y3 = r (q - X3) - s t.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void product_difference(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                                   const uint32_t c[kLimbs], const uint32_t d[kLimbs],
                                                                   uint32_t out[kLimbs])
        requires kLazyProducts
    {
        Chain chain;
        uint32_t negated[kLimbs];  // m - c, in (0, m]
        negated[0] = chain.sub_cc(modulus_limb(0), c[0]);
        ZKB_UNROLL
        for (int j = 1; j < kLimbs - 1; ++j) negated[j] = chain.subc_cc(modulus_limb(j), c[j]);
        negated[kLimbs - 1] = chain.subc(modulus_limb(kLimbs - 1), c[kLimbs - 1]);
        uint32_t first[kLimbs], second[kLimbs];
        ZKB_UNROLL
        for (int i = 0; i < kLimbs; i += 2) {
            product_row(chain, first, second, a, b[i], i == 0);
            in_place_row(chain, first, second, negated, d[i]);
            reduce_row(chain, first, second);
            product_row(chain, second, first, a, b[i + 1], false);
            in_place_row(chain, second, first, negated, d[i + 1]);
            reduce_row(chain, second, first);
        }
        uint32_t t[kLimbs];
        fold_accumulators(chain, first, second, t);
        reduce_once(chain, t, out);
    }

    // ---- Products reduced later (lazy reduction) ----------------------------------
    // A Montgomery product spends half its multiplies on the reduction. Where products
    // are added before they are used, as in Fp2's c0 = a0 b0 - a1 b1, the sum can be
    // reduced once: Fp2's product then costs three double-width products and two
    // reductions (BLS12-381's Fp: 744 multiply instructions against Karatsuba over
    // mont_mul's 900).

    // wide = a * b, 2K limbs (low limbs first); any K-limb a, b. The rows of
    // mont_mul_partial without the reduction: each round's finished limb leaves as limb i.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void mul_wide(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                         uint32_t wide[2 * kLimbs]) {
        Chain chain;
        uint32_t first[kLimbs], second[kLimbs];
        ZKB_UNROLL
        for (int i = 0; i < kLimbs; i += 2) {
            product_row(chain, first, second, a, b[i], i == 0);
            wide[i] = first[0];
            product_row(chain, second, first, a, b[i + 1], false);
            wide[i + 1] = second[0];
        }
        fold_accumulators(chain, first, second, wide + kLimbs);  // a b < 2^(64 K)
    }

    // out = wide / R mod m, fully reduced, for wide < m R (Montgomery's REDC). The low
    // half reduced alone, (low + M m) / R with M = -low m^-1 mod R, is at most m; the high
    // half, below m, is added after: below 2m, which reduce_once brings below m.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void reduce_wide(const uint32_t wide[2 * kLimbs], uint32_t out[kLimbs]) {
        constexpr Modulus kModulus;
        Chain chain;
        uint32_t first[kLimbs], second[kLimbs];
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; ++j) {
            first[j] = wide[j];
            second[j] = 0;
        }
        ZKB_UNROLL
        for (int i = 0; i < kLimbs; i += 2) {
            if (i == 0) {
                generic_reduce_row(chain, first, second);
            } else {
                merge_row(chain, first, second);
                shifted_row(chain, first, second, kModulus.words, Chain::mul_lo(first[0], kMontInv));
            }
            merge_row(chain, second, first);
            shifted_row(chain, second, first, kModulus.words, Chain::mul_lo(second[0], kMontInv));
        }
        uint32_t low[kLimbs];
        fold_accumulators(chain, first, second, low);
        uint32_t sum[kLimbs];
        add_unreduced<Chain>(low, wide + kLimbs, sum);
        reduce_once(chain, sum, out);
    }

    // (c0 + c1 u) = (a0 + a1 u)(b0 + b1 u) in Fp2 = Fp[u]/(u^2 + 1), Montgomery forms,
    // inputs below m, outputs fully reduced: the bits of Karatsuba over mont_mul. With
    // t = a0 b0 and s = a1 b1: c1 from (a0 + a1)(b0 + b1) - t - s = a0 b1 + a1 b0 < 2m^2,
    // c0 from t - s plus m R when that is negative (so below m R). The cross product comes
    // first and t and s are taken off it as they come: at most three double-width values
    // live at once. Outputs may alias inputs.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void fp2_mul(const uint32_t a0[kLimbs], const uint32_t a1[kLimbs],
                                                        const uint32_t b0[kLimbs], const uint32_t b1[kLimbs],
                                                        uint32_t c0[kLimbs], uint32_t c1[kLimbs]) {
        constexpr int kWide = 2 * kLimbs;
        uint32_t cross[kWide], t[kWide], s[kWide];
        {
            uint32_t a_sum[kLimbs], b_sum[kLimbs];  // below 2m
            add_unreduced<Chain>(a0, a1, a_sum);
            add_unreduced<Chain>(b0, b1, b_sum);
            mul_wide<Chain>(a_sum, b_sum, cross);
        }
        mul_wide<Chain>(a0, b0, t);
        Chain chain;
        (void)sub_wide(chain, cross, t);
        mul_wide<Chain>(a1, b1, s);
        (void)sub_wide(chain, cross, s);
        const uint32_t add_back = sub_wide(chain, t, s);                // t - s, all ones when negative
        add_masked_modulus(chain, t + kLimbs, add_back, t + kLimbs);  // m R
        reduce_wide<Chain>(t, c0);
        reduce_wide<Chain>(cross, c1);
    }

    // The description's 64-bit limbs <-> 32-bit limbs (register moves on the device).
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void split(const uint64_t in[kLimbs / 2], uint32_t out[kLimbs]) {
        ZKB_UNROLL
        for (int i = 0; i < kLimbs / 2; ++i) {
            out[2 * i] = static_cast<uint32_t>(in[i]);
            out[2 * i + 1] = static_cast<uint32_t>(in[i] >> 32);
        }
    }
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void join(const uint32_t in[kLimbs], uint64_t out[kLimbs / 2]) {
        ZKB_UNROLL
        for (int i = 0; i < kLimbs / 2; ++i) out[i] = (uint64_t{in[2 * i + 1]} << 32) | in[2 * i];
    }
    // kOp (one of the above, or any of that signature) on two elements F of the field,
    // through their 32-bit limbs.
    template <void (*kOp)(const uint32_t*, const uint32_t*, uint32_t*), class F>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static F apply(const F& x, const F& y) {
        uint32_t a[kLimbs], b[kLimbs], out[kLimbs];
        split(x.limbs, a);
        split(y.limbs, b);
        kOp(a, b, out);
        F result;
        join(out, result.limbs);
        return result;
    }

private:
    // The modulus's limbs as an array, for the rows (immediates after unrolling).
    using Modulus = field32_detail::ModulusWords<Description>;

    // out = a - b, plus kMultiple * m when that borrows: a - b mod m for a, b below
    // kMultiple * m, in [0, kMultiple * m).
    template <class Chain, int kMultiple>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void sub_adding_back(const uint32_t a[kLimbs], const uint32_t b[kLimbs],
                                                                uint32_t out[kLimbs]) {
        static_assert(kMultiple == 1 || kMultiple == 2, "m or 2m");
        Chain chain;
        uint32_t d[kLimbs];
        d[0] = chain.sub_cc(a[0], b[0]);
        ZKB_UNROLL
        for (int j = 1; j < kLimbs; ++j) d[j] = chain.subc_cc(a[j], b[j]);
        const uint32_t add_back = chain.subc(0, 0);  // all ones when a < b
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; ++j) {
            const uint32_t limb = (kMultiple == 1 ? modulus_limb(j) : twice_modulus_limb(j)) & add_back;
            if (j == 0) {
                out[j] = chain.add_cc(d[j], limb);
            } else if (j < kLimbs - 1) {
                out[j] = chain.addc_cc(d[j], limb);
            } else {
                out[j] = chain.addc(d[j], limb);
            }
        }
    }

    // out = v + (m & mask): m added back where a subtraction borrowed (mask all ones), or
    // nothing (mask zero); the carry out is dropped. `out` may alias v.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void add_masked_modulus(Chain& chain, const uint32_t v[kLimbs],
                                                                   uint32_t mask, uint32_t out[kLimbs]) {
        out[0] = chain.add_cc(v[0], modulus_limb(0) & mask);
        ZKB_UNROLL
        for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(v[j], modulus_limb(j) & mask);
        out[kLimbs - 1] = chain.addc(v[kLimbs - 1], modulus_limb(kLimbs - 1) & mask);
    }

    // wide -= other (2K limbs); returns all ones when it borrowed.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static uint32_t sub_wide(Chain& chain, uint32_t wide[2 * kLimbs],
                                                             const uint32_t other[2 * kLimbs]) {
        wide[0] = chain.sub_cc(wide[0], other[0]);
        ZKB_UNROLL
        for (int j = 1; j < 2 * kLimbs; ++j) wide[j] = chain.subc_cc(wide[j], other[j]);
        return chain.subc(0, 0);
    }

    // The rows of the products, on two accumulators: `even` holds positions 0..K-1 and
    // `odd` positions 1..K, so v[j] * x for even j lands on even's aligned pairs (j, j + 1)
    // and for odd j on odd's (j - 1, j), and ptxas fuses each lo/hi pair into one
    // IMAD.WIDE (one shifting accumulator cost a register move per limb). A value is
    // even + odd * 2^32.
    //
    // A row that divides by 2^32 as it goes (the next position becomes position 0) swaps
    // the roles: the new `even` is the old `odd`, already aligned to position 0, and the
    // new `odd` the old `even`, whose limb k sits at position k - 1 and whose limb 0 has
    // left (it is zero, or a product's finished limb). Its limb 1 goes into even[0]
    // (merge_row), the rest shift down two limbs inside the chain that adds the odd
    // products (shifted_row).

    // v[j] * x into fresh accumulators.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void first_row(uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                          const uint32_t v[kLimbs], uint32_t x) {
        ZKB_UNROLL
        for (int j = 0; j < kLimbs; j += 2) {
            odd[j] = Chain::mul_lo(v[j + 1], x);
            odd[j + 1] = Chain::mul_hi(v[j + 1], x);
            even[j] = Chain::mul_lo(v[j], x);
            even[j + 1] = Chain::mul_hi(v[j], x);
        }
    }

    // even[0] += the old even's limb 1; its carry stays in the chain for shifted_row.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void merge_row(Chain& chain, uint32_t even[kLimbs],
                                                          const uint32_t odd[kLimbs]) {
        even[0] = chain.add_cc(even[0], odd[1]);
    }

    // After merge_row: v * x added with the old even's limbs 2..K-1 shifted down two.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void shifted_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                            const uint32_t v[kLimbs], uint32_t x) {
        ZKB_UNROLL
        for (int j = 0; j < kLimbs - 2; j += 2) {
            odd[j] = chain.madc_lo_cc(v[j + 1], x, odd[j + 2]);
            odd[j + 1] = chain.madc_hi_cc(v[j + 1], x, odd[j + 3]);
        }
        odd[kLimbs - 2] = chain.madc_lo_cc(v[kLimbs - 1], x, 0);
        odd[kLimbs - 1] = chain.madc_hi(v[kLimbs - 1], x, 0);
        even[0] = chain.mad_lo_cc(v[0], x, even[0]);
        even[1] = chain.madc_hi_cc(v[0], x, even[1]);
        ZKB_UNROLL
        for (int j = 2; j < kLimbs; j += 2) {
            even[j] = chain.madc_lo_cc(v[j], x, even[j]);
            even[j + 1] = chain.madc_hi_cc(v[j], x, even[j + 1]);
        }
        odd[kLimbs - 1] = chain.addc(odd[kLimbs - 1], 0);  // even's carry out of position K-1 is position K
    }

    // v * x added in place. The caller's bound keeps the value below 2^(32 (K + 1)).
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void in_place_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                             const uint32_t v[kLimbs], uint32_t x) {
        odd[0] = chain.mad_lo_cc(x, v[1], odd[0]);
        odd[1] = chain.madc_hi_cc(x, v[1], odd[1]);
        ZKB_UNROLL
        for (int j = 2; j < kLimbs - 2; j += 2) {
            odd[j] = chain.madc_lo_cc(x, v[j + 1], odd[j]);
            odd[j + 1] = chain.madc_hi_cc(x, v[j + 1], odd[j + 1]);
        }
        odd[kLimbs - 2] = chain.madc_lo_cc(x, v[kLimbs - 1], odd[kLimbs - 2]);
        odd[kLimbs - 1] = chain.madc_hi(x, v[kLimbs - 1], odd[kLimbs - 1]);
        even[0] = chain.mad_lo_cc(x, v[0], even[0]);
        even[1] = chain.madc_hi_cc(x, v[0], even[1]);
        ZKB_UNROLL
        for (int j = 2; j < kLimbs; j += 2) {
            even[j] = chain.madc_lo_cc(x, v[j], even[j]);
            even[j + 1] = chain.madc_hi_cc(x, v[j], even[j + 1]);
        }
        odd[kLimbs - 1] = chain.addc(odd[kLimbs - 1], 0);
    }

    // Adds M * m with M = even[0] * -m^-1, which clears even[0].
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void generic_reduce_row(Chain& chain, uint32_t even[kLimbs],
                                                                   uint32_t odd[kLimbs]) {
        constexpr Modulus kModulus;
        const uint32_t m = Chain::mul_lo(even[0], kMontInv);
        in_place_row(chain, even, odd, kModulus.words, m);
        even[0] = 0;
    }

    // generic_reduce_row, for a modulus of kSparseLowLimbs: M = -u for u = even[0], and
    // M * m0 = (0 : M), M * m1 = (~u : u) for u != 0 (both zero for u = 0), so the two
    // low limbs are adds. The high word ~u (or 0) is M minus the borrow of M = 0 - u: two
    // chained adds, no compare and select.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void sparse_reduce_row(Chain& chain, uint32_t even[kLimbs],
                                                                  uint32_t odd[kLimbs]) {
        const uint32_t u = even[0];
        const uint32_t m = chain.sub_cc(0, u);
        const uint32_t high_of_m_m1 = chain.subc(m, 0);
        odd[0] = chain.add_cc(odd[0], u);
        odd[1] = chain.addc_cc(odd[1], high_of_m_m1);
        ZKB_UNROLL
        for (int j = 2; j < kLimbs - 2; j += 2) {
            odd[j] = chain.madc_lo_cc(m, modulus_limb(j + 1), odd[j]);
            odd[j + 1] = chain.madc_hi_cc(m, modulus_limb(j + 1), odd[j + 1]);
        }
        odd[kLimbs - 2] = chain.madc_lo_cc(m, modulus_limb(kLimbs - 1), odd[kLimbs - 2]);
        odd[kLimbs - 1] = chain.madc_hi(m, modulus_limb(kLimbs - 1), odd[kLimbs - 1]);
        (void)chain.add_cc(u, m);  // 0, with carry (u != 0)
        even[1] = chain.addc_cc(even[1], 0);
        ZKB_UNROLL
        for (int j = 2; j < kLimbs; j += 2) {
            even[j] = chain.madc_lo_cc(m, modulus_limb(j), even[j]);
            even[j + 1] = chain.madc_hi_cc(m, modulus_limb(j), even[j + 1]);
        }
        odd[kLimbs - 1] = chain.addc(odd[kLimbs - 1], 0);
        even[0] = 0;
    }

    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void reduce_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs]) {
        if constexpr (kSparseLowLimbs) {
            sparse_reduce_row(chain, even, odd);
        } else {
            generic_reduce_row(chain, even, odd);
        }
    }

    // a * bi added: into fresh accumulators on the first row, else dividing by 2^32.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void product_row(Chain& chain, uint32_t even[kLimbs], uint32_t odd[kLimbs],
                                                            const uint32_t a[kLimbs], uint32_t bi, bool first) {
        if (first) {  // both start at zero: the products of one parity are disjoint
            first_row<Chain>(even, odd, a, bi);
        } else {
            merge_row(chain, even, odd);
            shifted_row(chain, even, odd, a, bi);
        }
    }

    // One CIOS round: a * bi, then M * m. After the round, value * 2^32 = even + odd * 2^32
    // with even[0] = 0; the caller then swaps the roles for the next round.
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void mul_reduce_round(Chain& chain, uint32_t even[kLimbs],
                                                                 uint32_t odd[kLimbs], const uint32_t a[kLimbs],
                                                                 uint32_t bi, bool first) {
        product_row(chain, even, odd, a, bi, first);
        reduce_row(chain, even, odd);
    }

    // out = first + second / 2^32, second's limb 0 having left: what the accumulators
    // hold after the last row, in K limbs (the caller's bound keeps it below 2^(32 K)).
    template <class Chain>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE static void fold_accumulators(Chain& chain, const uint32_t first[kLimbs],
                                                                  const uint32_t second[kLimbs], uint32_t out[kLimbs]) {
        out[0] = chain.add_cc(first[0], second[1]);
        ZKB_UNROLL
        for (int j = 1; j < kLimbs - 1; ++j) out[j] = chain.addc_cc(first[j], second[j + 1]);
        out[kLimbs - 1] = chain.addc(first[kLimbs - 1], 0);
    }
};

// A field's arithmetic on the device, which its description names as DeviceArithmetic
// (F is the MontgomeryField): its 64-bit limbs split into 32-bit ones and joined back
// (register moves). Beside add, sub and mont_mul, where the modulus allows them, the lazy
// products montgomery_field.hpp offers: Karatsuba's sums left unreduced (below 2m, which
// mont_mul takes), a reduction fewer each, and a b - c d with one reduction.
template <class Description>
struct DeviceArithmetic32 {
#if defined(__CUDA_ARCH__)
    using Limbs32 = Field32<Description>;
    static constexpr int kLimbs = Limbs32::kLimbs;

    template <class F>
    __device__ static ZKB_FORCEINLINE F add(const F& x, const F& y) {
        return Limbs32::template apply<Limbs32::template add<PtxChain>>(x, y);
    }
    template <class F>
    __device__ static ZKB_FORCEINLINE F sub(const F& x, const F& y) {
        return Limbs32::template apply<Limbs32::template sub<PtxChain>>(x, y);
    }
    template <class F>
    __device__ static ZKB_FORCEINLINE F mont_mul(const F& x, const F& y) {
        return Limbs32::template apply<Limbs32::template mont_mul<PtxChain>>(x, y);
    }
    // (a0 + a1) b
    template <class F>
    __device__ static ZKB_FORCEINLINE F sum_times(const F& a0, const F& a1, const F& b)
        requires Limbs32::kLazyProducts
    {
        uint32_t sum[kLimbs], factor[kLimbs];
        unreduced_sum(a0, a1, sum);
        Limbs32::split(b.limbs, factor);
        return product<F>(sum, factor);
    }
    // (a0 + a1)(b0 + b1)
    template <class F>
    __device__ static ZKB_FORCEINLINE F sum_times_sum(const F& a0, const F& a1, const F& b0, const F& b1)
        requires Limbs32::kLazyProducts
    {
        uint32_t first[kLimbs], second[kLimbs];
        unreduced_sum(a0, a1, first);
        unreduced_sum(b0, b1, second);
        return product<F>(first, second);
    }
    // a b - c d
    template <class F>
    __device__ static ZKB_FORCEINLINE F product_difference(const F& a, const F& b, const F& c, const F& d)
        requires Limbs32::kLazyProducts
    {
        uint32_t x[kLimbs], y[kLimbs], z[kLimbs], w[kLimbs];
        Limbs32::split(a.limbs, x);
        Limbs32::split(b.limbs, y);
        Limbs32::split(c.limbs, z);
        Limbs32::split(d.limbs, w);
        Limbs32::template product_difference<PtxChain>(x, y, z, w, x);
        F result;
        Limbs32::join(x, result.limbs);
        return result;
    }

private:
    // a0 + a1 in 32-bit limbs, unreduced (below 2m).
    template <class F>
    __device__ static ZKB_FORCEINLINE void unreduced_sum(const F& a0, const F& a1, uint32_t sum[kLimbs]) {
        uint32_t a[kLimbs], b[kLimbs];
        Limbs32::split(a0.limbs, a);
        Limbs32::split(a1.limbs, b);
        Limbs32::template add_unreduced<PtxChain>(a, b, sum);
    }
    // x y / R mod m, reduced, for x, y < 2m.
    template <class F>
    __device__ static ZKB_FORCEINLINE F product(const uint32_t x[kLimbs], const uint32_t y[kLimbs]) {
        uint32_t out[kLimbs];
        Limbs32::template mont_mul<PtxChain>(x, y, out);
        F result;
        Limbs32::join(out, result.limbs);
        return result;
    }
#endif
};

// Fp2's lazy product on the device (fp2.hpp's DeviceFp2Product), for a tower over the
// field of `Description`: Field32::fp2_mul over 32-bit limbs.
template <class Description>
struct DeviceFp2Product32 {
#if defined(__CUDA_ARCH__)
    template <class Fp2>
    __device__ static ZKB_FORCEINLINE Fp2 multiply(const Fp2& x, const Fp2& y) {
        using Limbs32 = Field32<Description>;
        constexpr int kLimbs = Limbs32::kLimbs;
        uint32_t a0[kLimbs], a1[kLimbs], b0[kLimbs], b1[kLimbs];
        Limbs32::split(x.c0.limbs, a0);
        Limbs32::split(x.c1.limbs, a1);
        Limbs32::split(y.c0.limbs, b0);
        Limbs32::split(y.c1.limbs, b1);
        Limbs32::template fp2_mul<PtxChain>(a0, a1, b0, b1, a0, a1);
        Fp2 product;
        Limbs32::join(a0, product.c0.limbs);
        Limbs32::join(a1, product.c1.limbs);
        return product;
    }
#endif
};

}  // namespace zkbatch::ff
