// `zkbatch run --resume RUN`: finishes a run that was killed, cancelled or failed,
// proving only its partitions that have no 'ok' row, into the same run id.
#pragma once

#include "cli/commands.hpp"

#include <atomic>

namespace zkbatch {

// options.resume_run names the run, options.db_path the database (default
// results/zkbatch.db) and options.plugin_path where to look for its backend first.
// `stop_signal` counts SIGINT/SIGTERM, as for a fresh run.
int command_resume(const RunOptions& options, const std::atomic<int>* stop_signal);

}  // namespace zkbatch
