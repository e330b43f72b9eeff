// The Miller loop and the final exponentiation (pairing.hpp).
//
// Lines: for the M-type twist E': y^2 = x^3 + b' (b' = 4 xi) the untwisting map is
// (x', y') -> (x' / w^2, y' / w^3). The line through T, T' of E' with slope lambda',
// evaluated at P = (xP, yP) of E and multiplied by w^3 (an element of a proper subfield,
// which the final exponentiation sends to 1), is
//     (lambda' x_T - y_T) + (-lambda' xP) v + (yP) v w,
// nonzero at coefficients 0, 1 and 4 (Fp12::mul_by_014). T is kept in homogeneous
// projective coordinates (X : Y : Z) over Fp2 and each line is scaled by a further Fp2
// factor (its denominators), which the final exponentiation also removes; the step
// formulas are Costello-Lange-Naehrig 2010's for a = 0.
#include "core/pairing/pairing.hpp"

#include <vector>

namespace zkbatch::pairing {

namespace {

using ff::Fp;
using ff::Fp12;
using ff::Fp2;

struct G2Projective {
    Fp2 X, Y, Z;
};

// 3 b' = 12 (1 + u).
Fp2 three_b_twist() {
    const Fp2 b = ec::G2Params::b();
    return b.dbl() + b;
}

// T = 2T; f *= the tangent at T evaluated at P, scaled by -2YZ.
void doubling_step(G2Projective& t, const ec::G1Affine& p, Fp12& f) {
    const Fp2 a = (t.X * t.Y).half();
    const Fp2 b = t.Y.sqr();
    const Fp2 c = t.Z.sqr();
    const Fp2 e = c * three_b_twist();
    const Fp2 f3 = e.dbl() + e;
    const Fp2 g = (b + f3).half();
    const Fp2 h = (t.Y + t.Z).sqr() - (b + c);  // 2YZ
    const Fp2 x_squared = t.X.sqr();
    const Fp2 e_squared = e.sqr();
    t.X = a * (b - f3);
    t.Y = g.sqr() - (e_squared.dbl() + e_squared);
    t.Z = b * h;
    // 3b'Z^2 - Y^2, 3 X^2 xP, -2 Y Z yP
    f = f.mul_by_014(e - b, (x_squared.dbl() + x_squared).scale(p.x), (-h).scale(p.y));
}

// T = T + Q; f *= the line through T and Q evaluated at P, scaled by lambda = X - xQ Z.
void addition_step(G2Projective& t, const ec::G2Affine& q, const ec::G1Affine& p, Fp12& f) {
    const Fp2 theta = t.Y - q.y * t.Z;
    const Fp2 lambda = t.X - q.x * t.Z;
    const Fp2 c = theta.sqr();
    const Fp2 d = lambda.sqr();
    const Fp2 e = lambda * d;
    const Fp2 ff_ = t.Z * c;
    const Fp2 g = t.X * d;
    const Fp2 h = e + ff_ - g.dbl();
    t.X = lambda * h;
    t.Y = theta * (g - h) - e * t.Y;
    t.Z = t.Z * e;
    // theta xQ - lambda yQ, -theta xP, lambda yP
    f = f.mul_by_014(theta * q.x - lambda * q.y, (-theta).scale(p.x), lambda.scale(p.y));
}

// f^x for f in the cyclotomic subgroup (x < 0: the conjugate of f^|x|).
Fp12 cyclotomic_pow_x(const Fp12& f) { return f.cyclotomic_pow(ec::kBlsXAbs).conjugate(); }

}  // namespace

Fp12 miller_loop(const ec::G1Affine* p, const ec::G2Affine* q, size_t count) {
    std::vector<size_t> pairs;  // the pairs without a point at infinity
    std::vector<G2Projective> t;
    for (size_t i = 0; i < count; ++i) {
        if (p[i].is_infinity() || q[i].is_infinity()) continue;
        pairs.push_back(i);
        t.push_back(G2Projective{q[i].x, q[i].y, Fp2::one()});
    }
    Fp12 f = Fp12::one();
    if (pairs.empty()) return f;
    // |x|'s top bit is T = Q itself; the loop runs over the 63 bits below it.
    for (int bit = 62; bit >= 0; --bit) {
        f = f.sqr();
        for (size_t k = 0; k < pairs.size(); ++k) doubling_step(t[k], p[pairs[k]], f);
        if ((ec::kBlsXAbs >> bit) & 1) {
            for (size_t k = 0; k < pairs.size(); ++k) addition_step(t[k], q[pairs[k]], p[pairs[k]], f);
        }
    }
    return f.conjugate();  // x < 0
}

Fp12 final_exponentiation(const Fp12& f) {
    // Easy part: f^(p^6 - 1) = conj(f) / f, then ^(p^2 + 1). The result is in the
    // cyclotomic subgroup, where conjugation inverts and cyclotomic squaring applies.
    Fp12 m = f.conjugate() * f.inverse();
    m = m.frobenius_map(2) * m;
    // Hard part: m^((x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3).
    Fp12 a = cyclotomic_pow_x(m) * m.conjugate();  // m^(x - 1)
    a = cyclotomic_pow_x(a) * a.conjugate();       // m^((x - 1)^2)
    const Fp12 b = cyclotomic_pow_x(a) * a.frobenius_map(1);                                   // ^(x + p)
    const Fp12 c = cyclotomic_pow_x(cyclotomic_pow_x(b)) * b.frobenius_map(2) * b.conjugate();  // ^(x^2 + p^2 - 1)
    return c * m.cyclotomic_square() * m;
}

Fp12 pairing(const ec::G1Affine& p, const ec::G2Affine& q) { return final_exponentiation(miller_loop(&p, &q, 1)); }

bool pairing_product_is_one(const ec::G1Affine* p, const ec::G2Affine* q, size_t count) {
    return final_exponentiation(miller_loop(p, q, count)).is_one();
}

}  // namespace zkbatch::pairing
