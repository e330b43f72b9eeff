// Text rendering of the timing history for `zkbatch runs` and `zkbatch show`.
// Reading is the Store's job; this file only lays out what it returns.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace zkbatch {

// `zkbatch runs`: one aligned line per run (id, started, job, backend, status,
// ok/failed partitions, wall time) under a header line.
std::string format_run_list(const std::vector<RunListRow>& rows);

// `zkbatch show RUN`: the run's environment, tags and backend facts, its outcome
// (partitions per hour, GPU busy fraction and h2d GB/s when measured) and a table of
// each phase's count / median / p95 / min / max in ms. Throws StoreError for an
// unknown run.
std::string format_run_details(const Store& store, int64_t run_id);

// "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min": a duration a person reads at a glance.
std::string format_duration_ms(double ms);

// "512 B", "1.5 KiB", "16.0 GiB": a size in binary units.
std::string format_bytes(uint64_t bytes);

}  // namespace zkbatch
