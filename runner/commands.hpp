// The zkbatch subcommands. Each returns a process exit code (exit_codes.hpp) and
// reports problems on stderr; main.cpp only parses the command line.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zkbatch {

struct RunOptions {
    std::string manifest_path;
    std::optional<std::string> db_path;       // --db, else output.db of the manifest
    std::optional<std::string> backend_name;  // --backend, else backend.name
    std::vector<std::string> overrides;       // --set KEY=VALUE
    std::optional<std::string> dump_dir;      // --dump DIR
    std::string plugin_path;                  // --plugin-path (file or folder), searched first
};

int command_run(const RunOptions& options);
int command_validate(const std::string& manifest_path, const std::vector<std::string>& overrides);
int command_backends(const std::string& plugin_path);
int command_runs(const std::string& db_path);
int command_show(const std::string& run_selector, const std::string& db_path);

// Runs `body`, turning each kind of exception into its message on stderr and its
// documented exit code.
int run_guarded(const std::function<int()>& body);

}  // namespace zkbatch
