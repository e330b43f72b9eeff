// `zkbatch history --job NAME`: one metric over a job's runs, oldest first, with the
// runs where a step change happened marked.
//
// Step changes: binary segmentation of the per-run values (one value per run: the run
// is the unit, since partitions of one run share its machine state and are not
// independent samples of the night-to-night variation). In a segment of runs, the
// split is placed where the L1 cost sum |x - median| of the two parts is least (robust
// to single outliers), and accepted when a two-sided Mann-Whitney test between the
// parts has p < alpha / (number of splits tried in that segment) (Bonferroni: the
// chance of a false step in a segment without one stays below alpha) and the medians
// of the parts differ by at least min_relative_step. When no single split passes, the
// segment is tested the same way for a temporary step: the block of runs (placed by
// least L1 cost of three parts) against the runs around it, Bonferroni over the blocks
// tried; a regression that was later fixed is such a block. Accepted parts are
// segmented again. Every part needs at least min_segment runs.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zkbatch {

struct ChangePointOptions {
    double alpha = 0.05;
    size_t min_segment = 3;           // runs on each side of a step
    double min_relative_step = 0.05;  // |median after / median before - 1|
    size_t max_runs = 1000;           // only the latest runs are searched (the cost is O(N^3))
};

// A step between values[index - 1] and values[index].
struct ChangePoint {
    size_t index = 0;
    double median_before = 0, median_after = 0;  // of the final segments on either side
    double relative_change = 0;                  // median_after / median_before - 1
    double p_value = 1;                          // of the test that accepted the split
};

// Step changes in `values` (in order), ordered by index.
std::vector<ChangePoint> detect_step_changes(std::span<const double> values,
                                             const ChangePointOptions& options = {});

// One run of a job's history.
struct HistoryPoint {
    int64_t run_id = 0;
    std::string started_at, backend_name, status;
    std::optional<double> value;  // the metric; empty when the run did not measure it
    bool used = false;            // took part in the step detection (status ok, value present)
    std::optional<ChangePoint> step;  // a step happened just before this run
};

struct History {
    std::string job_name, metric, unit;
    std::vector<HistoryPoint> points;  // oldest first
    ChangePointOptions options;
};

// Metrics: any phase of the partition_phase view (its median over the run's
// partitions that did not fail), "wall_ms" or "partitions_per_hour". Throws StoreError
// when the job has no runs, std::invalid_argument for an unknown metric.
History load_history(const Store& store, const std::string& job_name, const std::string& metric,
                     const std::optional<std::string>& backend, const ChangePointOptions& options);
std::string format_history(const History& history);

}  // namespace zkbatch
