#include "commands.hpp"

#include "clock.hpp"
#include "environment.hpp"
#include "exit_codes.hpp"
#include "limits.hpp"
#include "manifest.hpp"
#include "pipeline.hpp"
#include "plugin_host.hpp"
#include "show.hpp"
#include "store.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
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
    return fmt::format("job '{}': {} partition{} of 2^{} ({} terms/row), backend {}, verify {}",
                       m.job.name, m.job.partitions, m.job.partitions == 1 ? "" : "s",
                       m.circuit.log_n, m.circuit.terms_per_row, m.backend.name,
                       to_string(m.verify.mode));
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
    // The hash names what was run: the file and the overrides applied to it.
    run.manifest_sha256 = sha256_hex(m.source_text + "\n--set\n" + overrides);
    run.log_n = m.circuit.log_n;
    run.partitions = m.job.partitions;
    run.seed = m.job.seed;
    run.terms_per_row = m.circuit.terms_per_row;
    run.synthesis_workers = m.pipeline.synthesis_workers;
    run.prove_workers = m.pipeline.prove_workers;
    run.queue_depth = m.pipeline.queue_depth;
    run.verify_mode = to_string(m.verify.mode);
    run.tags = m.output.tags;
    for (auto& [key, value] : backend.facts()) run.facts[key] = value;
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

int command_run(const RunOptions& options) {
    Manifest manifest = load_manifest(options.manifest_path, options.overrides);
    if (options.backend_name) manifest.backend.name = *options.backend_name;
    if (options.db_path) manifest.output.db = *options.db_path;
    spdlog::info("{}", describe(manifest));

    std::string backend_name = manifest.backend.name;
    if (backend_name == "auto") {
        std::string why;
        backend_name = resolve_auto_backend(options.plugin_path, &why);
        spdlog::info("backend auto: {}", why);
    }
    // Before the store or the backend allocates anything: too little memory is a usage error.
    require_host_memory(manifest, backend_name);

    // Open the store first: a bad database path should fail before a GPU pool is pinned.
    Store store(manifest.output.db);

    auto plugin = load_plugin(backend_name, options.plugin_path);
    plugin->require_usable();
    const int64_t setup_start_ns = steady_now_ns();
    Backend backend(plugin, manifest.backend.options, manifest.circuit.log_n,
                    manifest.pipeline.prove_workers);
    spdlog::info("backend {} {} ready in {:.1f} ms ({})", plugin->api().name, plugin->api().version,
                 ns_to_ms(steady_now_ns() - setup_start_ns), plugin->file().string());

    std::optional<ReplayInputs> replay;
    if (manifest.pipeline.replay_inputs > 0) {
        replay.emplace(manifest, std::max(1u, std::thread::hardware_concurrency()));
        spdlog::info("replay: {} input set(s) synthesized in {:.1f} ms", replay->set_count(),
                     replay->setup_ms());
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

    RunRecord run = make_run_record(manifest, *plugin, backend);
    if (replay) run.facts["replay.setup_ms"] = fmt::format("{:.3f}", replay->setup_ms());
    run.started_unix_ns = unix_now_ns();
    run.started_steady_ns = steady_now_ns();
    const int64_t run_id = store.begin_run(run);
    spdlog::info("run {} started, recording to {}", run_id, manifest.output.db);

    StopSignals signals;
    PipelineSettings settings;
    settings.manifest = &manifest;
    settings.backend = &backend;
    settings.store = &store;
    settings.run_id = run_id;
    settings.partitions = all_partitions(manifest);
    settings.replay = replay ? &*replay : nullptr;
    settings.dump_dir = dump_dir;
    settings.stop_signal = signals.counter();
    settings.show_progress_line = isatty(STDERR_FILENO) && spdlog::get_level() <= spdlog::level::info;

    RunSummary summary;
    try {
        summary = run_pipeline(settings);
    } catch (const StoreError& e) {
        RunSummary failed;
        failed.status = RunStatus::failed;
        failed.ended_unix_ns = unix_now_ns();
        failed.error = e.what();
        try {
            store.finish_run(run_id, failed);
        } catch (const StoreError&) {
            // The database is unwritable; the run stays "running" and the error below says why.
        }
        throw;
    }
    store.finish_run(run_id, summary);

    const double per_hour = summary.wall_ms > 0 ? summary.partitions_ok * 3.6e6 / summary.wall_ms : 0;
    fmt::print("run {}: {}: {} ok, {} failed of {} partitions in {:.2f} s ({:.0f} partitions/h)\n",
               run_id, to_string(summary.status), summary.partitions_ok, summary.partitions_failed,
               manifest.job.partitions, summary.wall_ms / 1e3, per_hour);
    if (summary.gpu_busy_fraction)
        fmt::print("GPU busy {:.1f}% of wall time\n", *summary.gpu_busy_fraction * 100);
    if (!summary.error.empty()) fmt::print("stopped because: {}\n", summary.error);
    fmt::print("details: zkbatch show {} --db {}\n", run_id, manifest.output.db);

    switch (summary.status) {
        case RunStatus::ok: return exit_code::ok;
        case RunStatus::cancelled: return exit_code::cancelled;
        default: return exit_code::partition_failed;
    }
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
    const Store store = Store::open_existing(db_path);
    fmt::print("{}", format_run_list(store.list_runs()));
    return exit_code::ok;
}

int command_show(const std::string& run_selector, const std::string& db_path) {
    const Store store = Store::open_existing(db_path);
    fmt::print("{}", format_run_details(store, store.resolve_run(run_selector)));
    return exit_code::ok;
}

}  // namespace zkbatch
