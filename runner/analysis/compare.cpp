// `zkbatch compare` and the regression gate (see compare.hpp).
#include "analysis/compare.hpp"

#include "util/usage_error.hpp"


#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace zkbatch {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// What compare needs to know about one run, read from its row.
struct RunInfo {
    int64_t id = 0;
    std::string job_name, backend_name, arm, status, started_at;
    int64_t seed = 0, log_n = 0, terms_per_row = 0, partitions = 0;
    int64_t synthesis_workers = 0, prove_workers = 0;
    std::optional<int64_t> replay_inputs;  // 0: every partition synthesized; empty: not recorded
    std::string workload;                  // "groth16" or "quotient" (every run before schema 5)
    std::string curve;                     // "bls12-381" (every run before schema 8) or "bn254"
    std::string circuit, key_digest, proof_randomness;  // Groth16 runs
};

const StoredValue* find_column(const StoredRow& row, std::string_view name) {
    for (const auto& [column, value] : row)
        if (column == name) return &value;
    return nullptr;
}
std::string text_column(const StoredRow& row, std::string_view name) {
    const StoredValue* value = find_column(row, name);
    return value && std::holds_alternative<std::string>(*value) ? std::get<std::string>(*value) : "";
}
std::optional<int64_t> optional_int_column(const StoredRow& row, std::string_view name) {
    const StoredValue* value = find_column(row, name);
    if (!value || !std::holds_alternative<int64_t>(*value)) return std::nullopt;
    return std::get<int64_t>(*value);
}
int64_t int_column(const StoredRow& row, std::string_view name) { return optional_int_column(row, name).value_or(0); }

RunInfo read_run(const Store& store, int64_t run_id) {
    const StoredRow row = store.run_row(run_id);
    RunInfo info;
    info.id = run_id;
    info.job_name = text_column(row, "job_name");
    info.backend_name = text_column(row, "backend_name");
    info.arm = text_column(row, "arm");
    info.status = text_column(row, "status");
    info.started_at = text_column(row, "started_at");
    info.seed = int_column(row, "seed");
    info.log_n = int_column(row, "log_n");
    info.terms_per_row = int_column(row, "terms_per_row");
    info.partitions = int_column(row, "partitions");
    info.synthesis_workers = int_column(row, "synthesis_workers");
    info.prove_workers = int_column(row, "prove_workers");
    info.replay_inputs = optional_int_column(row, "replay_inputs");
    info.workload = text_column(row, "workload");
    info.curve = text_column(row, "curve");
    info.circuit = text_column(row, "circuit");
    info.key_digest = text_column(row, "key_digest");
    info.proof_randomness = text_column(row, "proof_randomness");
    return info;
}

// "backend cpu-ref, log_n 12, ..." : what sets a run apart within a side.
std::string run_group(const RunInfo& run) {
    return fmt::format("{} ({}), backend {}{}, log_n {}, terms_per_row {}, seed {}", run.workload, run.curve,
                       run.backend_name, run.arm.empty() ? "" : ", arm " + run.arm, run.log_n, run.terms_per_row,
                       run.seed);
}

CompareSide describe_side(const RunSelection& selection, const std::vector<RunInfo>& runs,
                          const Store& store) {
    std::map<std::string, std::vector<int64_t>> groups;
    for (const RunInfo& run : runs) groups[run_group(run)].push_back(run.id);
    if (groups.size() > 1) {
        std::vector<std::string> parts;
        for (const auto& [group, ids] : groups) parts.push_back(fmt::format("runs {}: {}", fmt::join(ids, ", "), group));
        throw StoreError(fmt::format("{}: '{}' selects runs that differ ({}); pooling them would compare "
                                     "something else. Narrow it with arm=, backend= or a run id.",
                                     store.path().string(), selection.selector, fmt::join(parts, "; ")));
    }
    CompareSide side;
    side.selector = selection.selector;
    side.run_ids = selection.run_ids;
    const RunInfo& first = runs.front();
    side.job_name = first.job_name;
    side.backend_name = first.backend_name;
    side.arm = first.arm;
    side.status = first.status;
    side.started_at = first.started_at;
    return side;
}

// Merges B's phase order into A's so both stay in pipeline order.
std::vector<std::string> merged_order(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> order = a;
    auto insert_at = order.begin();
    for (const std::string& phase : b) {
        const auto found = std::find(order.begin(), order.end(), phase);
        if (found != order.end()) {
            insert_at = found + 1;
        } else {
            insert_at = order.insert(insert_at, phase) + 1;
        }
    }
    return order;
}

const char* workload_text(const std::string& workload) {
    return workload == "groth16" ? "Groth16 proofs" : "the quotient alone";
}

ResultsCheck check_results(const Store& store, const std::vector<RunInfo>& a_runs,
                           const std::vector<RunInfo>& b_runs) {
    ResultsCheck check;
    // Everything that decides the inputs of partition p must agree across all runs.
    const RunInfo& reference = a_runs.front();
    for (const auto* runs : {&a_runs, &b_runs}) {
        for (const RunInfo& run : *runs) {
            const auto differs = [&](std::string_view what, int64_t mine, int64_t theirs) {
                check.status = ResultsStatus::not_comparable;
                check.message = fmt::format("results not comparable: {} differs (run {}: {}, run {}: {})", what,
                                            reference.id, theirs, run.id, mine);
            };
            if (!run.replay_inputs || !reference.replay_inputs) {
                check.status = ResultsStatus::not_comparable;
                check.message = fmt::format("results not comparable: run {} does not record how many input sets "
                                            "it replays (recorded before schema 4 from a manifest that is not TOML)",
                                            run.replay_inputs ? reference.id : run.id);
                return check;
            }
            // Proofs and quotients are different computations: no digest of one says anything of the other.
            if (run.workload != reference.workload) {
                check.status = ResultsStatus::not_comparable;
                check.message = fmt::format("results not comparable: run {} proved {}, run {} {}", reference.id,
                                            workload_text(reference.workload), run.id, workload_text(run.workload));
                return check;
            }
            if (run.circuit != reference.circuit || run.key_digest != reference.key_digest) {
                check.status = ResultsStatus::not_comparable;
                check.message = fmt::format("results not comparable: runs {} and {} prove {} (circuit or key "
                                            "digest {} against {})",
                                            reference.id, run.id,
                                            run.circuit != reference.circuit ? "different circuits" : "with different keys",
                                            reference.key_digest, run.key_digest);
                return check;
            }
            if (run.seed != reference.seed) differs("seed", run.seed, reference.seed);
            else if (run.log_n != reference.log_n) differs("log_n", run.log_n, reference.log_n);
            else if (run.terms_per_row != reference.terms_per_row)
                differs("terms_per_row", run.terms_per_row, reference.terms_per_row);
            else if (*run.replay_inputs != *reference.replay_inputs)
                differs("pipeline.replay_inputs", *run.replay_inputs, *reference.replay_inputs);
            if (check.status == ResultsStatus::not_comparable) return check;
        }
    }
    // Groth16 runs whose blinding is derived must make the same proofs; randomized ones
    // can only agree on h.
    const auto randomized = [](const RunInfo& run) { return run.proof_randomness == "random"; };
    const bool proofs = reference.workload == "groth16" && std::none_of(a_runs.begin(), a_runs.end(), randomized) &&
                        std::none_of(b_runs.begin(), b_runs.end(), randomized);
    const std::string what = proofs ? "proofs" : reference.workload == "groth16" ? "h (the proofs are randomized)"
                                                                                 : "results";
    // partition index -> the digests each side recorded for it (several runs may pool).
    std::map<uint64_t, std::set<std::string>> a_digests, b_digests;
    const auto collect = [&](const std::vector<RunInfo>& runs, auto& digests) {
        for (const RunInfo& run : runs) {
            const auto per_partition = proofs ? store.partition_proof_digests(run.id) : store.partition_digests(run.id);
            for (size_t p = 0; p < per_partition.size(); ++p)
                if (!per_partition[p].empty()) digests[p].insert(per_partition[p]);
        }
    };
    collect(a_runs, a_digests);
    collect(b_runs, b_digests);
    for (const auto& [partition, digests] : a_digests) {
        const auto other = b_digests.find(partition);
        if (other == b_digests.end()) continue;
        ++check.partitions_compared;
        std::set<std::string> all = digests;
        all.insert(other->second.begin(), other->second.end());
        if (all.size() > 1) {
            ++check.partitions_different;
            if (!check.first_different_partition) check.first_different_partition = partition;
        }
    }
    std::string upper = what.substr(0, what.find(' '));
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (check.partitions_compared == 0) {
        check.status = ResultsStatus::nothing_to_compare;
        check.message = fmt::format("{} not checked: no partition has a digest on both sides", what);
    } else if (check.partitions_different > 0) {
        check.status = ResultsStatus::different;
        check.message = fmt::format("DIFFERENT {}{} in {} of {} partitions (first: partition {})", upper,
                                    what.substr(upper.size()), check.partitions_different, check.partitions_compared,
                                    *check.first_different_partition);
    } else {
        check.status = ResultsStatus::same;
        check.message = fmt::format("same {} ({} partition{} compared)", what, check.partitions_compared,
                                    check.partitions_compared == 1 ? "" : "s");
    }
    return check;
}

// ----- formatting -----

std::string fixed_or_dash(double value, int decimals) {
    return std::isnan(value) ? "-" : fmt::format("{:.{}f}", value, decimals);
}
std::string percent(double fraction) {
    if (std::isnan(fraction)) return "-";
    if (std::isinf(fraction)) return fraction > 0 ? "+inf" : "-inf";
    return fmt::format("{:+.1f}%", fraction * 100);
}
std::string p_text(double p) {
    if (std::isnan(p)) return "-";
    return p < 0.0001 ? "<0.0001" : fmt::format("{:.4f}", p);
}
std::string ci_text(const PhaseComparison& phase) {
    const auto& s = phase.stats;
    if (std::isnan(s.shift.ci_low)) return "-";
    if (!std::isnan(s.relative_ci_low)) return fmt::format("[{}, {}]", percent(s.relative_ci_low), percent(s.relative_ci_high));
    return fmt::format("[{:+.3f}, {:+.3f}] ms", s.shift.ci_low, s.shift.ci_high);
}
const char* verdict_key(stats::Verdict verdict) {
    switch (verdict) {
        case stats::Verdict::too_few_samples: return "too_few_samples";
        case stats::Verdict::no_difference: return "no_difference";
        case stats::Verdict::faster: return "faster";
        case stats::Verdict::slower: return "slower";
    }
    return "unknown";
}

std::string side_line(const char* label, const CompareSide& side) {
    const bool plain_id = side.run_ids.size() == 1 && side.selector == std::to_string(side.run_ids.front());
    return fmt::format("{}: run{} {} ({}job {}, backend {}{}, {}, started {})", label,
                       side.run_ids.size() == 1 ? "" : "s", fmt::join(side.run_ids, ", "),
                       plain_id ? "" : side.selector + ", ", side.job_name, side.backend_name, side.arm.empty() ? "" : ", arm " + side.arm,
                       side.status, side.started_at);
}

const std::vector<std::string> kHeaders = {"phase", "n A", "n B", "median A ms", "median B ms", "change",
                                           "95% CI of change", "p", "verdict"};

std::vector<std::vector<std::string>> phase_cells(const Comparison& comparison, const GateOutcome* gate) {
    std::vector<std::vector<std::string>> rows;
    for (const PhaseComparison& phase : comparison.phases) {
        const auto& s = phase.stats;
        std::string verdict = stats::to_string(s.verdict);
        if (gate) {
            for (const Regression& r : gate->regressions)
                if (r.phase == phase.phase) verdict += " (REGRESSION)";
        }
        rows.push_back({phase.phase, std::to_string(s.count_a), std::to_string(s.count_b),
                        fixed_or_dash(s.median_a, 3), fixed_or_dash(s.median_b, 3), percent(s.relative_change),
                        ci_text(phase), p_text(s.test.p_value), verdict});
    }
    return rows;
}

}  // namespace

std::string format_gate_line(const GateOutcome& gate) {
    if (gate.regressions.empty()) {
        return fmt::format("gate: pass: no phase is significantly slower by more than {}% (and {} ms)",
                           gate.rule.max_slowdown_pct, gate.rule.min_change_ms);
    }
    std::vector<std::string> parts;
    for (const Regression& r : gate.regressions)
        parts.push_back(fmt::format("{} {} ({:+.3f} ms, p {})", r.phase, percent(r.relative_change), r.change_ms,
                                    p_text(r.p_value)));
    return fmt::format("gate: FAIL: regression beyond {}%: {}", gate.rule.max_slowdown_pct, fmt::join(parts, "; "));
}

namespace {

std::string format_text(const Comparison& comparison, const GateOutcome* gate, bool markdown) {
    std::string out;
    const bool different = comparison.results.status == ResultsStatus::different;
    const std::string results = different ? "!!! " + comparison.results.message + " !!!" : comparison.results.message;
    if (markdown) {
        out += fmt::format("- **A**: {}\n- **B**: {}\n- **results**: {}\n\n", side_line("A", comparison.a).substr(3),
                           side_line("B", comparison.b).substr(3), different ? "**" + results + "**" : results);
        out += "| " + fmt::format("{}", fmt::join(kHeaders, " | ")) + " |\n";
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
        for (const auto& row : phase_cells(comparison, gate)) out += "| " + fmt::format("{}", fmt::join(row, " | ")) + " |\n";
        out += "\nChange: median B / median A - 1. CI: Hodges-Lehmann shift of B against A over median A. "
               "p: two-sided Mann-Whitney U.\n";
        if (gate) out += "\n**" + format_gate_line(*gate) + "**\n";
        return out;
    }
    out += side_line("A", comparison.a) + "\n" + side_line("B", comparison.b) + "\n";
    out += "results: " + results + "\n\n";
    out += render_text_table(kHeaders, phase_cells(comparison, gate),
                             {false, true, true, true, true, true, true, true, false});
    out += "\nchange: median B / median A - 1; CI: Hodges-Lehmann shift of B against A, over median A; "
           "p: two-sided Mann-Whitney U\n";
    if (different) out += "results: " + results + "\n";
    if (gate) out += format_gate_line(*gate) + "\n";
    return out;
}

nlohmann::json number_or_null(double value) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

std::string format_json(const Comparison& comparison, const GateOutcome* gate) {
    using nlohmann::json;
    const auto side = [](const CompareSide& s) {
        return json{{"selector", s.selector}, {"run_ids", s.run_ids}, {"job_name", s.job_name},
                    {"backend_name", s.backend_name}, {"arm", s.arm.empty() ? json(nullptr) : json(s.arm)},
                    {"status", s.status}, {"started_at", s.started_at}};
    };
    json phases = json::array();
    for (const PhaseComparison& phase : comparison.phases) {
        const auto& s = phase.stats;
        bool regression = false;
        if (gate)
            for (const Regression& r : gate->regressions) regression |= r.phase == phase.phase;
        phases.push_back({{"phase", phase.phase},
                          {"count_a", s.count_a},
                          {"count_b", s.count_b},
                          {"median_a_ms", number_or_null(s.median_a)},
                          {"median_b_ms", number_or_null(s.median_b)},
                          {"relative_change", number_or_null(s.relative_change)},
                          {"relative_change_ci_low", number_or_null(s.relative_ci_low)},
                          {"relative_change_ci_high", number_or_null(s.relative_ci_high)},
                          {"shift_ms", number_or_null(s.shift.estimate)},
                          {"shift_ci_low_ms", number_or_null(s.shift.ci_low)},
                          {"shift_ci_high_ms", number_or_null(s.shift.ci_high)},
                          {"ci_confidence", number_or_null(s.shift.confidence)},
                          {"u_a", s.count_a && s.count_b ? json(s.test.u_a) : json(nullptr)},
                          {"p_value", number_or_null(s.test.p_value)},
                          {"p_value_method", !s.count_a || !s.count_b ? json(nullptr)
                                             : json(s.test.exact ? "exact" : "normal")},
                          {"verdict", verdict_key(s.verdict)},
                          {"regression", regression}});
    }
    const ResultsCheck& r = comparison.results;
    json out = {{"format", "zkbatch-compare"},
                {"version", 1},
                {"a", side(comparison.a)},
                {"b", side(comparison.b)},
                {"results",
                 {{"status", to_string(r.status)},
                  {"partitions_compared", r.partitions_compared},
                  {"partitions_different", r.partitions_different},
                  {"first_different_partition",
                   r.first_different_partition ? json(*r.first_different_partition) : json(nullptr)},
                  {"message", r.message}}},
                {"phases", phases}};
    if (gate) {
        json regressions = json::array();
        for (const Regression& reg : gate->regressions) regressions.push_back(reg.phase);
        out["gate"] = {{"max_slowdown_pct", gate->rule.max_slowdown_pct},
                       {"min_change_ms", gate->rule.min_change_ms},
                       {"passed", gate->regressions.empty()},
                       {"regressions", regressions}};
    }
    return out.dump(2) + "\n";
}

std::string csv_number(double value) { return std::isfinite(value) ? fmt::format("{}", value) : ""; }

std::string format_csv(const Comparison& comparison, const GateOutcome* gate) {
    std::string out =
        "phase,count_a,count_b,median_a_ms,median_b_ms,relative_change,relative_change_ci_low,"
        "relative_change_ci_high,shift_ms,shift_ci_low_ms,shift_ci_high_ms,p_value,p_value_method,verdict,"
        "regression,a_run_ids,b_run_ids,results\n";
    for (const PhaseComparison& phase : comparison.phases) {
        const auto& s = phase.stats;
        std::string regression;
        if (gate) {
            regression = "0";
            for (const Regression& r : gate->regressions)
                if (r.phase == phase.phase) regression = "1";
        }
        const bool tested = s.count_a && s.count_b;
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", phase.phase, s.count_a,
                           s.count_b, csv_number(s.median_a), csv_number(s.median_b), csv_number(s.relative_change),
                           csv_number(s.relative_ci_low), csv_number(s.relative_ci_high),
                           csv_number(s.shift.estimate), csv_number(s.shift.ci_low), csv_number(s.shift.ci_high),
                           csv_number(s.test.p_value), tested ? (s.test.exact ? "exact" : "normal") : "",
                           verdict_key(s.verdict), regression, fmt::join(comparison.a.run_ids, " "),
                           fmt::join(comparison.b.run_ids, " "), to_string(comparison.results.status));
    }
    return out;
}

}  // namespace

const char* to_string(ResultsStatus status) {
    switch (status) {
        case ResultsStatus::same: return "same";
        case ResultsStatus::different: return "different";
        case ResultsStatus::not_comparable: return "not_comparable";
        case ResultsStatus::nothing_to_compare: return "nothing_to_compare";
    }
    return "unknown";
}

Comparison compare_runs(const Store& store, const RunSelection& a, const RunSelection& b) {
    std::vector<RunInfo> a_runs, b_runs;
    for (const int64_t id : a.run_ids) a_runs.push_back(read_run(store, id));
    for (const int64_t id : b.run_ids) b_runs.push_back(read_run(store, id));
    // Two curves are two different computations (field sizes, MSM costs, proofs): no
    // phase of one is a baseline for the other.
    for (const RunInfo& run : b_runs)
        if (run.curve != a_runs.front().curve)
            throw UsageError(fmt::format("run {} proves over {}, run {} over {}: compare compares runs of one curve; "
                                         "select runs of the same curve on both sides",
                                         a_runs.front().id, a_runs.front().curve, run.id, run.curve));

    Comparison comparison;
    comparison.a = describe_side(a, a_runs, store);
    comparison.b = describe_side(b, b_runs, store);

    // phase -> samples in ms, pooled over the side's runs; partitions that stopped
    // part-way ('failed') are left out, as in phase_summary.
    const auto samples = [&](const std::vector<int64_t>& run_ids, std::vector<std::string>& order) {
        std::map<std::string, std::vector<double>> by_phase;
        for (const int64_t id : run_ids) {
            for (const PhaseSample& sample : store.phase_samples(id)) {
                if (sample.partition_status == "failed") continue;
                if (!by_phase.contains(sample.phase)) order.push_back(sample.phase);
                by_phase[sample.phase].push_back(sample.ms);
            }
        }
        return by_phase;
    };
    std::vector<std::string> a_order, b_order;
    auto a_samples = samples(a.run_ids, a_order);
    auto b_samples = samples(b.run_ids, b_order);
    for (const std::string& phase : merged_order(a_order, b_order))
        comparison.phases.push_back({phase, stats::compare_samples(a_samples[phase], b_samples[phase])});

    comparison.results = check_results(store, a_runs, b_runs);
    return comparison;
}

std::pair<RunSelection, RunSelection> split_two_arms(const Store& store, const RunSelection& experiment) {
    std::vector<std::string> arm_order;
    std::map<std::string, std::vector<int64_t>> arms;
    for (const int64_t id : experiment.run_ids) {
        const StoredRow row = store.run_row(id);
        std::string arm = text_column(row, "arm");
        if (arm.empty()) arm = "backend=" + text_column(row, "backend_name");
        if (!arms.contains(arm)) arm_order.push_back(arm);
        arms[arm].push_back(id);
    }
    if (arm_order.size() != 2) {
        std::vector<std::string> listed;
        for (const auto& arm : arm_order) listed.push_back(fmt::format("{} (runs {})", arm, fmt::join(arms[arm], ", ")));
        throw StoreError(fmt::format("{}: '{}' has {} arm{}: {}. Compare two of them: zkbatch compare "
                                     "{},arm=ARM1 {},arm=ARM2.",
                                     store.path().string(), experiment.selector, arm_order.size(),
                                     arm_order.size() == 1 ? "" : "s", fmt::join(listed, "; "), experiment.selector,
                                     experiment.selector));
    }
    const auto side = [&](const std::string& arm) {
        return RunSelection{fmt::format("{},arm={}", experiment.selector, arm), arms[arm]};
    };
    return {side(arm_order[0]), side(arm_order[1])};
}

std::vector<Regression> find_regressions(const Comparison& comparison, const GateRule& rule) {
    std::vector<Regression> found;
    for (const PhaseComparison& phase : comparison.phases) {
        const auto& s = phase.stats;
        if (s.verdict != stats::Verdict::slower) continue;
        const double change_ms = s.median_b - s.median_a;
        const double relative = s.median_a > 0 ? s.relative_change : kInfinity;
        if (relative * 100 > rule.max_slowdown_pct && change_ms >= rule.min_change_ms)
            found.push_back({phase.phase, relative, change_ms, s.test.p_value});
    }
    return found;
}

std::optional<int64_t> previous_baseline(const Store& store, int64_t candidate_run_id) {
    const RunInfo candidate = read_run(store, candidate_run_id);
    RunFilter filter;
    filter.job_name = candidate.job_name;
    filter.backend_name = candidate.backend_name;
    filter.status = "ok";
    filter.before_run_id = candidate.id;
    filter.log_n = candidate.log_n;
    filter.partitions = candidate.partitions;
    filter.terms_per_row = candidate.terms_per_row;
    filter.synthesis_workers = candidate.synthesis_workers;
    filter.prove_workers = candidate.prove_workers;
    const auto ids = store.find_runs(filter);
    if (ids.empty()) return std::nullopt;
    return ids.back();
}

std::string format_comparison(const Comparison& comparison, CompareFormat format, const GateOutcome* gate) {
    switch (format) {
        case CompareFormat::table: return format_text(comparison, gate, false);
        case CompareFormat::markdown: return format_text(comparison, gate, true);
        case CompareFormat::json: return format_json(comparison, gate);
        case CompareFormat::csv: return format_csv(comparison, gate);
    }
    return {};
}

std::string render_text_table(const std::vector<std::string>& headers,
                              const std::vector<std::vector<std::string>>& rows,
                              const std::vector<bool>& right_aligned, const std::string& indent) {
    std::vector<size_t> widths(headers.size());
    for (size_t c = 0; c < headers.size(); ++c) {
        widths[c] = headers[c].size();
        for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
    }
    std::string out;
    const auto line = [&](const std::vector<std::string>& cells) {
        std::string text = indent;
        for (size_t c = 0; c < cells.size(); ++c) {
            if (c > 0) text += "  ";
            const bool right = c < right_aligned.size() && right_aligned[c];
            text += right ? fmt::format("{:>{}}", cells[c], widths[c]) : fmt::format("{:<{}}", cells[c], widths[c]);
        }
        text.erase(text.find_last_not_of(' ') + 1);
        out += text + '\n';
    };
    line(headers);
    for (const auto& row : rows) line(row);
    return out;
}

std::string run_job_name(const Store& store, int64_t run_id) { return read_run(store, run_id).job_name; }

std::string baseline_key_text(const Store& store, int64_t run_id) {
    const RunInfo run = read_run(store, run_id);
    return fmt::format("job {} on {} with log_n {}, {} partitions, terms_per_row {}, {} synthesis and {} prove workers",
                       run.job_name, run.backend_name, run.log_n, run.partitions, run.terms_per_row,
                       run.synthesis_workers, run.prove_workers);
}

}  // namespace zkbatch
