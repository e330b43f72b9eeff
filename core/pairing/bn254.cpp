// BN254's optimal ate pairing (bn254.hpp): optimal_ate.hpp over this description. Its
// twist is D-type (twist.hpp), so lines are Fq12::mul_by_034's shape.
#include "core/pairing/bn254.hpp"

#include "core/pairing/optimal_ate.hpp"

namespace zkbatch::pairing {

namespace {

using ec::bn254::G2Affine;
using ec::bn254::kBnX;
using ff::bn254::Fq12;

struct Bn254 {
    using G1Params = ec::bn254::G1Params;
    using G2Params = ec::bn254::G2Params;
    using Fp12 = Fq12;

    // 6x + 2 (65 bits) in non-adjacent form: 66 digits, 22 of them nonzero.
    static constexpr detail::LoopCount kLoopCount = detail::LoopCount{6} * kBnX + 2;
    static constexpr auto kLoopDigits = detail::naf_digits<detail::naf_length(kLoopCount)>(kLoopCount);

    // The two lines of the optimal ate pairing past the loop (T = [6x + 2]Q): through T and
    // pi(Q), then through T + pi(Q) and -pi^2(Q).
    static Fq12 finish_miller_loop(const Fq12& f, detail::LoopState<Bn254>& state) {
        Fq12 result = f;
        state.add(result, [](const G2Affine& q) { return ec::bn254::g2_endomorphism(q); });
        state.add(result, [](const G2Affine& q) { return -ec::twist_frobenius(q, 2); });
        return result;
    }

    // m^(2x(6x^2 + 3x + 1) (p^4 - p^2 + 1) / r) = m^(l0 + l1 p + l2 p^2 + l3 p^3) with
    // l0 = 12x^3 + 12x^2 + 6x + 1, l1 = 12x^3 + 6x^2 + 4x, l2 = 12x^3 + 6x^2 + 6x and
    // l3 = 12x^3 + 6x^2 + 4x - 1: Fuentes-Castaneda, Knapp and Rodriguez-Henriquez, "Faster
    // hashing to G2" (SAC 2011), section 6, in the addition chain of Duquesne and Ghammam
    // (arkworks', gnark's and noble's): three powers by x, three cyclotomic squarings.
    static Fq12 hard_part(const Fq12& m) {
        const Fq12 y1 = pow_minus_x(m).cyclotomic_square();                // m^(-2x)
        const Fq12 y2 = y1.cyclotomic_square() * y1;                       // m^(-6x)
        const Fq12 y4 = pow_minus_x(y2);                                   // m^(6x^2)
        const Fq12 y6 = pow_minus_x(y4.cyclotomic_square());               // m^(-12x^3)
        const Fq12 y8 = y6.conjugate() * y4 * y2.conjugate();              // m^(12x^3 + 6x^2 + 6x)
        const Fq12 y9 = y8 * y1;                                           // m^(12x^3 + 6x^2 + 4x)
        return (m.conjugate() * y9).frobenius_map(3) * y8.frobenius_map(2) * y9.frobenius_map(1) * (y8 * y4 * m);
    }

    // f^-x for f in the cyclotomic subgroup.
    static Fq12 pow_minus_x(const Fq12& f) { return f.cyclotomic_pow(kBnX).conjugate(); }
};

static_assert(Bn254::kLoopDigits.size() == 66);

}  // namespace

Fq12 miller_loop(const ec::bn254::G1Affine* p, const ec::bn254::G2Affine* q, size_t count) {
    return detail::miller_loop<Bn254>(p, q, count);
}

Fq12 final_exponentiation(const Fq12& f) { return detail::final_exponentiation<Bn254>(f); }

Fq12 pairing(const ec::bn254::G1Affine& p, const ec::bn254::G2Affine& q) {
    return final_exponentiation(miller_loop(&p, &q, 1));
}

bool pairing_product_is_one(const ec::bn254::G1Affine* p, const ec::bn254::G2Affine* q, size_t count) {
    return detail::pairing_product_is_one<Bn254>(p, q, count);
}

}  // namespace zkbatch::pairing
