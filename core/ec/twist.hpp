// G2 lives on a sextic twist E'(Fp2): y^2 = x^3 + b' of the curve E(Fp): y^2 = x^3 + b,
// with w^6 = xi in Fp12 (ff/fp12.hpp). Which way the twist goes decides the untwisting
// map E' -> E, the shape of the pairing's lines and the coefficients of the Frobenius
// endomorphism below; a curve's G2 parameters name it (kTwist). Host only.
#pragma once

#include "core/ec/point.hpp"
#include "core/ff/fp6.hpp"

#include <array>

namespace zkbatch::ec {

enum class Twist {
    multiplicative,  // M-type, b' = b xi: (x, y) -> (x / w^2, y / w^3). BLS12-381.
    divisive,        // D-type, b' = b / xi: (x, y) -> (x w^2, y w^3). BN254.
};

// psi^k = untwist^-1 o pi^k o untwist, the endomorphism of E'(Fp2) that the p^k-power
// Frobenius pi^k of E induces: (x, y) -> (x^(p^k) c_x, y^(p^k) c_y). Through the D-type
// map, x w^2 goes to x^(p^k) w^(2 p^k) = x^(p^k) w^2 xi^((p^k - 1)/3), so
// c_x = xi^((p^k - 1)/3) = gamma_k^2 and c_y = xi^((p^k - 1)/2) = gamma_k^3 (gamma_k of
// ff::tower::FrobeniusCoefficients); through the M-type map their inverses. Like pi^k on
// E it satisfies psi^2 - t psi + p = 0 (t the trace of E(Fp)), and on G2 it is
// multiplication by p^k mod r.
template <class C>
struct TwistFrobeniusCoefficients {
    typename C::Field x, y;
};

// c_x, c_y of psi^power.
template <class C>
const TwistFrobeniusCoefficients<C>& twist_frobenius_coefficients(unsigned power) {
    using Fp2 = typename C::Field;
    using Coefficients = TwistFrobeniusCoefficients<C>;
    static const std::array<Coefficients, 12> table = [] {
        const auto& frobenius = ff::tower::frobenius_coefficients<typename Fp2::Description>();
        std::array<Coefficients, 12> coefficients;
        for (unsigned k = 0; k < 12; ++k) {
            const Fp2 gamma_squared = frobenius.gamma[k].sqr();
            const Fp2 gamma_cubed = gamma_squared * frobenius.gamma[k];
            if constexpr (C::kTwist == Twist::divisive) {
                coefficients[k] = Coefficients{gamma_squared, gamma_cubed};
            } else {
                coefficients[k] = Coefficients{gamma_squared.inverse(), gamma_cubed.inverse()};
            }
        }
        return coefficients;
    }();
    return table[power % 12];
}

template <class C>
Affine<C> twist_frobenius(const Affine<C>& q, unsigned power) {
    if (q.is_infinity()) return q;
    const TwistFrobeniusCoefficients<C>& c = twist_frobenius_coefficients<C>(power);
    return Affine<C>{q.x.frobenius_map(power) * c.x, q.y.frobenius_map(power) * c.y};
}

// The same on Jacobian coordinates, with no inversion: (X/Z^2)^(p^k) = X^(p^k)/(Z^(p^k))^2,
// so (X, Y, Z) -> (X^(p^k) c_x, Y^(p^k) c_y, Z^(p^k)).
template <class C>
Jacobian<C> twist_frobenius(const Jacobian<C>& q, unsigned power) {
    const TwistFrobeniusCoefficients<C>& c = twist_frobenius_coefficients<C>(power);
    Jacobian<C> out = q;
    out.X = q.X.frobenius_map(power) * c.x;
    out.Y = q.Y.frobenius_map(power) * c.y;
    out.Z = q.Z.frobenius_map(power);
    return out;
}

}  // namespace zkbatch::ec
