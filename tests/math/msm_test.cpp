// Pippenger in G1 and G2 of BLS12-381 and BN254 against the naive sum of scalar multiplications at small n
// with the awkward inputs (zero, one, r - 1 scalars; bases at infinity, repeated and
// opposite bases), against sum_i s_i k_i for bases [k_i]G at larger n (full scalars,
// repeated and opposite bases, mostly ones), and bit-identical across thread counts.
#include "fp_oracle.hpp"

#include "core/msm/pippenger.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace zkbatch {
namespace {

using ec::Affine;
using ec::Jacobian;
using msm::Scalar;

// A random element of C's scalar field (for BLS12-381, test::random_scalar's).
template <class C>
typename C::Scalar random_scalar(std::mt19937_64& rng) {
    return test::random_element<typename C::Scalar>(rng);
}

template <class C>
constexpr bool kIsG1 = std::is_same_v<C, ec::G1Params> || std::is_same_v<C, ec::bn254::G1Params>;

template <class C>
Jacobian<C> naive_sum(const std::vector<Affine<C>>& bases, const std::vector<Scalar>& scalars) {
    Jacobian<C> sum = Jacobian<C>::infinity();
    for (size_t i = 0; i < bases.size(); ++i) {
        sum = ec::add(sum, ec::scalar_mul(Jacobian<C>::from_affine(bases[i]), scalars[i].limbs));
    }
    return sum;
}

// n random subgroup points [k_i]G (fixed_base_mul: any points will do), with their k_i.
template <class C, class Fr = typename C::Scalar>
std::vector<Affine<C>> random_bases(size_t n, std::mt19937_64& rng, std::vector<Fr>* logs = nullptr) {
    std::vector<Fr> k(n);
    for (Fr& x : k) x = random_scalar<C>(rng);
    std::vector<Affine<C>> bases(n);
    ec::fixed_base_mul(ec::generator<C>(), k.data(), n, bases.data(), 2);
    if (logs) *logs = k;
    return bases;
}

// sum_i s_i [k_i]G = [sum_i s_i k_i]G: one scalar multiplication, by Fr arithmetic alone.
template <class C, class Fr = typename C::Scalar>
Jacobian<C> sum_by_logs(const std::vector<Fr>& logs, const std::vector<Scalar>& scalars) {
    Fr total = Fr::zero();
    for (size_t i = 0; i < logs.size(); ++i) total += logs[i] * Fr::from_canonical(scalars[i].limbs);
    return ec::scalar_mul(Jacobian<C>::from_affine(ec::generator<C>()), total);
}

Scalar scalar_of(uint64_t v) { return Scalar{{v, 0, 0, 0}}; }
template <class C>
Scalar r_minus(uint64_t k) {
    Scalar s;
    std::memcpy(s.limbs, test::group_order_limbs<C>(), sizeof s.limbs);
    s.limbs[0] -= k;
    return s;
}

// Runs pippenger at several thread counts; all must give the same bits and the naive sum.
template <class C>
void expect_matches_naive_sum(const std::vector<Affine<C>>& bases, const std::vector<Scalar>& scalars,
                              const char* what) {
    const Jacobian<C> expected = naive_sum(bases, scalars);
    const Jacobian<C> one_thread = msm::pippenger(bases.data(), scalars.data(), bases.size(), 1);
    ASSERT_EQ(one_thread, expected) << what << ", n = " << bases.size();
    for (unsigned threads : {2u, 5u}) {
        const Jacobian<C> result = msm::pippenger(bases.data(), scalars.data(), bases.size(), threads);
        ASSERT_EQ(std::memcmp(&result, &one_thread, sizeof result), 0)
            << what << ", n = " << bases.size() << ": " << threads << " threads gave other bits";
    }
}

template <class C>
class MsmTest : public ::testing::Test {};
TYPED_TEST_SUITE(MsmTest, test::AllCurves, test::CurveNames);

TYPED_TEST(MsmTest, SmallSizesWithAwkwardInputsMatchTheNaiveSum) {
    using C = TypeParam;
    std::mt19937_64 rng(40);
    const bool g1 = kIsG1<C>;
    const std::vector<size_t> sizes =
        g1 ? std::vector<size_t>{1, 2, 3, 5, 17, 64, 255} : std::vector<size_t>{1, 2, 7, 60};
    for (size_t n : sizes) {
        std::vector<Affine<C>> bases = random_bases<C>(n, rng);
        std::vector<Scalar> scalars(n);
        for (Scalar& s : scalars) s = msm::to_scalar(random_scalar<C>(rng));
        expect_matches_naive_sum(bases, scalars, "random scalars");
        if (n < 5) continue;
        // Zero, one, two, r - 1 and r - 2 scalars; a base at infinity with a full
        // scalar; a base repeated; a base with its negation under the same scalar.
        scalars[0] = scalar_of(0);
        scalars[1] = scalar_of(1);
        scalars[2] = r_minus<C>(1);
        scalars[3] = scalar_of(2);
        scalars[4] = r_minus<C>(2);
        for (size_t i = 5; i < n; i += 7) scalars[i] = scalar_of(1);
        bases[n / 2] = Affine<C>::infinity();
        bases[n - 1] = bases[1];
        if (n > 8) {
            bases[7] = -bases[6];
            scalars[7] = scalars[6];
            bases[8] = bases[2];  // r - 1 and a random scalar on one base
        }
        expect_matches_naive_sum(bases, scalars, "awkward inputs");
    }
}

TYPED_TEST(MsmTest, DegenerateInputs) {
    using C = TypeParam;
    std::mt19937_64 rng(41);
    EXPECT_TRUE(msm::pippenger<C>(nullptr, nullptr, 0, 2).is_infinity());
    const std::vector<Affine<C>> bases = random_bases<C>(40, rng);
    std::vector<Scalar> scalars(40, scalar_of(0));
    EXPECT_TRUE(msm::pippenger(bases.data(), scalars.data(), 40, 2).is_infinity());
    // All ones: the plain sum of the bases.
    scalars.assign(40, scalar_of(1));
    Jacobian<C> sum = Jacobian<C>::infinity();
    for (const Affine<C>& b : bases) sum = ec::add_mixed(sum, b);
    EXPECT_EQ(msm::pippenger(bases.data(), scalars.data(), 40, 2), sum);
    // Everything cancels: P and -P, s and s.
    std::vector<Affine<C>> opposite = {bases[0], -bases[0], bases[1], -bases[1]};
    std::vector<Scalar> same = {msm::to_scalar(random_scalar<C>(rng)), scalar_of(0), scalar_of(1), scalar_of(1)};
    same[1] = same[0];
    EXPECT_TRUE(msm::pippenger(opposite.data(), same.data(), 4, 2).is_infinity());
    // Bases all at infinity.
    std::vector<Affine<C>> infinities(5, Affine<C>::infinity());
    std::vector<Scalar> full(5, r_minus<C>(1));
    EXPECT_TRUE(msm::pippenger(infinities.data(), full.data(), 5, 2).is_infinity());
}

// Sizes past the switch from XYZZ buckets to affine ones (2^9 points), on AVX-512 IFMA
// lanes where the CPU has them and on the portable arithmetic, checked against
// sum_i s_i k_i in Fr, whole, with repeated and opposite bases (doublings and
// cancellations inside the affine buckets) and with one scalar for all (every point of a
// window in one bucket).
TYPED_TEST(MsmTest, LargerSizesMatchTheSumOfDiscreteLogs) {
    using C = TypeParam;
    std::mt19937_64 rng(42);
    const size_t n = kIsG1<C> ? 3000 : 1100;
    std::vector<typename C::Scalar> logs;
    std::vector<Affine<C>> bases = random_bases<C>(n, rng, &logs);
    std::vector<Scalar> scalars(n);
    for (Scalar& s : scalars) s = msm::to_scalar(random_scalar<C>(rng));
    // The oracle itself, against the naive sum on a prefix.
    const std::vector<Affine<C>> prefix(bases.begin(), bases.begin() + 20);
    const std::vector<Scalar> prefix_scalars(scalars.begin(), scalars.begin() + 20);
    ASSERT_EQ(sum_by_logs<C>(std::vector<typename C::Scalar>(logs.begin(), logs.begin() + 20), prefix_scalars),
              naive_sum(prefix, prefix_scalars));

    auto check = [&](const char* what) {
        const Jacobian<C> expected = sum_by_logs<C>(logs, scalars);
        const Jacobian<C> one_thread = msm::pippenger(bases.data(), scalars.data(), n, 1);
        ASSERT_EQ(one_thread, expected) << what;
        const Jacobian<C> two_threads = msm::pippenger(bases.data(), scalars.data(), n, 2);
        ASSERT_EQ(std::memcmp(&one_thread, &two_threads, sizeof one_thread), 0) << what;
        // Where the CPU has AVX-512 IFMA the results above came from its lanes: the
        // portable arithmetic must make the same buckets, so the same bits.
        const Jacobian<C> portable = msm::pippenger(bases.data(), scalars.data(), n, 2, msm::Arithmetic::portable);
        ASSERT_EQ(std::memcmp(&one_thread, &portable, sizeof one_thread), 0) << what << ": portable arithmetic";
    };
    check("full scalars");
    for (size_t i = 0; i + 3 < n; i += 97) {
        bases[i + 1] = bases[i];  // the same point twice under one scalar
        logs[i + 1] = logs[i];
        scalars[i + 1] = scalars[i];
        bases[i + 2] = -bases[i];  // and its negation under it too
        logs[i + 2] = -logs[i];
        scalars[i + 2] = scalars[i];
    }
    check("repeated and opposite bases");
    // One scalar for every point: each window's points all go to one bucket, whose run of
    // n points the affine rounds halve down to one.
    scalars.assign(n, msm::to_scalar(random_scalar<C>(rng)));
    check("one scalar for all");
    scalars.assign(n, scalar_of(3));
    check("three for all");
    // Half, then 90%, zeros and ones: both the ones' sum and the windows change sides.
    for (int percent : {50, 90}) {
        for (size_t i = 0; i < n; ++i) {
            if (rng() % 100 < static_cast<uint64_t>(percent)) scalars[i] = scalar_of(rng() & 1);
        }
        check(percent == 50 ? "50% boolean" : "90% boolean");
    }
}

TEST(Msm, WindowBitsGrowWithNAndStayInRange) {
    unsigned previous = 0;
    for (size_t n = 1; n <= (size_t{1} << 26); n *= 2) {
        const unsigned bits = msm::pippenger_window_bits(n);
        EXPECT_GE(bits, 1u);
        EXPECT_LE(bits, 16u);
        EXPECT_GE(bits, previous) << "n = " << n;
        previous = bits;
    }
    EXPECT_GE(msm::pippenger_window_bits(size_t{1} << 16), 10u);
}

}  // namespace
}  // namespace zkbatch
