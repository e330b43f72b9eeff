// The zkbatch subcommands. Each add_*_command declares one subcommand on the app: its
// options, their --help text, and the call that runs it. A command returns a process
// exit code (exit_codes.hpp) and reports problems on stderr; main.cpp declares the global
// options, adds the subcommands, parses and runs the one given.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace zkbatch {

// The options given before or after any subcommand. Filled by parsing, so a command
// reads them when it runs, not when it is declared.
struct GlobalOptions {
    std::string plugin_path;  // --plugin-path (file or folder), searched first
};

// A declared subcommand: its parser, and what runs once it was the one parsed.
struct Subcommand {
    CLI::App* parser = nullptr;
    std::function<int()> run;
};

// Each declares its subcommand on `app`; main() adds them in the order of --help.
// commands.cpp: running and checking jobs, listing backends and runs.
Subcommand add_run_command(CLI::App& app, const GlobalOptions& globals);  // run MANIFEST | --resume RUN
Subcommand add_validate_command(CLI::App& app);
Subcommand add_backends_command(CLI::App& app, const GlobalOptions& globals);
Subcommand add_runs_command(CLI::App& app);
Subcommand add_show_command(CLI::App& app);
// proof_commands.cpp: a Groth16 job's proving keys, and its recorded proofs as snarkjs files.
Subcommand add_setup_command(CLI::App& app);
Subcommand add_proofs_command(CLI::App& app);
Subcommand add_prove_command(CLI::App& app, const GlobalOptions& globals);  // prove ZKEY WTNS PROOF PUBLIC
Subcommand add_verify_command(CLI::App& app);  // verify VK PUBLIC PROOF
// report_commands.cpp: a run's timeline as Perfetto JSON, runs as one HTML page.
Subcommand add_trace_command(CLI::App& app);
Subcommand add_report_command(CLI::App& app);
// analysis_commands.cpp: compare and the regression gate, history, export.
Subcommand add_compare_command(CLI::App& app);
Subcommand add_history_command(CLI::App& app);
Subcommand add_export_command(CLI::App& app);
// cluster_commands.cpp: merging shard databases, Slurm job arrays.
Subcommand add_merge_command(CLI::App& app);
Subcommand add_slurm_command(CLI::App& app, const GlobalOptions& globals);

// `--db DATABASE` of the subcommands that read one, defaulting to results/zkbatch.db
// (shown in --help): sets `db_path` to that default.
CLI::Option* add_db_option(CLI::App& command, std::string& db_path);

// Checks of option values, refused with exit code 2 at parse time. A path must not be
// empty (an empty --db would be a temporary SQLite database that vanishes); a number
// must be finite (a NaN compares false with everything, so it would turn a check off)
// and within [min, max].
const CLI::Validator& non_empty_path();
CLI::Validator finite_number(double min, double max);

// A file a command writes (-o): "-" is standard output; any other path is written whole
// or not at all (core/util/output_file.hpp), and refused first (UsageError) when it is
// one of `inputs`, the files the command reads, however it is named.
void write_command_output(const std::string& path, const std::string& text,
                          const std::vector<std::filesystem::path>& inputs);

// A manifest and --set overrides, as `validate` and `setup` take them.
struct ManifestArguments {
    std::string manifest_path;
    std::vector<std::string> overrides;
};
void add_manifest_arguments(CLI::App& command, ManifestArguments& arguments);

// Runs `body`, turning each kind of exception into its message on stderr and its
// documented exit code.
int run_guarded(const std::function<int()>& body);

}  // namespace zkbatch
