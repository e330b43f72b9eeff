// Statistics behind `zkbatch compare` and `zkbatch history` (see stats.hpp).
#include "analysis/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace zkbatch::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// R's wilcox.test uses the exact distribution below this size when there are no ties.
constexpr size_t kExactBelow = 50;

std::vector<double> sorted_copy(std::span<const double> values, const char* what) {
    if (values.empty()) throw std::invalid_argument(std::string(what) + ": empty sample");
    for (const double v : values) {
        if (!std::isfinite(v)) throw std::invalid_argument(std::string(what) + ": sample holds NaN or infinity");
    }
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

// P(Z <= z) and P(Z >= z) for a standard normal Z, each accurate far into its tail.
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double normal_upper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// The z with P(Z >= z) = upper_tail, by bisection (monotone, exact to double precision).
double normal_upper_quantile(double upper_tail) {
    double lo = -40, hi = 40;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        (normal_upper(mid) > upper_tail ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// Sum of (t^3 - t) over the groups of tied values in the pooled sample, and the rank
// sum of `a` (mid-ranks for ties). Both inputs sorted.
struct Ranking {
    double rank_sum_a = 0;
    double tie_term = 0;
};
Ranking rank(const std::vector<double>& a, const std::vector<double>& b) {
    Ranking result;
    size_t i = 0, j = 0;
    double next_rank = 1;  // rank of the next value in pooled order
    while (i < a.size() || j < b.size()) {
        const double value = j == b.size() || (i < a.size() && a[i] <= b[j]) ? a[i] : b[j];
        size_t in_a = 0, in_b = 0;
        while (i < a.size() && a[i] == value) ++i, ++in_a;
        while (j < b.size() && b[j] == value) ++j, ++in_b;
        const double t = static_cast<double>(in_a + in_b);
        const double mid_rank = next_rank + (t - 1) / 2;
        result.rank_sum_a += mid_rank * static_cast<double>(in_a);
        result.tie_term += t * t * t - t;
        next_rank += t;
    }
    return result;
}

// Standard deviation of U under the null hypothesis, corrected for ties.
double u_sigma(double m, double n, double tie_term) {
    const double total = m + n;
    const double variance = m * n / 12 * ((total + 1) - tie_term / (total * (total - 1)));
    return variance > 0 ? std::sqrt(variance) : 0;
}

// The number of differences b_j - a_i that are <= t (a, b sorted), in O(m + n): for a
// growing a_i the count of b_j within t of it can only grow. Differences are computed
// exactly as kth_difference returns them, so the two agree bit for bit.
uint64_t count_differences_at_most(const std::vector<double>& a, const std::vector<double>& b,
                                   double t) {
    uint64_t count = 0;
    size_t j = 0;
    for (const double ai : a) {
        while (j < b.size() && b[j] - ai <= t) ++j;
        count += j;
    }
    return count;
}

// The k-th smallest (1-based) of the m*n differences b_j - a_i without forming them:
// bisection on the value keeps count(lo) < k <= count(hi) until lo and hi are adjacent
// doubles; hi is then a difference itself. Memory O(1), time O((m + n) * ~64), and at
// most some 2100 halvings whatever the values (the number of doubles between two finite
// ones). Throws std::invalid_argument when a difference overflows (samples spanning
// more than a double holds).
double kth_difference(const std::vector<double>& a, const std::vector<double>& b, uint64_t k) {
    double lo = b.front() - a.back();  // rounding is monotone: no difference is smaller
    double hi = b.back() - a.front();  // the largest difference: count m*n
    if (!std::isfinite(lo) || !std::isfinite(hi))
        throw std::invalid_argument("hodges_lehmann: the samples' differences overflow a double");
    if (count_differences_at_most(a, b, lo) >= k) return lo;
    for (;;) {
        const double width = hi - lo;  // overflows for differences of both signs beyond DBL_MAX / 2
        const double mid = std::isfinite(width) ? lo + width / 2 : lo / 2 + hi / 2;
        if (!(mid > lo && mid < hi)) break;
        (count_differences_at_most(a, b, mid) >= k ? hi : lo) = mid;
    }
    return hi;
}

}  // namespace

double median(std::span<const double> values) { return quantile(values, 0.5); }

double quantile(std::span<const double> values, double q) {
    if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile: q must be in [0, 1]");
    const std::vector<double> sorted = sorted_copy(values, "quantile");
    const double position = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<size_t>(std::floor(position));
    const size_t above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    // For the median of an even count this is the plain mean of the middle two.
    return fraction == 0 ? sorted[below] : sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double relative_change(double from, double to) { return from == 0 ? kNaN : (to - from) / from; }

MannWhitneyNull::MannWhitneyNull(uint32_t m, uint32_t n) : m_(m), n_(n) {
    const size_t max_u = static_cast<size_t>(m) * n;
    // counts[i][u] = c(u; i, n') for the n' reached so far; c(u; i, 0) = [u == 0].
    std::vector<std::vector<double>> counts(m + 1, std::vector<double>(max_u + 1, 0.0));
    for (auto& row : counts) row[0] = 1;
    for (uint32_t n_now = 1; n_now <= n; ++n_now) {
        // In place: counts[i] still holds c(.; i, n_now - 1), counts[i - 1] already c(.; i - 1, n_now).
        for (uint32_t i = 1; i <= m; ++i) {
            const size_t top = static_cast<size_t>(i) * n_now;
            for (size_t u = top; u >= n_now; --u) counts[i][u] += counts[i - 1][u - n_now];
        }
    }
    counts_ = std::move(counts[m]);
    double total = 0;
    for (const double x : counts_) total += x;
    cumulative_.resize(max_u + 1);
    double running = 0;
    for (size_t u = 0; u <= max_u; ++u) {
        running += counts_[u];
        cumulative_[u] = running / total;
    }
}

double MannWhitneyNull::count(int64_t u) const {
    if (u < 0 || u >= static_cast<int64_t>(counts_.size())) return 0;
    return counts_[static_cast<size_t>(u)];
}

double MannWhitneyNull::cdf(int64_t u) const {
    if (u < 0) return 0;
    if (u >= static_cast<int64_t>(cumulative_.size())) return 1;
    return cumulative_[static_cast<size_t>(u)];
}

int64_t MannWhitneyNull::quantile(double p) const {
    const auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), p);
    return it == cumulative_.end() ? static_cast<int64_t>(cumulative_.size()) - 1
                                   : static_cast<int64_t>(it - cumulative_.begin());
}

MannWhitney mann_whitney(std::span<const double> a_values, std::span<const double> b_values,
                         PValueMethod method, bool continuity_correction) {
    const std::vector<double> a = sorted_copy(a_values, "mann_whitney");
    const std::vector<double> b = sorted_copy(b_values, "mann_whitney");
    const double m = static_cast<double>(a.size()), n = static_cast<double>(b.size());
    const Ranking ranking = rank(a, b);

    MannWhitney result;
    result.u_a = ranking.rank_sum_a - m * (m + 1) / 2;
    result.u_b = m * n - result.u_a;
    result.has_ties = ranking.tie_term > 0;
    if (method == PValueMethod::automatic) {
        method = !result.has_ties && a.size() < kExactBelow && b.size() < kExactBelow
                     ? PValueMethod::exact
                     : PValueMethod::normal;
    }
    if (method == PValueMethod::exact) {
        if (result.has_ties) throw std::invalid_argument("mann_whitney: the exact test needs samples without ties");
        const MannWhitneyNull null(static_cast<uint32_t>(a.size()), static_cast<uint32_t>(b.size()));
        const auto u = static_cast<int64_t>(result.u_a);
        const auto mirrored = static_cast<int64_t>(m * n) - u;  // P(U >= u) = P(U <= mn - u)
        result.exact = true;
        result.p_value = std::min(1.0, 2 * null.cdf(std::min(u, mirrored)));
        return result;
    }
    const double sigma = u_sigma(m, n, ranking.tie_term);
    if (sigma == 0) return result;  // every value equal: nothing tells the samples apart, p = 1
    double centred = result.u_a - m * n / 2;
    if (continuity_correction && centred != 0) centred -= std::copysign(0.5, centred);
    result.z = centred / sigma;
    result.p_value = std::min(1.0, 2 * std::min(normal_cdf(result.z), normal_upper(result.z)));
    return result;
}

Shift hodges_lehmann(std::span<const double> a_values, std::span<const double> b_values,
                     double confidence) {
    if (!(confidence > 0 && confidence < 1))
        throw std::invalid_argument("hodges_lehmann: confidence must be in (0, 1)");
    const std::vector<double> a = sorted_copy(a_values, "hodges_lehmann");
    const std::vector<double> b = sorted_copy(b_values, "hodges_lehmann");
    const uint64_t pairs = static_cast<uint64_t>(a.size()) * b.size();

    Shift shift;
    shift.estimate = pairs % 2 == 1 ? kth_difference(a, b, pairs / 2 + 1)
                                    : (kth_difference(a, b, pairs / 2) + kth_difference(a, b, pairs / 2 + 1)) / 2;

    const double alpha = 1 - confidence;
    const Ranking ranking = rank(a, b);
    const bool exact = ranking.tie_term == 0 && a.size() < kExactBelow && b.size() < kExactBelow;
    int64_t k = 0;  // the interval is [d_(k), d_(mn + 1 - k)]
    if (exact) {
        const MannWhitneyNull null(static_cast<uint32_t>(a.size()), static_cast<uint32_t>(b.size()));
        k = std::max<int64_t>(1, null.quantile(alpha / 2));  // as R: never an empty rank
        shift.confidence = 1 - 2 * null.cdf(k - 1);
    } else {
        const double m = static_cast<double>(a.size()), n = static_cast<double>(b.size());
        const double sigma = u_sigma(m, n, ranking.tie_term);
        k = static_cast<int64_t>(std::floor(m * n / 2 - normal_upper_quantile(alpha / 2) * sigma + 0.5));
        shift.confidence = confidence;
    }
    if (k < 1) {
        shift.ci_low = -kInfinity;
        shift.ci_high = kInfinity;
    } else {
        shift.ci_low = kth_difference(a, b, static_cast<uint64_t>(k));
        shift.ci_high = kth_difference(a, b, pairs + 1 - static_cast<uint64_t>(k));
    }
    return shift;
}

const char* to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::too_few_samples: return "inconclusive: too few samples";
        case Verdict::no_difference: return "no difference";
        case Verdict::faster: return "faster";
        case Verdict::slower: return "slower";
    }
    return "unknown";
}

SampleComparison compare_samples(std::span<const double> a, std::span<const double> b) {
    SampleComparison result;
    result.count_a = a.size();
    result.count_b = b.size();
    result.median_a = a.empty() ? kNaN : median(a);
    result.median_b = b.empty() ? kNaN : median(b);
    result.relative_change = kNaN;
    result.relative_ci_low = result.relative_ci_high = kNaN;
    result.shift.estimate = result.shift.ci_low = result.shift.ci_high = kNaN;
    result.test.p_value = kNaN;
    if (a.empty() || b.empty()) return result;

    result.relative_change = relative_change(result.median_a, result.median_b);
    result.test = mann_whitney(a, b);
    result.shift = hodges_lehmann(a, b);
    if (result.median_a != 0) {
        result.relative_ci_low = result.shift.ci_low / result.median_a;
        result.relative_ci_high = result.shift.ci_high / result.median_a;
    }
    if (a.size() < kMinSamplesForVerdict || b.size() < kMinSamplesForVerdict) {
        result.verdict = Verdict::too_few_samples;
        return result;
    }
    // Timings are positive, so the relative interval has the sign of the shift's; the
    // shift's own interval decides when median_a is 0 and no ratio exists.
    result.verdict = Verdict::no_difference;
    if (result.test.p_value < kSignificance) {
        if (result.shift.ci_low > 0) result.verdict = Verdict::slower;
        if (result.shift.ci_high < 0) result.verdict = Verdict::faster;
    }
    return result;
}

}  // namespace zkbatch::stats
