// Statistics for comparing two sets of timings: medians and quantiles, the
// Mann-Whitney U test, the Hodges-Lehmann shift with its distribution-free confidence
// interval, and the verdict `zkbatch compare` prints. Pure functions of their inputs;
// no I/O. Conventions follow R's wilcox.test so its results can serve as an oracle.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zkbatch::stats {

// Median: the middle value, or the mean of the two middle values for an even count
// (the definition the database's phase_summary view uses). Throws on an empty sample.
double median(std::span<const double> values);

// Quantile q in [0, 1] by linear interpolation between order statistics (R's type 7,
// the default of R and numpy): q = 0.5 is the median above. Throws on an empty sample.
double quantile(std::span<const double> values, double q);

// (to - from) / from; NaN when `from` is 0 (a relative change from nothing is undefined).
double relative_change(double from, double to);

// How the p-value of a Mann-Whitney test was obtained.
enum class PValueMethod {
    automatic,  // exact when both samples have fewer than 50 values and there are no ties, else normal
    exact,      // the exact null distribution (requires no ties)
    normal,     // normal approximation with tie correction
};

// The two-sided Mann-Whitney U (Wilcoxon rank-sum) test of "a and b come from the same
// distribution". u_a counts the pairs (a_i, b_j) with a_i > b_j, ties counting 1/2
// (R's W statistic for wilcox.test(a, b)); u_a + u_b = |a| * |b|.
struct MannWhitney {
    double u_a = 0, u_b = 0;
    double p_value = 1;     // two-sided
    double z = 0;           // the normal statistic (continuity-corrected when asked); 0 for exact
    bool exact = false;     // p from the exact null distribution
    bool has_ties = false;  // some value occurs more than once in the pooled sample
};

// Normal approximation: z = (u_a - mn/2 -+ 1/2) / sigma, sigma with the tie correction
// sqrt(mn/12 * ((N + 1) - sum(t^3 - t) / (N (N - 1)))); the 1/2 (continuity correction)
// moves z towards 0 when `continuity_correction`. Exact: 2 * min(P(U <= u_a), P(U >= u_a)),
// capped at 1, from the recurrence of the null distribution. Both samples must be
// non-empty (throws std::invalid_argument); identical samples give p = 1.
MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b,
                         PValueMethod method = PValueMethod::automatic,
                         bool continuity_correction = true);

// The exact null distribution of U for samples of m and n distinct values: count(u) is
// the number of the C(m+n, m) rank arrangements with U = u. Built by the recurrence
// c(u; m, n) = c(u - n; m - 1, n) + c(u; m, n - 1) in O(m^2 n^2) additions of
// non-negative numbers (no cancellation, so doubles keep full relative precision).
class MannWhitneyNull {
public:
    MannWhitneyNull(uint32_t m, uint32_t n);
    uint32_t m() const { return m_; }
    uint32_t n() const { return n_; }
    double count(int64_t u) const;  // 0 outside 0..m*n
    double cdf(int64_t u) const;    // P(U <= u)
    // The smallest u with P(U <= u) >= p (R's qwilcox).
    int64_t quantile(double p) const;

private:
    uint32_t m_, n_;
    std::vector<double> counts_;      // counts_[u] = arrangements with U = u
    std::vector<double> cumulative_;  // cumulative_[u] = P(U <= u)
};

// The Hodges-Lehmann estimate of the shift of b relative to a (median of all
// differences b_j - a_i: positive when b is larger) and its distribution-free
// confidence interval [d_(k), d_(mn + 1 - k)] among the sorted differences, where k is
// the Mann-Whitney critical value: exact (R: k = qwilcox(alpha/2, m, n), at least 1)
// when the exact test applies, else k = floor(mn/2 - z_(1-alpha/2) * sigma + 1/2) with
// the tie-corrected sigma (the continuity-corrected normal quantile). When k < 1 the
// samples are too small for that confidence: the interval is (-inf, +inf).
struct Shift {
    double estimate = 0;
    double ci_low = 0, ci_high = 0;
    double confidence = 0;  // the coverage actually achieved (exact), else the one asked for
};
Shift hodges_lehmann(std::span<const double> a, std::span<const double> b,
                     double confidence = 0.95);

// What `zkbatch compare` concludes about b against a (b "slower" = larger values).
enum class Verdict { too_few_samples, no_difference, faster, slower };
const char* to_string(Verdict verdict);  // "inconclusive: too few samples", "no difference", "faster", "slower"

inline constexpr size_t kMinSamplesForVerdict = 5;
inline constexpr double kSignificance = 0.05;

// Everything `compare` reports for one phase. Relative values are fractions (0.1 = +10%).
struct SampleComparison {
    size_t count_a = 0, count_b = 0;
    double median_a = 0, median_b = 0;
    double relative_change = 0;  // median_b / median_a - 1; NaN when median_a is 0
    Shift shift;                 // b - a, in the samples' unit, with its 95% interval
    double relative_ci_low = 0, relative_ci_high = 0;  // shift interval / median_a; NaN when median_a is 0
    MannWhitney test;
    Verdict verdict = Verdict::too_few_samples;
};

// The verdict rule (docs/compare.md): fewer than
// kMinSamplesForVerdict values on either side: too_few_samples. Otherwise, when
// p < kSignificance and the 95% interval of the relative change (of the shift when
// median_a is 0) lies entirely above 0: slower; entirely below 0: faster. Else
// no_difference. Either sample may be empty: then too_few_samples, and what cannot be
// computed (a median, the change, the test) is NaN.
SampleComparison compare_samples(std::span<const double> a, std::span<const double> b);

}  // namespace zkbatch::stats
