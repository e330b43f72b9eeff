// The zkbatch subcommands. Each returns a process exit code (exit_codes.hpp) and
// reports problems on stderr; main.cpp only parses the command line.
#pragma once

#include "cluster/slurm.hpp"
#include "run/run_plan.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zkbatch {

// `zkbatch run MANIFEST` and `zkbatch run --resume RUN` (RunOptions: run/run_plan.hpp):
// plan, execute, print each run's outcome.
int command_run(const RunOptions& options);
int command_validate(const std::string& manifest_path, const std::vector<std::string>& overrides);
int command_backends(const std::string& plugin_path);
int command_runs(const std::string& db_path);
int command_show(const std::string& run_selector, const std::string& db_path);
// Chrome/Perfetto trace-event JSON of one run's timeline (report/trace.hpp); "-" is stdout.
int command_trace(const std::string& run_selector, const std::string& db_path,
                  const std::string& output_path);
// One self-contained HTML page about one or more runs (report/report.hpp); "-" is stdout.
int command_report(const std::vector<std::string>& run_selectors, const std::string& db_path,
                   const std::string& output_path);

// `zkbatch compare A B` and the regression gate (analysis/compare.hpp).
struct CompareOptions {
    std::string a, b;                        // run selectors (selectors.hpp); b empty: split A's two arms
    std::string db_path;
    std::string format = "table";            // table, markdown, json, csv
    std::optional<std::string> baseline;     // --baseline previous|RUN: gate mode, instead of A
    std::optional<std::string> job;          // --job NAME: the job whose runs are gated
    std::string candidate = "latest";        // --candidate RUN, among the job's runs
    std::optional<double> fail_on_regression_pct;  // exit 7 on a significant slowdown beyond this
    double min_change_ms = 1.0;              // ... that is also at least this many ms
};
int command_compare(const CompareOptions& options);

// `zkbatch history --job NAME` (analysis/history.hpp).
struct HistoryOptions {
    std::string job;
    std::string metric = "partition";        // a phase, wall_ms or partitions_per_hour
    std::optional<std::string> backend;      // only runs on this backend
    std::string db_path;
    double min_step_pct = 5;                 // smaller steps are not marked
};
int command_history(const HistoryOptions& options);

// `zkbatch export RUN...` (analysis/export.hpp).
struct ExportOptions {
    std::vector<std::string> runs;           // run selectors
    std::string format = "json";             // json, csv
    std::string db_path;
    std::string output_path = "-";           // "-": stdout
};
int command_export(const ExportOptions& options);

// `zkbatch setup MANIFEST`: makes (or finds and checks) the proving key of every Groth16
// arm of the manifest, so that the run itself starts proving at once.
int command_setup(const std::string& manifest_path, const std::vector<std::string>& overrides);

// `zkbatch proofs RUN... --out DIR`: each run's recorded proofs as snarkjs's files,
// pP.proof.json and pP.public.json per partition and the run's verification_key.json
// (one run: into DIR; several: each into DIR/runN).
struct ProofsOptions {
    std::vector<std::string> runs;           // run selectors
    std::string format = "snarkjs";
    std::string out_dir;
    std::string db_path;
};
int command_proofs(const ProofsOptions& options);

// `zkbatch merge SHARD.db... --into HISTORY.db` (cluster/merge.hpp): each shard in turn,
// printing what each added.
int command_merge(const std::vector<std::string>& shard_paths, const std::string& history_path);

// `zkbatch slurm MANIFEST --shards N` (cluster/slurm.hpp): writes, or submits, the job.
int command_slurm(const SlurmOptions& options);

// Runs `body`, turning each kind of exception into its message on stderr and its
// documented exit code.
int run_guarded(const std::function<int()>& body);

}  // namespace zkbatch
