// The subcommands for many hosts: merge shard databases, write or submit Slurm jobs.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "util/output_onto_input.hpp"
#include "cluster/merge.hpp"
#include "cluster/slurm.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

namespace zkbatch {

namespace {

// `zkbatch merge SHARD.db... --into HISTORY.db` (cluster/merge.hpp): each shard in turn,
// printing what each added.
int command_merge(const std::vector<std::string>& shard_paths, const std::string& history_path) {
    // Before anything is merged: a database merged into itself would be read while written.
    refuse_output_onto_input(history_path, {shard_paths.begin(), shard_paths.end()}, "--into");
    Store history(history_path);
    MergeCounts total;
    for (size_t i = 0; i < shard_paths.size(); ++i) {
        const std::string& shard_path = shard_paths[i];
        MergeCounts counts;
        try {
            counts = merge_shard(history, shard_path);
        } catch (const StoreError& e) {
            fmt::print(stderr, "error: {}\n", e.what());
            fmt::print(stderr, "{} was not merged{}. Merging is idempotent: fix it and run the same merge again.\n",
                       shard_path, i == 0 ? "" : " (the databases before it were)");
            return exit_code::storage_error;
        }
        std::vector<std::string> rows;
        for (const auto& [table, added] : counts.rows_added)
            if (added > 0) rows.push_back(fmt::format("{} {}", added, table));
        fmt::print("{}: runs: {} added, {} replaced, {} already merged; experiments: {} added, {} known{}{}\n",
                   shard_path, counts.runs_added, counts.runs_replaced, counts.runs_unchanged,
                   counts.experiments_added, counts.experiments_known, rows.empty() ? "" : "; rows: ",
                   fmt::join(rows, ", "));
        total.runs_added += counts.runs_added;
        total.runs_replaced += counts.runs_replaced;
        total.runs_unchanged += counts.runs_unchanged;
    }
    fmt::print("merged {} database{} into {}: {} runs added, {} replaced, {} already there\n", shard_paths.size(),
               shard_paths.size() == 1 ? "" : "s", history_path, total.runs_added, total.runs_replaced,
               total.runs_unchanged);
    return exit_code::ok;
}

// `zkbatch slurm MANIFEST --shards N` (cluster/slurm.hpp): writes, or submits, the job.
int command_slurm(const SlurmOptions& options) {
    const SlurmJob job = write_slurm_job(options);
    if (job.warning) fmt::print(stderr, "warning: {}\n", *job.warning);
    const std::string out = job.out_dir.string();
    fmt::print("wrote {0}/shards.sbatch ({1} shards), {0}/merge.sbatch and {0}/submit.sh\n", out, options.shards);
    if (!options.submit) {
        fmt::print("to submit: bash {}\n", shell_quoted((job.out_dir / "submit.sh").string()));
        fmt::print("the merge job then folds the shards into {}\n", job.history.string());
        return exit_code::ok;
    }
    const SlurmSubmission submitted = submit_slurm_job(job, options);
    fmt::print("shards: job {} (array 0-{})\nmerge: job {} (after every shard succeeded)\n", submitted.shards_job,
               options.shards - 1, submitted.merge_job);
    fmt::print("history: {}\nlogs: {}/logs\n", job.history.string(), out);
    return exit_code::ok;
}

}  // namespace

Subcommand add_merge_command(CLI::App& app) {
    struct Options {
        std::vector<std::string> shard_paths;
        std::string history_path;
    };
    auto options = std::make_shared<Options>();
    auto* command = app.add_subcommand(
        "merge", "Fold shard databases into one history (idempotent: a run already there is kept, or "
                 "replaced when the shard's copy changed)");
    command->add_option("shards", options->shard_paths, "Shard databases")->required()->check(CLI::ExistingFile);
    command->add_option("--into", options->history_path, "History database to merge into (created if missing)")
        ->required()
        ->type_name("HISTORY.db")
        ->check(non_empty_path());
    return {command, [options] { return command_merge(options->shard_paths, options->history_path); }};
}

Subcommand add_slurm_command(CLI::App& app, const GlobalOptions& globals) {
    auto slurm = std::make_shared<SlurmOptions>();
    auto* command = app.add_subcommand(
        "slurm", "Write (or --submit) a Slurm job array of N shards of a job and a merge job that runs "
                 "after all of them succeeded; sbatch options go after '--'");
    command->add_option("manifest", slurm->manifest_path, "Job manifest (TOML)")->required();
    command->add_option("--shards", slurm->shards, "Number of shards (array tasks)")
        ->required()
        ->check(CLI::Range(1u, 1'000'000u));
    command->add_option("--gpus-per-task", slurm->gpus_per_task, "GPUs per shard (--gres=gpu:K); 0: none")
        ->capture_default_str();
    command->add_option("--out", slurm->out_dir,
                        "Folder for the scripts, shard databases and logs (default results/slurm/JOB-TIME)")
        ->type_name("DIR")
        ->check(non_empty_path());
    command->add_option("--into", slurm->history_path, "History database the merge job writes (default output.db)")
        ->type_name("HISTORY.db")
        ->check(non_empty_path());
    command->add_option("--backend", slurm->backend_name, "Backend for every shard instead of backend.name");
    // One value per --set, so that a '--' right after it still starts the sbatch options.
    command->add_option("--set", slurm->overrides, "Override a manifest key in every shard")
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
    command->add_flag("--submit", slurm->submit, "Submit both jobs with sbatch and print their ids");
    command->add_option("sbatch_options", slurm->sbatch_options, "sbatch options for both jobs, after '--'");
    return {command, [slurm, &globals] {
                slurm->plugin_path = globals.plugin_path;
                return command_slurm(*slurm);
            }};
}

}  // namespace zkbatch
