// The subcommands that draw runs: trace (Perfetto JSON) and report (HTML).
#include "analysis/selectors.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "report/report.hpp"
#include "report/trace.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

namespace zkbatch {

namespace {

// Chrome/Perfetto trace-event JSON of one run's timeline (report/trace.hpp); "-" is stdout.
int command_trace(const std::string& run_selector, const std::string& db_path,
                  const std::string& output_path) {
    const Store store = Store::open_existing(db_path);
    const int64_t run_id = select_one_run(store, run_selector);
    const TimelineLayout layout = layout_timeline(store.run_timeline(run_id));
    write_command_output(output_path, trace_event_json(read_run_label(store, run_id), layout), store.files());
    if (output_path != "-") {
        fmt::print(stderr, "run {}: {} intervals on {} tracks written to {} (open it in "
                           "https://ui.perfetto.dev or chrome://tracing)\n",
                   run_id, layout.intervals.size(), layout.tracks.size(), output_path);
    }
    return exit_code::ok;
}

// One self-contained HTML page about one or more runs (report/report.hpp); "-" is stdout.
int command_report(const std::vector<std::string>& run_selectors, const std::string& db_path,
                   const std::string& output_path) {
    const Store store = Store::open_existing(db_path);
    std::vector<ReportRun> runs;
    for (const std::string& selector : run_selectors) {
        for (const int64_t run_id : select_runs(store, selector).run_ids) runs.push_back(read_report_run(store, run_id));
    }
    write_command_output(output_path, render_report(runs, store.path().string()), store.files());
    if (output_path != "-") fmt::print(stderr, "report on {} run(s) written to {}\n", runs.size(), output_path);
    return exit_code::ok;
}

}  // namespace

Subcommand add_trace_command(CLI::App& app) {
    struct Options {
        std::string run_selector, output_path, db_path;
    };
    auto options = std::make_shared<Options>();
    auto* command = app.add_subcommand(
        "trace", "Write a run's timeline as Chrome/Perfetto trace-event JSON (ui.perfetto.dev)");
    command->add_option("run", options->run_selector, "Run: id, latest, latest~K, job=NAME, backend=NAME, ...")
        ->required();
    command->add_option("-o,--output", options->output_path, "Trace file to write ('-': stdout)")
        ->required()
        ->check(non_empty_path());
    add_db_option(*command, options->db_path);
    return {command,
            [options] { return command_trace(options->run_selector, options->db_path, options->output_path); }};
}

Subcommand add_report_command(CLI::App& app) {
    struct Options {
        std::vector<std::string> run_selectors;
        std::string output_path, db_path;
    };
    auto options = std::make_shared<Options>();
    auto* command = app.add_subcommand(
        "report", "Write one self-contained HTML page: environment, timelines, phase "
                  "distributions and, for several runs, an A/B comparison against the first");
    command->add_option("runs", options->run_selectors,
                        "Runs: ids, latest, latest~K, job=NAME, experiment=ID (all its runs), ...")
        ->required();
    command->add_option("-o,--output", options->output_path, "HTML file to write ('-': stdout)")
        ->required()
        ->check(non_empty_path());
    add_db_option(*command, options->db_path);
    return {command,
            [options] { return command_report(options->run_selectors, options->db_path, options->output_path); }};
}

}  // namespace zkbatch
