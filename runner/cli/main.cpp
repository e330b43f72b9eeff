// zkbatch: the command line. Parsing only; each subcommand is a command_* entry point
// (commands.hpp).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <map>

int main(int argc, char** argv) {
    using namespace zkbatch;
    CLI::App app{"zkbatch: batch runner for GPU zero-knowledge proving.\n"
                 "Runs TOML job manifests through proving backends and records every "
                 "partition's phase timings in SQLite.",
                 "zkbatch"};
    app.require_subcommand(1);
    app.fallthrough();  // global options may also follow the subcommand
    app.set_version_flag("--version", ZKBATCH_VERSION_STRING);

    std::string log_level = "info";
    const std::map<std::string, spdlog::level::level_enum> levels{
        {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
        {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
        {"error", spdlog::level::err},   {"off", spdlog::level::off}};
    app.add_option("--log-level", log_level, "Log verbosity")
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
        ->capture_default_str();
    std::string plugin_path;
    app.add_option("--plugin-path", plugin_path,
                   "A plugin file or folder searched before $ZKBATCH_PLUGIN_PATH and the defaults");

    const std::string default_db = "results/zkbatch.db";
    RunOptions run;
    auto* run_cmd = app.add_subcommand("run", "Run a job manifest and record its timings");
    auto* manifest_opt = run_cmd->add_option("manifest", run.manifest_path, "Job manifest (TOML)");
    auto* resume_opt = run_cmd->add_option("--resume", run.resume_run,
                        "Finish an interrupted, cancelled or failed run (id or latest): prove only its "
                        "partitions not yet ok, into the same run")
        ->type_name("RUN")
        ->excludes(manifest_opt);
    run_cmd->add_option("--db", run.db_path, "Database to record into (default: output.db)");
    // A resumed run keeps the backend and overrides it was started with.
    run_cmd->add_option("--backend", run.backend_name, "Backend to use instead of backend.name")
        ->excludes(resume_opt);
    run_cmd->add_option("--set", run.overrides, "Override a manifest key, e.g. circuit.log_n=12")
        ->excludes(resume_opt)
        ->type_name("KEY=VALUE");
    run_cmd->add_option("--dump", run.dump_dir,
                        "Write each partition's a, b, c and h to DIR (canonical little-endian)")
        ->type_name("DIR");
    auto* shard_opt = run_cmd->add_option("--shard", run.shard,
                        "Prove only partitions I, I+N, I+2N, ... (shard I of N); 'auto': the Slurm "
                        "job-array task (SLURM_ARRAY_TASK_ID/COUNT)")
        ->type_name("I/N|auto")
        ->excludes(resume_opt);
    run_cmd->add_option("--experiment-key", run.experiment_key,
                        "With --shard: names this submission of the job, the same on every shard, so "
                        "they record one experiment (default under Slurm: the array job id)")
        ->type_name("KEY")
        ->needs(shard_opt);

    std::string validate_path;
    std::vector<std::string> validate_overrides;
    auto* validate_cmd = app.add_subcommand("validate", "Check a job manifest without running it");
    validate_cmd->add_option("manifest", validate_path, "Job manifest (TOML)")->required();
    validate_cmd->add_option("--set", validate_overrides, "Override a manifest key")->type_name("KEY=VALUE");

    std::string setup_path;
    std::vector<std::string> setup_overrides;
    auto* setup_cmd = app.add_subcommand(
        "setup", "Make (or find and check) the proving key of every Groth16 arm of a manifest: a seeded key into "
                 "setup.cache_dir, for measurement only");
    setup_cmd->add_option("manifest", setup_path, "Job manifest (TOML)")->required();
    setup_cmd->add_option("--set", setup_overrides, "Override a manifest key")->type_name("KEY=VALUE");

    auto* backends_cmd = app.add_subcommand("backends", "List the backend plugins found and whether they can run here");

    std::string db = default_db;
    auto* runs_cmd = app.add_subcommand("runs", "List the runs recorded in a database");
    runs_cmd->add_option("--db", db, "Database")->capture_default_str();

    std::string run_selector;
    auto* show_cmd = app.add_subcommand("show", "Show a run's environment and per-phase statistics");
    show_cmd->add_option("run", run_selector, "Run id, 'latest' or 'latest~K'")->required();
    show_cmd->add_option("--db", db, "Database")->capture_default_str();

    std::string trace_selector, trace_output;
    auto* trace_cmd = app.add_subcommand(
        "trace", "Write a run's timeline as Chrome/Perfetto trace-event JSON (ui.perfetto.dev)");
    trace_cmd->add_option("run", trace_selector, "Run: id, latest, latest~K, job=NAME, backend=NAME, ...")
        ->required();
    trace_cmd->add_option("-o,--output", trace_output, "Trace file to write ('-': stdout)")->required();
    trace_cmd->add_option("--db", db, "Database")->capture_default_str();

    std::vector<std::string> report_selectors;
    std::string report_output;
    auto* report_cmd = app.add_subcommand(
        "report", "Write one self-contained HTML page: environment, timelines, phase "
                  "distributions and, for several runs, an A/B comparison against the first");
    report_cmd->add_option("runs", report_selectors,
                           "Runs: ids, latest, latest~K, job=NAME, experiment=ID (all its runs), ...")
        ->required();
    report_cmd->add_option("-o,--output", report_output, "HTML file to write ('-': stdout)")->required();
    report_cmd->add_option("--db", db, "Database")->capture_default_str();

    CompareOptions compare;
    compare.db_path = default_db;
    auto* compare_cmd = app.add_subcommand(
        "compare", "Compare two runs phase by phase (medians, Mann-Whitney p, 95% CI, verdict) and "
                   "check that they computed the same results; or gate a nightly run against its baseline");
    compare_cmd->add_option("A", compare.a,
                            "Baseline run: id, latest, latest~K, job=NAME, backend=NAME, experiment=ID, "
                            "arm=ARM, status=S, joined by ','");
    compare_cmd->add_option("B", compare.b, "Run compared with A (omit it to compare an experiment's two arms)");
    compare_cmd->add_option("--db", compare.db_path, "Database")->capture_default_str();
    compare_cmd->add_option("--format", compare.format, "Output format")
        ->check(CLI::IsMember({"table", "markdown", "json", "csv"}))
        ->capture_default_str();
    compare_cmd->add_option("--baseline", compare.baseline,
                            "Gate mode: 'previous' (the last ok run of the job with the same backend and "
                            "parameters before the candidate) or a run selector");
    compare_cmd->add_option("--job", compare.job, "Gate mode: the job whose runs are gated");
    compare_cmd->add_option("--candidate", compare.candidate, "Gate mode: the run gated, among the job's runs")
        ->capture_default_str();
    compare_cmd->add_option("--fail-on-regression", compare.fail_on_regression_pct,
                            "Exit 7 when a phase is significantly slower by more than PCT percent")
        ->type_name("PCT")
        ->check(CLI::NonNegativeNumber);
    compare_cmd->add_option("--min-change-ms", compare.min_change_ms,
                            "A regression must also grow the phase's median by at least this many ms")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();

    HistoryOptions history;
    history.db_path = default_db;
    auto* history_cmd = app.add_subcommand(
        "history", "A job's runs, oldest first, with one metric and the runs where it stepped marked");
    history_cmd->add_option("--job", history.job, "Job name")->required();
    history_cmd->add_option("--metric", history.metric,
                            "A phase (median ms over the run's partitions), wall_ms or partitions_per_hour")
        ->capture_default_str();
    history_cmd->add_option("--backend", history.backend, "Only runs on this backend");
    history_cmd->add_option("--min-step", history.min_step_pct,
                            "Smallest change of the median, in percent, marked as a step")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    history_cmd->add_option("--db", history.db_path, "Database")->capture_default_str();

    ExportOptions export_options;
    export_options.db_path = default_db;
    auto* export_cmd = app.add_subcommand(
        "export", "Write runs (environment, tags, facts, every partition's timings) as JSON or CSV");
    export_cmd->add_option("runs", export_options.runs, "Run selectors, as for compare")->required();
    export_cmd->add_option("--format", export_options.format, "Output format")
        ->check(CLI::IsMember({"json", "csv"}))
        ->capture_default_str();
    export_cmd->add_option("-o,--output", export_options.output_path, "File to write ('-': stdout)")
        ->capture_default_str();
    export_cmd->add_option("--db", export_options.db_path, "Database")->capture_default_str();

    ProofsOptions proofs_options;
    proofs_options.db_path = default_db;
    auto* proofs_cmd = app.add_subcommand(
        "proofs", "Write runs' Groth16 proofs as files a verifier reads: for snarkjs, pP.proof.json and "
                  "pP.public.json per partition and verification_key.json");
    proofs_cmd->add_option("runs", proofs_options.runs, "Run selectors, as for compare")->required();
    proofs_cmd->add_option("--format", proofs_options.format, "File format")
        ->check(CLI::IsMember({"snarkjs"}))
        ->capture_default_str();
    proofs_cmd->add_option("--out", proofs_options.out_dir, "Folder to write (several runs: one runN/ each)")
        ->required()
        ->type_name("DIR");
    proofs_cmd->add_option("--db", proofs_options.db_path, "Database")->capture_default_str();

    std::vector<std::string> merge_shards;
    std::string merge_into;
    auto* merge_cmd = app.add_subcommand(
        "merge", "Fold shard databases into one history (idempotent: a run already there is kept, or "
                 "replaced when the shard's copy changed)");
    merge_cmd->add_option("shards", merge_shards, "Shard databases")->required()->check(CLI::ExistingFile);
    merge_cmd->add_option("--into", merge_into, "History database to merge into (created if missing)")
        ->required()
        ->type_name("HISTORY.db");

    SlurmOptions slurm;
    auto* slurm_cmd = app.add_subcommand(
        "slurm", "Write (or --submit) a Slurm job array of N shards of a job and a merge job that runs "
                 "after all of them succeeded; sbatch options go after '--'");
    slurm_cmd->add_option("manifest", slurm.manifest_path, "Job manifest (TOML)")->required();
    slurm_cmd->add_option("--shards", slurm.shards, "Number of shards (array tasks)")
        ->required()
        ->check(CLI::Range(1u, 1'000'000u));
    slurm_cmd->add_option("--gpus-per-task", slurm.gpus_per_task, "GPUs per shard (--gres=gpu:K); 0: none")
        ->capture_default_str();
    slurm_cmd->add_option("--out", slurm.out_dir,
                          "Folder for the scripts, shard databases and logs (default results/slurm/JOB-TIME)")
        ->type_name("DIR");
    slurm_cmd->add_option("--into", slurm.history_path, "History database the merge job writes (default output.db)")
        ->type_name("HISTORY.db");
    slurm_cmd->add_option("--backend", slurm.backend_name, "Backend for every shard instead of backend.name");
    // One value per --set, so that a '--' right after it still starts the sbatch options.
    slurm_cmd->add_option("--set", slurm.overrides, "Override a manifest key in every shard")
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
    slurm_cmd->add_flag("--submit", slurm.submit, "Submit both jobs with sbatch and print their ids");
    slurm_cmd->add_option("sbatch_options", slurm.sbatch_options, "sbatch options for both jobs, after '--'");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? exit_code::ok : exit_code::usage_error;
    }

    auto logger = spdlog::stderr_color_mt("zkbatch");
    logger->set_pattern("%^[%H:%M:%S.%e %l]%$ %v");
    spdlog::set_default_logger(logger);
    spdlog::set_level(levels.at(log_level));

    run.plugin_path = plugin_path;
    slurm.plugin_path = plugin_path;
    return run_guarded([&]() -> int {
        if (*run_cmd) return command_run(run);
        if (*validate_cmd) return command_validate(validate_path, validate_overrides);
        if (*setup_cmd) return command_setup(setup_path, setup_overrides);
        if (*backends_cmd) return command_backends(plugin_path);
        if (*runs_cmd) return command_runs(db);
        if (*show_cmd) return command_show(run_selector, db);
        if (*trace_cmd) return command_trace(trace_selector, db, trace_output);
        if (*report_cmd) return command_report(report_selectors, db, report_output);
        if (*compare_cmd) return command_compare(compare);
        if (*history_cmd) return command_history(history);
        if (*export_cmd) return command_export(export_options);
        if (*proofs_cmd) return command_proofs(proofs_options);
        if (*merge_cmd) return command_merge(merge_shards, merge_into);
        if (*slurm_cmd) return command_slurm(slurm);
        return exit_code::usage_error;
    });
}
