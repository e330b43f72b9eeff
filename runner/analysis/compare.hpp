// `zkbatch compare`: are the runs of B faster or slower than those of A, phase by phase,
// is that real, and did both compute the same results? Also the regression gate for
// nightly runs. Measuring is the store's job, statistics stats.hpp's; this file pairs
// them up and lays out the answer (table, markdown, json, csv).
#pragma once

#include "analysis/selectors.hpp"
#include "analysis/stats.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zkbatch {

// One side of a comparison: the runs it pools, described by its first run.
struct CompareSide {
    std::string selector;
    std::vector<int64_t> run_ids;  // oldest first
    std::string job_name, backend_name, arm, status, started_at;
};

struct PhaseComparison {
    std::string phase;  // a phase of the partition_phase view; "partition" = the whole partition
    stats::SampleComparison stats;  // in ms
};

// Whether A and B computed the same h. Partitions with the same index prove the same
// inputs when the runs share seed, log_n, terms_per_row and replay_inputs (docs/runs.md,
// "Digests"); their h_digest must then be equal, whatever the backend.
enum class ResultsStatus { same, different, not_comparable, nothing_to_compare };
const char* to_string(ResultsStatus status);  // "same", "different", "not_comparable", "nothing_to_compare"

struct ResultsCheck {
    ResultsStatus status = ResultsStatus::nothing_to_compare;
    uint64_t partitions_compared = 0;
    uint64_t partitions_different = 0;
    std::optional<uint64_t> first_different_partition;
    std::string message;  // one line: "same results (16 partitions compared)", "DIFFERENT RESULTS in 2 partitions (first: partition 5)", ...
};

struct Comparison {
    CompareSide a, b;
    std::vector<PhaseComparison> phases;  // pipeline order
    ResultsCheck results;
};

// Compares the pooled partitions (those not 'failed') of A's runs with B's, per phase.
// Throws StoreError when a side mixes runs of different backends, arms or parameters
// (pooling them would compare something else).
Comparison compare_runs(const Store& store, const RunSelection& a, const RunSelection& b);

// `zkbatch compare experiment=ID`: an experiment of exactly two arms, split into them
// (ordered by their first run). Throws StoreError otherwise, listing the arms.
std::pair<RunSelection, RunSelection> split_two_arms(const Store& store, const RunSelection& experiment);

// The regression gate: a phase regressed when B is "slower" by the verdict rule, its
// median grew by more than max_slowdown_pct percent, and by at least min_change_ms.
struct GateRule {
    double max_slowdown_pct = 0;
    double min_change_ms = 1.0;
};
struct Regression {
    std::string phase;
    double relative_change = 0;  // median_b / median_a - 1 (+inf when median_a is 0)
    double change_ms = 0;        // median_b - median_a
    double p_value = 1;
};
std::vector<Regression> find_regressions(const Comparison& comparison, const GateRule& rule);

// `previous`: the latest run before `candidate_run_id` with status ok and the same job,
// backend, log_n, partitions, terms_per_row, synthesis_workers and prove_workers; none
// when the candidate is the first such run.
std::optional<int64_t> previous_baseline(const Store& store, int64_t candidate_run_id);

enum class CompareFormat { table, markdown, json, csv };
// `gate` (may be null) adds the gate's rule and findings to the output.
struct GateOutcome {
    GateRule rule;
    std::vector<Regression> regressions;
};
std::string format_comparison(const Comparison& comparison, CompareFormat format,
                              const GateOutcome* gate = nullptr);
// The gate's outcome in one line: "gate: pass: ..." or "gate: FAIL: regression beyond 5%: ...".
std::string format_gate_line(const GateOutcome& gate);

// The job a run belongs to.
std::string run_job_name(const Store& store, int64_t run_id);
// What `--baseline previous` matches of a run, in words: "job nightly on cpu-ref with
// log_n 12, 16 partitions, terms_per_row 4, 1 synthesis and 1 prove workers".
std::string baseline_key_text(const Store& store, int64_t run_id);

// Columns padded to their widest cell, two spaces apart; `right_aligned[i]` for numbers.
// Shared by compare and history.
std::string render_text_table(const std::vector<std::string>& headers,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<bool>& right_aligned, const std::string& indent = "");

}  // namespace zkbatch
