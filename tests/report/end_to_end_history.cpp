// end_to_end_history DB: makes the history database the EndToEnd tests read, five runs
// of the real zkbatch (cpu-ref, and the fault-injecting plugin for a failed partition).
// ctest runs it once, as the fixture of those tests (tests/report/CMakeLists.txt), and
// each test process reads a copy; run outside ctest, the suite runs it itself.
#include "support/zkbatch_process.hpp"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using zkbatch::test::shell_quoted;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: end_to_end_history DATABASE\n");
        return 2;
    }
    const fs::path db = fs::absolute(argv[1]);
    // Runs are added to what the file holds: a database of an earlier ctest run goes first.
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);
    fs::create_directories(db.parent_path());

    // At 2^8: the tests need partitions, not large ones.
    const std::string smoke = std::string(SOURCE_DIR) + "/jobs/smoke.toml";
    const std::string common = shell_quoted(zkbatch::test::zkbatch_exe()) + " --log-level warn run " +
                               shell_quoted(smoke) + " --db " + shell_quoted(db.string()) +
                               " --set job.name=nightly --set circuit.log_n=8 ";
    struct Step {
        std::string arguments;
        int expected_exit;
    };
    const std::vector<Step> steps = {
        // run 1: two synthesis and two prove workers; a tag full of HTML.
        {"--backend cpu-ref --set job.partitions=6 --set pipeline.synthesis_workers=2 "
         "--set pipeline.prove_workers=2 --set " +
             shell_quoted("output.tags.note=\"<b>'A' & \\\"B\\\"</b>\""),
         0},
        // run 2: one prove worker.
        {"--backend cpu-ref --set job.partitions=6", 0},
        // runs 3 and 4: an experiment, one arm per prove_workers value.
        {"--backend cpu-ref --set job.partitions=6 --set " + shell_quoted("pipeline.prove_workers=[1, 2]"), 0},
        // run 5: partition 2 fails to prove, the others go on.
        {"--backend " + shell_quoted(FAULT_PLUGIN) +
             " --set job.partitions=6 --set pipeline.prove_workers=2 "
             "--set pipeline.on_error=continue --set backend.options.fail_prove_partition=2",
         5},
    };
    for (const Step& step : steps) {
        const auto result = zkbatch::test::run_shell(common + step.arguments, db.parent_path(), std::chrono::minutes(5));
        if (result.exit_code != step.expected_exit) {
            std::fprintf(stderr, "zkbatch run %s exited %d (expected %d): %s\n", step.arguments.c_str(),
                         result.exit_code, step.expected_exit, result.err.c_str());
            return 1;
        }
    }
    std::printf("made %s\n", db.c_str());
    return 0;
}
