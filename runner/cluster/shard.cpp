#include "cluster/shard.hpp"

#include "store/store.hpp"
#include "util/parse_number.hpp"
#include "util/sha256.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace zkbatch {

namespace {

// Shard counts beyond this are a typo, not a cluster (and keep I/N within 32 bits).
constexpr uint64_t kMaxShards = 1'000'000;

ShardSpec checked(uint64_t index, uint64_t count, const std::string& given) {
    if (count < 1 || count > kMaxShards)
        throw ShardError(fmt::format("--shard {}: the shard count N must be 1..{}, found {}", given,
                                     kMaxShards, count));
    if (index >= count)
        throw ShardError(fmt::format("--shard {}: the shard index I must be below N (shards are "
                                     "numbered 0..{}), found {}", given, count - 1, index));
    return {static_cast<uint32_t>(index), static_cast<uint32_t>(count)};
}

ShardSpec shard_from_slurm(const EnvLookup& env) {
    const char* names[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"};
    uint64_t values[3] = {};
    for (int i = 0; i < 3; ++i) {
        const char* text = env(names[i]);
        if (!text)
            throw ShardError(fmt::format(
                "--shard auto: {} is not set, so this is not a Slurm job-array task. Give the shard "
                "as --shard I/N, or run inside `sbatch --array=0-<N-1>` (zkbatch slurm writes such "
                "a script)", names[i]));
        const auto value = parse_number<uint64_t>(text);
        if (!value)
            throw ShardError(fmt::format("--shard auto: {}='{}' is not a whole number", names[i], text));
        values[i] = *value;
    }
    const uint64_t id = values[0], min = values[1], count = values[2];
    // A stepped or listed array (--array=0-7:2, --array=1,5) leaves gaps: shard
    // indices would then not cover 0..N-1 and some partitions would never be proved.
    const char* max_text = env("SLURM_ARRAY_TASK_MAX");
    const auto max = max_text ? parse_number<uint64_t>(max_text) : std::nullopt;
    if (id < min || (max && *max - min + 1 != count))
        throw ShardError(fmt::format(
            "--shard auto: the job array is not contiguous (task {}, min {}, max {}, count {}). "
            "Submit it with --array=0-{} (no step, no list)",
            id, min, max_text ? max_text : "unset", count, count == 0 ? 0 : count - 1));
    return checked(id - min, count, fmt::format("auto (SLURM_ARRAY_TASK_ID={})", id));
}

}  // namespace

std::string ShardSpec::text() const { return fmt::format("{}/{}", index, count); }

EnvLookup process_environment() {
    return [](const char* name) -> const char* { return std::getenv(name); };
}

ShardSpec parse_shard(const std::string& text, const EnvLookup& env) {
    if (text == "auto") return shard_from_slurm(env);
    const size_t slash = text.find('/');
    const auto index = slash == std::string::npos ? std::nullopt : parse_number<uint64_t>(std::string_view(text).substr(0, slash));
    const auto count = slash == std::string::npos ? std::nullopt : parse_number<uint64_t>(std::string_view(text).substr(slash + 1));
    if (!index || !count)
        throw ShardError(fmt::format("--shard '{}': expected I/N (shard I of N, e.g. 0/4) or auto "
                                     "(from the Slurm job array)", text));
    return checked(*index, *count, text);
}

std::optional<ShardSpec> shard_of_run(const Store& store, int64_t run_id) {
    std::optional<int64_t> index, count;
    for (const auto& [column, value] : store.run_row(run_id)) {
        if (const auto* number = std::get_if<int64_t>(&value)) {
            if (column == "shard_index") index = *number;
            if (column == "shard_count") count = *number;
        }
    }
    if (!index && !count) return std::nullopt;
    // A shard no run has (a count of 2^32 would wrap to 0 and never end the partition
    // list): refused, not planned.
    if (!index || !count || *count < 1 || *count > static_cast<int64_t>(kMaxShards) || *index < 0 || *index >= *count)
        throw StoreError(fmt::format("{}: run {} records shard {} of {}, which no run has: the database is damaged.",
                                     store.path().string(), run_id, index ? std::to_string(*index) : "NULL",
                                     count ? std::to_string(*count) : "NULL"));
    return ShardSpec{static_cast<uint32_t>(*index), static_cast<uint32_t>(*count)};
}

std::vector<uint64_t> shard_partitions(const ShardSpec& shard, uint64_t partitions) {
    std::vector<uint64_t> indices;
    for (uint64_t p = shard.index; p < partitions; p += shard.count) indices.push_back(p);
    return indices;
}

std::optional<std::string> default_experiment_key(const EnvLookup& env) {
    const char* job = env("SLURM_ARRAY_JOB_ID");
    if (!job || !*job) return std::nullopt;
    const char* cluster = env("SLURM_CLUSTER_NAME");
    return fmt::format("slurm-{}-{}", cluster && *cluster ? cluster : "cluster", job);
}

std::string shard_experiment_uuid(const std::string& manifest_text,
                                  const std::vector<std::string>& overrides, uint32_t shard_count,
                                  const std::string& experiment_key) {
    std::string identity = "zkbatch sharded job\n" + manifest_text + "\n--set\n";
    for (const std::string& o : overrides)
        if (!o.starts_with("output.db=")) identity += o + "\n";
    identity += fmt::format("--shards {}\n--experiment-key {}\n", shard_count, experiment_key);
    return sha256_hex(identity).substr(0, 32);
}

}  // namespace zkbatch
