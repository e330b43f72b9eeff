// `zkbatch slurm MANIFEST --shards N`: runs a job on a Slurm cluster as a job array of
// N shards (shard.hpp) plus a merge job that starts once every shard succeeded
// (--dependency=afterok) and folds the shard databases into one history (merge.hpp).
//
// It writes, into one folder: shards.sbatch (the array), merge.sbatch, submit.sh
// (both sbatch calls, chained) and logs/. Each array task proves into a database on
// its node's local disk ($TMPDIR) and copies it into the folder when it ends: SQLite's
// WAL mode must not be used over a network file system. With --submit, zkbatch runs
// sbatch itself and prints the job ids.
#pragma once

#include "util/usage_error.hpp"

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

namespace zkbatch {

struct SlurmOptions {
    std::string manifest_path;
    uint32_t shards = 0;                       // --shards N: array tasks 0..N-1
    uint32_t gpus_per_task = 0;                // --gpus-per-task K: --gres=gpu:K when K > 0
    std::optional<std::string> out_dir;        // --out DIR (default results/slurm/JOB-YYYYmmdd-HHMMSS)
    std::optional<std::string> history_path;   // --into HISTORY.db (default the manifest's output.db)
    std::optional<std::string> backend_name;   // --backend, passed to every shard
    std::vector<std::string> overrides;        // --set KEY=VALUE, passed to every shard
    std::string plugin_path;                   // --plugin-path, passed to every shard
    std::vector<std::string> sbatch_options;   // after `--`: given to both sbatch calls
    bool submit = false;                       // --submit: run sbatch now
};

// The files `zkbatch slurm` writes, as text (tests read them without Slurm).
struct SlurmScripts {
    std::string shards_sbatch, merge_sbatch, submit_sh;
};

// `zkbatch_path`, `manifest_path`, `out_dir` and `history_path` must be absolute.
SlurmScripts make_slurm_scripts(const SlurmOptions& options, const std::string& job_name,
                                const std::string& zkbatch_path, const std::string& manifest_path,
                                const std::string& out_dir, const std::string& history_path);

// `text` quoted for a POSIX shell: 'it'\''s'.
std::string shell_quoted(const std::string& text);

// A `zkbatch slurm` the options cannot make (exit 2); the message says what to give instead.
struct SlurmError : UsageError {
    using UsageError::UsageError;
};

// The scripts `zkbatch slurm` wrote.
struct SlurmJob {
    std::filesystem::path out_dir;   // shards.sbatch, merge.sbatch, submit.sh and logs/
    std::filesystem::path history;   // the database the merge job writes
    std::optional<std::string> warning;  // e.g. more shards than partitions
};

// Loads the manifest with the options' --set and --backend (ManifestError for a bad
// one), checks every path the scripts name (SlurmError for one no quoting can carry:
// a newline), and writes the three scripts and logs/ into --out, or
// results/slurm/JOB-YYYYmmdd-HHMMSS (StoreError when it cannot).
SlurmJob write_slurm_job(const SlurmOptions& options);

// The job ids sbatch gave the shard array and the merge job.
struct SlurmSubmission {
    std::string shards_job, merge_job;
};
// `--submit`: sbatch --parsable for the array, then for the merge with
// --dependency=afterok on it. Throws SlurmError with sbatch's failure (and, when only
// the merge failed, how to submit it by hand).
SlurmSubmission submit_slurm_job(const SlurmJob& job, const SlurmOptions& options);

}  // namespace zkbatch
