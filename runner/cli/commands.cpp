#include "cli/commands.hpp"

#include "util/clock.hpp"
#include "analysis/compare.hpp"
#include "pipeline/environment.hpp"
#include "cli/exit_codes.hpp"
#include "manifest/limits.hpp"
#include "manifest/manifest.hpp"
#include "pipeline/pipeline.hpp"
#include "plugin_host/plugin_host.hpp"
#include "cli/resume.hpp"
#include "cluster/shard.hpp"
#include "report/show.hpp"
#include "store/store.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <tuple>
#include <thread>

namespace zkbatch {

namespace {

std::atomic<int> g_stop_signals{0};

extern "C" void count_stop_signal(int) { g_stop_signals.fetch_add(1); }

// SIGINT/SIGTERM ask the pipeline to stop; the default handlers come back afterwards.
class StopSignals {
public:
    StopSignals() {
        g_stop_signals = 0;
        struct sigaction action {};
        action.sa_handler = count_stop_signal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &old_int_);
        sigaction(SIGTERM, &action, &old_term_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    const std::atomic<int>* counter() const { return &g_stop_signals; }

private:
    struct sigaction old_int_ {}, old_term_{};
};

std::string describe(const Manifest& m) {
    std::string text = fmt::format("job '{}': {} partition{} of 2^{} ({} terms/row), backend {}, verify {}",
                                   m.job.name, m.job.partitions, m.job.partitions == 1 ? "" : "s",
                                   m.circuit.log_n, m.circuit.terms_per_row, m.backend.name,
                                   to_string(m.verify.mode));
    if (!m.axes.empty()) {
        size_t arms = 1;
        std::string axes;
        for (const auto& axis : m.axes) {
            arms *= axis.values.size();
            axes += fmt::format("{}{} ({})", axes.empty() ? "" : ", ", axis.key, fmt::join(axis.values, ", "));
        }
        text += fmt::format("; an experiment of {} arms over {}", arms, axes);
    }
    return text;
}

// Names what was run: the file and the overrides applied to it.
std::string manifest_hash(const Manifest& m) {
    std::string overrides;
    for (const auto& o : m.overrides) overrides += o + "\n";
    return sha256_hex(m.source_text + "\n--set\n" + overrides);
}

RunRecord make_run_record(const Manifest& m, const Plugin& plugin, const Backend& backend) {
    const HostEnvironment host = capture_host_environment();
    RunRecord run;
    run.job_name = m.job.name;
    run.backend_name = plugin.api().name;
    run.backend_version = plugin.api().version;
    run.zkbatch_version = host.zkbatch_version;
    run.git_revision = host.git_revision;
    run.hostname = host.hostname;
    run.cpu_model = host.cpu_model;
    run.cpu_cores = host.cpu_cores;
    run.manifest_path = m.source_path.string();
    run.manifest_text = m.source_text;
    std::string overrides;
    for (const auto& o : m.overrides) overrides += o + "\n";
    run.overrides = overrides;
    run.manifest_sha256 = manifest_hash(m);
    run.log_n = m.circuit.log_n;
    run.partitions = m.job.partitions;
    run.seed = m.job.seed;
    run.terms_per_row = m.circuit.terms_per_row;
    run.synthesis_workers = m.pipeline.synthesis_workers;
    run.prove_workers = m.pipeline.prove_workers;
    run.queue_depth = m.pipeline.queue_depth;
    run.finalize_workers = m.pipeline.finalize_workers;
    run.replay_inputs = m.pipeline.replay_inputs;
    run.on_error = to_string(m.pipeline.on_error);
    run.verify_mode = to_string(m.verify.mode);
    run.verify_every = m.verify.every;
    run.tags = m.output.tags;
    for (auto& [key, value] : backend.facts()) run.facts[key] = value;
    run.devices = device_records(backend, m.pipeline.prove_workers);
    run.facts["plugin.file"] = plugin.file().string();
    run.facts["plugin.abi_version"] = std::to_string(plugin.api().abi_version);
    return run;
}

}  // namespace

int run_guarded(const std::function<int()>& body) {
    try {
        return body();
    } catch (const ManifestError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::usage_error;
    } catch (const PluginError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::plugin_error;
    } catch (const StoreError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::storage_error;
    } catch (const std::exception& e) {
        fmt::print(stderr, "internal error: {}\nThis is a bug in zkbatch; please report it with the command line.\n",
                   e.what());
        return exit_code::internal_error;
    }
}

int command_validate(const std::string& manifest_path, const std::vector<std::string>& overrides) {
    const Manifest manifest = load_manifest(manifest_path, overrides);
    fmt::print("{}: ok: {}\n", manifest_path, describe(manifest));
    // The manifest is valid wherever it runs; say so if `run` would refuse it on this machine.
    if (const auto available = available_host_memory()) {
        const HostMemoryEstimate needed = estimate_host_memory(manifest, manifest.backend.name);
        if (const auto shortfall = host_memory_shortfall(manifest, needed, *available))
            fmt::print("note: `zkbatch run` would refuse it on this machine: {}\n", *shortfall);
    }
    return exit_code::ok;
}

namespace {

// One arm of a `zkbatch run`: its manifest, its backend, its run row, and what its
// blocks of partitions added up to. A plain job is a single arm in a single block.
struct ArmRun {
    Arm arm;
    std::string backend_name;  // backend.name with "auto" resolved
    std::shared_ptr<Plugin> plugin;
    std::unique_ptr<Backend> backend;
    const ReplayInputs* replay = nullptr;
    int64_t run_id = 0;
    uint64_t partitions = 0;   // this run proves: the job's, or one shard's
    std::optional<std::filesystem::path> dump_dir;
    bool stopped = false;  // a partition failed with on_error = "stop", or the run was cancelled
    RunSummary total;      // summed over blocks
};

void add_block(ArmRun& arm, const RunSummary& block) {
    RunSummary& total = arm.total;
    total.wall_ms += block.wall_ms;
    total.partitions_ok += block.partitions_ok;
    total.partitions_failed += block.partitions_failed;
    total.peak_rss_bytes = std::max(total.peak_rss_bytes, block.peak_rss_bytes);
    total.ended_unix_ns = block.ended_unix_ns;
    // Blocks run one after another, so the union of a device's intervals adds up.
    for (const auto& [device, busy_ms] : block.device_busy_ms) total.device_busy_ms[device] += busy_ms;
    if (total.error.empty()) total.error = block.error;
    if (block.status == RunStatus::cancelled) total.status = RunStatus::cancelled;
    if (block.status != RunStatus::ok) arm.stopped = true;
}

RunSummary finished_summary(const ArmRun& arm) {
    RunSummary summary = arm.total;
    if (summary.status != RunStatus::cancelled) {
        const bool all_ok = summary.partitions_failed == 0 && summary.partitions_ok == arm.partitions;
        summary.status = all_ok ? RunStatus::ok : RunStatus::failed;
    }
    return summary;
}

// Partitions per block when arms are interleaved: enough blocks that slow drifts of
// the machine (thermal, other load) hit every arm alike, few enough that each block
// keeps the pipeline full.
constexpr uint64_t kExperimentBlocks = 8;

// The order of the arms in each block: a Fisher-Yates shuffle driven by SplitMix64 of
// (job seed, block), so it is random but the same on every machine for a manifest.
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

}  // namespace

int command_run(const RunOptions& options) {
    if (options.resume_run) {
        StopSignals signals;
        return command_resume(options, signals.counter());
    }
    if (options.manifest_path.empty()) {
        fmt::print(stderr, "error: zkbatch run needs a manifest (or --resume RUN)\n");
        return exit_code::usage_error;
    }
    // --backend and --db act as overrides, so they also replace a list (an axis).
    std::vector<std::string> overrides = options.overrides;
    if (options.backend_name) overrides.push_back("backend.name=" + toml_quoted(*options.backend_name));
    if (options.db_path) overrides.push_back("output.db=" + toml_quoted(*options.db_path));
    // A shard (shard.hpp) and the experiment all shards of its submission record.
    std::optional<ShardSpec> shard;
    std::string experiment_key;
    try {
        if (options.shard) shard = parse_shard(*options.shard, process_environment());
        if (options.experiment_key && !shard) throw ShardError("--experiment-key only applies to a sharded run (--shard)");
        if (shard) {
            if (options.experiment_key) experiment_key = *options.experiment_key;
            else if (auto key = default_experiment_key(process_environment())) experiment_key = *key;
            else
                throw ShardError(fmt::format(
                    "--shard {}: give --experiment-key KEY, the same on every shard of this job (e.g. "
                    "nightly-2025-03-01), so the merged shards form one experiment", *options.shard));
            if (experiment_key.empty()) throw ShardError("--experiment-key: the key must not be empty");
        }
    } catch (const ShardError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::usage_error;
    }
    const Manifest manifest = load_manifest(options.manifest_path, overrides);
    const std::vector<uint64_t> run_partitions =
        shard ? shard_partitions(*shard, manifest.job.partitions) : all_partitions(manifest);
    std::vector<ArmRun> arms;
    for (Arm& arm : expand_arms(manifest)) {
        arms.emplace_back();
        arms.back().arm = std::move(arm);
    }
    const bool experiment = arms.size() > 1;
    spdlog::info("{}", describe(manifest));
    if (shard)
        spdlog::info("shard {}: {} of the job's {} partitions (those with index mod {} = {})", shard->text(),
                     run_partitions.size(), manifest.job.partitions, shard->count, shard->index);

    // Before the store or any backend allocates anything: too little memory is a usage error.
    for (ArmRun& arm : arms) {
        arm.backend_name = arm.arm.manifest.backend.name;
        if (arm.backend_name == "auto") {
            std::string why;
            arm.backend_name = resolve_auto_backend(options.plugin_path, &why);
            spdlog::info("backend auto: {}", why);
        }
        require_host_memory(arm.arm.manifest, arm.backend_name);
    }

    // Open the store first: a bad database path should fail before a GPU pool is pinned.
    Store store(manifest.output.db);

    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::unique_ptr<ReplayInputs>> replays;
    for (ArmRun& arm : arms) {
        const Manifest& m = arm.arm.manifest;
        arm.plugin = load_plugin(arm.backend_name, options.plugin_path);
        arm.plugin->require_usable();
        const int64_t setup_start_ns = steady_now_ns();
        arm.backend = std::make_unique<Backend>(arm.plugin, m.backend.options_for(arm.backend_name), m.circuit.log_n,
                                                m.pipeline.prove_workers, m.pipeline.devices);
        spdlog::info("backend {} {} ready in {:.1f} ms ({}){}", arm.plugin->api().name,
                     arm.plugin->api().version, ns_to_ms(steady_now_ns() - setup_start_ns),
                     arm.plugin->file().string(), experiment ? " for arm " + arm.arm.label : "");
        if (m.pipeline.replay_inputs > 0) {
            // Arms that prove the same circuit share the same replayed inputs.
            auto& replay = replays[{m.circuit.log_n, m.circuit.terms_per_row, m.pipeline.replay_inputs}];
            if (!replay) {
                replay = std::make_unique<ReplayInputs>(m, std::max(1u, std::thread::hardware_concurrency()));
                spdlog::info("replay: {} input set(s) of 2^{} synthesized in {:.1f} ms", replay->set_count(),
                             m.circuit.log_n, replay->setup_ms());
            }
            arm.replay = replay.get();
        }
    }

    std::optional<std::filesystem::path> dump_dir;
    if (options.dump_dir) {
        std::error_code ec;
        std::filesystem::create_directories(*options.dump_dir, ec);
        if (ec)
            throw StoreError(fmt::format("cannot create dump directory {}: {}", *options.dump_dir,
                                         ec.message()));
        dump_dir = *options.dump_dir;
    }

    const uint64_t partitions = run_partitions.size();
    const uint64_t block_size = experiment ? std::max<uint64_t>(1, (partitions + kExperimentBlocks - 1) / kExperimentBlocks)
                                           : std::max<uint64_t>(1, partitions);
    std::optional<int64_t> experiment_id;
    if (experiment || shard) {
        ExperimentRecord record;
        record.name = manifest.job.name;
        record.order_method = experiment ? "randomized-blocks" : "single-arm";
        record.block_partitions = static_cast<uint32_t>(block_size);
        record.arm_count = static_cast<uint32_t>(arms.size());
        record.manifest_sha256 = manifest_hash(manifest);
        record.created_unix_ns = unix_now_ns();
        if (shard) {
            // Every shard of the submission records the same uuid; shards sharing one
            // database (on one host) share its row.
            std::vector<std::string> identity = options.overrides;
            if (options.backend_name) identity.push_back("backend.name=" + toml_quoted(*options.backend_name));
            record.uuid = shard_experiment_uuid(manifest.source_text, identity, shard->count, experiment_key);
            for (const ExperimentRow& row : store.find_experiments(record.uuid))
                if (row.uuid == record.uuid) experiment_id = row.id;
        }
        if (!experiment_id) experiment_id = store.begin_experiment(record);
        if (experiment)
            spdlog::info("experiment {}: {} arms, blocks of {} partitions in randomized order", *experiment_id,
                         arms.size(), block_size);
        if (shard)
            spdlog::info("experiment {} (uuid {}, key '{}') holds every shard of this job", *experiment_id,
                         record.uuid, experiment_key);
    }
    for (ArmRun& arm : arms) {
        RunRecord run = make_run_record(arm.arm.manifest, *arm.plugin, *arm.backend);
        if (arm.replay) run.facts["replay.setup_ms"] = fmt::format("{:.3f}", arm.replay->setup_ms());
        run.experiment_id = experiment_id;
        run.arm = arm.arm.label;
        if (shard) {
            run.shard_index = shard->index;
            run.shard_count = shard->count;
        }
        arm.partitions = partitions;
        run.started_unix_ns = unix_now_ns();
        run.started_steady_ns = steady_now_ns();
        arm.run_id = store.begin_run(run);
        if (dump_dir) {  // arms prove the same partitions: each gets its own folder
            arm.dump_dir = experiment ? *dump_dir / fmt::format("run{}", arm.run_id) : *dump_dir;
            std::filesystem::create_directories(*arm.dump_dir);
        }
        spdlog::info("run {} started{}, recording to {}", arm.run_id,
                     experiment ? " (arm " + arm.arm.label + ")" : "", manifest.output.db);
    }

    StopSignals signals;
    const bool live_line = isatty(STDERR_FILENO) && spdlog::get_level() <= spdlog::level::info;
    for (uint64_t block = 0, first = 0; first < partitions; ++block, first += block_size) {
        std::vector<uint64_t> indices(run_partitions.begin() + static_cast<ptrdiff_t>(first),
                                      run_partitions.begin() + static_cast<ptrdiff_t>(std::min(partitions, first + block_size)));
        for (size_t which : block_order(arms.size(), manifest.job.seed, block)) {
            ArmRun& arm = arms[which];
            if (arm.stopped || signals.counter()->load() > 0) continue;
            PipelineSettings settings;
            settings.manifest = &arm.arm.manifest;
            settings.backend = arm.backend.get();
            settings.store = &store;
            settings.run_id = arm.run_id;
            settings.partitions = indices;
            settings.replay = arm.replay;
            settings.dump_dir = arm.dump_dir;
            settings.stop_signal = signals.counter();
            settings.show_progress_line = live_line;
            try {
                add_block(arm, run_pipeline(settings));
            } catch (const StoreError& e) {
                for (ArmRun& each : arms) {
                    RunSummary failed = finished_summary(each);
                    failed.status = RunStatus::failed;
                    failed.ended_unix_ns = unix_now_ns();
                    failed.error = e.what();
                    try {
                        store.finish_run(each.run_id, failed);
                    } catch (const StoreError&) {
                        // The database is unwritable; the runs become 'interrupted' when it is next opened.
                    }
                }
                throw;
            }
        }
    }
    if (signals.counter()->load() > 0)
        for (ArmRun& arm : arms) arm.total.status = RunStatus::cancelled;

    int exit = exit_code::ok;
    for (ArmRun& arm : arms) {
        const RunSummary summary = finished_summary(arm);
        store.finish_run(arm.run_id, summary);
        const double per_hour = summary.wall_ms > 0 ? summary.partitions_ok * 3.6e6 / summary.wall_ms : 0;
        fmt::print("run {}{}: {}: {} ok, {} failed of {} partitions in {:.2f} s ({:.0f} partitions/h)\n",
                   arm.run_id, experiment ? " [" + arm.arm.label + "]" : "", to_string(summary.status),
                   summary.partitions_ok, summary.partitions_failed, partitions, summary.wall_ms / 1e3, per_hour);
        if (const auto busy = store.run_overview(arm.run_id).gpu_busy_fraction)
            fmt::print("GPU busy {:.1f}% of wall time\n", *busy * 100);
        if (!summary.error.empty()) fmt::print("stopped because: {}\n", summary.error);
        if (summary.status == RunStatus::cancelled)
            exit = exit_code::cancelled;
        else if (summary.status != RunStatus::ok && exit == exit_code::ok)
            exit = exit_code::partition_failed;
    }
    if (experiment) {
        // Each arm against the first: the A/B the experiment was run for.
        for (size_t i = 1; i < arms.size(); ++i) {
            const RunSelection first{std::to_string(arms.front().run_id), {arms.front().run_id}};
            const RunSelection other{std::to_string(arms[i].run_id), {arms[i].run_id}};
            fmt::print("\n{}", format_comparison(compare_runs(store, first, other), CompareFormat::table));
        }
        fmt::print("details: zkbatch show RUN --db {} for runs {}..{} (experiment {})\n", manifest.output.db,
                   arms.front().run_id, arms.back().run_id, *experiment_id);
    }
    else
        fmt::print("details: zkbatch show {} --db {}\n", arms.front().run_id, manifest.output.db);
    return exit;
}

int command_backends(const std::string& plugin_path) {
    const auto listings = list_plugins(plugin_path);
    if (listings.empty()) {
        fmt::print("no plugins found; searched:\n");
        for (const auto& folder : plugin_search_folders(plugin_path)) fmt::print("  {}\n", folder.string());
        return exit_code::plugin_error;
    }
    fmt::print("{:<16} {:<9} {:<4} {:<8} {}\n", "NAME", "VERSION", "ABI", "USABLE", "DESCRIPTION");
    for (const auto& p : listings) {
        if (!p.shadowed_by.empty()) {
            fmt::print("{:<16} {:<9} {:<4} {:<8} {}\n", p.name, "-", "-", "-",
                       "shadowed by an earlier plugin of the same name");
            fmt::print("{:<16} file: {}\n{:<16} used instead: {}\n", "", p.file.string(), "",
                       p.shadowed_by.string());
            continue;
        }
        if (p.loaded)
            fmt::print("{:<16} {:<9} {:<4} {:<8} {}\n", p.name, p.version, p.abi_version,
                       p.usable ? "yes" : "no", p.description);
        else
            fmt::print("{:<16} {:<9} {:<4} {:<8} {}\n", p.name, "-", "-", "no", "cannot be loaded");
        fmt::print("{:<16} file: {}\n", "", p.file.string());
        if (!p.usable && !p.why.empty()) fmt::print("{:<16} why not: {}\n", "", p.why);
    }
    return exit_code::ok;
}

int command_runs(const std::string& db_path) {
    Store store = Store::open_existing(db_path);
    // A reader cannot mark runs whose process died as 'interrupted'; a writer's open
    // does, where the database can be written (else they keep showing 'running').
    const auto rows = store.list_runs();
    if (std::any_of(rows.begin(), rows.end(), [](const RunListRow& row) { return row.status == "running"; })) {
        try {
            store = Store(db_path);
        } catch (const StoreError&) {
        }
    }
    fmt::print("{}", format_run_list(store.list_runs()));
    return exit_code::ok;
}

int command_show(const std::string& run_selector, const std::string& db_path) {
    const Store store = Store::open_existing(db_path);
    fmt::print("{}", format_run_details(store, store.resolve_run(run_selector)));
    return exit_code::ok;
}

}  // namespace zkbatch
