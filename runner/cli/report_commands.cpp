// The subcommands that draw runs: trace (Perfetto JSON) and report (HTML).
#include "analysis/selectors.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "report/report.hpp"
#include "report/trace.hpp"

#include <fmt/format.h>

namespace zkbatch {

int command_trace(const std::string& run_selector, const std::string& db_path,
                  const std::string& output_path) {
    const Store store = Store::open_existing(db_path);
    const int64_t run_id = select_one_run(store, run_selector);
    const TimelineLayout layout = layout_timeline(store.run_timeline(run_id));
    write_output_file(output_path, trace_event_json(read_run_label(store, run_id), layout));
    if (output_path != "-") {
        fmt::print(stderr, "run {}: {} intervals on {} tracks written to {} (open it in "
                           "https://ui.perfetto.dev or chrome://tracing)\n",
                   run_id, layout.intervals.size(), layout.tracks.size(), output_path);
    }
    return exit_code::ok;
}

int command_report(const std::vector<std::string>& run_selectors, const std::string& db_path,
                   const std::string& output_path) {
    const Store store = Store::open_existing(db_path);
    std::vector<ReportRun> runs;
    for (const std::string& selector : run_selectors) {
        for (const int64_t run_id : select_runs(store, selector).run_ids) runs.push_back(read_report_run(store, run_id));
    }
    write_output_file(output_path, render_report(runs, store.path().string()));
    if (output_path != "-") fmt::print(stderr, "report on {} run(s) written to {}\n", runs.size(), output_path);
    return exit_code::ok;
}

}  // namespace zkbatch
