// Fp12 = Fp6[w]/(w^2 - v): the target field of the pairing (GT is its subgroup of
// order r), over the tower description of fp2.hpp (ff::Fp12 is BLS12-381's). Host only.
//
// Coefficient order (the one every interop test and export uses): c0.c0, c0.c1, c0.c2,
// c1.c0, c1.c1, c1.c2, each an Fp2 (c0, c1); over Fp2 that is the basis
// 1, v, v^2, w, vw, v^2 w, i.e. 1, w^2, w^4, w, w^3, w^5.
#pragma once

#include "core/ff/fp6.hpp"

#include <cstdint>

namespace zkbatch::ff {

namespace tower {

template <class Tower>
struct Fp12 {
    using Description = Tower;
    using Fp2 = tower::Fp2<Tower>;
    using Fp6 = tower::Fp6<Tower>;

    Fp6 c0, c1;  // c0 + c1 w

    static constexpr Fp12 zero() { return Fp12{Fp6::zero(), Fp6::zero()}; }
    static constexpr Fp12 one() { return Fp12{Fp6::one(), Fp6::zero()}; }

    Fp12 operator+(const Fp12& o) const { return Fp12{c0 + o.c0, c1 + o.c1}; }
    Fp12 operator-(const Fp12& o) const { return Fp12{c0 - o.c0, c1 - o.c1}; }
    Fp12 operator-() const { return Fp12{-c0, -c1}; }

    // Karatsuba: three Fp6 products.
    Fp12 operator*(const Fp12& o) const {
        const Fp6 aa = c0 * o.c0;
        const Fp6 bb = c1 * o.c1;
        return Fp12{aa + bb.mul_by_nonresidue(), (c0 + c1) * (o.c0 + o.c1) - aa - bb};
    }
    Fp12& operator*=(const Fp12& o) { return *this = *this * o; }

    // Complex squaring: two Fp6 products.
    Fp12 sqr() const {
        const Fp6 product = c0 * c1;
        return Fp12{(c0 + c1) * (c0 + c1.mul_by_nonresidue()) - product - product.mul_by_nonresidue(),
                    product + product};
    }

    // Times the sparse value o0 + o1 v + o4 v w, the shape of every line of the Miller
    // loop on an M-type twist (BLS12-381's; coefficients 0, 1 and 4 of c0.c0 .. c1.c2).
    // 13 Fp2 products.
    Fp12 mul_by_014(const Fp2& o0, const Fp2& o1, const Fp2& o4) const {
        const Fp6 aa = c0.mul_by_01(o0, o1);
        const Fp6 bb = c1.mul_by_1(o4);
        return Fp12{bb.mul_by_nonresidue() + aa, (c0 + c1).mul_by_01(o0, o1 + o4) - aa - bb};
    }
    // Times the sparse value o0 + o3 w + o4 v w, the shape of every line on a D-type twist
    // (BN254's; coefficients 0, 3 and 4): with L0 = o0 and L1 = o3 + o4 v,
    // (c0 + c1 w)(L0 + L1 w) = c0 L0 + c1 L1 v + ((c0 + c1)(L0 + L1) - c0 L0 - c1 L1) w.
    // 13 Fp2 products.
    Fp12 mul_by_034(const Fp2& o0, const Fp2& o3, const Fp2& o4) const {
        const Fp6 aa = c0.scale(o0);
        const Fp6 bb = c1.mul_by_01(o3, o4);
        return Fp12{bb.mul_by_nonresidue() + aa, (c0 + c1).mul_by_01(o0 + o3, o4) - aa - bb};
    }

    // x^(p^6), which is x^-1 on the cyclotomic subgroup (where GT lives).
    Fp12 conjugate() const { return Fp12{c0, -c1}; }

    // The inverse of 0 is 0.
    Fp12 inverse() const {
        const Fp6 inverse_norm = (c0.sqr() - c1.sqr().mul_by_nonresidue()).inverse();
        return Fp12{c0 * inverse_norm, -(c1 * inverse_norm)};
    }

    // x^(p^power).
    Fp12 frobenius_map(unsigned power) const {
        const Fp2& gamma = frobenius_coefficients<Tower>().gamma[power % 12];
        return Fp12{c0.frobenius_map(power), c1.frobenius_map(power).scale(gamma)};
    }

    // The square of an element of the cyclotomic subgroup (x^(p^6 + 1) = 1, as after the
    // easy part of the final exponentiation), Granger-Scott: viewing Fp12 as
    // Fp4[s]/(s^3 - t) with Fp4 = Fp2[t]/(t^2 - xi) (s = w, t = w^3), x = A0 + A1 s + A2 s^2
    // squares to (3 A0^2 - 2 conj A0) + (3 t A2^2 + 2 conj A1) s + (3 A1^2 - 2 conj A2) s^2.
    // Nine Fp2 squarings instead of a full square's twelve products. Wrong outside the
    // subgroup.
    Fp12 cyclotomic_square() const;

    // x^e for a 64-bit e by cyclotomic squarings (x in the cyclotomic subgroup).
    Fp12 cyclotomic_pow(uint64_t exponent) const;

    // x^e for a little-endian exponent of `count` limbs, with ordinary squarings (any x).
    Fp12 pow(const uint64_t* exponent, int count) const { return detail::pow_by_limbs(*this, exponent, count); }

    bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    bool is_one() const { return c0.is_one() && c1.is_zero(); }
    bool operator==(const Fp12& o) const { return c0 == o.c0 && c1 == o.c1; }
    bool operator!=(const Fp12& o) const { return !(*this == o); }
};

}  // namespace tower

namespace bls12_381 {
using Fp12 = tower::Fp12<TowerDescription>;
}  // namespace bls12_381

using Fp12 = bls12_381::Fp12;

}  // namespace zkbatch::ff
