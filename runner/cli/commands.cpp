#include "cli/commands.hpp"

#include "analysis/compare.hpp"
#include "cli/exit_codes.hpp"
#include "manifest/limits.hpp"
#include "manifest/manifest.hpp"
#include "plugin_host/plugin_host.hpp"
#include "report/show.hpp"
#include "run/run_executor.hpp"
#include "run/run_plan.hpp"
#include "store/store.hpp"
#include "util/output_onto_input.hpp"
#include "util/parse_number.hpp"
#include "util/usage_error.hpp"

#include "core/groth16/key_file.hpp"
#include "core/groth16/zkey.hpp"
#include "core/util/output_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

namespace zkbatch {

int run_guarded(const std::function<int()>& body) {
    try {
        return body();
    } catch (const ManifestError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::usage_error;
    } catch (const UsageError& e) {  // ShardError, RunPlanError, SlurmError
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::usage_error;
    } catch (const groth16::ZkeyError& e) {  // a .zkey or .wtns that cannot be proved from
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::usage_error;
    } catch (const groth16::KeyFileError& e) {  // the key cache: damaged, or no room for a key
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::storage_error;
    } catch (const PluginError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::plugin_error;
    } catch (const StoreError& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::storage_error;
    } catch (const util::OutputFileError& e) {
        fmt::print(stderr, "error: {}. Check that its folder exists and is writable, or write elsewhere.\n", e.what());
        return exit_code::storage_error;
    } catch (const std::filesystem::filesystem_error& e) {
        // A file or folder that cannot be made or written, like a database that cannot.
        fmt::print(stderr, "error: {}\n", e.what());
        return exit_code::storage_error;
    } catch (const std::exception& e) {
        fmt::print(stderr, "internal error: {}\nThis is a bug in zkbatch; please report it with the command line.\n",
                   e.what());
        return exit_code::internal_error;
    }
}

CLI::Option* add_db_option(CLI::App& command, std::string& db_path) {
    db_path = "results/zkbatch.db";
    return command.add_option("--db", db_path, "Database")->capture_default_str()->check(non_empty_path());
}

const CLI::Validator& non_empty_path() {
    static const CLI::Validator validator(
        [](const std::string& value) { return std::string(value.empty() ? "an empty path names no file" : ""); }, "");
    return validator;
}

CLI::Validator finite_number(double min, double max) {
    return CLI::Validator(
        [min, max](const std::string& text) {
            const std::optional<double> value = parse_number<double>(text);
            if (value && std::isfinite(*value) && *value >= min && *value <= max) return std::string();
            return fmt::format("{} is not a number in {}..{}", text, min, max);
        },
        "");
}

void write_command_output(const std::string& path, const std::string& text,
                          const std::vector<std::filesystem::path>& inputs) {
    if (path == "-") {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
            throw StoreError(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
        return;
    }
    refuse_output_onto_input(path, inputs, "-o");
    util::write_file_atomically(path, text);
}

void add_manifest_arguments(CLI::App& command, ManifestArguments& arguments) {
    command.add_option("manifest", arguments.manifest_path, "Job manifest (TOML)")->required();
    command.add_option("--set", arguments.overrides, "Override a manifest key")->type_name("KEY=VALUE");
}

namespace {

int command_validate(const std::string& manifest_path, const std::vector<std::string>& overrides) {
    // Planned as `run` plans it, so what run refuses before it starts (a .zkey that is not
    // there, witness globs that match nothing) is refused here too.
    RunOptions options;
    options.manifest_path = manifest_path;
    options.overrides = overrides;
    const Manifest manifest = plan_run(options, process_environment()).manifest;
    fmt::print("{}: ok: {}\n", manifest_path, describe_job(manifest));
    // The manifest is valid wherever it runs; say so if `run` would refuse it on this machine.
    if (const auto available = available_host_memory()) {
        const HostMemoryEstimate needed = estimate_host_memory(manifest, manifest.backend.name);
        if (const auto shortfall = host_memory_shortfall(manifest, needed, *available))
            fmt::print("note: `zkbatch run` would refuse it on this machine: {}\n", *shortfall);
    }
    return exit_code::ok;
}

// What `zkbatch run` says about each run it recorded, and how it exits.
int report_outcome(const RunPlan& plan, const RunOutcome& outcome) {
    int exit = exit_code::ok;
    const std::string db = plan.db_path.string();
    for (const ArmOutcome& arm : outcome.arms) {
        const RunSummary& summary = arm.summary;
        if (outcome.resumed) {
            fmt::print("run {} (resumed): {}: {} ok, {} failed of {} partitions; {} proved now in {:.2f} s\n",
                       arm.run_id, to_string(summary.status), summary.partitions_ok, summary.partitions_failed,
                       arm.partitions, arm.proved_now, summary.wall_ms / 1e3);
        } else {
            const double per_hour = summary.wall_ms > 0 ? summary.partitions_ok * 3.6e6 / summary.wall_ms : 0;
            fmt::print("run {}{}: {}: {} ok, {} failed of {} partitions in {:.2f} s ({:.0f} partitions/h)\n",
                       arm.run_id, plan.is_experiment() ? " [" + arm.label + "]" : "", to_string(summary.status),
                       summary.partitions_ok, summary.partitions_failed, arm.partitions, summary.wall_ms / 1e3,
                       per_hour);
            if (arm.gpu_busy_fraction) fmt::print("GPU busy {:.1f}% of wall time\n", *arm.gpu_busy_fraction * 100);
        }
        if (!summary.error.empty()) fmt::print("stopped because: {}\n", summary.error);
        if (summary.status == RunStatus::cancelled)
            exit = exit_code::cancelled;
        else if (summary.status != RunStatus::ok && exit == exit_code::ok)
            exit = exit_code::partition_failed;
    }
    if (plan.is_experiment()) {
        // Each arm against the first: the A/B the experiment was run for.
        const Store store = Store::open_existing(plan.db_path);
        const ArmOutcome& first = outcome.arms.front();
        for (size_t i = 1; i < outcome.arms.size(); ++i) {
            const int64_t other = outcome.arms[i].run_id;
            fmt::print("\n{}", format_comparison(compare_runs(store, {std::to_string(first.run_id), {first.run_id}},
                                                                {std::to_string(other), {other}}),
                                                   CompareFormat::table));
        }
        fmt::print("details: zkbatch show RUN --db {} for runs {}..{} (experiment {})\n", db, first.run_id,
                   outcome.arms.back().run_id, *outcome.experiment_id);
    } else {
        fmt::print("details: zkbatch show {} --db {}\n", outcome.arms.front().run_id, db);
    }
    return exit;
}

// `zkbatch run MANIFEST` and `zkbatch run --resume RUN` (RunOptions: run/run_plan.hpp):
// plan, execute, print each run's outcome.
int command_run(const RunOptions& options) {
    const RunPlan plan = options.resume_run ? plan_resume(options) : plan_run(options, process_environment());
    ExecutionOptions execution;
    execution.show_progress_line = isatty(STDERR_FILENO) && spdlog::get_level() <= spdlog::level::info;
    return report_outcome(plan, execute_run(plan, execution));
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
        if (p.loaded) {
            std::vector<std::string_view> curves;
            for (const curve::CurveId id : {curve::CurveId::bls12_381, curve::CurveId::bn254})
                if (p.curves & (1u << static_cast<unsigned>(id))) curves.push_back(curve::name(id));
            fmt::print("{:<16} curves: {}\n", "", fmt::join(curves, ", "));
        }
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

}  // namespace

Subcommand add_run_command(CLI::App& app, const GlobalOptions& globals) {
    auto run = std::make_shared<RunOptions>();
    auto* command = app.add_subcommand("run", "Run a job manifest and record its timings");
    auto* manifest_opt = command->add_option("manifest", run->manifest_path, "Job manifest (TOML)");
    auto* resume_opt = command->add_option("--resume", run->resume_run,
                        "Finish an interrupted, cancelled or failed run (id or latest): prove only its "
                        "partitions not yet ok, into the same run")
        ->type_name("RUN")
        ->excludes(manifest_opt);
    command->add_option("--db", run->db_path, "Database to record into (default: output.db)")->check(non_empty_path());
    // A resumed run keeps the backend and overrides it was started with.
    command->add_option("--backend", run->backend_name, "Backend to use instead of backend.name")
        ->excludes(resume_opt);
    command->add_option("--set", run->overrides, "Override a manifest key, e.g. circuit.log_n=12")
        ->excludes(resume_opt)
        ->type_name("KEY=VALUE");
    command->add_option("--dump", run->dump_dir,
                        "Write each partition's a, b, c and h to DIR (canonical little-endian)")
        ->type_name("DIR")
        ->check(non_empty_path());
    auto* shard_opt = command->add_option("--shard", run->shard,
                        "Prove only partitions I, I+N, I+2N, ... (shard I of N); 'auto': the Slurm "
                        "job-array task (SLURM_ARRAY_TASK_ID/COUNT)")
        ->type_name("I/N|auto")
        ->excludes(resume_opt);
    command->add_option("--experiment-key", run->experiment_key,
                        "With --shard: names this submission of the job, the same on every shard, so "
                        "they record one experiment (default under Slurm: the array job id)")
        ->type_name("KEY")
        ->needs(shard_opt);
    return {command, [run, &globals] {
                run->plugin_path = globals.plugin_path;
                return command_run(*run);
            }};
}

Subcommand add_validate_command(CLI::App& app) {
    auto arguments = std::make_shared<ManifestArguments>();
    auto* command = app.add_subcommand("validate", "Check a job manifest without running it");
    add_manifest_arguments(*command, *arguments);
    return {command, [arguments] { return command_validate(arguments->manifest_path, arguments->overrides); }};
}

Subcommand add_backends_command(CLI::App& app, const GlobalOptions& globals) {
    auto* command =
        app.add_subcommand("backends", "List the backend plugins found and whether they can run here");
    return {command, [&globals] { return command_backends(globals.plugin_path); }};
}

Subcommand add_runs_command(CLI::App& app) {
    auto db_path = std::make_shared<std::string>();
    auto* command = app.add_subcommand("runs", "List the runs recorded in a database");
    add_db_option(*command, *db_path);
    return {command, [db_path] { return command_runs(*db_path); }};
}

Subcommand add_show_command(CLI::App& app) {
    struct Options {
        std::string run_selector;
        std::string db_path;
    };
    auto options = std::make_shared<Options>();
    auto* command = app.add_subcommand("show", "Show a run's environment and per-phase statistics");
    command->add_option("run", options->run_selector, "Run id, 'latest' or 'latest~K'")->required();
    add_db_option(*command, options->db_path);
    return {command, [options] { return command_show(options->run_selector, options->db_path); }};
}

}  // namespace zkbatch
