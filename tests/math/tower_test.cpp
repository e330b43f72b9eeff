// The towers Fp2 -> Fp6 -> Fp12 of BLS12-381 (xi = 1 + u) and BN254 (xi = 9 + u), each
// suite typed over both: Fp2 products against GMP, field laws on random elements,
// inverses, xi neither a square nor a cube, the sparse products against full ones,
// Frobenius maps against powering by p, and the cyclotomic squaring against plain squaring.
#include "fp_oracle.hpp"

#include "core/ff/bn254_tower.hpp"
#include "core/ff/fp12.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

namespace zkbatch {
namespace {

using test::canonical_of;

// What each tower's specification says, not what its description says: xi = kXi + u
// (the Zcash BLS12-381 specification's 1 + u, EIP-197's 9 + u).
template <class Tower>
struct TowerFacts;
template <>
struct TowerFacts<ff::bls12_381::TowerDescription> {
    static constexpr uint64_t kXi = 1;
};
template <>
struct TowerFacts<ff::bn254::TowerDescription> {
    static constexpr uint64_t kXi = 9;
};

using Towers = ::testing::Types<ff::bls12_381::TowerDescription, ff::bn254::TowerDescription>;
struct TowerNames {
    template <class Tower>
    static std::string GetName(int) {
        return std::is_same_v<Tower, ff::bls12_381::TowerDescription> ? "Bls12_381" : "Bn254";
    }
};

// The floors of a tower, for the tests' bodies (members of the fixture would be shadowed).
template <class Tower>
struct Floors {
    using Fp = typename Tower::BaseField;
    using Fp2 = ff::tower::Fp2<Tower>;
    using Fp6 = ff::tower::Fp6<Tower>;
    using Fp12 = ff::tower::Fp12<Tower>;
};

template <class Tower>
class TowerTest : public ::testing::Test {
protected:
    static const mpz_class& p() { return test::modulus_of<typename Tower::BaseField>(); }
    // p as limbs, the exponent of the Frobenius.
    static const uint64_t* p_limbs() {
        static uint64_t limbs[Tower::BaseField::kLimbs];
        test::to_limbs(p(), limbs, Tower::BaseField::kLimbs);
        return limbs;
    }
    static ff::tower::Fp2<Tower> xi() {
        using Fp = typename Tower::BaseField;
        return {Fp::from_u64(TowerFacts<Tower>::kXi), Fp::one()};
    }
    template <class F>
    static F random(std::mt19937_64& rng) {
        return test::random_tower_element<F>(rng);
    }
};
TYPED_TEST_SUITE(TowerTest, Towers, TowerNames);

TYPED_TEST(TowerTest, Fp2ProductsMatchGmp) {
    using Fp = typename Floors<TypeParam>::Fp;
    using Fp2 = typename Floors<TypeParam>::Fp2;
    const mpz_class& p = TestFixture::p();
    const uint64_t k = TowerFacts<TypeParam>::kXi;
    std::mt19937_64 rng(1);
    for (int i = 0; i < 300; ++i) {
        const Fp2 x = TestFixture::template random<Fp2>(rng);
        const Fp2 y = TestFixture::template random<Fp2>(rng);
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
        // times xi = k + u: (k a0 - a1) + (a0 + k a1) u
        const Fp2 times_xi = x.mul_by_nonresidue();
        ASSERT_EQ(canonical_of(times_xi.c0), ((k * a0 - a1) % p + p) % p);
        ASSERT_EQ(canonical_of(times_xi.c1), (a0 + k * a1) % p);
        ASSERT_EQ(x.scale(y.c0), x * Fp2({y.c0, Fp::zero()}));
        ASSERT_EQ(x.half().dbl(), x);
    }
}

TYPED_TEST(TowerTest, Fp2InverseSqrtFrobeniusAndSign) {
    using Fp = typename Floors<TypeParam>::Fp;
    using Fp2 = typename Floors<TypeParam>::Fp2;
    const uint64_t* p_limbs = TestFixture::p_limbs();
    std::mt19937_64 rng(2);
    const Fp2 xi = TestFixture::xi();
    for (int i = 0; i < 100; ++i) {
        const Fp2 x = TestFixture::template random<Fp2>(rng);
        ASSERT_EQ(x * x.inverse(), Fp2::one());
        ASSERT_EQ(x.conjugate(), Fp2({x.c0, -x.c1}));
        ASSERT_EQ(x.frobenius_map(1), x.pow(p_limbs, Fp::kLimbs)) << "the Frobenius is x^p";
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

TYPED_TEST(TowerTest, Fp2FieldLaws) {
    using Fp2 = typename Floors<TypeParam>::Fp2;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 50; ++i) {
        const Fp2 a = TestFixture::template random<Fp2>(rng);
        const Fp2 b = TestFixture::template random<Fp2>(rng);
        check_field_laws(a, b, TestFixture::template random<Fp2>(rng));
    }
}

// Fp6 = Fp2[v]/(v^3 - xi) is a field only if xi is not a cube in Fp2 (nor, for
// Fp12 = Fp6[w]/(w^2 - v), v a square in Fp6: w^6 = xi, so xi must not be a square).
TYPED_TEST(TowerTest, XiIsNeitherASquareNorACube) {
    using Fp = typename Floors<TypeParam>::Fp;
    using Fp2 = typename Floors<TypeParam>::Fp2;
    const mpz_class order = TestFixture::p() * TestFixture::p() - 1;  // of Fp2's multiplicative group
    ASSERT_EQ(mpz_class(order % 6), 0);
    for (unsigned power : {2u, 3u}) {
        uint64_t exponent[2 * Fp::kLimbs];
        test::to_limbs(order / power, exponent, 2 * Fp::kLimbs);
        EXPECT_NE(TestFixture::xi().pow(exponent, 2 * Fp::kLimbs), Fp2::one())
            << "xi is a " << (power == 2 ? "square" : "cube");
    }
    Fp2 root;
    EXPECT_FALSE(TestFixture::xi().sqrt(root));
    EXPECT_EQ(Fp2::one().mul_by_nonresidue(), TestFixture::xi());
}

TYPED_TEST(TowerTest, Fp6FieldLawsAndSparseProducts) {
    using Fp2 = typename Floors<TypeParam>::Fp2;
    using Fp6 = typename Floors<TypeParam>::Fp6;
    std::mt19937_64 rng(4);
    const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
    EXPECT_EQ(v * v * v, Fp6({TestFixture::xi(), Fp2::zero(), Fp2::zero()})) << "v^3 = xi";
    for (int i = 0; i < 30; ++i) {
        const Fp6 a = TestFixture::template random<Fp6>(rng);
        const Fp6 b = TestFixture::template random<Fp6>(rng);
        check_field_laws(a, b, TestFixture::template random<Fp6>(rng));
        const Fp2 b0 = TestFixture::template random<Fp2>(rng);
        const Fp2 b1 = TestFixture::template random<Fp2>(rng);
        ASSERT_EQ(a.mul_by_nonresidue(), a * v);
        ASSERT_EQ(a.mul_by_01(b0, b1), a * Fp6({b0, b1, Fp2::zero()}));
        ASSERT_EQ(a.mul_by_1(b1), a * Fp6({Fp2::zero(), b1, Fp2::zero()}));
        ASSERT_EQ(a.scale(b0), a * Fp6({b0, Fp2::zero(), Fp2::zero()}));
    }
    EXPECT_TRUE(Fp6::zero().inverse().is_zero());
}

TYPED_TEST(TowerTest, Fp6FrobeniusIsPowerP) {
    using Fp = typename Floors<TypeParam>::Fp;
    using Fp6 = typename Floors<TypeParam>::Fp6;
    const uint64_t* p_limbs = TestFixture::p_limbs();
    std::mt19937_64 rng(5);
    for (int i = 0; i < 5; ++i) {
        const Fp6 a = TestFixture::template random<Fp6>(rng);
        const Fp6 a_to_p = ff::detail::pow_by_limbs(a, p_limbs, Fp::kLimbs);
        ASSERT_EQ(a.frobenius_map(1), a_to_p);
        Fp6 repeated = a;
        for (unsigned k = 1; k <= 7; ++k) {
            repeated = ff::detail::pow_by_limbs(repeated, p_limbs, Fp::kLimbs);
            ASSERT_EQ(a.frobenius_map(k), repeated) << "k = " << k;
        }
        ASSERT_EQ(a.frobenius_map(0), a);
        ASSERT_EQ(a.frobenius_map(6), a);
    }
}

TYPED_TEST(TowerTest, Fp12FieldLawsAndSparseLineProducts) {
    using Fp2 = typename Floors<TypeParam>::Fp2;
    using Fp6 = typename Floors<TypeParam>::Fp6;
    using Fp12 = typename Floors<TypeParam>::Fp12;
    std::mt19937_64 rng(6);
    const Fp12 w{Fp6::zero(), Fp6::one()};
    const Fp6 v{Fp2::zero(), Fp2::one(), Fp2::zero()};
    EXPECT_EQ(w * w, Fp12({v, Fp6::zero()})) << "w^2 = v";
    for (int i = 0; i < 20; ++i) {
        const Fp12 a = TestFixture::template random<Fp12>(rng);
        const Fp12 b = TestFixture::template random<Fp12>(rng);
        check_field_laws(a, b, TestFixture::template random<Fp12>(rng));
        const Fp2 o0 = TestFixture::template random<Fp2>(rng);
        const Fp2 o1 = TestFixture::template random<Fp2>(rng);
        const Fp2 o4 = TestFixture::template random<Fp2>(rng);
        // An M-type twist's lines (coefficients 0, 1, 4), a D-type twist's (0, 3, 4).
        const Fp12 line_014{Fp6{o0, o1, Fp2::zero()}, Fp6{Fp2::zero(), o4, Fp2::zero()}};
        ASSERT_EQ(a.mul_by_014(o0, o1, o4), a * line_014);
        const Fp12 line_034{Fp6{o0, Fp2::zero(), Fp2::zero()}, Fp6{o1, o4, Fp2::zero()}};
        ASSERT_EQ(a.mul_by_034(o0, o1, o4), a * line_034);
        ASSERT_EQ(a.conjugate(), a.frobenius_map(6)) << "conjugation is the p^6 Frobenius";
        ASSERT_EQ(a * a.conjugate(), Fp12({(a * a.conjugate()).c0, Fp6::zero()})) << "the norm to Fp6";
    }
    EXPECT_TRUE(Fp12::zero().inverse().is_zero());
}

TYPED_TEST(TowerTest, Fp12FrobeniusIsPowerP) {
    using Fp = typename Floors<TypeParam>::Fp;
    using Fp12 = typename Floors<TypeParam>::Fp12;
    const uint64_t* p_limbs = TestFixture::p_limbs();
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3; ++i) {
        const Fp12 a = TestFixture::template random<Fp12>(rng);
        Fp12 repeated = a;
        for (unsigned k = 1; k <= 12; ++k) {
            repeated = repeated.pow(p_limbs, Fp::kLimbs);
            ASSERT_EQ(a.frobenius_map(k), repeated) << "k = " << k;
        }
        ASSERT_EQ(repeated, a) << "x^(p^12) = x";
    }
}

// An element of the cyclotomic subgroup: a^((p^6 - 1)(p^2 + 1)).
template <class Fp12>
Fp12 cyclotomic_element(const Fp12& a) {
    const Fp12 t = a.conjugate() * a.inverse();
    return t.frobenius_map(2) * t;
}

TYPED_TEST(TowerTest, CyclotomicSquareAndPowMatchPlainOnes) {
    using Fp12 = typename Floors<TypeParam>::Fp12;
    std::mt19937_64 rng(8);
    for (int i = 0; i < 20; ++i) {
        const Fp12 a = TestFixture::template random<Fp12>(rng);
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
