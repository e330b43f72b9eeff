// zkbatch: the command line. The global options and the order of the subcommands are
// here; each subcommand declares its own options beside its code (commands.hpp).
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <map>
#include <vector>

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
    GlobalOptions globals;
    app.add_option("--plugin-path", globals.plugin_path,
                   "A plugin file or folder searched before $ZKBATCH_PLUGIN_PATH and the defaults");

    // The order of --help.
    const std::vector<Subcommand> subcommands = {
        add_run_command(app, globals),      add_prove_command(app, globals), add_verify_command(app),
        add_validate_command(app),          add_setup_command(app),
        add_backends_command(app, globals), add_runs_command(app),     add_show_command(app),
        add_trace_command(app),             add_report_command(app),   add_compare_command(app),
        add_history_command(app),           add_export_command(app),   add_proofs_command(app),
        add_merge_command(app),             add_slurm_command(app, globals),
    };

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

    return run_guarded([&]() -> int {
        for (const Subcommand& subcommand : subcommands)
            if (subcommand.parser->parsed()) return subcommand.run();
        return exit_code::usage_error;
    });
}
