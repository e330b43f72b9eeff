// `zkbatch export RUN...`: runs with their environment and every partition's timings,
// as JSON or CSV with stable field names, for other tools (docs/compare.md lists the
// fields).
//
// JSON: {"format": "zkbatch-export", "version": 1, "runs": [{"run": {...}, "partitions": [...]}]}.
//   "run" holds every column of the run table under its own name (numbers, text or
//   null), plus "tags" and "facts" as objects of text. Each partition holds every column
//   of the partition table except id and run_id, plus "partition_ms" (first synth start
//   to last finalize end; null when not measured).
// CSV: one row per partition (a run without partitions has no row); the run's columns
//   prefixed "run_" (run_id, run_job_name, ...), then the partition's columns and
//   partition_ms, then one column per tag ("run_tag_KEY") and fact ("run_fact_KEY") that
//   any exported run has. Columns may be added in later versions: read them by name.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace zkbatch {

enum class ExportFormat { json, csv };

std::string export_runs(const Store& store, const std::vector<int64_t>& run_ids, ExportFormat format);

}  // namespace zkbatch
