// G1 and G2 of BLS12-381 and of BN254 (typed suites over the four groups): the
// generators, the group law in every coordinate system against each other (infinity,
// P = Q and P = -Q included), scalar multiplication against repeated addition and
// linearity, batch conversion, fixed-base multiplication (BLS12-381's), the
// endomorphisms' eigenvalues, and the fast subgroup checks against [r]P = O on points
// inside and outside the subgroup.
#include "fp_oracle.hpp"

#include "core/ec/curve.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace zkbatch {
namespace {

using ec::Affine;
using ec::Jacobian;
using ec::Xyzz;
using ff::Fr;

template <class C>
Jacobian<C> times_r(const Jacobian<C>& p) {
    return ec::scalar_mul(p, test::group_order_limbs<C>());
}

template <class C>
class CurveTest : public ::testing::Test {};
TYPED_TEST_SUITE(CurveTest, test::AllCurves, test::CurveNames);
// BLS12-381's groups only (what only the prover's curve has: fixed-base multiplication).
template <class C>
class Bls12_381CurveTest : public ::testing::Test {};
TYPED_TEST_SUITE(Bls12_381CurveTest, test::Curves, test::CurveNames);

TEST(Curve, LayoutIsTheZkeyLayout) {
    static_assert(sizeof(ec::G1Affine) == 96 && sizeof(ec::G2Affine) == 192);
    EXPECT_EQ(offsetof(ec::G1Affine, y), 48u);
    EXPECT_EQ(offsetof(ec::G2Affine, y), 96u);
    EXPECT_EQ(offsetof(ff::Fp2, c1), 48u);
    // (0, 0) is infinity: all-zero bytes, as .zkey files store it.
    ec::G2Affine zero_bytes;
    std::memset(&zero_bytes, 0, sizeof zero_bytes);
    EXPECT_TRUE(zero_bytes.is_infinity());
}

TYPED_TEST(CurveTest, GeneratorIsOnTheCurveInTheSubgroupAndOfOrderR) {
    using C = TypeParam;
    const Affine<C>& g = ec::generator<C>();
    EXPECT_FALSE(g.is_infinity());
    EXPECT_TRUE(g.is_on_curve());
    EXPECT_TRUE(is_in_subgroup(g));
    const Jacobian<C> gj = Jacobian<C>::from_affine(g);
    EXPECT_TRUE(times_r(gj).is_infinity()) << "[r]G = O";
    uint64_t r_minus_1[4];
    std::memcpy(r_minus_1, test::group_order_limbs<C>(), sizeof r_minus_1);
    r_minus_1[0] -= 1;
    EXPECT_EQ(ec::scalar_mul(gj, r_minus_1), -gj) << "[r - 1]G = -G";
    // (0, 0) solves y^2 = x^3 + b only if b = 0: infinity's encoding is no curve point.
    EXPECT_FALSE(C::b().is_zero());
    EXPECT_TRUE(Affine<C>::infinity().is_on_curve()) << "infinity is in the group";
    Affine<C> off = g;
    off.y = off.y + decltype(off.y)::one();
    EXPECT_FALSE(off.is_on_curve());
}

TYPED_TEST(CurveTest, JacobianGroupLaws) {
    using C = TypeParam;
    using J = Jacobian<C>;
    std::mt19937_64 rng(10);
    const J o = J::infinity();
    for (int i = 0; i < 10; ++i) {
        const J p = test::random_point<C>(rng);
        const J q = test::random_point<C>(rng);
        const J s = test::random_point<C>(rng);
        ASSERT_TRUE(p.is_on_curve());
        ASSERT_EQ(ec::add(p, q), ec::add(q, p));
        ASSERT_EQ(ec::add(ec::add(p, q), s), ec::add(p, ec::add(q, s)));
        ASSERT_TRUE(ec::add(ec::add(p, q), s).is_on_curve());
        ASSERT_EQ(ec::add(p, o), p);
        ASSERT_EQ(ec::add(o, p), p);
        ASSERT_TRUE(ec::add(p, -p).is_infinity());
        ASSERT_EQ(ec::add(p, p), ec::dbl(p)) << "add must double equal points";
        ASSERT_TRUE(ec::dbl(o).is_infinity());
        ASSERT_EQ(ec::dbl(-p), -ec::dbl(p));
        // A different representative of the same point: (t^2 X, t^3 Y, t Z).
        const auto t = test::random_coordinate<C>(rng);
        const J p_scaled{p.X * t.sqr(), p.Y * t.sqr() * t, p.Z * t};
        ASSERT_EQ(p_scaled, p);
        ASSERT_EQ(ec::add(p_scaled, p), ec::dbl(p));
        ASSERT_TRUE(ec::add(p_scaled, -p).is_infinity());
        ASSERT_NE(p, q);
        ASSERT_NE(p, o);
        ASSERT_EQ(J::from_affine(p.to_affine()), p);
        ASSERT_EQ(p.to_affine(), p_scaled.to_affine()) << "affine coordinates are unique";
        ASSERT_TRUE(p.to_affine().is_on_curve());
    }
    EXPECT_TRUE(J::from_affine(Affine<C>::infinity()).is_infinity());
    EXPECT_TRUE(o.to_affine().is_infinity());
    EXPECT_EQ(o, -o);
}

TYPED_TEST(CurveTest, MixedAndXyzzAdditionsAgreeWithJacobian) {
    using C = TypeParam;
    using J = Jacobian<C>;
    using X = Xyzz<C>;
    std::mt19937_64 rng(11);
    const Affine<C> oa = Affine<C>::infinity();
    for (int i = 0; i < 10; ++i) {
        const J p = test::random_point<C>(rng);
        const J q = test::random_point<C>(rng);
        const Affine<C> pa = p.to_affine();
        const Affine<C> qa = q.to_affine();
        ASSERT_EQ(ec::add_mixed(p, qa), ec::add(p, q));
        ASSERT_EQ(ec::add_mixed(p, pa), ec::dbl(p));
        ASSERT_TRUE(ec::add_mixed(p, -pa).is_infinity());
        ASSERT_EQ(ec::add_mixed(p, oa), p);
        ASSERT_EQ(ec::add_mixed(J::infinity(), qa), q);

        // XYZZ from a non-trivial representative, so ZZ, ZZZ != 1.
        const X px = X::from_jacobian(ec::dbl(p));
        const J p2 = ec::dbl(p);
        const X qx = X::from_jacobian(q);
        ASSERT_EQ(px.to_jacobian(), p2);
        ASSERT_EQ(ec::xyzz_add_mixed(px, qa).to_jacobian(), ec::add(p2, q));
        ASSERT_EQ(ec::xyzz_add_mixed(px, p2.to_affine()).to_jacobian(), ec::dbl(p2));
        ASSERT_TRUE(ec::xyzz_add_mixed(px, -p2.to_affine()).is_infinity());
        ASSERT_EQ(ec::xyzz_add_mixed(px, oa).to_jacobian(), p2);
        ASSERT_EQ(ec::xyzz_add_mixed(X::infinity(), qa).to_jacobian(), q);
        ASSERT_EQ(ec::xyzz_add(px, qx).to_jacobian(), ec::add(p2, q));
        ASSERT_EQ(ec::xyzz_add(px, px).to_jacobian(), ec::dbl(p2));
        ASSERT_EQ(ec::xyzz_add(px, X::from_affine(p2.to_affine())).to_jacobian(), ec::dbl(p2));
        ASSERT_TRUE(ec::xyzz_add(px, -px).is_infinity());
        ASSERT_EQ(ec::xyzz_add(px, X::infinity()).to_jacobian(), p2);
        ASSERT_EQ(ec::xyzz_add(X::infinity(), qx).to_jacobian(), q);
        ASSERT_EQ(ec::xyzz_dbl(px).to_jacobian(), ec::dbl(p2));
        ASSERT_TRUE(ec::xyzz_dbl(X::infinity()).is_infinity());
        ASSERT_EQ((-px).to_jacobian(), -p2);
        ASSERT_EQ(X::from_affine(qa).to_jacobian(), q);
    }
    EXPECT_TRUE(X::from_affine(oa).is_infinity());
    EXPECT_TRUE(X::from_jacobian(J::infinity()).is_infinity());
    EXPECT_TRUE(X::infinity().to_jacobian().is_infinity());
}

TYPED_TEST(CurveTest, ScalarMulMatchesRepeatedAdditionAndIsLinear) {
    using C = TypeParam;
    using J = Jacobian<C>;
    using Scalar = typename C::Scalar;
    std::mt19937_64 rng(12);
    const J p = test::random_point<C>(rng);
    J repeated = J::infinity();
    for (uint64_t k = 0; k <= 40; ++k) {
        const uint64_t scalar[4] = {k, 0, 0, 0};
        ASSERT_EQ(ec::scalar_mul(p, scalar), repeated) << "k = " << k;
        ASSERT_EQ(ec::scalar_mul(p, Scalar::from_u64(k)), repeated) << "k = " << k;
        repeated = ec::add(repeated, p);
    }
    for (int i = 0; i < 4; ++i) {
        const Scalar a = test::random_element<Scalar>(rng);
        const Scalar b = test::random_element<Scalar>(rng);
        ASSERT_EQ(ec::add(ec::scalar_mul(p, a), ec::scalar_mul(p, b)), ec::scalar_mul(p, a + b));
        ASSERT_EQ(ec::scalar_mul(ec::scalar_mul(p, a), b), ec::scalar_mul(p, a * b));
        ASSERT_EQ(ec::scalar_mul(-p, a), -ec::scalar_mul(p, a));
    }
    // Any 256-bit value works, reduced or not: [r + 5]P = [5]P, [2^256 - 1]P by GMP's reduction.
    uint64_t r_plus_5[4];
    std::memcpy(r_plus_5, test::group_order_limbs<C>(), sizeof r_plus_5);
    r_plus_5[0] += 5;
    const uint64_t five[4] = {5, 0, 0, 0};
    EXPECT_EQ(ec::scalar_mul(p, r_plus_5), ec::scalar_mul(p, five));
    const uint64_t all_ones[4] = {~0ULL, ~0ULL, ~0ULL, ~0ULL};
    uint64_t reduced[4];
    test::to_limbs(((mpz_class(1) << 256) - 1) % test::modulus_of<Scalar>(), reduced, 4);
    EXPECT_EQ(ec::scalar_mul(p, all_ones), ec::scalar_mul(p, reduced));
    EXPECT_TRUE(ec::scalar_mul(J::infinity(), all_ones).is_infinity());
}

TYPED_TEST(CurveTest, BatchToAffineMatchesToAffineWithInfinitiesMixedIn) {
    using C = TypeParam;
    using J = Jacobian<C>;
    std::mt19937_64 rng(13);
    std::vector<J> points;
    points.push_back(J::infinity());
    for (int i = 0; i < 6; ++i) points.push_back(ec::dbl(test::random_point<C>(rng)));
    points.insert(points.begin() + 3, J::infinity());
    points.insert(points.begin() + 4, J::infinity());
    points.push_back(J::infinity());
    std::vector<Affine<C>> out(points.size(), ec::generator<C>());
    ec::batch_to_affine(points.data(), out.data(), points.size());
    for (size_t i = 0; i < points.size(); ++i) ASSERT_EQ(out[i], points[i].to_affine()) << "i = " << i;

    const std::vector<J> all_infinity(3, J::infinity());
    std::vector<Affine<C>> out2(3, ec::generator<C>());
    ec::batch_to_affine(all_infinity.data(), out2.data(), 3);
    for (const auto& a : out2) EXPECT_TRUE(a.is_infinity());
    ec::batch_to_affine(all_infinity.data(), out2.data(), 0);  // nothing to do, nothing touched
    EXPECT_TRUE(out2[0].is_infinity());
}

TYPED_TEST(Bls12_381CurveTest, FixedBaseMulMatchesScalarMulForEveryThreadCount) {
    using C = TypeParam;
    std::mt19937_64 rng(14);
    const bool g1 = std::is_same_v<C, ec::G1Params>;
    const Affine<C> base = ec::dbl(test::random_point<C>(rng)).to_affine();
    // Past 1024 points the work is split in batches, one batch inversion each, that the
    // threads share; every point is compared across thread counts, a sample of them
    // (and the edge scalars) with scalar_mul.
    for (size_t n : {size_t{0}, size_t{1}, size_t{37}, g1 ? size_t{2100} : size_t{1100}}) {
        std::vector<Fr> scalars(n);
        for (Fr& s : scalars) s = test::random_scalar(rng);
        if (n > 3) {
            scalars[0] = Fr::zero();
            scalars[1] = Fr::one();
            scalars[2] = -Fr::one();
        }
        std::vector<Affine<C>> reference;
        for (unsigned threads : {1u, 2u, 3u}) {
            std::vector<Affine<C>> out(n);
            ec::fixed_base_mul(base, scalars.data(), n, out.data(), threads);
            if (threads == 1) {
                for (size_t i = 0; i < n; i += (i < 40 ? 1 : 29)) {
                    ASSERT_EQ(out[i], ec::scalar_mul(Jacobian<C>::from_affine(base), scalars[i]).to_affine())
                        << "n = " << n << ", i = " << i;
                }
                reference = out;
            } else if (n > 0) {
                ASSERT_EQ(std::memcmp(out.data(), reference.data(), n * sizeof(Affine<C>)), 0)
                    << threads << " threads";
            }
        }
    }
    const Fr two = Fr::from_u64(2);
    Affine<C> out = base;
    ec::fixed_base_mul(Affine<C>::infinity(), &two, 1, &out, 1);
    EXPECT_TRUE(out.is_infinity());
    for (size_t n : {size_t{1}, size_t{1} << 10, size_t{1} << 20}) {
        EXPECT_GE(ec::fixed_base_window_bits(n), 1u);
        EXPECT_LE(ec::fixed_base_window_bits(n), 12u);
    }
    EXPECT_LE(ec::fixed_base_window_bits(1), ec::fixed_base_window_bits(1 << 20));
}

// lambda such that [lambda]P is the endomorphism on the subgroup.
TEST(Curve, EndomorphismsActAsTheirEigenvalues) {
    const mpz_class& r = test::modulus();
    const mpz_class x = -mpz_class("d201000000010000", 16);
    uint64_t lambda[4];
    // G1: phi acts as -x^2 (mod r); beta^3 = 1, beta != 1.
    test::to_limbs(((-(x * x)) % r + r) % r, lambda, 4);
    const ec::G1 g1 = ec::G1::from_affine(ec::g1_generator());
    EXPECT_EQ(ec::G1::from_affine(ec::g1_endomorphism(ec::g1_generator())), ec::scalar_mul(g1, lambda));
    const ff::Fp beta = ec::g1_endomorphism(ec::g1_generator()).x * ec::g1_generator().x.inverse();
    EXPECT_EQ(beta.sqr() * beta, ff::Fp::one());
    EXPECT_NE(beta, ff::Fp::one());
    // G2: psi acts as x (mod r).
    test::to_limbs((x % r + r) % r, lambda, 4);
    const ec::G2 g2 = ec::G2::from_affine(ec::g2_generator());
    EXPECT_EQ(ec::G2::from_affine(ec::g2_endomorphism(ec::g2_generator())), ec::scalar_mul(g2, lambda));
    EXPECT_TRUE(ec::g2_endomorphism(ec::G2Affine::infinity()).is_infinity());
}

TYPED_TEST(CurveTest, SubgroupCheckAgreesWithMultiplicationByR) {
    using C = TypeParam;
    using J = Jacobian<C>;
    std::mt19937_64 rng(15);
    int outside = 0;
    for (int i = 0; i < 12; ++i) {
        const Affine<C> inside = test::random_point<C>(rng).to_affine();
        ASSERT_TRUE(is_in_subgroup(inside));
        ASSERT_TRUE(times_r(J::from_affine(inside)).is_infinity());

        const Affine<C> candidate = test::random_curve_point<C>(rng);
        ASSERT_TRUE(candidate.is_on_curve());
        const bool order_r = times_r(J::from_affine(candidate)).is_infinity();
        ASSERT_EQ(is_in_subgroup(candidate), order_r);
        ASSERT_EQ(is_in_subgroup(-candidate), order_r);
        outside += order_r ? 0 : 1;
        // A subgroup point plus a point outside it is outside.
        const Affine<C> mixed = ec::add_mixed(J::from_affine(inside), candidate).to_affine();
        ASSERT_EQ(is_in_subgroup(mixed), times_r(J::from_affine(mixed)).is_infinity());
    }
    // BN254's E(Fq) has prime order r, so every point of its curve is in G1; on the other
    // curves a random point is essentially never in the subgroup.
    const int expected_outside = std::is_same_v<C, ec::bn254::G1Params> ? 0 : 12;
    EXPECT_EQ(outside, expected_outside);
    EXPECT_TRUE(is_in_subgroup(Affine<C>::infinity()));
}

TEST(Curve, G1SubgroupCheckAfterClearingTheCofactorAndOnSmallOrderPoints) {
    std::mt19937_64 rng(16);
    // h1 = (x - 1)^2 / 3 clears E(Fp)'s cofactor.
    uint64_t cofactor[4];
    test::to_limbs(mpz_class("396c8c005555e1568c00aaab0000aaab", 16), cofactor, 4);
    for (int i = 0; i < 5; ++i) {
        const ec::G1Affine candidate = test::random_curve_point<ec::G1Params>(rng);
        ASSERT_FALSE(ec::is_in_subgroup(candidate));
        const ec::G1Affine cleared = ec::scalar_mul(ec::G1::from_affine(candidate), cofactor).to_affine();
        ASSERT_TRUE(ec::is_in_subgroup(cleared));
        ASSERT_TRUE(times_r(ec::G1::from_affine(cleared)).is_infinity());
    }
    // (0, 2) has order 3.
    const ec::G1Affine order3{ff::Fp::zero(), ff::Fp::from_u64(2)};
    ASSERT_TRUE(order3.is_on_curve());
    const uint64_t three[4] = {3, 0, 0, 0};
    EXPECT_TRUE(ec::scalar_mul(ec::G1::from_affine(order3), three).is_infinity());
    EXPECT_FALSE(ec::is_in_subgroup(order3));
}

// BN254's parameters as EIP-197 writes them, from the BN parameter x.
struct Bn254Facts {
    mpz_class x{"4965661367192848881"};
    mpz_class p = 36 * x * x * x * x + 36 * x * x * x + 24 * x * x + 6 * x + 1;
    mpz_class r = 36 * x * x * x * x + 36 * x * x * x + 18 * x * x + 6 * x + 1;
    mpz_class t = 6 * x * x + 1;  // the trace of Frobenius of E(Fq): #E(Fq) = p + 1 - t = r
    mpz_class g2_cofactor = 2 * p - r;  // #E'(Fq2) = r (2p - r)
};

TEST(Bn254Curve, ParametersAreThoseOfTheBnFamily) {
    const Bn254Facts facts;
    EXPECT_EQ(facts.p, test::modulus_of<ff::bn254::Fq>());
    EXPECT_EQ(facts.r, test::modulus_of<ff::bn254::Fr>());
    EXPECT_EQ(mpz_class(facts.p + 1 - facts.t), facts.r);
    EXPECT_EQ(ec::bn254::kBnX, facts.x.get_ui());
    // b = 3 and b' = 3 / xi.
    using ff::bn254::Fq;
    using ff::bn254::Fq2;
    EXPECT_EQ(ec::bn254::G1Params::b(), Fq::from_u64(3));
    const Fq2 xi{Fq::from_u64(9), Fq::one()};
    EXPECT_EQ(ec::bn254::G2Params::b() * xi, Fq2({Fq::from_u64(3), Fq::zero()}));
    EXPECT_EQ(ec::generator<ec::bn254::G1Params>(), ec::bn254::G1Affine({Fq::from_u64(1), Fq::from_u64(2)}));
}

// psi on E'(Fq2): the eigenvalue p (= 6x^2 mod r) on G2, and psi^2 - t psi + p = 0 on
// every point of the curve, the premise of the subgroup check.
TEST(Bn254Curve, EndomorphismActsAsPOnG2AndSatisfiesTheFrobeniusEquation) {
    using ec::bn254::G2;
    using ec::bn254::G2Affine;
    const Bn254Facts facts;
    uint64_t p_limbs[4], t_limbs[4], p_mod_r[4], p2_mod_r[4];
    test::to_limbs(facts.p, p_limbs, 4);
    test::to_limbs(facts.t, t_limbs, 4);
    test::to_limbs(facts.p % facts.r, p_mod_r, 4);
    test::to_limbs(facts.p * facts.p % facts.r, p2_mod_r, 4);
    EXPECT_EQ(mpz_class(facts.p % facts.r), mpz_class(6 * facts.x * facts.x));
    const G2 g = G2::from_affine(ec::generator<ec::bn254::G2Params>());
    EXPECT_EQ(G2::from_affine(ec::bn254::g2_endomorphism(ec::generator<ec::bn254::G2Params>())), ec::scalar_mul(g, p_mod_r));
    EXPECT_EQ(G2::from_affine(ec::twist_frobenius(ec::generator<ec::bn254::G2Params>(), 2)), ec::scalar_mul(g, p2_mod_r));
    EXPECT_TRUE(ec::bn254::g2_endomorphism(G2Affine::infinity()).is_infinity());
    std::mt19937_64 rng(17);
    for (int i = 0; i < 4; ++i) {
        const G2Affine q = test::random_curve_point<ec::bn254::G2Params>(rng);
        const G2Affine psi_q = ec::bn254::g2_endomorphism(q);
        ASSERT_TRUE(psi_q.is_on_curve());
        ASSERT_EQ(ec::bn254::g2_endomorphism(psi_q), ec::twist_frobenius(q, 2)) << "psi o psi = psi^2";
        const G2 psi2_q = G2::from_affine(ec::bn254::g2_endomorphism(psi_q));
        const G2 sum = ec::add(ec::add(psi2_q, -ec::scalar_mul(G2::from_affine(psi_q), t_limbs)),
                               ec::scalar_mul(G2::from_affine(q), p_limbs));
        ASSERT_TRUE(sum.is_infinity()) << "psi^2 - t psi + p = 0";
        // Outside G2, psi is not [p mod r].
        ASSERT_NE(G2::from_affine(psi_q), ec::scalar_mul(G2::from_affine(q), p_mod_r));
    }
}

// [2p - r] clears E'(Fq2)'s cofactor: the result passes the check and has order r, and
// what is left after [r] (order dividing the cofactor) fails it.
TEST(Bn254Curve, G2SubgroupCheckAfterClearingTheCofactor) {
    using ec::bn254::G2;
    const Bn254Facts facts;
    uint64_t cofactor[4];
    test::to_limbs(facts.g2_cofactor, cofactor, 4);
    std::mt19937_64 rng(18);
    for (int i = 0; i < 4; ++i) {
        const G2 q = G2::from_affine(test::random_curve_point<ec::bn254::G2Params>(rng));
        ASSERT_FALSE(ec::bn254::is_in_subgroup(q.to_affine()));
        const G2 cleared = ec::scalar_mul(q, cofactor);
        ASSERT_FALSE(cleared.is_infinity());
        ASSERT_TRUE(ec::bn254::is_in_subgroup(cleared.to_affine()));
        ASSERT_TRUE(times_r(cleared).is_infinity());
        const G2 torsion = times_r(q);  // in the cofactor's part
        ASSERT_FALSE(torsion.is_infinity());
        ASSERT_FALSE(ec::bn254::is_in_subgroup(torsion.to_affine()));
        ASSERT_TRUE(ec::scalar_mul(torsion, cofactor).is_infinity()) << "#E'(Fq2) = r (2p - r)";
    }
}

}  // namespace
}  // namespace zkbatch
