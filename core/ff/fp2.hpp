// Fp2 = Fp[u]/(u^2 + 1), the first floor of a pairing's tower Fp2 -> Fp6 -> Fp12 (fp6.hpp,
// fp12.hpp), the field of G2's coordinates; host and device code.
//
// The tower is written once, over a description of the curve's tower:
//
//   struct TowerDescription {
//       using BaseField = Fp;                   // a MontgomeryField with p = 3 mod 4 (u^2 = -1
//                                               // has no root in Fp) and p = 1 mod 6
//       static constexpr uint64_t kXiReal = 1;  // xi = kXiReal + u, neither a square nor a
//                                               // cube in Fp2: Fp6 = Fp2[v]/(v^3 - xi)
//       using DeviceFp2Product = void;          // or a type whose __device__ multiply(x, y)
//                                               // replaces Fp2's lazy_product on the device
//   };
//
// and everything else (the products by xi, the Frobenius coefficients, tower.cpp) follows
// from xi and p. BLS12-381's tower (xi = 1 + u) is below: ff::Fp2, ff::Fp6, ff::Fp12.
// BN254's (xi = 9 + u) is in bn254_tower.hpp: ff::bn254::Fq2, Fq6, Fq12.
//
// c0 + c1*u with c0 first in memory, the layout of snarkjs's G2 coordinates.
#pragma once

#include "core/ff/fp.hpp"
#include "core/ff/field32.hpp"
#include "core/util/host_device.hpp"

#include <cstdint>
#include <type_traits>

namespace zkbatch::ff {

namespace tower {

template <class Tower>
struct Fp2 {
    using Description = Tower;
    using Fp = typename Tower::BaseField;
    static_assert((Fp::modulus().limbs[0] & 3) == 3, "u^2 + 1 is irreducible over Fp only for p = 3 mod 4");
    static_assert(Tower::kXiReal >= 1, "xi = kXiReal + u");

    Fp c0, c1;

    ZKB_HOST_DEVICE static constexpr Fp2 zero() { return Fp2{Fp::zero(), Fp::zero()}; }
    ZKB_HOST_DEVICE static constexpr Fp2 one() { return Fp2{Fp::one(), Fp::zero()}; }

    ZKB_HOST_DEVICE Fp2 operator+(const Fp2& o) const { return Fp2{c0 + o.c0, c1 + o.c1}; }
    ZKB_HOST_DEVICE Fp2 operator-(const Fp2& o) const { return Fp2{c0 - o.c0, c1 - o.c1}; }
    ZKB_HOST_DEVICE Fp2 operator-() const { return Fp2{-c0, -c1}; }

    // Karatsuba: three Fp products.
    ZKB_HOST_DEVICE Fp2 operator*(const Fp2& o) const {
        const Fp a = c0 * o.c0;
        const Fp b = c1 * o.c1;
        const Fp cross = Fp::sum_times_sum(c0, c1, o.c0, o.c1);
        return Fp2{a - b, cross - a - b};
    }
    // x * y with lazy reduction on the device where the tower has it (both towers: the
    // three products are summed before two reductions, Field32::fp2_mul; over
    // BLS12-381's Fp 744 multiplies against 900); the same bits. It holds three 768-bit values at once, so it pays only
    // where the caller has the registers: in the MSM's affine rounds it does, as operator*
    // in the XYZZ loops it does not (docs/msm.md#fp2-products).
    ZKB_HOST_DEVICE static Fp2 lazy_product(const Fp2& x, const Fp2& y) {
#if defined(__CUDA_ARCH__)
        if constexpr (!std::is_void_v<typename Tower::DeviceFp2Product>) {
            return Tower::DeviceFp2Product::multiply(x, y);
        } else {
            return x * y;
        }
#else
        return x * y;
#endif
    }
    ZKB_HOST_DEVICE Fp2& operator+=(const Fp2& o) { return *this = *this + o; }
    ZKB_HOST_DEVICE Fp2& operator-=(const Fp2& o) { return *this = *this - o; }
    ZKB_HOST_DEVICE Fp2& operator*=(const Fp2& o) { return *this = *this * o; }

    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two Fp products.
    ZKB_HOST_DEVICE Fp2 sqr() const {
        const Fp product = c0 * c1;
        return Fp2{Fp::sum_times(c0, c1, c0 - c1), product.dbl()};
    }
    // a b - c d, as Fp::product_difference offers it to the curve formulas (Fp2's two
    // products stay apart: summed before their reductions they would hold twice the
    // registers of fp2_mul).
    ZKB_HOST_DEVICE static Fp2 product_difference(const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d) {
        return a * b - c * d;
    }
    ZKB_HOST_DEVICE Fp2 dbl() const { return Fp2{c0.dbl(), c1.dbl()}; }
    ZKB_HOST_DEVICE Fp2 half() const { return Fp2{c0.half(), c1.half()}; }

    // Times an element of the base field.
    ZKB_HOST_DEVICE Fp2 scale(const Fp& factor) const { return Fp2{c0 * factor, c1 * factor}; }

    // Times xi = a + u (a = kXiReal): (a c0 - c1) + (c0 + a c1) u; for a = 1,
    // (c0 - c1) + (c0 + c1) u.
    ZKB_HOST_DEVICE Fp2 mul_by_nonresidue() const { return Fp2{times_xi_real(c0) - c1, c0 + times_xi_real(c1)}; }

    ZKB_HOST_DEVICE Fp2 conjugate() const { return Fp2{c0, -c1}; }
    // x^(p^power): the Frobenius of Fp2 is conjugation, so only the parity matters.
    ZKB_HOST_DEVICE Fp2 frobenius_map(unsigned power) const { return (power & 1) ? conjugate() : *this; }

    // The norm x * conj(x) = c0^2 + c1^2, in Fp.
    ZKB_HOST_DEVICE Fp norm() const { return c0.sqr() + c1.sqr(); }

    // conj(x) / norm(x); the inverse of 0 is 0.
    ZKB_HOST_DEVICE Fp2 inverse() const {
        const Fp inverse_norm = norm().inverse();
        return Fp2{c0 * inverse_norm, -(c1 * inverse_norm)};
    }

    // x^e for a little-endian exponent of `count` limbs (public exponent).
    ZKB_HOST_DEVICE Fp2 pow(const uint64_t* exponent, int count) const {
        return detail::pow_by_limbs(*this, exponent, count);
    }

    // A square root through the norm (p = 3 mod 4, so -1 is not a square in Fp): for
    // x = a + b u with b != 0, a root is s + (b / 2s) u where s^2 = (a +- sqrt(a^2 + b^2)) / 2
    // (one of the two signs gives a square in Fp). Returns false when x is not a square.
    // Which of the two roots comes back is unspecified; callers pick by sign.
    ZKB_HOST_DEVICE bool sqrt(Fp2& root) const {
        if (c1.is_zero()) {
            Fp s;
            if (c0.sqrt(s)) {
                root = Fp2{s, Fp::zero()};
                return true;
            }
            // a is not a square, so -a is, and (s u)^2 = -s^2 = a.
            if (!(-c0).sqrt(s)) return false;
            root = Fp2{Fp::zero(), s};
            return true;
        }
        Fp norm_root;
        if (!norm().sqrt(norm_root)) return false;  // a square has a square norm
        Fp delta = (c0 + norm_root).half();
        Fp s;
        if (!delta.sqrt(s)) {
            delta = (c0 - norm_root).half();
            if (!delta.sqrt(s)) return false;
        }
        // delta != 0 because b != 0, so s is invertible.
        root = Fp2{s, c1 * s.dbl().inverse()};
        return root.sqr() == *this;
    }

    ZKB_HOST_DEVICE bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    ZKB_HOST_DEVICE bool is_one() const { return c0.is_one() && c1.is_zero(); }
    ZKB_HOST_DEVICE bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
    ZKB_HOST_DEVICE bool operator!=(const Fp2& o) const { return !(*this == o); }

    // The Zcash specification's sign of an Fp2 element: c1 decides, unless it is zero.
    ZKB_HOST_DEVICE bool is_lexicographically_largest() const {
        return c1.is_zero() ? c0.is_lexicographically_largest() : c1.is_lexicographically_largest();
    }

private:
    static constexpr int kXiRealTopBit = [] {
        int bit = 63;
        while (((Tower::kXiReal >> bit) & 1) == 0) --bit;
        return bit;
    }();
    // a * kXiReal by doublings and additions from its top bit: a itself for xi = 1 + u.
    ZKB_HOST_DEVICE static Fp times_xi_real(const Fp& a) {
        if constexpr (Tower::kXiReal == 1) {
            return a;
        } else {
            Fp result = a;
            for (int bit = kXiRealTopBit - 1; bit >= 0; --bit) {
                result = result.dbl();
                if ((Tower::kXiReal >> bit) & 1) result += a;
            }
            return result;
        }
    }
};

}  // namespace tower

namespace bls12_381 {

// The tower of the Zcash BLS12-381 specification (blst's, arkworks', noble's): xi = 1 + u.
struct TowerDescription {
    using BaseField = Fp;
    static constexpr uint64_t kXiReal = 1;
    using DeviceFp2Product = DeviceFp2Product32<FpDescription>;
};

using Fp2 = tower::Fp2<TowerDescription>;

}  // namespace bls12_381

// The curve is BLS12-381 throughout the prover: its Fp2 is ff::Fp2.
using Fp2 = bls12_381::Fp2;

static_assert(sizeof(Fp2) == 96, "Fp2 must be two Fp, c0 first");
static_assert(std::is_trivially_copyable_v<Fp2>, "Fp2 must be trivially copyable");
static_assert(std::is_standard_layout_v<Fp2>, "Fp2 must be standard layout");

}  // namespace zkbatch::ff
