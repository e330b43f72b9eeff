// Shards of a job: `zkbatch run MANIFEST --shard I/N` proves partitions I, I+N, I+2N, ...
// so N hosts (or Slurm array tasks) share a job evenly, each writing its own database
// that `zkbatch merge` folds into one history afterwards.
//
// A sharded job is always recorded as an experiment (even with a single arm): each
// shard runs every arm on its partitions, and all its runs carry the same experiment
// uuid, derived from the manifest, N and an experiment key that every shard of one
// submission shares. Merged, the shards' runs are one experiment, so
// `compare experiment=UUID ...` pools them like a single run.
#pragma once

#include "util/usage_error.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {

// A bad --shard or --experiment-key, or Slurm variables that do not describe a shard:
// a usage error (exit 2). The message says what was given and what to give instead.
struct ShardError : UsageError {
    using UsageError::UsageError;
};

// Shard `index` of `count` (index < count).
struct ShardSpec {
    uint32_t index = 0;
    uint32_t count = 1;
    std::string text() const;  // "I/N"
};

// Reads an environment variable; null when unset. Tests pass their own.
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_environment();

// "I/N" (0 <= I < N), or "auto": the Slurm job-array task, I = SLURM_ARRAY_TASK_ID -
// SLURM_ARRAY_TASK_MIN, N = SLURM_ARRAY_TASK_COUNT; the array must be contiguous
// (--array=A-B, SLURM_ARRAY_TASK_MAX - MIN + 1 = COUNT). Throws ShardError.
ShardSpec parse_shard(const std::string& text, const EnvLookup& env);

// The shard a recorded run proved (its shard_index/shard_count columns); none for a
// run of a whole job. Throws StoreError for an unknown run, and for one recording a shard
// no run has (a count of 0 or beyond the largest, an index not below it).
class Store;
std::optional<ShardSpec> shard_of_run(const Store& store, int64_t run_id);

// The partitions shard `shard` proves of a job of `partitions`: index, index + count, ...
std::vector<uint64_t> shard_partitions(const ShardSpec& shard, uint64_t partitions);

// The key naming one submission of a sharded job when --experiment-key is not given:
// under Slurm "slurm-<cluster>-<SLURM_ARRAY_JOB_ID>" (every task of an array shares
// it); elsewhere none (the caller asks for --experiment-key).
std::optional<std::string> default_experiment_key(const EnvLookup& env);

// The experiment uuid every shard of one submission records: 32 hex digits of
// SHA-256 over (manifest text, the --set/--backend overrides except output.db,
// shard count, experiment key). --db differs per shard and so is left out.
std::string shard_experiment_uuid(const std::string& manifest_text,
                                  const std::vector<std::string>& overrides, uint32_t shard_count,
                                  const std::string& experiment_key);

}  // namespace zkbatch
