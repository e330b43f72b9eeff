// Carries out a RunPlan (run_plan.hpp), for a fresh run and a resumed one alike:
//
//   1. check     each arm's host memory, before anything is opened or allocated
//   2. store     open the database (a bad path fails before a GPU pool is pinned)
//   3. set up    per arm: the plugin, one backend per device, the input source (the
//                synthetic circuit, or replayed input sets shared by arms of one shape);
//                the place for any other per-run preparation of a backend
//   4. begin     the experiment row, then the run rows (or reopen the resumed run), and
//                each run's dump folder
//   5. prove     block by block, the arms in each block's order, through the pipeline
//   6. record    each run's end
//
// From the first run row on, every way out of execute() (done, a failed partition, a
// signal, an unwritable database, any exception) records each run's end once: a run
// is never left 'running' by zkbatch itself (only by a process killed outright, which
// the next writer marks 'interrupted').
#pragma once

#include "run/run_plan.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zkbatch {

// How one arm's run ended.
struct ArmOutcome {
    int64_t run_id = 0;
    std::string label;             // the arm, empty for a plain job
    std::string backend_name;      // backend.name, "auto" resolved
    RunSummary summary;            // as recorded: status, totals over the whole run
    uint64_t partitions = 0;       // the run's: the job's or the shard's
    uint64_t proved_now = 0;       // partitions this process set out to prove (resume: the missing ones)
    std::optional<double> gpu_busy_fraction;
};

struct RunOutcome {
    std::vector<ArmOutcome> arms;          // in plan order
    std::optional<int64_t> experiment_id;  // set for an experiment or a sharded job
    bool resumed = false;
};

struct ExecutionOptions {
    bool show_progress_line = false;  // a live line on a terminal, else a log line per partition
};

// From the first run row on, SIGINT and SIGTERM stop the run (the first: no partition
// starts, those in flight finish; the second: queued ones are abandoned) and it is
// recorded 'cancelled'. Throws what a step throws (ManifestError for too little memory,
// PluginError, StoreError, ...), after recording the end of every run already begun.
RunOutcome execute_run(const RunPlan& plan, const ExecutionOptions& options);

}  // namespace zkbatch
