// The pairings of BLS12-381 and BN254 (typed suites over both) by their defining
// properties: bilinearity, non-degeneracy, values of order r, the final exponentiation
// against the plain power f^(m (p^12 - 1) / r) computed with GMP's exponent (m = 3 for
// BLS12-381, 2x(6x^2 + 3x + 1) for BN254, as the other libraries compute), and pairing
// products: Groth16's equation on points of known discrete logs, and broken ones.
// (Their values against noble's are in tests/interop.)
#include "fp_oracle.hpp"

#include "core/pairing/bn254.hpp"
#include "core/pairing/pairing.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

namespace zkbatch {
namespace {

// A curve's groups and the power its final exponentiation raises to, over (p^12 - 1)/r.
template <class G1, class G2>
struct PairingCurve {
    using G1Params = G1;
    using G2Params = G2;
    using G1Affine = ec::Affine<G1>;
    using G2Affine = ec::Affine<G2>;
    using Scalar = typename G1::Scalar;
    using Fp12 = decltype(pairing::pairing(G1Affine{}, G2Affine{}));
};
struct Bls12_381 : PairingCurve<ec::G1Params, ec::G2Params> {
    static mpz_class final_exponent_multiplier() { return 3; }
};
struct Bn254 : PairingCurve<ec::bn254::G1Params, ec::bn254::G2Params> {
    static mpz_class final_exponent_multiplier() {
        const mpz_class x{"4965661367192848881"};
        return 2 * x * (6 * x * x + 3 * x + 1);
    }
};

using Pairings = ::testing::Types<Bls12_381, Bn254>;
struct PairingNames {
    template <class Curve>
    static std::string GetName(int) {
        return std::is_same_v<Curve, Bls12_381> ? "Bls12_381" : "Bn254";
    }
};

template <class Curve>
class PairingTest : public ::testing::Test {
protected:
    static typename Curve::G1Affine g1() { return ec::generator<typename Curve::G1Params>(); }
    static typename Curve::G2Affine g2() { return ec::generator<typename Curve::G2Params>(); }
    static typename Curve::G1Affine g1_times(const typename Curve::Scalar& k) {
        return ec::scalar_mul(ec::Jacobian<typename Curve::G1Params>::from_affine(g1()), k).to_affine();
    }
    static typename Curve::G2Affine g2_times(const typename Curve::Scalar& k) {
        return ec::scalar_mul(ec::Jacobian<typename Curve::G2Params>::from_affine(g2()), k).to_affine();
    }
    static typename Curve::Scalar random_scalar(std::mt19937_64& rng) {
        return test::random_element<typename Curve::Scalar>(rng);
    }
    static typename Curve::Fp12 power(const typename Curve::Fp12& x, const typename Curve::Scalar& k) {
        uint64_t limbs[4];
        k.to_canonical(limbs);
        return x.pow(limbs, 4);
    }
    static const uint64_t* r_limbs() { return test::group_order_limbs<typename Curve::G1Params>(); }
};
TYPED_TEST_SUITE(PairingTest, Pairings, PairingNames);

TYPED_TEST(PairingTest, IsNonDegenerateOfOrderRAndOneAtInfinity) {
    using Fp12 = typename TypeParam::Fp12;
    const Fp12 e = pairing::pairing(TestFixture::g1(), TestFixture::g2());
    EXPECT_FALSE(e.is_one());
    EXPECT_TRUE(e.pow(TestFixture::r_limbs(), 4).is_one()) << "e(P, Q)^r = 1";
    EXPECT_EQ(e * e.conjugate(), Fp12::one()) << "GT is in the cyclotomic subgroup";
    EXPECT_TRUE(pairing::pairing(TypeParam::G1Affine::infinity(), TestFixture::g2()).is_one());
    EXPECT_TRUE(pairing::pairing(TestFixture::g1(), TypeParam::G2Affine::infinity()).is_one());
    const typename TypeParam::G1Affine* no_p = nullptr;
    const typename TypeParam::G2Affine* no_q = nullptr;
    EXPECT_TRUE(pairing::miller_loop(no_p, no_q, 0).is_one());
}

TYPED_TEST(PairingTest, IsBilinear) {
    using Scalar = typename TypeParam::Scalar;
    using Fp12 = typename TypeParam::Fp12;
    std::mt19937_64 rng(30);
    const Fp12 base = pairing::pairing(TestFixture::g1(), TestFixture::g2());
    for (int i = 0; i < 3; ++i) {
        const Scalar a = TestFixture::random_scalar(rng);
        const Scalar b = TestFixture::random_scalar(rng);
        const Fp12 e_ab = pairing::pairing(TestFixture::g1_times(a), TestFixture::g2_times(b));
        ASSERT_EQ(e_ab, TestFixture::power(base, a * b)) << "e(aP, bQ) = e(P, Q)^(ab)";
        ASSERT_EQ(e_ab, pairing::pairing(TestFixture::g1_times(a * b), TestFixture::g2()));
        ASSERT_EQ(e_ab, pairing::pairing(TestFixture::g1(), TestFixture::g2_times(a * b)));
        // Additive in each argument.
        const auto p1 = TestFixture::g1_times(a), p2 = TestFixture::g1_times(b);
        const auto sum = ec::add_mixed(ec::Jacobian<typename TypeParam::G1Params>::from_affine(p1), p2).to_affine();
        const auto q = TestFixture::g2_times(a + b);
        ASSERT_EQ(pairing::pairing(sum, q), pairing::pairing(p1, q) * pairing::pairing(p2, q));
        ASSERT_EQ(pairing::pairing(-p1, q), pairing::pairing(p1, q).conjugate());
        ASSERT_NE(e_ab, base);
    }
}

TYPED_TEST(PairingTest, FinalExponentiationIsThePlainPower) {
    using Scalar = typename TypeParam::Scalar;
    using Fp12 = typename TypeParam::Fp12;
    using Fp = typename TypeParam::G1Params::Field;
    const mpz_class& p = test::modulus_of<Fp>();
    const mpz_class& r = test::modulus_of<Scalar>();
    mpz_class p12;
    mpz_pow_ui(p12.get_mpz_t(), p.get_mpz_t(), 12);
    ASSERT_EQ(mpz_class((p12 - 1) % r), 0);
    const mpz_class multiplier = TypeParam::final_exponent_multiplier();
    mpz_class gcd;
    mpz_gcd(gcd.get_mpz_t(), multiplier.get_mpz_t(), r.get_mpz_t());
    ASSERT_EQ(gcd, 1) << "a power prime to r keeps the pairing non-degenerate";
    const mpz_class exponent = multiplier * ((p12 - 1) / r);
    std::vector<uint64_t> limbs((mpz_sizeinbase(exponent.get_mpz_t(), 2) + 63) / 64);
    test::to_limbs(exponent, limbs.data(), limbs.size());
    // Any f will do, Miller-loop output or not.
    std::mt19937_64 rng(31);
    const Fp12 f = test::random_tower_element<Fp12>(rng);
    EXPECT_EQ(pairing::final_exponentiation(f), f.pow(limbs.data(), static_cast<int>(limbs.size())));
    const auto g1 = TestFixture::g1();
    const auto g2 = TestFixture::g2();
    const Fp12 m = pairing::miller_loop(&g1, &g2, 1);
    EXPECT_EQ(pairing::final_exponentiation(m), m.pow(limbs.data(), static_cast<int>(limbs.size())));
}

TYPED_TEST(PairingTest, MultiMillerLoopIsTheProductOfSingleOnes) {
    using Fp12 = typename TypeParam::Fp12;
    std::mt19937_64 rng(32);
    auto random_g1 = [&] { return TestFixture::g1_times(TestFixture::random_scalar(rng)); };
    auto random_g2 = [&] { return TestFixture::g2_times(TestFixture::random_scalar(rng)); };
    std::vector<typename TypeParam::G1Affine> p = {random_g1(), TypeParam::G1Affine::infinity(), random_g1(),
                                                   random_g1()};
    std::vector<typename TypeParam::G2Affine> q = {random_g2(), random_g2(), TypeParam::G2Affine::infinity(),
                                                   random_g2()};
    Fp12 product = Fp12::one();
    for (size_t i = 0; i < p.size(); ++i) product *= pairing::miller_loop(&p[i], &q[i], 1);
    EXPECT_EQ(pairing::miller_loop(p.data(), q.data(), p.size()), product);
}

TYPED_TEST(PairingTest, ProductIsOneOnARelationAndNotOnABrokenOne) {
    using Scalar = typename TypeParam::Scalar;
    std::mt19937_64 rng(33);
    const Scalar a = TestFixture::random_scalar(rng);
    const auto p = TestFixture::g1();
    const auto q = TestFixture::g2();
    // e(aP, Q) e(-P, aQ) = 1
    std::vector<typename TypeParam::G1Affine> ps = {TestFixture::g1_times(a), -p};
    std::vector<typename TypeParam::G2Affine> qs = {q, TestFixture::g2_times(a)};
    EXPECT_TRUE(pairing::pairing_product_is_one(ps.data(), qs.data(), 2));
    qs[1] = TestFixture::g2_times(a + Scalar::one());
    EXPECT_FALSE(pairing::pairing_product_is_one(ps.data(), qs.data(), 2));
    qs[1] = TestFixture::g2_times(a);
    ps[0] = TestFixture::g1_times(a + Scalar::one());
    EXPECT_FALSE(pairing::pairing_product_is_one(ps.data(), qs.data(), 2));
    const typename TypeParam::G1Affine* no_p = nullptr;
    const typename TypeParam::G2Affine* no_q = nullptr;
    EXPECT_TRUE(pairing::pairing_product_is_one(no_p, no_q, 0));
}

// Groth16's verification equation e(-A, B) e([alpha]1, [beta]2) e(L, [gamma]2) e(C, [delta]2) = 1
// on points of known discrete logs: with A = [a]1, B = [b]2, L = [l]1 (the public inputs'
// sum) it holds exactly when C = [(a b - alpha beta - l gamma) / delta]1. A pair at
// infinity (a zero public input's term, say) contributes 1.
TYPED_TEST(PairingTest, Groth16EquationHoldsForTheRightProofOnly) {
    using Scalar = typename TypeParam::Scalar;
    std::mt19937_64 rng(34);
    auto random = [&] { return TestFixture::random_scalar(rng); };
    const Scalar alpha = random(), beta = random(), gamma = random(), delta = random();
    for (int i = 0; i < 2; ++i) {
        const Scalar a = random(), b = random(), l = random();
        const Scalar c = (a * b - alpha * beta - l * gamma) * delta.inverse();
        std::vector<typename TypeParam::G1Affine> g1 = {-TestFixture::g1_times(a), TestFixture::g1_times(alpha),
                                                        TestFixture::g1_times(l), TestFixture::g1_times(c),
                                                        TypeParam::G1Affine::infinity()};
        std::vector<typename TypeParam::G2Affine> g2 = {TestFixture::g2_times(b), TestFixture::g2_times(beta),
                                                        TestFixture::g2_times(gamma), TestFixture::g2_times(delta),
                                                        TestFixture::g2()};
        ASSERT_TRUE(pairing::pairing_product_is_one(g1.data(), g2.data(), g1.size()));
        // C of another proof, B of another proof, a public input changed, alpha and beta swapped.
        auto broken = g1;
        broken[3] = TestFixture::g1_times(c + Scalar::one());
        ASSERT_FALSE(pairing::pairing_product_is_one(broken.data(), g2.data(), g1.size()));
        auto broken_b = g2;
        broken_b[0] = TestFixture::g2_times(b + b);
        ASSERT_FALSE(pairing::pairing_product_is_one(g1.data(), broken_b.data(), g1.size()));
        broken = g1;
        broken[2] = TestFixture::g1_times(l + Scalar::one());
        ASSERT_FALSE(pairing::pairing_product_is_one(broken.data(), g2.data(), g1.size()));
        broken = g1;
        broken[1] = TestFixture::g1_times(beta);
        broken_b = g2;
        broken_b[1] = TestFixture::g2_times(alpha);
        ASSERT_TRUE(pairing::pairing_product_is_one(broken.data(), broken_b.data(), g1.size()))
            << "e([beta]1, [alpha]2) = e([alpha]1, [beta]2)";
        broken_b[1] = TestFixture::g2_times(alpha + Scalar::one());
        ASSERT_FALSE(pairing::pairing_product_is_one(broken.data(), broken_b.data(), g1.size()));
    }
}

}  // namespace
}  // namespace zkbatch
