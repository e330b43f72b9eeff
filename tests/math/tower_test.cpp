// The tower Fp2 -> Fp6 -> Fp12: Fp2 products against GMP, field laws on random
// elements, inverses, the sparse products against full ones, Frobenius maps against
// powering by p, and the cyclotomic squaring against plain squaring.
#include "fp_oracle.hpp"

#include "core/ff/fp12.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace zkbatch {
namespace {

using ff::Fp;
using ff::Fp12;
using ff::Fp2;
using ff::Fp6;
using test::canonical_of;
using test::fp_modulus;

const uint64_t* p_limbs() {
    static uint64_t limbs[6];
    test::to_limbs(fp_modulus(), limbs, 6);
    return limbs;
}

TEST(Fp2, ProductsMatchGmp) {
    const mpz_class& p = fp_modulus();
    std::mt19937_64 rng(1);
    for (int i = 0; i < 300; ++i) {
        const Fp2 x = test::random_fp2(rng);
        const Fp2 y = test::random_fp2(rng);
        const mpz_class a0 = canonical_of(x.c0), a1 = canonical_of(x.c1);
        const mpz_class b0 = canonical_of(y.c0), b1 = canonical_of(y.c1);
        // (a0 + a1 u)(b0 + b1 u) with u^2 = -1
        const mpz_class c0 = ((a0 * b0 - a1 * b1) % p + p) % p;
        const mpz_class c1 = (a0 * b1 + a1 * b0) % p;
        const Fp2 product = x * y;
        ASSERT_EQ(canonical_of(product.c0), c0);
        ASSERT_EQ(canonical_of(product.c1), c1);
        const Fp2 square = x.sqr();
        ASSERT_EQ(canonical_of(square.c0), ((a0 * a0 - a1 * a1) % p + p) % p);
        ASSERT_EQ(canonical_of(square.c1), 2 * a0 * a1 % p);
        ASSERT_EQ(canonical_of(x.norm()), (a0 * a0 + a1 * a1) % p);
        // times xi = 1 + u
        ASSERT_EQ(x.mul_by_nonresidue(), x * Fp2({Fp::one(), Fp::one()}));
        ASSERT_EQ(x.scale(y.c0), x * Fp2({y.c0, Fp::zero()}));
        ASSERT_EQ(x.half().dbl(), x);
    }
}

TEST(Fp2, InverseSqrtFrobeniusAndSign) {
    std::mt19937_64 rng(2);
    const Fp2 xi{Fp::one(), Fp::one()};
    for (int i = 0; i < 100; ++i) {
        const Fp2 x = test::random_fp2(rng);
        ASSERT_EQ(x * x.inverse(), Fp2::one());
        ASSERT_EQ(x.conjugate(), Fp2({x.c0, -x.c1}));
        ASSERT_EQ(x.frobenius_map(1), x.pow(p_limbs(), 6)) << "the Frobenius is x^p";
        ASSERT_EQ(x.frobenius_map(2), x);
        ASSERT_EQ(x.frobenius_map(3), x.conjugate());

        Fp2 root;
        ASSERT_TRUE(x.sqr().sqrt(root));
        ASSERT_TRUE(root == x || root == -x);
        // xi is not a square, so neither is xi times a square.
        ASSERT_FALSE((x.sqr() * xi).sqrt(root));
        // Elements of Fp: every one is a square in Fp2 (through u when not in Fp).
        const Fp2 in_base_field{x.c0, Fp::zero()};
        ASSERT_TRUE(in_base_field.sqrt(root));
        ASSERT_EQ(root.sqr(), in_base_field);

        // Zcash's sign: c1 decides, c0 when c1 is zero.
        ASSERT_EQ(x.is_lexicographically_largest(), x.c1.is_lexicographically_largest());
        ASSERT_EQ(in_base_field.is_lexicographically_largest(), x.c0.is_lexicographically_largest());
        if (!x.is_zero()) {
            ASSERT_NE(x.is_lexicographically_largest(), (-x).is_lexicographically_largest());
        }
    }
    EXPECT_TRUE(Fp2::zero().inverse().is_zero());
    Fp2 root;
    EXPECT_TRUE(Fp2::zero().sqrt(root));
    EXPECT_TRUE(root.is_zero());
    // u^2 = -1
    const Fp2 u{Fp::zero(), Fp::one()};
    EXPECT_EQ(u.sqr(), -Fp2::one());
}

// Associativity, commutativity, distributivity, identities and inverses.
template <class F>
void check_field_laws(const F& a, const F& b, const F& c) {
    ASSERT_EQ((a * b) * c, a * (b * c));
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ(a * (b + c), a * b + a * c);
    ASSERT_EQ((a + b) + c, a + (b + c));
    ASSERT_EQ(a + b - b, a);
    ASSERT_EQ(a - a, F::zero());
    ASSERT_EQ(a + (-a), F::zero());
    ASSERT_EQ(a * F::one(), a);
    ASSERT_EQ(a * F::zero(), F::zero());
    ASSERT_EQ(a.sqr(), a * a);
    ASSERT_EQ(a * a.inverse(), F::one());
    ASSERT_EQ((a * b).inverse(), a.inverse() * b.inverse());
    ASSERT_TRUE(F::one().is_one());
    ASSERT_FALSE(a.is_one());
}

TEST(Fp2, FieldLaws) {
    std::mt19937_64 rng(3);
    for (int i = 0; i < 50; ++i) check_field_laws(test::random_fp2(rng), test::random_fp2(rng), test::random_fp2(rng));
}

TEST(Fp6, FieldLawsAndSparseProducts) {
    std::mt19937_64 rng(4);
    const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
    const Fp2 xi{Fp::one(), Fp::one()};
    EXPECT_EQ(v * v * v, Fp6({xi, Fp2::zero(), Fp2::zero()})) << "v^3 = xi";
    for (int i = 0; i < 30; ++i) {
        const Fp6 a = test::random_fp6(rng);
        check_field_laws(a, test::random_fp6(rng), test::random_fp6(rng));
        const Fp2 b0 = test::random_fp2(rng);
        const Fp2 b1 = test::random_fp2(rng);
        ASSERT_EQ(a.mul_by_nonresidue(), a * v);
        ASSERT_EQ(a.mul_by_01(b0, b1), a * Fp6({b0, b1, Fp2::zero()}));
        ASSERT_EQ(a.mul_by_1(b1), a * Fp6({Fp2::zero(), b1, Fp2::zero()}));
        ASSERT_EQ(a.scale(b0), a * Fp6({b0, Fp2::zero(), Fp2::zero()}));
    }
    EXPECT_TRUE(Fp6::zero().inverse().is_zero());
}

TEST(Fp6, FrobeniusIsPowerP) {
    std::mt19937_64 rng(5);
    for (int i = 0; i < 5; ++i) {
        const Fp6 a = test::random_fp6(rng);
        const Fp6 a_to_p = ff::detail::pow_by_limbs(a, p_limbs(), 6);
        ASSERT_EQ(a.frobenius_map(1), a_to_p);
        Fp6 repeated = a;
        for (unsigned k = 1; k <= 7; ++k) {
            repeated = ff::detail::pow_by_limbs(repeated, p_limbs(), 6);
            ASSERT_EQ(a.frobenius_map(k), repeated) << "k = " << k;
        }
        ASSERT_EQ(a.frobenius_map(0), a);
        ASSERT_EQ(a.frobenius_map(6), a);
    }
}

TEST(Fp12, FieldLawsAndSparseLineProduct) {
    std::mt19937_64 rng(6);
    const Fp12 w{Fp6::zero(), Fp6::one()};
    const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
    EXPECT_EQ(w * w, Fp12({v, Fp6::zero()})) << "w^2 = v";
    for (int i = 0; i < 20; ++i) {
        const Fp12 a = test::random_fp12(rng);
        check_field_laws(a, test::random_fp12(rng), test::random_fp12(rng));
        const Fp2 o0 = test::random_fp2(rng), o1 = test::random_fp2(rng), o4 = test::random_fp2(rng);
        const Fp12 line{Fp6{o0, o1, Fp2::zero()}, Fp6{Fp2::zero(), o4, Fp2::zero()}};
        ASSERT_EQ(a.mul_by_014(o0, o1, o4), a * line);
        ASSERT_EQ(a.conjugate(), a.frobenius_map(6)) << "conjugation is the p^6 Frobenius";
        ASSERT_EQ(a * a.conjugate(), Fp12({(a * a.conjugate()).c0, Fp6::zero()})) << "the norm to Fp6";
    }
    EXPECT_TRUE(Fp12::zero().inverse().is_zero());
}

TEST(Fp12, FrobeniusIsPowerP) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3; ++i) {
        const Fp12 a = test::random_fp12(rng);
        Fp12 repeated = a;
        for (unsigned k = 1; k <= 12; ++k) {
            repeated = repeated.pow(p_limbs(), 6);
            ASSERT_EQ(a.frobenius_map(k), repeated) << "k = " << k;
        }
        ASSERT_EQ(repeated, a) << "x^(p^12) = x";
    }
}

// An element of the cyclotomic subgroup: a^((p^6 - 1)(p^2 + 1)).
Fp12 cyclotomic_element(const Fp12& a) {
    const Fp12 t = a.conjugate() * a.inverse();
    return t.frobenius_map(2) * t;
}

TEST(Fp12, CyclotomicSquareAndPowMatchPlainOnes) {
    std::mt19937_64 rng(8);
    for (int i = 0; i < 20; ++i) {
        const Fp12 a = test::random_fp12(rng);
        const Fp12 c = cyclotomic_element(a);
        ASSERT_EQ(c * c.conjugate(), Fp12::one()) << "conjugation inverts on the subgroup";
        ASSERT_EQ(c.cyclotomic_square(), c.sqr());
        const uint64_t exponent = rng();
        ASSERT_EQ(c.cyclotomic_pow(exponent), c.pow(&exponent, 1));
        // Outside the subgroup the shortcut is wrong, so the test above could fail.
        ASSERT_NE(a.cyclotomic_square(), a.sqr());
    }
    EXPECT_EQ(Fp12::one().cyclotomic_pow(0), Fp12::one());
}

}  // namespace
}  // namespace zkbatch
