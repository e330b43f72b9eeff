// The subcommands that read the history: compare and the gate, history, export.
#include "analysis/compare.hpp"
#include "analysis/export.hpp"
#include "analysis/history.hpp"
#include "analysis/selectors.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <stdexcept>
#include <tuple>

namespace zkbatch {

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

int command_export(const ExportOptions& options) {
    const Store store = Store::open_existing(options.db_path);
    const std::vector<int64_t> ids = select_runs_of(store, options.runs);
    const std::string text = export_runs(store, ids, options.format == "csv" ? ExportFormat::csv : ExportFormat::json);
    if (options.output_path == "-") {
        fmt::print("{}", text);
        return exit_code::ok;
    }
    std::ofstream out(options.output_path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        throw StoreError(fmt::format("cannot write {}: check that its folder exists and is writable.",
                                     options.output_path));
    }
    return exit_code::ok;
}

}  // namespace zkbatch
