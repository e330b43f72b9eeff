// BLS12-381's optimal ate pairing (pairing.hpp): optimal_ate.hpp over this description.
// Its twist is M-type (twist.hpp), so lines are Fp12::mul_by_014's shape.
#include "core/pairing/pairing.hpp"

#include "core/pairing/optimal_ate.hpp"

namespace zkbatch::pairing {

namespace {

using ff::Fp12;

struct Bls12_381 {
    using G1Params = ec::G1Params;
    using G2Params = ec::G2Params;
    using Fp12 = ff::Fp12;

    // |x|'s 64 bits; its top bit is T = Q itself, the loop runs over the 63 below it.
    static constexpr auto kLoopDigits = detail::binary_digits<64>(ec::kBlsXAbs);

    static Fp12 finish_miller_loop(const Fp12& f, detail::LoopState<Bls12_381>&) {
        return f.conjugate();  // x < 0
    }

    // m^(3 (p^4 - p^2 + 1) / r) = m^((x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3)
    // (Hayashida-Hayasaka-Teruya 2020, as blst, zkcrypto's bls12_381, arkworks and noble).
    static Fp12 hard_part(const Fp12& m) {
        Fp12 a = pow_x(m) * m.conjugate();  // m^(x - 1)
        a = pow_x(a) * a.conjugate();       // m^((x - 1)^2)
        const Fp12 b = pow_x(a) * a.frobenius_map(1);                             // ^(x + p)
        const Fp12 c = pow_x(pow_x(b)) * b.frobenius_map(2) * b.conjugate();  // ^(x^2 + p^2 - 1)
        return c * m.cyclotomic_square() * m;
    }

    // f^x for f in the cyclotomic subgroup (x < 0: the conjugate of f^|x|).
    static Fp12 pow_x(const Fp12& f) { return f.cyclotomic_pow(ec::kBlsXAbs).conjugate(); }
};

}  // namespace

Fp12 miller_loop(const ec::G1Affine* p, const ec::G2Affine* q, size_t count) {
    return detail::miller_loop<Bls12_381>(p, q, count);
}

Fp12 final_exponentiation(const Fp12& f) { return detail::final_exponentiation<Bls12_381>(f); }

Fp12 pairing(const ec::G1Affine& p, const ec::G2Affine& q) { return final_exponentiation(miller_loop(&p, &q, 1)); }

bool pairing_product_is_one(const ec::G1Affine* p, const ec::G2Affine* q, size_t count) {
    return detail::pairing_product_is_one<Bls12_381>(p, q, count);
}

}  // namespace zkbatch::pairing
