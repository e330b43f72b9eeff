#include "zkbatch_process.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace zkbatch::test {

const char* zkbatch_exe() { return ZKBATCH_EXE; }

Process::Process(const std::vector<std::string>& argv, fs::path out_file, fs::path err_file)
    : out_file_(std::move(out_file)), err_file_(std::move(err_file)) {
    std::vector<char*> raw;
    for (const auto& arg : argv) raw.push_back(const_cast<char*>(arg.c_str()));
    raw.push_back(nullptr);
    std::fflush(nullptr);  // or the child's exit would flush our buffered output twice
    pid_ = fork();
    if (pid_ == 0) {
        if (!std::freopen("/dev/null", "r", stdin) || !std::freopen(out_file_.c_str(), "w", stdout) ||
            !std::freopen(err_file_.c_str(), "w", stderr))
            _exit(126);
        execv(raw[0], raw.data());
        std::fprintf(stderr, "cannot start %s\n", raw[0]);
        _exit(127);
    }
    if (pid_ < 0) ADD_FAILURE() << "fork failed for " << argv.at(0);
}

Process::~Process() {
    if (pid_ > 0 && !reaped_) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
}

void Process::signal(int signal_number) const {
    if (pid_ > 0 && !reaped_) kill(pid_, signal_number);
}

bool Process::running() {
    if (reaped_ || pid_ <= 0) return false;
    if (waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
    return !reaped_;
}

CommandResult Process::wait(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(2ms);
    CommandResult result;
    if (pid_ > 0 && !reaped_) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        reaped_ = true;
        result.exit_code = CommandResult::kTimedOut;
    } else if (pid_ > 0) {
        result.exit_code = WIFEXITED(status_) ? WEXITSTATUS(status_) : CommandResult::kKilledBySignal;
        if (WIFSIGNALED(status_)) result.signal = WTERMSIG(status_);
    }
    result.out = read_file(out_file_);
    result.err = read_file(err_file_);
    return result;
}

namespace {

// Output files of one command: numbered, so commands of one test never share them.
std::pair<fs::path, fs::path> output_files(const fs::path& scratch_dir) {
    static std::atomic<int> next{0};
    const std::string stem = "command-" + std::to_string(next++);
    return {scratch_dir / (stem + ".out"), scratch_dir / (stem + ".err")};
}

}  // namespace

std::unique_ptr<Process> start_zkbatch(const std::vector<std::string>& args, const fs::path& scratch_dir,
                                       const std::string& tag) {
    std::vector<std::string> argv{zkbatch_exe()};
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Process>(argv, scratch_dir / (tag + ".out"), scratch_dir / (tag + ".err"));
}

CommandResult run_program(const std::vector<std::string>& argv, const fs::path& scratch_dir,
                          std::chrono::milliseconds limit) {
    const auto [out, err] = output_files(scratch_dir);
    return Process(argv, out, err).wait(limit);
}

CommandResult run_zkbatch(const std::vector<std::string>& args, const fs::path& scratch_dir,
                          std::chrono::milliseconds limit) {
    std::vector<std::string> argv{zkbatch_exe()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, scratch_dir, limit);
}

CommandResult run_shell(const std::string& command_line, const fs::path& scratch_dir,
                        std::chrono::milliseconds limit) {
    return run_program({"/bin/sh", "-c", command_line}, scratch_dir, limit);
}

CommandResult run_zkbatch_shell(const std::string& args, const fs::path& scratch_dir,
                                std::chrono::milliseconds limit) {
    return run_shell(shell_quoted(zkbatch_exe()) + " " + args, scratch_dir, limit);
}

std::string shell_quoted(std::string_view text) {
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

fs::path write_file(const fs::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) ADD_FAILURE() << "cannot write " << path;
    return path;
}

Rows query(const std::string& db, const std::string& sql) {
    sqlite3* handle = nullptr;
    Rows rows;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        ADD_FAILURE() << "cannot open " << db << ": " << sqlite3_errmsg(handle);
        sqlite3_close(handle);
        return rows;
    }
    sqlite3_busy_timeout(handle, 5000);  // a zkbatch writing the same file may hold the lock briefly
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
        ADD_FAILURE() << sql << ": " << sqlite3_errmsg(handle);
    } else {
        while (sqlite3_step(statement) == SQLITE_ROW) {
            std::vector<std::string> row;
            for (int i = 0; i < sqlite3_column_count(statement); ++i) {
                const auto* text = sqlite3_column_text(statement, i);
                row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
            }
            rows.push_back(std::move(row));
        }
    }
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return rows;
}

void execute(const std::string& db, const std::string& sql) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        ADD_FAILURE() << "cannot open " << db << ": " << sqlite3_errmsg(handle);
    } else {
        sqlite3_busy_timeout(handle, 5000);
        char* error = nullptr;
        if (sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK)
            ADD_FAILURE() << sql << ": " << (error ? error : "?");
        sqlite3_free(error);
    }
    sqlite3_close(handle);
}

std::string scalar(const std::string& db, const std::string& sql) {
    const Rows rows = query(db, sql);
    return rows.empty() || rows[0].empty() ? std::string("<no row>") : rows[0][0];
}

}  // namespace zkbatch::test
