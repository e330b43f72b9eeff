// The subcommands for many hosts: merge shard databases, write or submit Slurm jobs.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cluster/merge.hpp"
#include "cluster/slurm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace zkbatch {

int command_merge(const std::vector<std::string>& shard_paths, const std::string& history_path) {
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

}  // namespace zkbatch
