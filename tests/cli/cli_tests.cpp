// End-to-end tests: the real zkbatch executable, the real cpu-ref plugin, a real
// SQLite file, read back here with plain SQL (not through zkbatch's Store).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/unprivileged.hpp"
#include "support/zkbatch_process.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using zkbatch::test::CommandResult;
using zkbatch::test::read_file;

namespace {

class CliTest : public ::testing::Test {
protected:
    // Runs zkbatch with `args` (already shell-quoted where needed).
    CommandResult zkbatch(const std::string& args) const { return zkbatch::test::run_zkbatch_shell(args, dir_, 300s); }

    // The smoke job at 2^8 instead of its 2^12, for tests whose subject (seeds, replay,
    // records, injected faults) does not depend on the size: the job as shipped is
    // proved where the size matters (the NTT splits over threads only from 2^12 on).
    static inline const std::string kAt2To8 = "--set circuit.log_n=8 ";

    // A cpu-ref run of the smoke job with extra arguments, into this test's database.
    CommandResult run_smoke(const std::string& extra = "", const std::string& backend = "cpu-ref") const {
        return zkbatch("--log-level warn run " + std::string(SOURCE_DIR) + "/jobs/smoke.toml --backend " +
                       backend + " --db " + db_ + " " + extra);
    }

    fs::path write_manifest(const std::string& name, const std::string& text) const {
        const fs::path path = dir_ / name;
        std::ofstream(path) << text;
        return path;
    }

    // Rows of a query on the test database, each row's columns as text ("" for NULL).
    zkbatch::test::Rows query(const std::string& sql) const { return zkbatch::test::query(db_, sql); }
    std::string scalar(const std::string& sql) const { return zkbatch::test::scalar(db_, sql); }

    // Partition digests of one run, by partition index.
    std::vector<std::string> digests(const std::string& run_id) const {
        std::vector<std::string> result;
        for (const auto& row : query("SELECT h_digest FROM partition WHERE run_id = " + run_id +
                                     " ORDER BY partition_index"))
            result.push_back(row[0]);
        return result;
    }

    std::string latest_run() const { return scalar("SELECT max(id) FROM run"); }

    // A smoke run at 2^8 on the fault-injecting plugin with `options`.
    CommandResult run_faulty(const std::string& options) const {
        return run_smoke(kAt2To8 + "--plugin-path " + FAULT_PLUGIN + " " + options +
                             " --set backend.options.outstanding_report=" + (dir_ / "outstanding.txt").string(),
                         "fault-inject");
    }
    std::string outstanding_buffers() const { return read_file(dir_ / "outstanding.txt"); }

    zkbatch::test::TempDir scratch_{"zkbatch-cli"};
    const fs::path dir_ = scratch_.path();
    const std::string db_ = (dir_ / "runs.db").string();
};

TEST_F(CliTest, SmokeRunRecordsEveryPartitionVerified) {
    const auto result = run_smoke();
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string run = latest_run();
    EXPECT_EQ(scalar("SELECT status FROM run WHERE id = " + run), "ok");
    const std::string partitions = scalar("SELECT partitions FROM run WHERE id = " + run);
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + run + " AND status = 'ok' "
                     "AND verified = 1 AND length(h_digest) = 32"),
              partitions);
    EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(scalar("PRAGMA foreign_key_check"), "<no row>");
    EXPECT_NE(result.out.find("zkbatch show " + run), std::string::npos) << result.out;
}

TEST_F(CliTest, SameSeedGivesSameDigestsAndOtherSeedsDiffer) {
    ASSERT_EQ(run_smoke(kAt2To8 + "--set job.seed=7").exit_code, 0);
    const auto first = digests(latest_run());
    ASSERT_EQ(run_smoke(kAt2To8 + "--set job.seed=7").exit_code, 0);
    const auto second = digests(latest_run());
    ASSERT_EQ(run_smoke(kAt2To8 + "--set job.seed=8").exit_code, 0);
    const auto other_seed = digests(latest_run());
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(first, second);
    ASSERT_EQ(first.size(), other_seed.size());
    for (size_t i = 0; i < first.size(); ++i) EXPECT_NE(first[i], other_seed[i]) << "partition " << i;
    // Partitions of one run are different circuits, too.
    EXPECT_NE(first[0], first[1]);
}

// At the job's 2^12, where the NTT runs on the threads given.
TEST_F(CliTest, DigestsDoNotDependOnWorkerCounts) {
    ASSERT_EQ(run_smoke("--set pipeline.synthesis_workers=1 --set pipeline.prove_workers=1 "
                        "--set backend.options.threads=1")
                  .exit_code,
              0);
    const auto serial = digests(latest_run());
    ASSERT_EQ(run_smoke("--set pipeline.synthesis_workers=2 --set pipeline.prove_workers=2 "
                        "--set backend.options.threads=2 --set pipeline.queue_depth=1")
                  .exit_code,
              0);
    EXPECT_EQ(serial, digests(latest_run()));
}

TEST_F(CliTest, ReplayRunsProveTheReplayedInputs) {
    ASSERT_EQ(run_smoke(kAt2To8 + "--set job.partitions=4").exit_code, 0);
    const auto fresh = digests(latest_run());
    ASSERT_EQ(run_smoke(kAt2To8 + "--set job.partitions=4 --set pipeline.replay_inputs=2").exit_code, 0);
    const auto replayed = digests(latest_run());
    ASSERT_EQ(fresh.size(), 4u);
    ASSERT_EQ(replayed.size(), 4u);
    EXPECT_EQ(replayed[0], fresh[0]);
    EXPECT_EQ(replayed[1], fresh[1]);
    EXPECT_EQ(replayed[2], fresh[0]);
    EXPECT_EQ(replayed[3], fresh[1]);
}

TEST_F(CliTest, ListsMakeAnExperimentOfInterleavedArmsOnTheSameInputs) {
    const auto manifest = write_manifest("ab.toml", R"(
[job]
name = "ab"
partitions = 6
seed = 3
[circuit]
log_n = [8, 9]
[pipeline]
prove_workers = [1, 2]
[backend]
name = "cpu-ref"
)");
    const auto result = zkbatch("--log-level warn run " + manifest.string() + " --db " + db_);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto runs = query("SELECT id, experiment_id, arm, status, partitions_ok FROM run ORDER BY id");
    ASSERT_EQ(runs.size(), 4u);
    for (const auto& run : runs) {
        EXPECT_EQ(run[1], runs[0][1]) << "one experiment";
        EXPECT_EQ(run[3], "ok");
        EXPECT_EQ(run[4], "6");
    }
    EXPECT_EQ(runs[0][2], "circuit.log_n=8 pipeline.prove_workers=1");
    EXPECT_EQ(runs[3][2], "circuit.log_n=9 pipeline.prove_workers=2");
    EXPECT_EQ(scalar("SELECT arm_count || ' ' || order_method FROM experiment"), "4 randomized-blocks");
    // Arms of one circuit prove the same inputs: identical digests, whatever the workers.
    EXPECT_EQ(digests(runs[0][0]), digests(runs[1][0]));
    EXPECT_EQ(digests(runs[2][0]), digests(runs[3][0]));
    EXPECT_NE(digests(runs[0][0]), digests(runs[2][0]));
    // Interleaved: the arms' partition intervals alternate in time rather than running
    // one arm to completion first (blocks of one partition here: 6 / 8 rounds up to 1).
    auto synth_starts = [&](const std::string& run, const char* aggregate) {
        return std::stod(scalar(std::string("SELECT ") + aggregate +
                                "(r.started_steady_ns + i.start_ns) FROM phase_interval AS i "
                                "JOIN partition AS p ON p.id = i.partition_id JOIN run AS r ON r.id = p.run_id "
                                "WHERE r.id = " + run + " AND i.phase = 'synth'"));
    };
    EXPECT_LT(synth_starts(runs[3][0], "min"), synth_starts(runs[0][0], "max"));
    EXPECT_LT(synth_starts(runs[0][0], "min"), synth_starts(runs[3][0], "max"));
}

TEST_F(CliTest, BackendOptionReplacesAnAxis) {
    const auto manifest = write_manifest("axis.toml", "[job]\nname = \"x\"\npartitions = 1\n[circuit]\nlog_n = 4\n"
                                                      "[backend]\nname = [\"cpu-ref\", \"auto\"]\n");
    ASSERT_EQ(zkbatch("--log-level warn run " + manifest.string() + " --backend cpu-ref --db " + db_).exit_code, 0);
    EXPECT_EQ(scalar("SELECT count(*) FROM run"), "1");
    EXPECT_EQ(scalar("SELECT count(*) FROM experiment"), "0");
}

TEST_F(CliTest, ShowAgreesWithTheDatabase) {
    ASSERT_EQ(run_smoke(kAt2To8 + "--set job.partitions=5").exit_code, 0);
    const std::string run = latest_run();
    const auto show = zkbatch("show " + run + " --db " + db_);
    ASSERT_EQ(show.exit_code, 0) << show.err;
    // The median synthesis time, computed here from the raw rows.
    std::vector<double> synth_ms;
    for (const auto& row : query("SELECT synth_ms FROM partition WHERE run_id = " + run))
        synth_ms.push_back(std::stod(row[0]));
    ASSERT_EQ(synth_ms.size(), 5u);
    std::sort(synth_ms.begin(), synth_ms.end());
    char median[32];
    std::snprintf(median, sizeof median, "%.3f", synth_ms[2]);
    EXPECT_NE(show.out.find(median), std::string::npos) << "median synth " << median << " not in:\n" << show.out;
    EXPECT_NE(show.out.find("smoke"), std::string::npos);

    const auto runs = zkbatch("runs --db " + db_);
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    EXPECT_NE(runs.out.find("cpu-ref"), std::string::npos) << runs.out;
}

TEST_F(CliTest, DumpWritesExactlyNTimes32BytesPerVector) {
    ASSERT_EQ(run_smoke("--set job.partitions=1 --set circuit.log_n=6 --dump " + (dir_ / "dump").string())
                  .exit_code,
              0);
    for (const char* name : {"a", "b", "c", "h"})
        EXPECT_EQ(fs::file_size(dir_ / "dump" / (std::string("p0.") + name + ".bin")), 64u * 32u) << name;
}

// The PoRep profile through the real binary: its proofs verify, the run records the
// profile in its circuit, and a manifest that contradicts the profile is refused where it does.
TEST_F(CliTest, PorepProfileProofsVerifyAndTheRunNamesTheProfile) {
    const std::string job = "[job]\nname = \"porep-small\"\npartitions = 2\n[circuit]\nprofile = \"porep\"\nlog_n = 11\n";
    const auto manifest = write_manifest("porep.toml", job + "public_inputs = 4\n[backend]\nname = \"cpu-ref\"\n");
    const auto result = zkbatch("--log-level warn run " + manifest.string() + " --db " + db_);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string run = latest_run();
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + run + " AND status = 'ok' AND verified = 1"), "2");
    const std::string circuit = scalar("SELECT circuit FROM run WHERE id = " + run);
    EXPECT_NE(circuit.find("profile=porep\nlog_n=11\npublic_inputs=4\nbit_valued_share=0.987032085829555\n"),
              std::string::npos)
        << circuit;
    EXPECT_EQ(scalar("SELECT public_inputs || ' ' || boolean_share || ' ' || terms_per_row FROM run WHERE id = " + run),
              "4 0.987032085829555 0");

    const auto contradiction = write_manifest("contradiction.toml", job + "terms_per_row = 8\n");
    const auto refused = zkbatch("run " + contradiction.string() + " --db " + db_);
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find(contradiction.string() + ":7:"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("circuit.terms_per_row"), std::string::npos) << refused.err;
    const auto too_small = zkbatch("validate " + manifest.string() + " --set circuit.log_n=10 --set circuit.public_inputs=327");
    EXPECT_EQ(too_small.exit_code, 2);
    EXPECT_NE(too_small.err.find("leave room for 29 public inputs, not 327"), std::string::npos) << too_small.err;
}

// Every subcommand `zkbatch --help` lists has its own help, and the list is the one
// the README documents.
TEST_F(CliTest, EverySubcommandHasHelp) {
    const auto top = zkbatch("--help");
    ASSERT_EQ(top.exit_code, 0) << top.err;
    const size_t section = top.out.find("Subcommands:");
    ASSERT_NE(section, std::string::npos) << top.out;
    std::vector<std::string> listed;
    std::istringstream lines(top.out.substr(section));
    std::string heading;
    std::getline(lines, heading);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string name;
        if (line.starts_with("  ") && words >> name) listed.push_back(name);
    }
    EXPECT_EQ(listed, (std::vector<std::string>{"run", "prove", "verify", "validate", "setup", "backends", "runs",
                                                "show", "trace", "report", "compare", "history", "export", "proofs",
                                                "merge", "slurm"}))
        << top.out;
    for (const std::string& sub : listed) {
        const auto result = zkbatch(sub + " --help");
        EXPECT_EQ(result.exit_code, 0) << sub << ": " << result.err;
        EXPECT_NE(result.out.find("Usage: zkbatch " + sub), std::string::npos) << sub << ":\n" << result.out;
    }
    EXPECT_EQ(zkbatch("").exit_code, 2);
    EXPECT_EQ(zkbatch("frobnicate").exit_code, 2);
}

TEST_F(CliTest, ValidateAcceptsShippedJobsAndRejectsBrokenOnes) {
    for (const char* job : {"default", "smoke", "porep-32g"}) {
        const auto result = zkbatch("validate " + std::string(SOURCE_DIR) + "/jobs/" + job + ".toml");
        EXPECT_EQ(result.exit_code, 0) << job << ": " << result.err;
    }
    const auto bad = write_manifest("bad.toml", "[job]\nname = \"x\"\n\n[circuit]\nlog_nn = 4\n");
    const auto result = zkbatch("validate " + bad.string());
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find(bad.string() + ":5:"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("log_n"), std::string::npos) << result.err;
}

TEST_F(CliTest, MalformedManifestsExitWithTheUsageCodeAndNameTheLine) {
    const std::map<std::string, std::pair<std::string, std::string>> cases = {
        // name -> (manifest text, expected "file:line" suffix)
        {"syntax", {"[job]\nname = \"x\"\npartitions = = 3\n", ":3:"}},
        {"type", {"[job]\nname = \"x\"\n[circuit]\nlog_n = \"big\"\n", ":4:"}},
        {"range", {"[job]\nname = \"x\"\n[circuit]\nlog_n = 29\n", ":4:"}},
        {"table", {"[job]\nname = \"x\"\n[circut]\nlog_n = 4\n", ":3:"}},
    };
    for (const auto& [name, test_case] : cases) {
        const auto path = write_manifest(name + ".toml", test_case.first);
        const auto result = zkbatch("run " + path.string() + " --db " + db_);
        EXPECT_EQ(result.exit_code, 2) << name << ": " << result.err;
        EXPECT_NE(result.err.find(path.string() + test_case.second), std::string::npos)
            << name << ": " << result.err;
    }
    EXPECT_FALSE(fs::exists(db_)) << "a manifest error must not create the database";
}

TEST_F(CliTest, UnknownBackendExitsWithThePluginCodeAndSaysWhereItLooked) {
    const auto result = run_smoke("", "no-such-backend");
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_NE(result.err.find("no-such-backend"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("plugins"), std::string::npos) << result.err;
}

// The table's USABLE column, read by the header's columns: cpu-ref runs anywhere, and
// proves both curves.
TEST_F(CliTest, BackendsListsCpuRefAsUsable) {
    const auto result = zkbatch("backends");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::istringstream lines(result.out);
    std::string header;
    std::getline(lines, header);
    const size_t usable = header.find("USABLE"), description = header.find("DESCRIPTION");
    ASSERT_NE(usable, std::string::npos) << result.out;
    ASSERT_NE(description, std::string::npos) << result.out;
    std::vector<std::string> cpu_ref_usable;
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("cpu-ref ") && line.size() > description)
            cpu_ref_usable.push_back(line.substr(usable, line.find(' ', usable) - usable));
    EXPECT_EQ(cpu_ref_usable, std::vector<std::string>{"yes"}) << result.out;
    const size_t cpu_ref = result.out.find("\ncpu-ref ");
    ASSERT_NE(cpu_ref, std::string::npos) << result.out;
    const size_t curves = result.out.find("curves: ", cpu_ref);
    ASSERT_NE(curves, std::string::npos) << result.out;
    EXPECT_EQ(result.out.substr(curves, result.out.find('\n', curves) - curves), "curves: bls12-381, bn254")
        << result.out;
}

TEST_F(CliTest, UnwritableDatabaseExitsWithTheStorageCode) {
    std::ofstream(dir_ / "file") << "not a folder";
    const auto result = zkbatch("--log-level warn run " + std::string(SOURCE_DIR) +
                                "/jobs/smoke.toml --backend cpu-ref --db " + (dir_ / "file" / "x.db").string());
    EXPECT_EQ(result.exit_code, 4) << result.err;
    const auto not_a_db = write_manifest("garbage.db", std::string(4096, 'x'));
    EXPECT_EQ(zkbatch("runs --db " + not_a_db.string()).exit_code, 4);
}

TEST_F(CliTest, FailedProveIsRecordedAndTheRunContinuesWhenAsked) {
    const auto result = run_faulty(("--set backend.options.fail_prove_partition=1 "
                                                "--set pipeline.on_error=continue --set job.partitions=4"));
    EXPECT_EQ(result.exit_code, 5) << result.err;
    const std::string run = latest_run();
    EXPECT_EQ(scalar("SELECT status FROM run WHERE id = " + run), "failed");
    EXPECT_EQ(scalar("SELECT status || ': ' || error FROM partition WHERE run_id = " + run +
                     " AND partition_index = 1"),
              "failed: fault-inject: injected prove failure");
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + run + " AND status = 'ok'"), "3");
    EXPECT_EQ(outstanding_buffers(), "0\n");
}

// pipeline.on_error as the manifest format's default: a manifest without the key (the
// smoke job's says "stop" itself).
TEST_F(CliTest, FailedProveStopsTheRunByDefault) {
    const auto manifest = write_manifest("default-on-error.toml", "[job]\nname = \"stops\"\npartitions = 40\n"
                                                                  "[circuit]\nlog_n = 8\n[pipeline]\n"
                                                                  "synthesis_workers = 1\nqueue_depth = 1\n");
    const auto result = zkbatch("--log-level warn run " + manifest.string() + " --db " + db_ + " --plugin-path " +
                                FAULT_PLUGIN + " --backend fault-inject --set backend.options.fail_prove_partition=0 "
                                "--set backend.options.outstanding_report=" + (dir_ / "outstanding.txt").string());
    EXPECT_EQ(result.exit_code, 5) << result.err;
    const std::string run = latest_run();
    EXPECT_EQ(scalar("SELECT status FROM run WHERE id = " + run), "failed");
    EXPECT_LT(std::stoi(scalar("SELECT count(*) FROM partition WHERE run_id = " + run)), 40);
    EXPECT_EQ(scalar("SELECT error FROM run WHERE id = " + run), "partition 0 failed and pipeline.on_error = \"stop\"");
    EXPECT_EQ(outstanding_buffers(), "0\n");
}

TEST_F(CliTest, WrongQuotientFailsVerification) {
    const auto result = run_faulty(("--set backend.options.corrupt_h_partition=2 "
                                                "--set pipeline.on_error=continue"));
    EXPECT_EQ(result.exit_code, 5) << result.err;
    const std::string run = latest_run();
    EXPECT_EQ(scalar("SELECT status || ' ' || verified FROM partition WHERE run_id = " + run +
                     " AND partition_index = 2"),
              "verify_failed 0");
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + run + " AND verified = 1"),
              std::to_string(std::stoi(scalar("SELECT partitions FROM run WHERE id = " + run)) - 1));
}

// A backend that digests h itself (plugin ABI v4, as the CUDA backends do) is asked
// for h only where the runner reads it: the fault plugin leaves 0xff bytes in h's
// buffer otherwise, so a runner that digested that buffer would record other digests.
TEST_F(CliTest, BackendDigestIsRecordedAndHIsReadOnlyWhereVerified) {
    ASSERT_EQ(run_smoke(kAt2To8).exit_code, 0);  // run_faulty's size
    const auto expected = digests(latest_run());
    for (const char* verify : {"--set verify.mode=none", "--set verify.mode=sampled --set verify.every=2"}) {
        const auto result = run_faulty(std::string("--set backend.options.digest_h=1 ") + verify);
        ASSERT_EQ(result.exit_code, 0) << verify << "\n" << result.err;
        const std::string run = latest_run();
        EXPECT_EQ(digests(run), expected) << verify;
        EXPECT_EQ(scalar("SELECT group_concat(coalesce(verified, '-'), '') FROM (SELECT verified FROM partition "
                         "WHERE run_id = " + run + " ORDER BY partition_index)"),
                  std::string(verify).find("none") != std::string::npos ? "----" : "1-1-")
            << verify;
    }
}

// Where h is read (here every partition's h is checked against the quotient identity),
// the backend's digest must be the digest of the h it returned.
TEST_F(CliTest, BackendDigestThatDisagreesWithItsHFailsThePartition) {
    const auto result = run_faulty("--set backend.options.digest_h=1 --set backend.options.wrong_digest_partition=2 "
                                   "--set pipeline.on_error=continue --set verify.mode=identity");
    EXPECT_EQ(result.exit_code, 5) << result.err;
    const std::string run = latest_run();
    const std::string error = scalar("SELECT status || ': ' || error FROM partition WHERE run_id = " + run +
                                     " AND partition_index = 2");
    EXPECT_EQ(error.rfind("failed: the backend's h digest ", 0), 0u) << error;
    EXPECT_NE(error.find("differs from"), std::string::npos) << error;
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + run + " AND status = 'ok'"), "3");
}

TEST_F(CliTest, FailedBufferAllocationIsRecorded) {
    const auto result = run_faulty(("--set backend.options.fail_acquire_call=2 "
                                                "--set pipeline.on_error=continue"));
    EXPECT_EQ(result.exit_code, 5) << result.err;
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + latest_run() +
                     " AND error LIKE '%injected buffer allocation failure%'"),
              "1");
    EXPECT_EQ(outstanding_buffers(), "0\n");
}

TEST_F(CliTest, UnknownBackendOptionIsAPluginError) {
    const auto result = run_smoke("--set backend.options.thredas=2");
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_NE(result.err.find("thredas"), std::string::npos) << result.err;
}

// The sanitizers start threads of their own in every process, which the thread limit
// below would count; their trees skip the test that sets one.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// A pipeline thread that the system refuses to start (here: the user's task limit,
// RLIMIT_NPROC, reached after the first threads) stops the run cleanly: recorded
// 'failed' with the reason, exit 5. Until the pipeline caught it, std::thread's
// exception left the threads already started joinable and the process ended in
// std::terminate (SIGABRT), its run left 'running'. As root the limit does not apply,
// so zkbatch runs as nobody then.
TEST_F(CliTest, AThreadTheSystemRefusesStopsTheRunCleanly) {
    if (kSanitized) GTEST_SKIP() << "the sanitizers' own threads count against the limit";
    if (!fs::exists("/usr/bin/prlimit") || (zkbatch::test::running_as_root() && !fs::exists("/usr/bin/setpriv")))
        GTEST_SKIP() << "needs prlimit and setpriv (util-linux)";
    zkbatch::test::hand_over_to_unprivileged(dir_);
    std::vector<std::string> argv = zkbatch::test::unprivileged_command();
    // The main thread and two finalizers; the signal watcher is refused.
    argv.insert(argv.end(), {"/usr/bin/prlimit", "--nproc=3:3", zkbatch::test::zkbatch_exe(), "--log-level", "warn",
                             "run", std::string(SOURCE_DIR) + "/jobs/smoke.toml", "--backend", "cpu-ref", "--db", db_});
    const auto result = zkbatch::test::run_program(argv, dir_);
    ASSERT_EQ(result.signal, 0) << "zkbatch was killed by signal " << result.signal << "\n" << result.err;
    EXPECT_EQ(result.exit_code, 5) << result.out << result.err;
    EXPECT_NE(result.out.find("stopped because: cannot start "), std::string::npos) << result.out;
    const std::string run = latest_run();
    EXPECT_EQ(scalar("SELECT status FROM run WHERE id = " + run), "failed");
    EXPECT_EQ(scalar("SELECT error LIKE 'cannot start %' FROM run WHERE id = " + run), "1");
}

// Dump folders are made after the runs begin (an experiment's arms each get DIR/runN).
// One that cannot be made is a storage error, exit 4, naming it, and every run begun
// is recorded 'failed' with the reason; until now it was "internal error: a bug in
// zkbatch" (exit 1) and the runs stayed 'running'.
TEST_F(CliTest, ADumpFolderThatCannotBeMadeIsAStorageErrorAndEndsTheRuns) {
    const auto manifest = write_manifest("ab.toml", "[job]\nname = \"ab\"\npartitions = 2\n[circuit]\nlog_n = 6\n"
                                                    "[backend]\nname = \"cpu-ref\"\n[pipeline]\nqueue_depth = [1, 2]\n");
    fs::create_directories(dir_ / "dump");
    std::ofstream(dir_ / "dump" / "run2") << "a file where arm 2's folder goes";
    const auto result = zkbatch("--log-level warn run " + manifest.string() + " --db " + db_ + " --dump " +
                                (dir_ / "dump").string());
    EXPECT_EQ(result.exit_code, 4) << result.err;
    EXPECT_NE(result.err.find("cannot create dump directory " + (dir_ / "dump" / "run2").string()), std::string::npos)
        << result.err;
    EXPECT_EQ(result.err.find("internal error"), std::string::npos) << result.err;
    EXPECT_EQ(query("SELECT id, status, error LIKE 'cannot create dump directory%' FROM run ORDER BY id"),
              (zkbatch::test::Rows{{"1", "failed", "1"}, {"2", "failed", "1"}}));
}

}  // namespace
