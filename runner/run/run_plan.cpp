// Planning a run (run_plan.hpp).
#include "run/run_plan.hpp"

#include "pipeline/pipeline.hpp"
#include "util/sha256.hpp"

#include "core/groth16/zkey.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <glob.h>

#include <algorithm>
#include <set>

namespace zkbatch {

namespace {

constexpr const char* kDefaultDb = "results/zkbatch.db";

std::string joined_overrides(const Manifest& m) {
    std::string overrides;
    for (const auto& o : m.overrides) overrides += o + "\n";
    return overrides;
}

// --shard and --experiment-key: the shard, and the key all shards of one submission share.
std::optional<ShardSpec> planned_shard(const RunOptions& options, const EnvLookup& env, std::string& key) {
    if (options.experiment_key && !options.shard)
        throw ShardError("--experiment-key only applies to a sharded run (--shard)");
    if (!options.shard) return std::nullopt;
    const ShardSpec shard = parse_shard(*options.shard, env);
    if (options.experiment_key) key = *options.experiment_key;
    else if (auto slurm_key = default_experiment_key(env)) key = *slurm_key;
    else
        throw ShardError(fmt::format(
            "--shard {}: give --experiment-key KEY, the same on every shard of this job (e.g. "
            "nightly-2025-03-01), so the merged shards form one experiment", *options.shard));
    if (key.empty()) throw ShardError("--experiment-key: the key must not be empty");
    if (key.size() > kMaxNameBytes)
        throw ShardError(fmt::format("--experiment-key: the key is {} bytes long; at most {} are accepted", key.size(),
                                     kMaxNameBytes));
    return shard;
}

// The files circuit.witnesses names, sorted, each once: every pattern through glob(3),
// which matches names and runs nothing (no shell, no command substitution).
std::vector<std::string> witness_files(const std::vector<std::string>& patterns) {
    std::set<std::string> files;
    for (const std::string& pattern : patterns) {
        glob_t matches{};
        const int rc = ::glob(pattern.c_str(), GLOB_ERR | GLOB_NOSORT, nullptr, &matches);
        for (size_t i = 0; rc == 0 && i < matches.gl_pathc; ++i) files.insert(matches.gl_pathv[i]);
        ::globfree(&matches);
        if (rc == GLOB_NOMATCH || (rc == 0 && matches.gl_pathc == 0))
            throw RunPlanError(fmt::format("circuit.witnesses: \"{}\" matches no file (relative paths are relative to "
                                           "the current folder)", pattern));
        if (rc != 0) throw RunPlanError(fmt::format("circuit.witnesses: cannot read the folders of \"{}\"", pattern));
    }
    return {files.begin(), files.end()};
}

// A .zkey job's partitions are its witness files, and its domain is the key's: filled
// in from the files (or, for a resumed run, from what the run recorded).
void resolve_zkey_job(Manifest& m, const std::vector<std::string>* recorded_witnesses) {
    if (m.circuit.kind != CircuitKind::zkey) return;
    m.circuit.witness_files = recorded_witnesses ? *recorded_witnesses : witness_files(m.circuit.witnesses);
    if (m.circuit.witness_files.size() > kMaxPartitions)
        throw RunPlanError(fmt::format("circuit.witnesses matches {} files; a run proves at most {} partitions",
                                       m.circuit.witness_files.size(), kMaxPartitions));
    m.job.partitions = static_cast<uint32_t>(m.circuit.witness_files.size());
    const groth16::ZkeyHeader header = groth16::read_zkey_header(m.circuit.zkey);
    m.circuit.log_n = header.log_n;
    if (m.circuit.curve && *m.circuit.curve != header.curve)
        throw RunPlanError(fmt::format("circuit.curve = \"{}\", but {} is a {} key: remove circuit.curve or give the "
                                       "key of the curve meant",
                                       curve::name(*m.circuit.curve), m.circuit.zkey, curve::name(header.curve)));
    m.circuit.curve = header.curve;
}

}  // namespace

std::string manifest_hash(const Manifest& manifest) {
    return sha256_hex(manifest.source_text + "\n--set\n" + joined_overrides(manifest));
}

std::vector<size_t> block_order(size_t arms, uint64_t seed, uint64_t block) {
    std::vector<size_t> order(arms);
    for (size_t i = 0; i < arms; ++i) order[i] = i;
    uint64_t state = seed ^ (0x9e3779b97f4a7c15ULL * (block + 1));
    auto next = [&state] {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    };
    for (size_t i = arms; i > 1; --i) std::swap(order[i - 1], order[next() % i]);
    return order;
}

std::vector<std::vector<uint64_t>> RunPlan::blocks() const {
    std::vector<std::vector<uint64_t>> result;
    for (size_t first = 0; first < partitions.size(); first += block_partitions) {
        const size_t end = std::min(partitions.size(), first + block_partitions);
        result.emplace_back(partitions.begin() + static_cast<ptrdiff_t>(first),
                            partitions.begin() + static_cast<ptrdiff_t>(end));
    }
    return result;
}

std::vector<size_t> RunPlan::arm_order(uint64_t block) const {
    return block_order(arms.size(), manifest.job.seed, block);
}

RunPlan plan_run(const RunOptions& options, const EnvLookup& env) {
    if (options.manifest_path.empty()) throw RunPlanError("zkbatch run needs a manifest (or --resume RUN)");
    RunPlan plan;
    plan.shard = planned_shard(options, env, plan.experiment_key);
    // --backend and --db act as overrides, so they also replace a list (an axis).
    std::vector<std::string> overrides = options.overrides;
    if (options.backend_name) overrides.push_back("backend.name=" + toml_quoted(*options.backend_name));
    if (options.db_path) overrides.push_back("output.db=" + toml_quoted(*options.db_path));
    plan.manifest = options.manifest_text ? parse_manifest(*options.manifest_text, options.manifest_path, overrides)
                                          : load_manifest(options.manifest_path, overrides);
    resolve_zkey_job(plan.manifest, nullptr);
    const Manifest& m = plan.manifest;

    plan.db_path = m.output.db;
    plan.plugin_path = options.plugin_path;
    if (options.dump_dir) plan.dump_dir = *options.dump_dir;
    plan.partitions = plan.shard ? shard_partitions(*plan.shard, m.job.partitions) : all_partitions(m);
    for (Arm& arm : expand_arms(m)) {
        resolve_zkey_job(arm.manifest, &m.circuit.witness_files);
        plan.arms.push_back({std::move(arm.label), arm.manifest, arm.manifest.backend.name});
    }
    const uint64_t count = plan.partitions.size();
    plan.block_partitions = plan.is_experiment()
                                ? std::max<uint64_t>(1, (count + kExperimentBlocks - 1) / kExperimentBlocks)
                                : std::max<uint64_t>(1, count);

    if (plan.is_experiment() || plan.shard) {
        ExperimentRecord& record = plan.experiment.emplace();
        record.name = m.job.name;
        record.order_method = plan.is_experiment() ? "randomized-blocks" : "single-arm";
        record.block_partitions = static_cast<uint32_t>(plan.block_partitions);
        record.arm_count = static_cast<uint32_t>(plan.arms.size());
        record.manifest_sha256 = manifest_hash(m);
        if (plan.shard) {
            // Every shard of the submission records the same uuid (--db left out: it
            // differs per shard).
            std::vector<std::string> identity = options.overrides;
            if (options.backend_name) identity.push_back("backend.name=" + toml_quoted(*options.backend_name));
            record.uuid = shard_experiment_uuid(m.source_text, identity, plan.shard->count, plan.experiment_key);
        }
    }
    return plan;
}

RunPlan plan_resume(const Store& store, const RunOptions& options) {
    const int64_t run_id = store.resolve_run(*options.resume_run);
    const Store::ResumeSource source = store.resume_source(run_id);
    const std::string db = store.path().string();
    // A shard resumes its own partitions; one arm of it has no order to break.
    const std::optional<ShardSpec> shard = shard_of_run(store, run_id);
    if (source.experiment_id) {
        const std::optional<ExperimentRow> experiment = store.experiment(*source.experiment_id);
        if (!(shard && experiment && experiment->arm_count == 1))
            throw RunPlanError(fmt::format(
                "run {} is one arm of experiment {}: resuming one arm would break the experiment's randomized "
                "order. Run the experiment's manifest again instead.",
                run_id, *source.experiment_id));
    }
    if (source.status == "ok")
        throw RunPlanError(fmt::format("run {} in {} finished ok: there is nothing to resume.", run_id, db));
    if (source.status == "running")
        throw RunPlanError(fmt::format("run {} in {} is still being recorded by a live zkbatch process; wait for it, "
                                       "or stop it (Ctrl-C) and resume then.", run_id, db));

    RunPlan plan;
    // The manifest as it was run (the file may have changed since), with its overrides.
    plan.manifest = parse_manifest(source.manifest_text, source.manifest_path, source.overrides);
    if (manifest_hash(plan.manifest) != source.manifest_sha256)
        throw RunPlanError(fmt::format("run {} in {}: its stored manifest and overrides no longer match the digest "
                                       "recorded with them ({}): the database was changed since. Prove the job in a "
                                       "new run.",
                                       run_id, db, source.manifest_sha256));
    resolve_zkey_job(plan.manifest, &source.witnesses);  // the files the run proved, not today's matches
    plan.db_path = store.path();
    plan.plugin_path = options.plugin_path;
    if (options.dump_dir) plan.dump_dir = *options.dump_dir;
    plan.shard = shard;
    plan.partitions = shard ? shard_partitions(*shard, plan.manifest.job.partitions) : all_partitions(plan.manifest);
    plan.block_partitions = std::max<uint64_t>(1, plan.partitions.size());
    plan.arms.push_back({"", plan.manifest, source.backend_name});
    plan.resume_run_id = run_id;
    plan.resumed = source;
    return plan;
}

RunPlan plan_resume(const RunOptions& options) {
    // Opening for writing marks runs whose process died as 'interrupted'.
    const Store store(options.db_path.value_or(kDefaultDb));
    return plan_resume(store, options);
}

}  // namespace zkbatch
