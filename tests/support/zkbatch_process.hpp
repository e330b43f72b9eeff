// What the end-to-end suites share: start the real zkbatch executable (or any
// program), capture its exit code and output, make a scratch folder, and read a
// database back with plain SQL (not through zkbatch's Store, so the tests check the
// file itself).
//
// Link the `zkbatch_test_support` target; it knows where the zkbatch it tests is.
#pragma once

#include "support/temp_dir.hpp"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zkbatch::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Rows of a query, each column as text ("" for NULL).
using Rows = std::vector<std::vector<std::string>>;

// How a process ended and what it wrote.
struct CommandResult {
    static constexpr int kKilledBySignal = -1;
    static constexpr int kTimedOut = -2;  // still running at the time limit, then killed
    int exit_code = kKilledBySignal;
    int signal = 0;  // the signal that ended it, or 0
    std::string out, err;
};

// The zkbatch executable under test.
const char* zkbatch_exe();

// A process started in the background (so a test can signal it), its stdout and
// stderr going to files, stdin from /dev/null. Destroying a running one kills it.
class Process {
public:
    Process(const std::vector<std::string>& argv, fs::path out_file, fs::path err_file);
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    pid_t pid() const { return pid_; }
    void signal(int signal_number) const;
    bool running();
    // Waits at most `limit`; a process still running then is killed (kTimedOut).
    CommandResult wait(std::chrono::milliseconds limit = 120s);

private:
    pid_t pid_ = -1;
    bool reaped_ = false;
    int status_ = 0;
    fs::path out_file_, err_file_;
};

// `zkbatch ARGS...` started in the background; output in scratch_dir/TAG.out and .err.
std::unique_ptr<Process> start_zkbatch(const std::vector<std::string>& args, const fs::path& scratch_dir,
                                       const std::string& tag);
// Runs `zkbatch ARGS...` to its end (at most `limit`); output files go to scratch_dir.
CommandResult run_zkbatch(const std::vector<std::string>& args, const fs::path& scratch_dir,
                          std::chrono::milliseconds limit = 120s);
// The same with the arguments as one shell command line (quoted where needed, may
// redirect): `sh -c 'ZKBATCH ARGS'`.
CommandResult run_zkbatch_shell(const std::string& args, const fs::path& scratch_dir,
                                std::chrono::milliseconds limit = 120s);
// A shell command line (`sh -c`; quote with shell_quoted), run to its end.
CommandResult run_shell(const std::string& command_line, const fs::path& scratch_dir,
                        std::chrono::milliseconds limit = 120s);
// Any program (argv[0] a path), run to its end.
CommandResult run_program(const std::vector<std::string>& argv, const fs::path& scratch_dir,
                          std::chrono::milliseconds limit = 120s);

// `text` in single quotes for sh, safe whatever it contains.
std::string shell_quoted(std::string_view text);

std::string read_file(const fs::path& path);
// Writes `text` to `path` (a manifest, say) and returns the path.
fs::path write_file(const fs::path& path, std::string_view text);

// A query on the database at `db`, opened read-only; a failure to open or prepare is
// a test failure (and no rows).
Rows query(const std::string& db, const std::string& sql);
// The first column of the first row, or "<no row>".
std::string scalar(const std::string& db, const std::string& sql);
// Runs `sql` (any statements) on the database at `db`, opened for writing: how a test
// damages a database on purpose. A failure is a test failure.
void execute(const std::string& db, const std::string& sql);

}  // namespace zkbatch::test
