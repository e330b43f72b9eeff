// What one `zkbatch run` will do, decided before anything is loaded, opened or started:
// the arms and their manifests, the partitions and their order in time (blocks), the
// shard, the experiment's identity, the database and the dump folder. Plain data, built
// from the command line and the manifest (plan_run) or from a recorded run
// (plan_resume), and carried out by RunExecutor (run_executor.hpp).
#pragma once

#include "cluster/shard.hpp"
#include "manifest/manifest.hpp"
#include "store/store.hpp"
#include "util/usage_error.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {

// `zkbatch run`'s command line.
struct RunOptions {
    std::string manifest_path;
    // The manifest as TOML text instead of a file (`zkbatch prove` writes one); then
    // manifest_path is only the name messages and the run's record show.
    std::optional<std::string> manifest_text;
    std::optional<std::string> db_path;       // --db, else output.db of the manifest
    std::optional<std::string> backend_name;  // --backend, else backend.name
    std::vector<std::string> overrides;       // --set KEY=VALUE
    std::optional<std::string> dump_dir;      // --dump DIR
    std::string plugin_path;                  // --plugin-path (file or folder), searched first
    std::optional<std::string> resume_run;    // --resume RUN: finish that run instead
    std::optional<std::string> shard;         // --shard I/N or auto (cluster/shard.hpp)
    std::optional<std::string> experiment_key;  // --experiment-key: one submission of a sharded job
};

// A run the command line asks for that cannot be made: a usage error (exit 2). The
// message says why and what to do instead.
struct RunPlanError : UsageError {
    using UsageError::UsageError;
};

// One arm: what one run row records and one backend (per device) proves.
struct PlannedArm {
    std::string label;         // the experiment arm, "circuit.log_n=20"; empty for a plain job
    Manifest manifest;         // this arm's, without axes
    std::string backend_name;  // backend.name; "auto" is resolved when the run is set up
};

struct RunPlan {
    std::filesystem::path db_path;
    std::string plugin_path;
    std::optional<std::filesystem::path> dump_dir;  // an experiment's arms each get DIR/runN
    Manifest manifest;                              // as loaded, axes and all: for messages
    std::vector<PlannedArm> arms;                   // one for a plain job and for a resumed run
    // The partitions this run proves, in order: the job's, or one shard's. A resumed run
    // proves those of them without an 'ok' row, known once the run is reopened.
    std::vector<uint64_t> partitions;
    uint64_t block_partitions = 1;  // arms take turns per block of this many partitions
    std::optional<ShardSpec> shard;
    // Written before the runs when the job is an experiment or sharded (created_unix_ns
    // is set then); a shard's uuid is the same on every shard of one submission.
    std::optional<ExperimentRecord> experiment;
    std::optional<int64_t> resume_run_id;  // --resume: the run finished into, instead of new runs
    // --resume: what that run recorded of its inputs; the files it re-reads must still be them.
    std::optional<Store::ResumeSource> resumed;
    std::string experiment_key;            // a sharded job's --experiment-key (or Slurm's), for the log

    bool is_experiment() const { return arms.size() > 1; }
    // The partitions of each block, in order.
    std::vector<std::vector<uint64_t>> blocks() const;
    // The order in which the arms prove block `block`.
    std::vector<size_t> arm_order(uint64_t block) const;
};

// A fresh run from the command line: loads the manifest with --set, --backend and --db
// applied, expands its axes into arms, takes the shard's partitions, and derives the
// experiment identity. Throws ManifestError, ShardError or RunPlanError (all usage
// errors). `env` supplies the Slurm variables of --shard auto.
RunPlan plan_run(const RunOptions& options, const EnvLookup& env);

// `zkbatch run --resume RUN`: the run recorded in `store` as it was started (manifest
// text and overrides as stored, its backend, its shard). Refuses (RunPlanError) a run
// that finished ok, one still being recorded, one arm of a multi-arm experiment, and one
// whose stored manifest no longer matches its recorded digest.
RunPlan plan_resume(const Store& store, const RunOptions& options);
// The same on the database of options.db_path (default results/zkbatch.db), opened for
// writing first so that runs whose process died read as 'interrupted'.
RunPlan plan_resume(const RunOptions& options);

// Partitions per block when arms are interleaved: enough blocks that slow drifts of the
// machine hit every arm alike, few enough that each block keeps the pipeline full.
inline constexpr uint64_t kExperimentBlocks = 8;

// The order of the arms in a block: a Fisher-Yates shuffle driven by SplitMix64 of (job
// seed, block), random but the same on every machine for a manifest.
std::vector<size_t> block_order(size_t arms, uint64_t seed, uint64_t block);

// The experiment's manifest hash: SHA-256 of the manifest text and the overrides applied.
std::string manifest_hash(const Manifest& manifest);

}  // namespace zkbatch
