// The tower's pieces that are not inline (fp2.hpp, fp6.hpp, fp12.hpp), for every tower:
// the Frobenius coefficients, computed once from their definition, and the cyclotomic
// squaring of the final exponentiation. Instantiated for BLS12-381's and BN254's towers.
#include "core/ff/bn254_tower.hpp"
#include "core/ff/fp12.hpp"

#include <cstdint>

namespace zkbatch::ff::tower {

namespace {

// (p - 1) / 6 by long division of p's limbs (exact: p = 1 mod 6).
template <class Fp>
struct SixthOfPMinusOne {
    uint64_t limbs[Fp::kLimbs];
};
template <class Fp>
constexpr SixthOfPMinusOne<Fp> sixth_of_p_minus_one() {
    SixthOfPMinusOne<Fp> result{};
    __extension__ typedef unsigned __int128 uint128;
    uint128 remainder = 0;
    for (int i = Fp::kLimbs - 1; i >= 0; --i) {
        const uint64_t limb = Fp::modulus_limb(i) - (i == 0 ? 1 : 0);  // p is odd: no borrow
        const uint128 current = (remainder << 64) | limb;
        result.limbs[i] = static_cast<uint64_t>(current / 6);
        remainder = current % 6;
    }
    return result;
}
template <class Fp>
constexpr bool is_one_mod_six() {
    uint64_t remainder = 0;  // of p by 6, limb by limb: 2^64 = 4 mod 6
    for (int i = Fp::kLimbs - 1; i >= 0; --i) remainder = (remainder * 4 + Fp::modulus_limb(i) % 6) % 6;
    return remainder == 1;
}

template <class Tower>
FrobeniusCoefficients<Tower> compute_frobenius_coefficients() {
    using Fp = typename Tower::BaseField;
    static_assert(is_one_mod_six<Fp>(), "the tower's Frobenius coefficients xi^((p^k - 1)/6) need p = 1 mod 6");
    FrobeniusCoefficients<Tower> table;
    const Fp2<Tower> xi = Fp2<Tower>::one().mul_by_nonresidue();  // kXiReal + u
    constexpr SixthOfPMinusOne<Fp> exponent = sixth_of_p_minus_one<Fp>();
    const Fp2<Tower> gamma1 = xi.pow(exponent.limbs, Fp::kLimbs);
    // gamma_{k+1} = xi^((p^k - 1)/6 * p + (p - 1)/6) = gamma_k^p * gamma_1.
    table.gamma[0] = Fp2<Tower>::one();
    for (int k = 1; k < 12; ++k) table.gamma[k] = table.gamma[k - 1].conjugate() * gamma1;
    for (int k = 0; k < 6; ++k) {
        table.gamma_squared[k] = table.gamma[k].sqr();
        table.gamma_fourth[k] = table.gamma_squared[k].sqr();
    }
    return table;
}

// (a + b t)^2 in Fp4 = Fp2[t]/(t^2 - xi): (a^2 + xi b^2) + 2ab t, from three squarings.
template <class Fp2>
void fp4_square(const Fp2& a, const Fp2& b, Fp2& out0, Fp2& out1) {
    const Fp2 a2 = a.sqr();
    const Fp2 b2 = b.sqr();
    out0 = b2.mul_by_nonresidue() + a2;
    out1 = (a + b).sqr() - a2 - b2;
}

// 3 square - 2 conj(x) and 3 square + 2 conj(x) halves: 3s - 2x0 and 3s' + 2x1.
template <class Fp2>
Fp2 triple_minus_twice(const Fp2& square, const Fp2& x) {
    return (square - x).dbl() + square;
}
template <class Fp2>
Fp2 triple_plus_twice(const Fp2& square, const Fp2& x) {
    return (square + x).dbl() + square;
}

}  // namespace

template <class Tower>
const FrobeniusCoefficients<Tower>& frobenius_coefficients() {
    static const FrobeniusCoefficients<Tower> table = compute_frobenius_coefficients<Tower>();
    return table;
}

template <class Tower>
Fp12<Tower> Fp12<Tower>::cyclotomic_square() const {
    // A0 = c0.c0 + c1.c1 t, A1 = c1.c0 + c0.c2 t, A2 = c0.c1 + c1.c2 t (s = w, t = w^3).
    Fp2 a0_sq0, a0_sq1, a1_sq0, a1_sq1, a2_sq0, a2_sq1;
    fp4_square(c0.c0, c1.c1, a0_sq0, a0_sq1);
    fp4_square(c1.c0, c0.c2, a1_sq0, a1_sq1);
    fp4_square(c0.c1, c1.c2, a2_sq0, a2_sq1);
    Fp12 result;
    // A0' = 3 A0^2 - 2 conj(A0)
    result.c0.c0 = triple_minus_twice(a0_sq0, c0.c0);
    result.c1.c1 = triple_plus_twice(a0_sq1, c1.c1);
    // A1' = 3 t A2^2 + 2 conj(A1); t (a + b t) = xi b + a t
    result.c1.c0 = triple_plus_twice(a2_sq1.mul_by_nonresidue(), c1.c0);
    result.c0.c2 = triple_minus_twice(a2_sq0, c0.c2);
    // A2' = 3 A1^2 - 2 conj(A2)
    result.c0.c1 = triple_minus_twice(a1_sq0, c0.c1);
    result.c1.c2 = triple_plus_twice(a1_sq1, c1.c2);
    return result;
}

template <class Tower>
Fp12<Tower> Fp12<Tower>::cyclotomic_pow(uint64_t exponent) const {
    struct CyclotomicSquare {
        Fp12 operator()(const Fp12& x) const { return x.cyclotomic_square(); }
    };
    return detail::pow_by_limbs(*this, &exponent, 1, CyclotomicSquare{});
}

template const FrobeniusCoefficients<bls12_381::TowerDescription>& frobenius_coefficients();
template Fp12<bls12_381::TowerDescription> Fp12<bls12_381::TowerDescription>::cyclotomic_square() const;
template Fp12<bls12_381::TowerDescription> Fp12<bls12_381::TowerDescription>::cyclotomic_pow(uint64_t) const;
template const FrobeniusCoefficients<bn254::TowerDescription>& frobenius_coefficients();
template Fp12<bn254::TowerDescription> Fp12<bn254::TowerDescription>::cyclotomic_square() const;
template Fp12<bn254::TowerDescription> Fp12<bn254::TowerDescription>::cyclotomic_pow(uint64_t) const;

}  // namespace zkbatch::ff::tower
