// runner/stats: known answers from published outputs (R, SciPy, NAG, ClickHouse
// documentation), brute-force enumeration as an independent oracle for the exact
// distribution and the confidence interval, and statistical properties checked by
// simulation with fixed seeds.
#include "analysis/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

namespace zkbatch::stats {
namespace {

// U of `a` against `b`: pairs with a_i > b_j, ties counting 1/2 (the definition).
double u_by_pairs(const std::vector<double>& a, const std::vector<double>& b) {
    double u = 0;
    for (const double x : a)
        for (const double y : b) u += x > y ? 1 : x == y ? 0.5 : 0;
    return u;
}

// Every way of splitting the pooled values into m for A and the rest for B, with its U.
std::vector<double> all_split_us(const std::vector<double>& pooled, size_t m) {
    std::vector<double> us;
    const uint32_t total = static_cast<uint32_t>(pooled.size());
    for (uint32_t mask = 0; mask < (1u << total); ++mask) {
        if (static_cast<size_t>(std::popcount(mask)) != m) continue;
        std::vector<double> a, b;
        for (uint32_t i = 0; i < total; ++i) ((mask >> i) & 1 ? a : b).push_back(pooled[i]);
        us.push_back(u_by_pairs(a, b));
    }
    return us;
}

// Exact two-sided p by enumeration, as R defines it: 2 * min(P(U <= u), P(U >= u)), capped at 1.
double brute_force_p(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> pooled = a;
    pooled.insert(pooled.end(), b.begin(), b.end());
    const double u = u_by_pairs(a, b);
    const auto us = all_split_us(pooled, a.size());
    const double below = static_cast<double>(std::count_if(us.begin(), us.end(), [&](double x) { return x <= u; }));
    const double above = static_cast<double>(std::count_if(us.begin(), us.end(), [&](double x) { return x >= u; }));
    return std::min(1.0, 2 * std::min(below, above) / static_cast<double>(us.size()));
}

std::vector<double> draw(std::mt19937_64& rng, size_t count, double location, double spread) {
    std::normal_distribution<double> normal(location, spread);
    std::vector<double> values(count);
    for (double& v : values) v = normal(rng);
    return values;
}

TEST(Median, OddEvenAndQuantilesAsR) {
    EXPECT_EQ(median(std::vector<double>{3, 1, 2}), 2);
    EXPECT_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
    // R: quantile(1:10, 0.9) = 9.1; quantile(c(1, 3, 10), 0.25) = 2; quantile(x, 0) = min, 1 = max.
    std::vector<double> one_to_ten(10);
    for (int i = 0; i < 10; ++i) one_to_ten[i] = i + 1;
    EXPECT_DOUBLE_EQ(quantile(one_to_ten, 0.9), 9.1);
    EXPECT_DOUBLE_EQ(quantile(std::vector<double>{10, 1, 3}, 0.25), 2);
    EXPECT_EQ(quantile(one_to_ten, 0), 1);
    EXPECT_EQ(quantile(one_to_ten, 1), 10);
    EXPECT_THROW(median(std::vector<double>{}), std::invalid_argument);
    EXPECT_THROW(quantile(one_to_ten, 1.5), std::invalid_argument);
    EXPECT_THROW(median(std::vector<double>{1, NAN}), std::invalid_argument);
}

TEST(RelativeChange, FractionAndUndefinedFromZero) {
    EXPECT_DOUBLE_EQ(relative_change(100, 110), 0.1);
    EXPECT_DOUBLE_EQ(relative_change(100, 50), -0.5);
    EXPECT_TRUE(std::isnan(relative_change(0, 5)));
}

TEST(MannWhitney, ExactMatchesSciPyDocumentation) {
    // SciPy docs, scipy.stats.mannwhitneyu: males vs females, method="exact":
    // statistic 17.0, pvalue 0.1111111111111111; method="asymptotic": 0.11134688653314041.
    const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
    const MannWhitney exact = mann_whitney(males, females);
    EXPECT_TRUE(exact.exact);
    EXPECT_EQ(exact.u_a, 17);
    EXPECT_EQ(exact.u_b, 3);
    EXPECT_NEAR(exact.p_value, 1.0 / 9, 1e-15);
    const MannWhitney normal = mann_whitney(males, females, PValueMethod::normal);
    EXPECT_FALSE(normal.exact);
    EXPECT_NEAR(normal.p_value, 0.11134688653314041, 1e-13);
}

TEST(MannWhitney, HollanderWolfePermeabilityAsR) {
    // R, ?wilcox.test (Hollander & Wolfe 1973, p. 69): x term, y 12-26 weeks.
    //   wilcox.test(x, y, alternative = "g")                          W = 35, p-value = 0.1272
    //   wilcox.test(x, y, alternative = "g", exact = FALSE, correct = FALSE)   p-value = 0.1103
    //   wilcox.test(x, y, conf.int = TRUE): difference in location 0.305
    const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
    const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
    const MannWhitney exact = mann_whitney(x, y);
    EXPECT_TRUE(exact.exact);
    EXPECT_EQ(exact.u_a, 35);
    EXPECT_NEAR(exact.p_value / 2, 0.1272, 0.00005);  // two-sided = twice R's one-sided here
    EXPECT_NEAR(exact.p_value, brute_force_p(x, y), 1e-12);
    const MannWhitney normal = mann_whitney(x, y, PValueMethod::normal, false);
    EXPECT_NEAR(normal.p_value / 2, 0.1103, 0.00005);
    // Our shift is b - a: hodges_lehmann(y, x) is R's location difference of x - y.
    EXPECT_NEAR(hodges_lehmann(y, x).estimate, 0.305, 1e-12);
}

TEST(MannWhitney, NormalApproximationMatchesClickHouseDocumentation) {
    // ClickHouse docs, mannWhitneyUTest('greater') of {10, 11, 12} against {1, 2, 3}:
    // (9, 0.04042779918503192), with continuity correction; two-sided is twice that.
    const MannWhitney result = mann_whitney(std::vector<double>{10, 11, 12}, std::vector<double>{1, 2, 3},
                                            PValueMethod::normal);
    EXPECT_EQ(result.u_a, 9);
    EXPECT_NEAR(result.p_value, 2 * 0.04042779918503192, 1e-13);
}

TEST(MannWhitney, TieCorrectionMatchesNagExample) {
    // NAG g08amc example: two groups with many ties, U = 86, normal statistic -2.8039,
    // approximate one-tailed probability 0.0025 (tie-corrected, continuity-corrected).
    const std::vector<double> group1 = {13, 6, 12, 7, 12, 7, 10, 7, 10, 7, 16, 7, 10, 8, 9, 8};
    const std::vector<double> group2 = {17, 6, 10, 8, 15, 8, 15, 10, 15, 10, 14, 10,
                                        14, 11, 14, 11, 13, 12, 13, 12, 13, 12, 12};
    const MannWhitney result = mann_whitney(group1, group2);
    EXPECT_TRUE(result.has_ties);
    EXPECT_FALSE(result.exact);  // ties: the normal approximation, as in R
    EXPECT_EQ(result.u_a, 86);
    EXPECT_NEAR(result.z, -2.8039, 0.00005);
    EXPECT_NEAR(result.p_value / 2, 0.0025, 0.00005);
    EXPECT_THROW(mann_whitney(group1, group2, PValueMethod::exact), std::invalid_argument);
}

TEST(MannWhitney, ExactForNagExampleWithoutTies) {
    // NAG g08ajf example (no ties): U = 86, normal statistic -2.7838, exact tail 0.0022.
    const std::vector<double> group1 = {13.0, 5.8, 11.7, 6.5, 12.3, 6.7, 9.2, 6.9,
                                        10.0, 7.3, 16.0, 7.0, 10.5, 8.5, 9.0, 7.5};
    const std::vector<double> group2 = {17.0, 6.2, 10.1, 8.0,  15.3, 8.2,  15.0, 9.6,  14.9, 10.4, 14.2, 9.8,
                                        13.8, 11.0, 14.0, 11.1, 12.9, 11.6, 12.8, 12.0, 13.1, 12.4, 11.9};
    const MannWhitney exact = mann_whitney(group1, group2);
    EXPECT_TRUE(exact.exact);
    EXPECT_EQ(exact.u_a, 86);
    EXPECT_NEAR(exact.p_value / 2, 0.0022, 0.00005);
    EXPECT_NEAR(mann_whitney(group1, group2, PValueMethod::normal).z, -2.7838, 0.00005);
}

TEST(MannWhitney, ExactEqualsBruteForceEnumeration) {
    std::mt19937_64 rng(7);
    for (const auto& [m, n] : std::vector<std::pair<size_t, size_t>>{{1, 1}, {2, 5}, {5, 5}, {4, 9}, {7, 8}, {3, 12}}) {
        for (int trial = 0; trial < 3; ++trial) {
            const auto a = draw(rng, m, 0, 1);
            const auto b = draw(rng, n, trial * 0.7, 1);
            const MannWhitney result = mann_whitney(a, b);
            ASSERT_TRUE(result.exact);
            EXPECT_EQ(result.u_a, u_by_pairs(a, b));
            EXPECT_NEAR(result.p_value, brute_force_p(a, b), 1e-12) << m << "x" << n << " trial " << trial;
        }
    }
}

TEST(MannWhitneyNull, CountsEqualEnumeration) {
    // Any distinct values give the null distribution of U for their sizes.
    for (const auto& [m, n] : std::vector<std::pair<uint32_t, uint32_t>>{{1, 3}, {4, 6}, {6, 6}, {3, 11}}) {
        std::vector<double> pooled(m + n);
        for (size_t i = 0; i < pooled.size(); ++i) pooled[i] = static_cast<double>(i);
        const auto us = all_split_us(pooled, m);
        const MannWhitneyNull null(m, n);
        for (int64_t u = -1; u <= static_cast<int64_t>(m * n) + 1; ++u) {
            const auto expected = std::count(us.begin(), us.end(), static_cast<double>(u));
            EXPECT_EQ(null.count(u), static_cast<double>(expected)) << m << "x" << n << " u=" << u;
        }
        EXPECT_EQ(null.cdf(static_cast<int64_t>(m * n)), 1.0);
    }
    // R: qwilcox(0.025, 10, 5) is the smallest u with P(U <= u) >= 0.025.
    const MannWhitneyNull null(10, 5);
    const int64_t q = null.quantile(0.025);
    EXPECT_GE(null.cdf(q), 0.025);
    EXPECT_LT(null.cdf(q - 1), 0.025);
}

TEST(MannWhitney, IdenticalSamplesGiveP1) {
    const std::vector<double> a = {3.1, 2.7, 4.4, 3.9, 3.0, 2.2, 5.1, 4.0};
    EXPECT_EQ(mann_whitney(a, a).p_value, 1.0);
    EXPECT_EQ(mann_whitney(a, a, PValueMethod::normal, false).p_value, 1.0);
    const std::vector<double> constant(6, 2.5);
    EXPECT_EQ(mann_whitney(constant, constant).p_value, 1.0);  // no spread at all
    const Shift shift = hodges_lehmann(a, a);
    EXPECT_EQ(shift.estimate, 0);
    EXPECT_LE(shift.ci_low, 0);
    EXPECT_GE(shift.ci_high, 0);
    EXPECT_THROW(mann_whitney(a, std::vector<double>{}), std::invalid_argument);
}

TEST(HodgesLehmann, EstimateAndExactIntervalEqualBruteForce) {
    std::mt19937_64 rng(11);
    for (const auto& [m, n] : std::vector<std::pair<size_t, size_t>>{{5, 5}, {6, 9}, {8, 8}, {3, 4}}) {
        const auto a = draw(rng, m, 10, 2);
        const auto b = draw(rng, n, 11, 2);
        std::vector<double> differences;
        for (const double x : a)
            for (const double y : b) differences.push_back(y - x);
        std::sort(differences.begin(), differences.end());
        const size_t pairs = differences.size();
        const double expected_estimate = pairs % 2 ? differences[pairs / 2]
                                                   : (differences[pairs / 2 - 1] + differences[pairs / 2]) / 2;
        // Critical value by enumeration: the smallest k with P(U <= k) >= 0.025, at least 1.
        std::vector<double> pooled(a);
        pooled.insert(pooled.end(), b.begin(), b.end());
        const auto us = all_split_us(pooled, m);
        size_t k = 0;
        while (static_cast<double>(std::count_if(us.begin(), us.end(), [&](double u) { return u <= k; })) <
               0.025 * static_cast<double>(us.size()))
            ++k;
        k = std::max<size_t>(k, 1);

        const Shift shift = hodges_lehmann(a, b);
        EXPECT_EQ(shift.estimate, expected_estimate) << m << "x" << n;
        EXPECT_EQ(shift.ci_low, differences[k - 1]) << m << "x" << n;
        EXPECT_EQ(shift.ci_high, differences[pairs - k]) << m << "x" << n;
        EXPECT_GE(shift.confidence, m >= 5 ? 0.95 : 0.0);
    }
}

// Values near the top of the doubles (a stored 1e308) once made the bisection's
// bounds infinite and the search loop forever. Now it ends, with the brute-force
// answer; samples whose differences a double cannot hold are refused.
TEST(HodgesLehmann, HugeValuesEndWithTheBruteForceAnswer) {
    const std::vector<double> a = {1, 2, 3, 4, 1e308}, b = {2, 3, 5, 7, 1.7e308};
    std::vector<double> differences;
    for (const double x : a)
        for (const double y : b) differences.push_back(y - x);
    std::sort(differences.begin(), differences.end());
    const Shift shift = hodges_lehmann(a, b);
    EXPECT_EQ(shift.estimate, differences[differences.size() / 2]);
    EXPECT_EQ(compare_samples(a, b).count_b, 5u);
    const std::vector<double> negative = {-1.7e308, 1, 2, 3, 4};
    EXPECT_THROW(hodges_lehmann(negative, b), std::invalid_argument);
}

TEST(HodgesLehmann, ShiftingBShiftsTheEstimateAndInterval) {
    std::mt19937_64 rng(3);
    for (const size_t size : {7, 30, 80}) {  // exact and normal critical values
        const auto a = draw(rng, size, 50, 5);
        const auto b = draw(rng, size + 3, 52, 5);
        const Shift base = hodges_lehmann(a, b);
        std::vector<double> shifted = b;
        for (double& v : shifted) v += 12.5;
        const Shift moved = hodges_lehmann(a, shifted);
        EXPECT_NEAR(moved.estimate, base.estimate + 12.5, 1e-9) << size;
        EXPECT_NEAR(moved.ci_low, base.ci_low + 12.5, 1e-9) << size;
        EXPECT_NEAR(moved.ci_high, base.ci_high + 12.5, 1e-9) << size;
    }
}

TEST(HodgesLehmann, IntervalCoversTheTrueShiftAboutNinetyFivePercent) {
    // 400 simulated A/B pairs with a known shift of 3; a 95% interval should miss it
    // about 20 times. Both critical values: exact (n = 12) and normal (n = 70).
    for (const size_t size : {12, 70}) {
        std::mt19937_64 rng(100 + size);
        int covered = 0;
        const int trials = 400;
        for (int t = 0; t < trials; ++t) {
            const Shift shift = hodges_lehmann(draw(rng, size, 20, 4), draw(rng, size, 23, 4));
            covered += shift.ci_low <= 3 && 3 <= shift.ci_high;
        }
        EXPECT_GE(covered, 0.92 * trials) << "n = " << size;
        EXPECT_LE(covered, 0.985 * trials) << "n = " << size;
    }
}

TEST(CompareSamples, VerdictRule) {
    const std::vector<double> base = {10.1, 9.8, 10.3, 10.0, 9.9, 10.2, 10.05, 9.95};
    std::vector<double> slower = base, faster = base;
    for (double& v : slower) v *= 1.5;
    for (double& v : faster) v *= 0.6;
    const SampleComparison up = compare_samples(base, slower);
    EXPECT_EQ(up.verdict, Verdict::slower);
    EXPECT_LT(up.test.p_value, 0.001);
    EXPECT_NEAR(up.relative_change, 0.5, 1e-12);
    EXPECT_GT(up.relative_ci_low, 0);
    EXPECT_EQ(compare_samples(base, faster).verdict, Verdict::faster);
    EXPECT_EQ(compare_samples(base, base).verdict, Verdict::no_difference);
    // Four samples are too few, however clear the difference.
    const SampleComparison few = compare_samples(std::vector<double>(base.begin(), base.begin() + 4), slower);
    EXPECT_EQ(few.verdict, Verdict::too_few_samples);
    EXPECT_STREQ(to_string(few.verdict), "inconclusive: too few samples");
    const SampleComparison none = compare_samples(std::vector<double>{}, slower);
    EXPECT_EQ(none.verdict, Verdict::too_few_samples);
    EXPECT_TRUE(std::isnan(none.median_a));
    EXPECT_TRUE(std::isnan(none.test.p_value));
}

TEST(CompareSamples, SameDistributionIsRarelyCalledDifferentAndRealShiftsAreFound) {
    std::mt19937_64 rng(42);
    int false_calls = 0, found = 0;
    const int trials = 300;
    for (int t = 0; t < trials; ++t) {
        false_calls += compare_samples(draw(rng, 16, 100, 10), draw(rng, 16, 100, 10)).verdict != Verdict::no_difference;
        found += compare_samples(draw(rng, 16, 100, 10), draw(rng, 16, 115, 10)).verdict == Verdict::slower;
    }
    EXPECT_LE(false_calls, 0.08 * trials);  // about 5% expected
    EXPECT_GE(found, 0.8 * trials);          // power of the test at 1.5 sd with 16 each is ~0.93
}

}  // namespace
}  // namespace zkbatch::stats
