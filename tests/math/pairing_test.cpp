// The pairing by its defining properties: bilinearity, non-degeneracy, values of order
// r, the final exponentiation against the plain power f^(3 (p^12 - 1) / r) computed
// with GMP's exponent, and pairing products on relations that hold and ones that don't.
// (Its values against noble's are in tests/interop.)
#include "fp_oracle.hpp"

#include "core/pairing/pairing.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace zkbatch {
namespace {

using ff::Fp12;
using ff::Fr;

ec::G1Affine g1_times(const Fr& k) {
    return ec::scalar_mul(ec::G1::from_affine(ec::g1_generator()), k).to_affine();
}
ec::G2Affine g2_times(const Fr& k) {
    return ec::scalar_mul(ec::G2::from_affine(ec::g2_generator()), k).to_affine();
}

Fp12 power(const Fp12& x, const Fr& k) {
    uint64_t limbs[4];
    k.to_canonical(limbs);
    return x.pow(limbs, 4);
}

TEST(Pairing, IsNonDegenerateOfOrderRAndOneAtInfinity) {
    const Fp12 e = pairing::pairing(ec::g1_generator(), ec::g2_generator());
    EXPECT_FALSE(e.is_one());
    EXPECT_TRUE(e.pow(test::group_order_limbs(), 4).is_one()) << "e(P, Q)^r = 1";
    EXPECT_EQ(e * e.conjugate(), Fp12::one()) << "GT is in the cyclotomic subgroup";
    EXPECT_TRUE(pairing::pairing(ec::G1Affine::infinity(), ec::g2_generator()).is_one());
    EXPECT_TRUE(pairing::pairing(ec::g1_generator(), ec::G2Affine::infinity()).is_one());
    EXPECT_TRUE(pairing::miller_loop(nullptr, nullptr, 0).is_one());
}

TEST(Pairing, IsBilinear) {
    std::mt19937_64 rng(30);
    const Fp12 base = pairing::pairing(ec::g1_generator(), ec::g2_generator());
    for (int i = 0; i < 3; ++i) {
        const Fr a = test::random_scalar(rng);
        const Fr b = test::random_scalar(rng);
        const Fp12 e_ab = pairing::pairing(g1_times(a), g2_times(b));
        ASSERT_EQ(e_ab, power(base, a * b)) << "e(aP, bQ) = e(P, Q)^(ab)";
        ASSERT_EQ(e_ab, pairing::pairing(g1_times(a * b), ec::g2_generator()));
        ASSERT_EQ(e_ab, pairing::pairing(ec::g1_generator(), g2_times(a * b)));
        // Additive in each argument.
        const ec::G1Affine p1 = g1_times(a), p2 = g1_times(b);
        const ec::G1Affine sum = ec::add_mixed(ec::G1::from_affine(p1), p2).to_affine();
        const ec::G2Affine q = g2_times(a + b);
        ASSERT_EQ(pairing::pairing(sum, q), pairing::pairing(p1, q) * pairing::pairing(p2, q));
        ASSERT_EQ(pairing::pairing(-p1, q), pairing::pairing(p1, q).conjugate());
        ASSERT_NE(e_ab, base);
    }
}

TEST(Pairing, FinalExponentiationIsThePowerThreeTimesP12MinusOneOverR) {
    const mpz_class& p = test::fp_modulus();
    const mpz_class& r = test::modulus();
    mpz_class p12;
    mpz_pow_ui(p12.get_mpz_t(), p.get_mpz_t(), 12);
    const mpz_class exponent = 3 * ((p12 - 1) / r);
    ASSERT_EQ(mpz_class((p12 - 1) % r), 0);
    std::vector<uint64_t> limbs((mpz_sizeinbase(exponent.get_mpz_t(), 2) + 63) / 64);
    test::to_limbs(exponent, limbs.data(), limbs.size());
    // Any f will do, Miller-loop output or not.
    std::mt19937_64 rng(31);
    const Fp12 f = test::random_fp12(rng);
    EXPECT_EQ(pairing::final_exponentiation(f), f.pow(limbs.data(), static_cast<int>(limbs.size())));
    const Fp12 m = pairing::miller_loop(&ec::g1_generator(), &ec::g2_generator(), 1);
    EXPECT_EQ(pairing::final_exponentiation(m), m.pow(limbs.data(), static_cast<int>(limbs.size())));
}

TEST(Pairing, MultiMillerLoopIsTheProductOfSingleOnes) {
    std::mt19937_64 rng(32);
    std::vector<ec::G1Affine> p = {g1_times(test::random_scalar(rng)), ec::G1Affine::infinity(),
                                   g1_times(test::random_scalar(rng)), g1_times(test::random_scalar(rng))};
    std::vector<ec::G2Affine> q = {g2_times(test::random_scalar(rng)), g2_times(test::random_scalar(rng)),
                                   ec::G2Affine::infinity(), g2_times(test::random_scalar(rng))};
    Fp12 product = Fp12::one();
    for (size_t i = 0; i < p.size(); ++i) product *= pairing::miller_loop(&p[i], &q[i], 1);
    EXPECT_EQ(pairing::miller_loop(p.data(), q.data(), p.size()), product);
}

TEST(Pairing, ProductIsOneOnARelationAndNotOnABrokenOne) {
    std::mt19937_64 rng(33);
    const Fr a = test::random_scalar(rng);
    const ec::G1Affine p = ec::g1_generator();
    const ec::G2Affine q = ec::g2_generator();
    // e(aP, Q) e(-P, aQ) = 1
    std::vector<ec::G1Affine> ps = {g1_times(a), -p};
    std::vector<ec::G2Affine> qs = {q, g2_times(a)};
    EXPECT_TRUE(pairing::pairing_product_is_one(ps.data(), qs.data(), 2));
    qs[1] = g2_times(a + Fr::one());
    EXPECT_FALSE(pairing::pairing_product_is_one(ps.data(), qs.data(), 2));
    qs[1] = g2_times(a);
    ps[0] = g1_times(a + Fr::one());
    EXPECT_FALSE(pairing::pairing_product_is_one(ps.data(), qs.data(), 2));

    // The shape of a Groth16 check, four pairs: e(abP, Q) e(-aP, bQ) e(cP, dQ) e(-P, cdQ) = 1,
    // with a pair at infinity added (it contributes 1).
    const Fr b = test::random_scalar(rng), c = test::random_scalar(rng), d = test::random_scalar(rng);
    ps = {g1_times(a * b), -g1_times(a), g1_times(c), -p, ec::G1Affine::infinity()};
    qs = {q, g2_times(b), g2_times(d), g2_times(c * d), g2_times(a)};
    EXPECT_TRUE(pairing::pairing_product_is_one(ps.data(), qs.data(), ps.size()));
    qs[2] = g2_times(d + d);
    EXPECT_FALSE(pairing::pairing_product_is_one(ps.data(), qs.data(), ps.size()));
    EXPECT_TRUE(pairing::pairing_product_is_one(nullptr, nullptr, 0));
}

}  // namespace
}  // namespace zkbatch
