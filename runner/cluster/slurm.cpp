#include "cluster/slurm.hpp"

#include "manifest/manifest.hpp"
#include "store/store.hpp"
#include "util/clock.hpp"
#include "util/output_onto_input.hpp"

#include "core/util/output_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

extern char** environ;

namespace zkbatch {
namespace fs = std::filesystem;

namespace {

// Slurm job names are shown in squeue and used in file names: keep them plain.
std::string plain_name(const std::string& text) {
    std::string name;
    for (const char c : text) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
    return name.empty() ? "job" : name;
}

// The arguments every shard's `zkbatch run` gets besides --shard and --db.
std::string shard_arguments(const SlurmOptions& options) {
    std::string text;
    if (options.backend_name) text += " --backend " + shell_quoted(*options.backend_name);
    for (const std::string& o : options.overrides) text += " --set " + shell_quoted(o);
    if (!options.plugin_path.empty())
        text += " --plugin-path " + shell_quoted(fs::absolute(options.plugin_path).string());
    return text;
}

std::string sbatch_options_text(const SlurmOptions& options) {
    std::string text;
    for (const std::string& o : options.sbatch_options) text += " " + shell_quoted(o);
    return text;
}

void write_file(const fs::path& path, const std::string& text, bool executable) {
    try {
        util::write_file_atomically(path, text);
    } catch (const util::OutputFileError& e) {
        throw StoreError(fmt::format("{}. Check that the folder is writable, or choose another with --out.", e.what()));
    }
    std::error_code ec;
    if (executable) fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
    if (ec)
        throw StoreError(fmt::format("{}: cannot make the script executable: {}. Remove it, or choose another "
                                     "folder with --out.", path.string(), ec.message()));
}

// A value the scripts interpolate that no quoting can carry safely: a newline (or
// another control character) would end a comment or an #SBATCH line and start a
// command. Returns why `value` is refused, or nothing.
std::optional<std::string> unscriptable(std::string_view what, const std::string& value) {
    for (const unsigned char c : value)
        if (c < 0x20 || c == 0x7f)
            return fmt::format("{} {}: a path in Slurm scripts cannot hold a newline or other control character; "
                               "choose one without", what, shell_quoted(value));
    return std::nullopt;
}

// Runs sbatch with `arguments` and returns the job id it prints (--parsable:
// "ID" or "ID;CLUSTER"); sbatch's own errors reach stderr. Throws SlurmError on failure.
std::string run_sbatch(const std::vector<std::string>& arguments) {
    std::vector<std::string> command{"sbatch", "--parsable"};
    command.insert(command.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& a : command) argv.push_back(a.data());
    argv.push_back(nullptr);

    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) throw SlurmError(fmt::format("cannot run sbatch: {}", std::strerror(errno)));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    pid_t pid = 0;
    const int spawned = posix_spawnp(&pid, "sbatch", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    std::string output;
    if (spawned == 0) {
        char buffer[256];
        for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) break;
            output.append(buffer, static_cast<size_t>(n));
        }
    }
    close(pipe_fds[0]);
    if (spawned != 0) {
        throw SlurmError(fmt::format("cannot run sbatch: {}. Run zkbatch slurm --submit on a Slurm login node, or "
                                     "without --submit and submit the scripts there.", std::strerror(spawned)));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string id = output.substr(0, output.find_first_of(";\n"));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || id.empty() ||
        id.find_first_not_of("0123456789") != std::string::npos) {
        throw SlurmError(fmt::format("sbatch {} failed (exit status {}, output '{}'); its message is above.",
                                     fmt::join(arguments, " "), WIFEXITED(status) ? WEXITSTATUS(status) : -1, output));
    }
    return id;
}

std::string default_out_dir(const std::string& job_name) {
    const std::time_t now = static_cast<std::time_t>(unix_now_ns() / 1'000'000'000);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    return fmt::format("results/slurm/{}-{}", plain_name(job_name), stamp);
}

}  // namespace

std::string shell_quoted(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

SlurmScripts make_slurm_scripts(const SlurmOptions& options, const std::string& job_name,
                                const std::string& zkbatch_path, const std::string& manifest_path,
                                const std::string& out_dir, const std::string& history_path) {
    const std::string name = plain_name(job_name);
    const std::string out = shell_quoted(out_dir);
    SlurmScripts scripts;
    scripts.shards_sbatch = fmt::format(
        R"sh(#!/bin/bash
# zkbatch slurm: job '{name}' ({manifest_q}) as {n} shards; task I proves partitions I, I+{n}, ...
#SBATCH --job-name=zkbatch-{name}
#SBATCH --array=0-{last}
#SBATCH --ntasks=1
#SBATCH --output={out_dir}/logs/shard-%a.log
{gres}set -uo pipefail
# SQLite's WAL mode must not be used over a network file system: prove into the node's
# local disk, then copy the database (and a WAL a killed run left) next to the others.
local_db="${{TMPDIR:-/tmp}}/zkbatch-${{SLURM_ARRAY_JOB_ID}}-${{SLURM_ARRAY_TASK_ID}}.db"
shard_db={out}/shard-"${{SLURM_ARRAY_TASK_ID}}".db
rm -f "$local_db" "$local_db-wal" "$local_db-shm"
{zkbatch} run {manifest_q} --shard auto --db "$local_db"{args}
status=$?
if [ -f "$local_db" ]; then
  rm -f "$shard_db-wal"
  cp "$local_db" "$shard_db" || status=4
  if [ -f "$local_db-wal" ]; then cp "$local_db-wal" "$shard_db-wal" || status=4; fi
fi
rm -f "$local_db" "$local_db-wal" "$local_db-shm"
exit $status
)sh",
        fmt::arg("name", name), fmt::arg("n", options.shards),
        fmt::arg("last", options.shards - 1), fmt::arg("out_dir", out_dir),
        fmt::arg("gres", options.gpus_per_task > 0 ? fmt::format("#SBATCH --gres=gpu:{}\n", options.gpus_per_task) : ""),
        fmt::arg("out", out), fmt::arg("zkbatch", shell_quoted(zkbatch_path)),
        fmt::arg("manifest_q", shell_quoted(manifest_path)), fmt::arg("args", shard_arguments(options)));

    std::string shard_dbs;
    for (uint32_t i = 0; i < options.shards; ++i) shard_dbs += " " + shell_quoted(fmt::format("{}/shard-{}.db", out_dir, i));
    scripts.merge_sbatch = fmt::format(
        R"sh(#!/bin/bash
# zkbatch slurm: folds the {n} shard databases of job '{name}' into {history_q}.
#SBATCH --job-name=zkbatch-{name}-merge
#SBATCH --ntasks=1
#SBATCH --output={out_dir}/logs/merge.log
set -euo pipefail
exec {zkbatch} merge{shard_dbs} --into {history_q}
)sh",
        fmt::arg("n", options.shards), fmt::arg("name", name), fmt::arg("out_dir", out_dir), fmt::arg("zkbatch", shell_quoted(zkbatch_path)),
        fmt::arg("shard_dbs", shard_dbs), fmt::arg("history_q", shell_quoted(history_path)));

    const std::string extra = sbatch_options_text(options);
    scripts.submit_sh = fmt::format(
        R"sh(#!/bin/bash
# zkbatch slurm: submits the shards of job '{name}' and the merge that runs once all succeeded.
set -euo pipefail
shards_job=$(sbatch --parsable{extra} {out}/shards.sbatch)
shards_job=${{shards_job%%;*}}
merge_job=$(sbatch --parsable --dependency=afterok:"$shards_job"{extra} {out}/merge.sbatch)
merge_job=${{merge_job%%;*}}
echo "shards: job $shards_job (array 0-{last}); merge: job $merge_job (after every shard succeeded)"
echo "history: "{history_q}
)sh",
        fmt::arg("name", name), fmt::arg("extra", extra), fmt::arg("out", out), fmt::arg("last", options.shards - 1),
        fmt::arg("history_q", shell_quoted(history_path)));
    return scripts;
}

SlurmJob write_slurm_job(const SlurmOptions& options) {
    if (options.shards < 1) throw SlurmError("--shards must be at least 1");
    if (!options.sbatch_options.empty() && !options.sbatch_options.front().starts_with("-"))
        throw SlurmError(fmt::format("'{}' is not an sbatch option: sbatch options go after '--' "
                                     "(zkbatch slurm MANIFEST --shards N -- --partition=gpu --time=30)",
                                     options.sbatch_options.front()));
    std::vector<std::string> overrides = options.overrides;
    if (options.backend_name) overrides.push_back("backend.name=" + toml_quoted(*options.backend_name));
    const Manifest manifest = load_manifest(options.manifest_path, overrides);  // refuse a bad one now
    SlurmJob job;
    if (options.shards > manifest.job.partitions)
        job.warning = fmt::format("{} shards for {} partitions: shards {}..{} will have nothing to prove",
                                  options.shards, manifest.job.partitions, manifest.job.partitions, options.shards - 1);

    const fs::path out_dir = fs::absolute(options.out_dir.value_or(default_out_dir(manifest.job.name))).lexically_normal();
    const fs::path history = fs::absolute(options.history_path.value_or(manifest.output.db)).lexically_normal();
    // #SBATCH lines are not shell: a path with blanks or quotes would be cut there.
    if (out_dir.string().find_first_of(" \t\n'\"\\") != std::string::npos)
        throw SlurmError(fmt::format("--out {}: Slurm script directives cannot hold blanks or quotes; choose a "
                                     "folder without them", out_dir.string()));
    const std::string manifest_path = fs::absolute(options.manifest_path).lexically_normal().string();
    const std::string zkbatch_path = fs::read_symlink("/proc/self/exe").string();
    // Everything else is quoted wherever the scripts use it (shell_quoted), comments and
    // echo lines included.
    for (const auto& [what, value] : {std::pair<std::string_view, std::string>{"the manifest", manifest_path},
                                      {"--out", out_dir.string()},
                                      {"--into", history.string()},
                                      {"--plugin-path", options.plugin_path},
                                      {"the zkbatch executable", zkbatch_path}}) {
        if (const auto why = unscriptable(what, value)) throw SlurmError(*why);
    }
    std::error_code ec;
    fs::create_directories(out_dir / "logs", ec);
    if (ec)
        throw StoreError(fmt::format("{}: cannot create the folder: {}. Choose another with --out.", out_dir.string(),
                                     ec.message()));
    for (const char* script : {"shards.sbatch", "merge.sbatch", "submit.sh"})
        refuse_output_onto_input(out_dir / script, {manifest_path}, "--out");
    const SlurmScripts scripts =
        make_slurm_scripts(options, manifest.job.name, zkbatch_path, manifest_path, out_dir.string(), history.string());
    write_file(out_dir / "shards.sbatch", scripts.shards_sbatch, true);
    write_file(out_dir / "merge.sbatch", scripts.merge_sbatch, true);
    write_file(out_dir / "submit.sh", scripts.submit_sh, true);
    job.out_dir = out_dir;
    job.history = history;
    return job;
}

SlurmSubmission submit_slurm_job(const SlurmJob& job, const SlurmOptions& options) {
    SlurmSubmission submitted;
    std::vector<std::string> shard_args = options.sbatch_options;
    shard_args.push_back((job.out_dir / "shards.sbatch").string());
    submitted.shards_job = run_sbatch(shard_args);
    std::vector<std::string> merge_args{"--dependency=afterok:" + submitted.shards_job};
    merge_args.insert(merge_args.end(), options.sbatch_options.begin(), options.sbatch_options.end());
    merge_args.push_back((job.out_dir / "merge.sbatch").string());
    try {
        submitted.merge_job = run_sbatch(merge_args);
    } catch (const SlurmError& e) {
        throw SlurmError(fmt::format("{}\nthe shards (job {}) are submitted; submit the merge by hand once they "
                                     "finish: sbatch {}", e.what(), submitted.shards_job,
                                     (job.out_dir / "merge.sbatch").string()));
    }
    return submitted;
}

}  // namespace zkbatch
