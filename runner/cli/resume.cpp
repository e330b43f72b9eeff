#include "cli/resume.hpp"

#include "util/clock.hpp"
#include "cli/exit_codes.hpp"
#include "manifest/limits.hpp"
#include "manifest/manifest.hpp"
#include "pipeline/pipeline.hpp"
#include "plugin_host/plugin_host.hpp"
#include "cluster/shard.hpp"
#include "store/store.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <thread>

namespace zkbatch {

int command_resume(const RunOptions& options, const std::atomic<int>* stop_signal) {
    const std::string db_path = options.db_path.value_or("results/zkbatch.db");
    // Opening for writing marks runs whose process died as 'interrupted'.
    Store store(db_path);
    const int64_t run_id = store.resolve_run(*options.resume_run);
    const Store::ResumeSource source = store.resume_source(run_id);
    // A shard (shard.hpp) resumes its own partitions; one arm of it has no order to break.
    const std::optional<ShardSpec> shard = shard_of_run(store, run_id);
    const bool one_arm = source.experiment_id && store.find_experiments(std::to_string(*source.experiment_id)).at(0).arm_count == 1;
    if (source.experiment_id && !(shard && one_arm)) {
        fmt::print(stderr,
                   "error: run {} is one arm of experiment {}: resuming one arm would break the "
                   "experiment's randomized order. Run the experiment's manifest again instead.\n",
                   run_id, *source.experiment_id);
        return exit_code::usage_error;
    }
    if (source.status == "ok") {
        fmt::print(stderr, "error: run {} in {} finished ok: there is nothing to resume.\n", run_id, db_path);
        return exit_code::usage_error;
    }
    if (source.status == "running") {
        fmt::print(stderr,
                   "error: run {} in {} is still being recorded by a live zkbatch process; wait for "
                   "it, or stop it (Ctrl-C) and resume then.\n",
                   run_id, db_path);
        return exit_code::usage_error;
    }
    // The manifest as it was run (the file may have changed since), with its overrides.
    const Manifest manifest = parse_manifest(source.manifest_text, source.manifest_path, source.overrides);
    require_host_memory(manifest, source.backend_name);

    auto plugin = load_plugin(source.backend_name, options.plugin_path);
    plugin->require_usable();
    Backend backend(plugin, manifest.backend.options_for(source.backend_name), manifest.circuit.log_n,
                    manifest.pipeline.prove_workers, manifest.pipeline.devices);
    std::unique_ptr<ReplayInputs> replay;
    if (manifest.pipeline.replay_inputs > 0)
        replay = std::make_unique<ReplayInputs>(manifest, std::max(1u, std::thread::hardware_concurrency()));

    std::optional<std::filesystem::path> dump_dir;
    if (options.dump_dir) {
        std::error_code ec;
        std::filesystem::create_directories(*options.dump_dir, ec);
        if (ec)
            throw StoreError(fmt::format("cannot create dump directory {}: {}", *options.dump_dir, ec.message()));
        dump_dir = *options.dump_dir;
    }

    const std::vector<uint64_t> kept = store.resume_run(run_id);
    std::vector<uint64_t> missing;
    const std::vector<uint64_t> run_partitions =
        shard ? shard_partitions(*shard, manifest.job.partitions) : all_partitions(manifest);
    for (uint64_t index : run_partitions)
        if (!std::binary_search(kept.begin(), kept.end(), index)) missing.push_back(index);
    spdlog::info("resuming run {}: {} of {} partitions already ok, proving {}", run_id, kept.size(),
                 run_partitions.size(), missing.size());

    PipelineSettings settings;
    settings.manifest = &manifest;
    settings.backend = &backend;
    settings.store = &store;
    settings.run_id = run_id;
    settings.partitions = missing;
    settings.replay = replay.get();
    settings.dump_dir = dump_dir;
    settings.stop_signal = stop_signal;
    settings.show_progress_line = isatty(STDERR_FILENO) && spdlog::get_level() <= spdlog::level::info;
    RunSummary summary;
    try {
        summary = run_pipeline(settings);
    } catch (const StoreError& e) {
        summary.status = RunStatus::failed;
        summary.ended_unix_ns = unix_now_ns();
        summary.error = e.what();
        try {
            store.finish_run(run_id, summary);
        } catch (const StoreError&) {
            // Unwritable: the run becomes 'interrupted' when the database is next opened.
        }
        throw;
    }

    // The totals cover every partition of the run, not only those proved now.
    summary.partitions_ok = kept.size() + summary.partitions_ok;
    if (stop_signal && stop_signal->load() > 0) {
        summary.status = RunStatus::cancelled;
    } else {
        const bool all_ok = summary.partitions_failed == 0 && summary.partitions_ok == run_partitions.size();
        summary.status = all_ok ? RunStatus::ok : RunStatus::failed;
    }
    store.finish_run(run_id, summary);
    fmt::print("run {} (resumed): {}: {} ok, {} failed of {} partitions; {} proved now in {:.2f} s\n", run_id,
               to_string(summary.status), summary.partitions_ok, summary.partitions_failed,
               run_partitions.size(), missing.size(), summary.wall_ms / 1e3);
    if (!summary.error.empty()) fmt::print("stopped because: {}\n", summary.error);
    fmt::print("details: zkbatch show {} --db {}\n", run_id, db_path);
    if (summary.status == RunStatus::cancelled) return exit_code::cancelled;
    return summary.status == RunStatus::ok ? exit_code::ok : exit_code::partition_failed;
}

}  // namespace zkbatch
