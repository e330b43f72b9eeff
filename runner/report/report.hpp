// `zkbatch report`: one self-contained static HTML page about one or more runs, viewable
// with no network access (inline CSS and SVG, no external scripts or fonts): each run's
// environment, its timeline, per-phase distributions, and, for two runs or more, an A/B
// table of every later run against the first.
//
// Reading (read_report_run) is separate from rendering (render_report), so the page can
// be tested from hand-made data.
#pragma once

#include "report/trace.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace zkbatch {

// Everything the page shows about one run.
struct ReportRun {
    RunLabel label;
    std::vector<std::pair<std::string, std::string>> environment;  // Store::run_environment
    std::vector<std::pair<std::string, std::string>> tags;
    RunOverview overview;
    std::vector<PhaseSample> samples;   // partition_phase: distributions and the A/B table
    std::vector<IdleGapStats> idle_gaps;
    std::vector<DeviceStats> devices;   // device_summary; empty before schema v3
    TimelineLayout timeline;
};

ReportRun read_report_run(const Store& store, int64_t run_id);

// The page. `source` names where the data came from (the database path), shown in the
// header. Every text from the database is HTML-escaped.
std::string render_report(const std::vector<ReportRun>& runs, const std::string& source);

}  // namespace zkbatch
