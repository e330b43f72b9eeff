// `zkbatch history` and its step-change detection (see history.hpp).
#include "analysis/history.hpp"

#include "analysis/compare.hpp"
#include "analysis/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace zkbatch {
namespace {

// cost(s, t) = sum |x - median| over values[s, t): the L1 cost of one segment, for
// every segment, built once in O(N^3) simple steps (histories are hundreds of runs).
class SegmentCosts {
public:
    explicit SegmentCosts(std::span<const double> values) : size_(values.size()), costs_(size_ * (size_ + 1)) {
        std::vector<double> sorted;
        for (size_t s = 0; s < size_; ++s) {
            sorted.clear();
            for (size_t t = s + 1; t <= size_; ++t) {
                sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), values[t - 1]), values[t - 1]);
                // Upper half minus lower half (the middle value of an odd count adds nothing).
                const size_t half = sorted.size() / 2;
                double cost = 0;
                for (size_t i = 0; i < half; ++i) cost += sorted[sorted.size() - 1 - i] - sorted[i];
                costs_[s * (size_ + 1) + t] = cost;
            }
        }
    }
    double operator()(size_t s, size_t t) const { return costs_[s * (size_ + 1) + t]; }

private:
    size_t size_;
    std::vector<double> costs_;
};

struct Split {
    size_t index;
    double p_value;
};

bool step_is_large_enough(std::span<const double> before, std::span<const double> after,
                          const ChangePointOptions& options) {
    const double step = stats::relative_change(stats::median(before), stats::median(after));
    return std::fabs(step) >= options.min_relative_step;  // NaN (from a zero median) is not
}

// Segmentation of values[begin, end); accepted split indices go to `splits`. First one
// step (two parts); when none is significant, a temporary step: a block of runs that
// differs from the runs on both sides of it (a regression later fixed), which a
// single split cannot see when the runs after the block match those before it.
void segment(std::span<const double> values, const SegmentCosts& cost, size_t begin, size_t end,
             const ChangePointOptions& options, std::vector<Split>& splits) {
    const size_t shortest = options.min_segment;
    if (end - begin < 2 * shortest) return;
    size_t best = 0;
    double best_cost = 0;
    double tried = 0;
    for (size_t k = begin + shortest; k + shortest <= end; ++k, ++tried) {
        const double c = cost(begin, k) + cost(k, end);
        if (best == 0 || c < best_cost) best = k, best_cost = c;
    }
    const auto before = values.subspan(begin, best - begin), after = values.subspan(best, end - best);
    const double p = stats::mann_whitney(before, after).p_value;
    if (p < options.alpha / tried && step_is_large_enough(before, after, options)) {
        splits.push_back({best, p});
        segment(values, cost, begin, best, options, splits);
        segment(values, cost, best, end, options, splits);
        return;
    }

    if (end - begin < 3 * shortest) return;
    size_t first = 0, second = 0;
    best_cost = 0;
    tried = 0;
    for (size_t i = begin + shortest; i + 2 * shortest <= end; ++i) {
        for (size_t j = i + shortest; j + shortest <= end; ++j, ++tried) {
            const double c = cost(begin, i) + cost(i, j) + cost(j, end);
            if (first == 0 || c < best_cost) first = i, second = j, best_cost = c;
        }
    }
    const auto block = values.subspan(first, second - first);
    std::vector<double> around(values.begin() + static_cast<std::ptrdiff_t>(begin),
                               values.begin() + static_cast<std::ptrdiff_t>(first));
    around.insert(around.end(), values.begin() + static_cast<std::ptrdiff_t>(second),
                  values.begin() + static_cast<std::ptrdiff_t>(end));
    const double block_p = stats::mann_whitney(around, block).p_value;
    if (block_p < options.alpha / tried && step_is_large_enough(around, block, options)) {
        splits.push_back({first, block_p});
        splits.push_back({second, block_p});
        segment(values, cost, begin, first, options, splits);
        segment(values, cost, first, second, options, splits);
        segment(values, cost, second, end, options, splits);
    }
}

std::string value_text(double value) { return fmt::format("{:.3f}", value); }

}  // namespace

std::vector<ChangePoint> detect_step_changes(std::span<const double> values, const ChangePointOptions& options) {
    if (options.min_segment < 1) throw std::invalid_argument("detect_step_changes: min_segment must be at least 1");
    std::vector<Split> splits;
    if (!values.empty()) segment(values, SegmentCosts(values), 0, values.size(), options, splits);
    std::sort(splits.begin(), splits.end(), [](const Split& x, const Split& y) { return x.index < y.index; });
    // Describe each step by the final segments around it.
    std::vector<ChangePoint> points;
    for (size_t i = 0; i < splits.size(); ++i) {
        const size_t begin = i == 0 ? 0 : splits[i - 1].index;
        const size_t end = i + 1 == splits.size() ? values.size() : splits[i + 1].index;
        ChangePoint point;
        point.index = splits[i].index;
        point.p_value = splits[i].p_value;
        point.median_before = stats::median(values.subspan(begin, point.index - begin));
        point.median_after = stats::median(values.subspan(point.index, end - point.index));
        point.relative_change = stats::relative_change(point.median_before, point.median_after);
        points.push_back(point);
    }
    return points;
}

History load_history(const Store& store, const std::string& job_name, const std::string& metric,
                     const std::optional<std::string>& backend, const ChangePointOptions& options) {
    History history;
    history.job_name = job_name;
    history.metric = metric;
    history.options = options;
    history.unit = metric == "partitions_per_hour" ? "partitions/h" : "ms";

    RunFilter filter;
    filter.job_name = job_name;
    filter.backend_name = backend;
    const std::vector<int64_t> ids = store.find_runs(filter);
    if (ids.empty()) {
        throw StoreError(fmt::format("{}: no run of job '{}'{} in this database. `zkbatch runs` lists the runs.",
                                     store.path().string(), job_name, backend ? " on backend " + *backend : ""));
    }
    bool metric_seen = metric == "wall_ms" || metric == "partitions_per_hour";
    for (const RunListRow& row : store.list_runs()) {
        if (!std::binary_search(ids.begin(), ids.end(), row.run_id)) continue;
        HistoryPoint point;
        point.run_id = row.run_id;
        point.started_at = row.started;
        point.backend_name = row.backend_name;
        point.status = row.status;
        if (metric == "wall_ms") {
            point.value = row.wall_ms;
        } else if (metric == "partitions_per_hour") {
            point.value = store.run_overview(row.run_id).partitions_per_hour;
        } else {
            for (const PhaseStats& phase : store.phase_stats(row.run_id)) {
                if (phase.phase == metric) point.value = phase.median_ms, metric_seen = true;
            }
        }
        // phase_stats refuses a stored phase time no measurement gives; the run's own
        // times are checked here, before any statistics see them.
        const bool measured = !point.value || (metric == "partitions_per_hour"
                                                   ? std::isfinite(*point.value) && *point.value >= 0
                                                   : is_measured_ms(*point.value));
        if (!measured)
            throw StoreError(fmt::format("{}: run {}: its {} is stored as {}, which no measurement gives (a damaged "
                                         "database, or a shard merged from one). Delete that run (sqlite3: PRAGMA "
                                         "foreign_keys = ON; DELETE FROM run WHERE id = {}) or restore the database "
                                         "from a copy.",
                                         store.path().string(), row.run_id, metric, *point.value, row.run_id));
        point.used = point.status == "ok" && point.value.has_value();
        history.points.push_back(std::move(point));
    }
    if (!metric_seen) {
        throw std::invalid_argument(fmt::format(
            "no run of job '{}' measured '{}': use a phase (zkbatch show lists a run's phases; "
            "partition is the whole partition), wall_ms or partitions_per_hour", job_name, metric));
    }

    std::vector<double> values;
    std::vector<size_t> at;  // values[i] belongs to points[at[i]]
    size_t usable = 0;
    for (const HistoryPoint& point : history.points) usable += point.used;
    for (size_t i = 0; i < history.points.size(); ++i) {
        if (!history.points[i].used) continue;
        if (usable-- > options.max_runs) {  // older than the search window
            history.points[i].used = false;
            continue;
        }
        values.push_back(*history.points[i].value);
        at.push_back(i);
    }
    for (const ChangePoint& step : detect_step_changes(values, options)) history.points[at[step.index]].step = step;
    return history;
}

std::string format_history(const History& history) {
    std::string out = fmt::format("job {}: {} ({} per run{}), oldest first\n", history.job_name, history.metric,
                                  history.unit,
                                  history.metric == "wall_ms" || history.metric == "partitions_per_hour"
                                      ? ""
                                      : ", median over the run's partitions");
    std::vector<std::vector<std::string>> rows;
    size_t steps = 0;
    for (const HistoryPoint& point : history.points) {
        std::string note;
        if (point.step) {
            ++steps;
            note = fmt::format("<- step {:+.1f}% ({} -> {}, p {:.2g})", point.step->relative_change * 100,
                               value_text(point.step->median_before), value_text(point.step->median_after),
                               point.step->p_value);
        } else if (!point.used) {
            note = !point.value          ? "(not measured)"
                   : point.status != "ok" ? "(not used: status " + point.status + ")"
                                          : fmt::format("(before the latest {} runs searched)", history.options.max_runs);
        }
        rows.push_back({std::to_string(point.run_id), point.started_at, point.backend_name, point.status,
                        point.value ? value_text(*point.value) : "-", note});
    }
    out += render_text_table({"id", "started", "backend", "status", history.metric, "change"}, rows,
                             {true, false, false, false, true, false}, "  ");
    out += fmt::format(
        "{} step change{} found. Method: binary segmentation of the values of the runs with status ok, for "
        "steps and for blocks of runs unlike those around them; a step needs a Mann-Whitney p below {} / "
        "(splits tried), a change of the median of at least {:.0f}% and at least {} runs on each side.\n",
        steps, steps == 1 ? "" : "s", history.options.alpha, history.options.min_relative_step * 100,
        history.options.min_segment);
    return out;
}


}  // namespace zkbatch
