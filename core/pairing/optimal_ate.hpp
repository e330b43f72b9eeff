// The optimal ate pairing written once, over a curve's pairing description (host only);
// pairing.cpp (BLS12-381) and bn254.cpp (BN254) are its instances. What is the same for
// both curves lives here: the Miller loop's doubling and addition steps, the lines they
// give and where a line goes in Fp12 for each kind of twist, the product of Miller loops
// with one squaring per step, the easy part of the final exponentiation, and the product
// check. A description provides what differs:
//
//   struct Description {
//       using G1Params = ...;  using G2Params = ...;   // ec parameter structs; G2Params::kTwist
//       using Fp12 = ...;                              // the tower's top (ff/fp12.hpp)
//       static constexpr std::array<int8_t, N> kLoopDigits;  // the loop count, most
//                                                     // significant digit (1) first, in {-1, 0, 1}
//       // After the loop: BLS12-381 conjugates (x < 0), BN254 adds the lines of pi(Q) and
//       // -pi^2(Q).
//       static Fp12 finish_miller_loop(const Fp12& f, LoopState<Description>& state);
//       static Fp12 hard_part(const Fp12& m);           // m in the cyclotomic subgroup
//   };
//
// Lines: with the untwisting map of twist.hpp, the line through T, T' of E' with slope
// lambda', evaluated at P = (xP, yP) of E and scaled by a power of w that lies in a
// proper subfield (which the final exponentiation sends to 1), is
//     constant + x_coefficient xP + y_coefficient yP
// with constant = lambda' x_T - y_T, x_coefficient = -lambda', y_coefficient = 1 (before
// the scaling below): on an M-type twist at coefficients 0, 1 and 4 of Fp12 (1, v, v w:
// Fp12::mul_by_014), on a D-type twist at 4, 3 and 0 (v w, w, 1: Fp12::mul_by_034). T is
// kept in homogeneous projective coordinates (X : Y : Z) over Fp2 and each line is
// scaled by a further Fp2 factor (its denominators), which the final exponentiation also
// removes; the step formulas are Costello-Lange-Naehrig 2010's for a = 0, which arkworks
// and noble share for both kinds of twist.
#pragma once

#include "core/ec/twist.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace zkbatch::pairing::detail {

// ---- loop counts ---------------------------------------------------------------------

__extension__ typedef unsigned __int128 LoopCount;

constexpr int binary_length(LoopCount v) {
    int length = 0;
    for (; v != 0; v >>= 1) ++length;
    return length;
}

// The binary digits of v, most significant first.
template <int kLength>
constexpr std::array<int8_t, kLength> binary_digits(LoopCount v) {
    std::array<int8_t, kLength> digits{};
    for (int i = kLength - 1; i >= 0; --i, v >>= 1) digits[static_cast<size_t>(i)] = static_cast<int8_t>(v & 1);
    return digits;
}

// The non-adjacent form of v (no two adjacent digits nonzero, so the fewest additions),
// most significant digit first; naf_length(v) digits.
constexpr int naf_length(LoopCount v) {
    int length = 0;
    while (v != 0) {
        if (v & 1) v = (v & 2) ? v + 1 : v - 1;
        v >>= 1;
        ++length;
    }
    return length;
}
template <int kLength>
constexpr std::array<int8_t, kLength> naf_digits(LoopCount v) {
    std::array<int8_t, kLength> digits{};
    for (int i = kLength - 1; i >= 0; --i) {
        int8_t digit = 0;
        if (v & 1) {
            digit = (v & 2) ? -1 : 1;  // v = 3 mod 4: -1, leaving a multiple of 4
            v = digit > 0 ? v - 1 : v + 1;
        }
        digits[static_cast<size_t>(i)] = digit;
        v >>= 1;
    }
    return digits;
}

// ---- the Miller loop's steps ----------------------------------------------------------

template <class Fp2>
struct G2Projective {
    Fp2 X, Y, Z;
};

// A line evaluated at P is constant + x_coefficient xP + y_coefficient yP.
template <class Fp2>
struct Line {
    Fp2 constant, x_coefficient, y_coefficient;
};

// 3 b' of the twist.
template <class G2Params>
typename G2Params::Field three_b_twist() {
    const typename G2Params::Field b = G2Params::b();
    return b.dbl() + b;
}

// T = 2T; the tangent at T, scaled by -2YZ: (3b'Z^2 - Y^2) + 3 X^2 xP - 2 Y Z yP.
template <class G2Params, class Fp2>
Line<Fp2> doubling_step(G2Projective<Fp2>& t) {
    const Fp2 a = (t.X * t.Y).half();
    const Fp2 b = t.Y.sqr();
    const Fp2 c = t.Z.sqr();
    const Fp2 e = c * three_b_twist<G2Params>();
    const Fp2 f3 = e.dbl() + e;
    const Fp2 g = (b + f3).half();
    const Fp2 h = (t.Y + t.Z).sqr() - (b + c);  // 2YZ
    const Fp2 x_squared = t.X.sqr();
    const Fp2 e_squared = e.sqr();
    t.X = a * (b - f3);
    t.Y = g.sqr() - (e_squared.dbl() + e_squared);
    t.Z = b * h;
    return Line<Fp2>{e - b, x_squared.dbl() + x_squared, -h};
}

// T = T + Q; the line through T and Q, scaled by lambda = X - xQ Z:
// (theta xQ - lambda yQ) - theta xP + lambda yP.
template <class Fp2, class G2Affine>
Line<Fp2> addition_step(G2Projective<Fp2>& t, const G2Affine& q) {
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
    return Line<Fp2>{theta * q.x - lambda * q.y, -theta, lambda};
}

// f *= the line evaluated at P, placed where the twist puts it.
template <class G2Params, class Fp12, class Fp2, class G1Affine>
void multiply_by_line(Fp12& f, const Line<Fp2>& line, const G1Affine& p) {
    if constexpr (G2Params::kTwist == ec::Twist::multiplicative) {
        f = f.mul_by_014(line.constant, line.x_coefficient.scale(p.x), line.y_coefficient.scale(p.y));
    } else {
        f = f.mul_by_034(line.y_coefficient.scale(p.y), line.x_coefficient.scale(p.x), line.constant);
    }
}

// ---- the product of Miller loops ----------------------------------------------------

// The pairs a product of Miller loops runs over (those without a point at infinity) and
// their running points T, for a description's finish_miller_loop.
template <class Description>
struct LoopState {
    using G1Affine = ec::Affine<typename Description::G1Params>;
    using G2Affine = ec::Affine<typename Description::G2Params>;
    using Fp2 = typename Description::G2Params::Field;

    std::vector<const G1Affine*> p;
    std::vector<const G2Affine*> q;
    std::vector<G2Projective<Fp2>> t;

    // T_k = T_k + addend_k, f *= the line through them at P_k, for every pair.
    template <class AddendOf>
    void add(typename Description::Fp12& f, AddendOf addend_of) {
        for (size_t k = 0; k < t.size(); ++k) {
            multiply_by_line<typename Description::G2Params>(f, addition_step(t[k], addend_of(*q[k])), *p[k]);
        }
    }
};

// prod_i f_{loop count, q[i]}(p[i]), one squaring per step for all pairs, then the
// description's finish.
template <class Description>
typename Description::Fp12 miller_loop(const typename LoopState<Description>::G1Affine* p,
                                       const typename LoopState<Description>::G2Affine* q, size_t count) {
    using Fp12 = typename Description::Fp12;
    using G2Affine = typename LoopState<Description>::G2Affine;
    LoopState<Description> state;
    for (size_t i = 0; i < count; ++i) {
        if (p[i].is_infinity() || q[i].is_infinity()) continue;
        state.p.push_back(&p[i]);
        state.q.push_back(&q[i]);
        state.t.push_back({q[i].x, q[i].y, decltype(q[i].x)::one()});
    }
    Fp12 f = Fp12::one();
    if (state.t.empty()) return f;
    constexpr auto& digits = Description::kLoopDigits;
    static_assert(digits[0] == 1, "the loop count's top digit is T = Q itself");
    for (size_t i = 1; i < digits.size(); ++i) {
        f = f.sqr();
        for (size_t k = 0; k < state.t.size(); ++k) {
            multiply_by_line<typename Description::G2Params>(f, doubling_step<typename Description::G2Params>(state.t[k]),
                                                             *state.p[k]);
        }
        if (digits[i] > 0) state.add(f, [](const G2Affine& q_k) { return q_k; });
        if (digits[i] < 0) state.add(f, [](const G2Affine& q_k) { return -q_k; });
    }
    return Description::finish_miller_loop(f, state);
}

// ---- the final exponentiation -------------------------------------------------------

// f^((p^6 - 1)(p^2 + 1)): conj(f) / f, then ^(p^2 + 1). The result is in the cyclotomic
// subgroup, where conjugation inverts and cyclotomic squaring applies.
template <class Fp12>
Fp12 easy_part(const Fp12& f) {
    const Fp12 m = f.conjugate() * f.inverse();
    return m.frobenius_map(2) * m;
}

template <class Description>
typename Description::Fp12 final_exponentiation(const typename Description::Fp12& f) {
    return Description::hard_part(easy_part(f));
}

template <class Description>
bool pairing_product_is_one(const typename LoopState<Description>::G1Affine* p,
                            const typename LoopState<Description>::G2Affine* q, size_t count) {
    return final_exponentiation<Description>(miller_loop<Description>(p, q, count)).is_one();
}

}  // namespace zkbatch::pairing::detail
