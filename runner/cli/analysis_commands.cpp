// The subcommands that read the history: compare and the gate, history, export.
#include "analysis/compare.hpp"
#include "analysis/export.hpp"
#include "analysis/history.hpp"
#include "analysis/selectors.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace zkbatch {

namespace {

// A percentage beyond any change a timing can show; larger gate thresholds are typos.
constexpr double kMaxPercent = 1e6;

// `zkbatch compare A B` and the regression gate (analysis/compare.hpp).
struct CompareOptions {
    std::string a, b;                        // run selectors (selectors.hpp); b empty: split A's two arms
    std::string db_path;
    std::string format = "table";            // table, markdown, json, csv
    std::optional<std::string> baseline;     // --baseline previous|RUN: gate mode, instead of A
    std::optional<std::string> job;          // --job NAME: the job whose runs are gated
    std::string candidate = "latest";        // --candidate RUN, among the job's runs
    std::optional<double> fail_on_regression_pct;  // exit 7 on a significant slowdown beyond this
    double min_change_ms = 1.0;              // ... that is also at least this many ms
};

int command_compare(const CompareOptions& options) {
    const Store store = Store::open_existing(options.db_path);
    const auto format = [&] {
        if (options.format == "table") return CompareFormat::table;
        if (options.format == "markdown") return CompareFormat::markdown;
        if (options.format == "json") return CompareFormat::json;
        return CompareFormat::csv;
    }();
    const bool machine_format = format == CompareFormat::json || format == CompareFormat::csv;

    RunSelection a, b;
    if (options.baseline) {
        if (!options.a.empty()) {
            fmt::print(stderr, "error: compare takes either two runs (A B) or --baseline, not both.\n");
            return exit_code::usage_error;
        }
        RunFilter within;
        if (options.job) within.job_name = *options.job;
        if (*options.baseline != "previous" && !options.job) {
            // A pinned baseline: the candidate comes from the baseline's job.
            within.job_name = run_job_name(store, select_one_run(store, *options.baseline));
        }
        if (!within.job_name) {
            fmt::print(stderr, "error: --baseline previous needs --job NAME: the nightly job whose runs to gate.\n");
            return exit_code::usage_error;
        }
        const int64_t candidate = select_one_run(store, options.candidate, within);
        b = {options.candidate, {candidate}};
        if (*options.baseline == "previous") {
            const auto baseline = previous_baseline(store, candidate);
            if (!baseline) {
                fmt::print(stderr, "gate: pass: no baseline yet: run {} is the first successful run of {}.\n",
                           candidate, baseline_key_text(store, candidate));
                return exit_code::ok;
            }
            a = {"previous", {*baseline}};
        } else {
            a = {*options.baseline, {select_one_run(store, *options.baseline)}};
        }
    } else {
        if (options.a.empty()) {
            fmt::print(stderr, "error: compare needs runs A and B (or --baseline). See zkbatch compare --help.\n");
            return exit_code::usage_error;
        }
        a = select_runs(store, options.a);
        if (options.b.empty()) {
            std::tie(a, b) = split_two_arms(store, a);
        } else {
            b = select_runs(store, options.b);
        }
    }

    const Comparison comparison = compare_runs(store, a, b);
    std::optional<GateOutcome> gate;
    if (options.fail_on_regression_pct) {
        gate.emplace();
        gate->rule = {*options.fail_on_regression_pct, options.min_change_ms};
        gate->regressions = find_regressions(comparison, gate->rule);
    }
    fmt::print("{}", format_comparison(comparison, format, gate ? &*gate : nullptr));
    if (machine_format) {
        // stdout stays parseable; people and CI logs still see the outcome.
        if (comparison.results.status == ResultsStatus::different) fmt::print(stderr, "{}\n", comparison.results.message);
        if (gate) fmt::print(stderr, "{}\n", format_gate_line(*gate));
    }
    if (comparison.a.status != "ok" || comparison.b.status != "ok") {
        spdlog::warn("comparing a run that did not finish ok (A: {}, B: {}): only its recorded partitions count",
                     comparison.a.status, comparison.b.status);
    }
    if (comparison.results.status == ResultsStatus::different) return exit_code::partition_failed;
    if (gate && !gate->regressions.empty()) return exit_code::regression;
    return exit_code::ok;
}

// `zkbatch history --job NAME` (analysis/history.hpp).
struct HistoryOptions {
    std::string job;
    std::string metric = "partition";        // a phase, wall_ms or partitions_per_hour
    std::optional<std::string> backend;      // only runs on this backend
    std::string db_path;
    double min_step_pct = 5;                 // smaller steps are not marked
};

int command_history(const HistoryOptions& options) {
    const Store store = Store::open_existing(options.db_path);
    ChangePointOptions change_options;
    change_options.min_relative_step = options.min_step_pct / 100;
    History history;
    try {
        history = load_history(store, options.job, options.metric, options.backend, change_options);
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "error: --metric: {}\n", e.what());
        return exit_code::usage_error;
    }
    fmt::print("{}", format_history(history));
    return exit_code::ok;
}

// `zkbatch export RUN...` (analysis/export.hpp).
struct ExportOptions {
    std::vector<std::string> runs;           // run selectors
    std::string format = "json";             // json, csv
    std::string db_path;
    std::string output_path = "-";           // "-": stdout
};

int command_export(const ExportOptions& options) {
    const Store store = Store::open_existing(options.db_path);
    const std::vector<int64_t> ids = select_runs_of(store, options.runs);
    const std::string text = export_runs(store, ids, options.format == "csv" ? ExportFormat::csv : ExportFormat::json);
    write_command_output(options.output_path, text, store.files());
    return exit_code::ok;
}

}  // namespace

Subcommand add_compare_command(CLI::App& app) {
    auto compare = std::make_shared<CompareOptions>();
    auto* command = app.add_subcommand(
        "compare", "Compare two runs phase by phase (medians, Mann-Whitney p, 95% CI, verdict) and "
                   "check that they computed the same results; or gate a nightly run against its baseline");
    command->add_option("A", compare->a,
                        "Baseline run: id, latest, latest~K, job=NAME, backend=NAME, experiment=ID, "
                        "arm=ARM, status=S, joined by ','");
    command->add_option("B", compare->b, "Run compared with A (omit it to compare an experiment's two arms)");
    add_db_option(*command, compare->db_path);
    command->add_option("--format", compare->format, "Output format")
        ->check(CLI::IsMember({"table", "markdown", "json", "csv"}))
        ->capture_default_str();
    command->add_option("--baseline", compare->baseline,
                        "Gate mode: 'previous' (the last ok run of the job with the same backend and "
                        "parameters before the candidate) or a run selector");
    command->add_option("--job", compare->job, "Gate mode: the job whose runs are gated");
    command->add_option("--candidate", compare->candidate, "Gate mode: the run gated, among the job's runs")
        ->capture_default_str();
    command->add_option("--fail-on-regression", compare->fail_on_regression_pct,
                        "Exit 7 when a phase is significantly slower by more than PCT percent")
        ->type_name("PCT")
        ->check(finite_number(0, kMaxPercent));
    command->add_option("--min-change-ms", compare->min_change_ms,
                        "A regression must also grow the phase's median by at least this many ms")
        ->check(finite_number(0, kMaxTimeMs))
        ->capture_default_str();
    return {command, [compare] { return command_compare(*compare); }};
}

Subcommand add_history_command(CLI::App& app) {
    auto history = std::make_shared<HistoryOptions>();
    auto* command = app.add_subcommand(
        "history", "A job's runs, oldest first, with one metric and the runs where it stepped marked");
    command->add_option("--job", history->job, "Job name")->required();
    command->add_option("--metric", history->metric,
                        "A phase (median ms over the run's partitions), wall_ms or partitions_per_hour")
        ->capture_default_str();
    command->add_option("--backend", history->backend, "Only runs on this backend");
    command->add_option("--min-step", history->min_step_pct,
                        "Smallest change of the median, in percent, marked as a step")
        ->check(finite_number(0, kMaxPercent))
        ->capture_default_str();
    add_db_option(*command, history->db_path);
    return {command, [history] { return command_history(*history); }};
}

Subcommand add_export_command(CLI::App& app) {
    auto options = std::make_shared<ExportOptions>();
    auto* command = app.add_subcommand(
        "export", "Write runs (environment, tags, facts, every partition's timings) as JSON or CSV");
    command->add_option("runs", options->runs, "Run selectors, as for compare")->required();
    command->add_option("--format", options->format, "Output format")
        ->check(CLI::IsMember({"json", "csv"}))
        ->capture_default_str();
    command->add_option("-o,--output", options->output_path, "File to write ('-': stdout)")
        ->capture_default_str()
        ->check(non_empty_path());
    add_db_option(*command, options->db_path);
    return {command, [options] { return command_export(*options); }};
}

}  // namespace zkbatch
