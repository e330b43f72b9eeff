// Fp6 = Fp2[v]/(v^3 - xi): the middle of a pairing's tower Fp2 -> Fp6 -> Fp12, over the
// tower description of fp2.hpp (ff::Fp6 is BLS12-381's, xi = 1 + u: the tower of the
// Zcash BLS12-381 specification, blst and arkworks). Host only: the pairing runs on the
// CPU.
#pragma once

#include "core/ff/fp2.hpp"

namespace zkbatch::ff {

namespace tower {

// gamma_k = xi^((p^k - 1) / 6) for k = 0..11 (p = 1 mod 6), from which every Frobenius
// coefficient of the tower follows: v^(p^k) = gamma_k^2 v, w^(p^k) = gamma_k w.
// Computed once per tower, on first use, from the definition (core/ff/tower.cpp).
template <class Tower>
struct FrobeniusCoefficients {
    Fp2<Tower> gamma[12];
    Fp2<Tower> gamma_squared[6];  // for v's coefficient (periodic in k mod 6)
    Fp2<Tower> gamma_fourth[6];   // for v^2's
};
template <class Tower>
const FrobeniusCoefficients<Tower>& frobenius_coefficients();

template <class Tower>
struct Fp6 {
    using Description = Tower;
    using Fp2 = tower::Fp2<Tower>;

    Fp2 c0, c1, c2;  // c0 + c1 v + c2 v^2

    static constexpr Fp6 zero() { return Fp6{Fp2::zero(), Fp2::zero(), Fp2::zero()}; }
    static constexpr Fp6 one() { return Fp6{Fp2::one(), Fp2::zero(), Fp2::zero()}; }

    Fp6 operator+(const Fp6& o) const { return Fp6{c0 + o.c0, c1 + o.c1, c2 + o.c2}; }
    Fp6 operator-(const Fp6& o) const { return Fp6{c0 - o.c0, c1 - o.c1, c2 - o.c2}; }
    Fp6 operator-() const { return Fp6{-c0, -c1, -c2}; }

    // Karatsuba over three coefficients: six Fp2 products.
    Fp6 operator*(const Fp6& o) const {
        const Fp2 v0 = c0 * o.c0;
        const Fp2 v1 = c1 * o.c1;
        const Fp2 v2 = c2 * o.c2;
        return Fp6{((c1 + c2) * (o.c1 + o.c2) - v1 - v2).mul_by_nonresidue() + v0,
                   (c0 + c1) * (o.c0 + o.c1) - v0 - v1 + v2.mul_by_nonresidue(),
                   (c0 + c2) * (o.c0 + o.c2) - v0 - v2 + v1};
    }
    Fp6& operator+=(const Fp6& o) { return *this = *this + o; }
    Fp6& operator-=(const Fp6& o) { return *this = *this - o; }
    Fp6& operator*=(const Fp6& o) { return *this = *this * o; }

    // Chung-Hasan SQR2: two products and three squares in Fp2.
    Fp6 sqr() const {
        const Fp2 s0 = c0.sqr();
        const Fp2 s1 = (c0 * c1).dbl();
        const Fp2 s2 = (c0 - c1 + c2).sqr();
        const Fp2 s3 = (c1 * c2).dbl();
        const Fp2 s4 = c2.sqr();
        return Fp6{s0 + s3.mul_by_nonresidue(), s1 + s4.mul_by_nonresidue(), s1 + s2 + s3 - s0 - s4};
    }

    // Times v: (c2 xi, c0, c1).
    Fp6 mul_by_nonresidue() const { return Fp6{c2.mul_by_nonresidue(), c0, c1}; }

    // Times b0 + b1 v (the sparse factors of a line): five Fp2 products.
    Fp6 mul_by_01(const Fp2& b0, const Fp2& b1) const {
        const Fp2 v0 = c0 * b0;
        const Fp2 v1 = c1 * b1;
        return Fp6{((c1 + c2) * b1 - v1).mul_by_nonresidue() + v0, (c0 + c1) * (b0 + b1) - v0 - v1,
                   (c0 + c2) * b0 - v0 + v1};
    }
    // Times b1 v.
    Fp6 mul_by_1(const Fp2& b1) const { return Fp6{(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1}; }

    Fp6 scale(const Fp2& factor) const { return Fp6{c0 * factor, c1 * factor, c2 * factor}; }

    // The inverse through the norm to Fp2; the inverse of 0 is 0.
    Fp6 inverse() const {
        const Fp2 t0 = c0.sqr() - (c1 * c2).mul_by_nonresidue();
        const Fp2 t1 = c2.sqr().mul_by_nonresidue() - c0 * c1;
        const Fp2 t2 = c1.sqr() - c0 * c2;
        const Fp2 inverse_norm = (c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue()).inverse();
        return Fp6{t0 * inverse_norm, t1 * inverse_norm, t2 * inverse_norm};
    }

    // x^(p^power).
    Fp6 frobenius_map(unsigned power) const {
        const auto& coefficients = frobenius_coefficients<Tower>();
        const unsigned k = power % 6;
        return Fp6{c0.frobenius_map(k), c1.frobenius_map(k) * coefficients.gamma_squared[k],
                   c2.frobenius_map(k) * coefficients.gamma_fourth[k]};
    }

    bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
    bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
    bool operator==(const Fp6& o) const { return c0 == o.c0 && c1 == o.c1 && c2 == o.c2; }
    bool operator!=(const Fp6& o) const { return !(*this == o); }
};

}  // namespace tower

namespace bls12_381 {
using Fp6 = tower::Fp6<TowerDescription>;
}  // namespace bls12_381

using Fp6 = bls12_381::Fp6;

}  // namespace zkbatch::ff
