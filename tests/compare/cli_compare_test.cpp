// End to end: the real zkbatch executable runs real jobs on cpu-ref (and the
// fault-injecting test plugin), then compare, the gate, history and export read them.
// No assertion rests on timing noise: where a verdict must be "slower", a known shift far
// beyond any stall (seconds) is added with plain SQL, and gates ask for at least that much.
#include "fake_history.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "support/zkbatch_process.hpp"

namespace {

using namespace std::chrono_literals;
using zkbatch::test::CommandResult;

class CliCompareTest : public ::testing::Test {
protected:
    // zkbatch with `args` (shell-quoted where needed).
    CommandResult zkbatch(const std::string& args) const {
        return zkbatch::test::run_zkbatch_shell(args, folder_.path(), 120s);
    }
    // A smoke-job run on cpu-ref (or another backend) into this test's database, at 2^8:
    // the comparisons need partitions, not large ones.
    void run(const std::string& settings = "", const std::string& backend = "cpu-ref") const {
        const auto result = zkbatch("--log-level warn run " + std::string(SOURCE_DIR) + "/jobs/smoke.toml --backend " +
                                    backend + " --db " + db_ + " --set circuit.log_n=8 " + settings);
        ASSERT_EQ(result.exit_code, 0) << result.err;
    }
    CommandResult tool(const std::string& args) const { return zkbatch(args + " --db " + db_); }
    void sql(const std::string& statement) const {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
        char* error = nullptr;
        EXPECT_EQ(sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
        sqlite3_free(error);
        sqlite3_close(db);
    }
    static const nlohmann::json& phase(const nlohmann::json& comparison, const std::string& name) {
        for (const auto& p : comparison["phases"])
            if (p["phase"] == name) return p;
        throw std::runtime_error("no phase " + name);
    }

    zkbatch::test::TempDir folder_{"zkbatch-compare"};
    std::string db_ = (folder_.path() / "runs.db").string();
};

TEST_F(CliCompareTest, KnownFinalizeShiftIsSlowerWithTheSameResults) {
    run("--set job.partitions=16 --set verify.mode=none");
    run("--set job.partitions=16 --set verify.mode=identity");
    // B's finalize made 5 s slower: beyond any stall, whatever the machine's load.
    sql("UPDATE partition SET finalize_ms = finalize_ms + 5000 WHERE run_id = 2");
    const auto result = tool("compare 1 2 --format json");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto json = nlohmann::json::parse(result.out);
    const auto& finalize = phase(json, "finalize");
    EXPECT_EQ(finalize["verdict"], "slower");
    EXPECT_LT(finalize["p_value"].get<double>(), 0.001);  // 16 against 16, fully separated
    EXPECT_GT(finalize["median_b_ms"].get<double>() - finalize["median_a_ms"].get<double>(), 5000 - 1000);
    EXPECT_GT(finalize["relative_change_ci_low"].get<double>(), 0);
    EXPECT_EQ(finalize["count_a"], 16);
    EXPECT_EQ(phase(json, "verify")["verdict"], "too_few_samples");  // A never verified
    EXPECT_EQ(json["results"]["status"], "same");  // verifying does not change h
    EXPECT_EQ(json["results"]["partitions_compared"], 16);
    // The reverse order finds it faster.
    const auto reverse = nlohmann::json::parse(tool("compare 2 1 --format json").out);
    EXPECT_EQ(phase(reverse, "finalize")["verdict"], "faster");
}

TEST_F(CliCompareTest, IdenticalArmsGiveEveryFormatAndSameResults) {
    run("--set job.partitions=6");
    run("--set job.partitions=6");
    const auto table = tool("compare latest~1 job=smoke");
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("results: same proofs (6 partitions compared)"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("partition "), std::string::npos);
    const auto csv = zkbatch::testing::parse_csv(tool("compare 1 2 --format csv").out);
    ASSERT_GE(csv.size(), 2u);
    EXPECT_EQ(csv[0].front(), "phase");
    EXPECT_EQ(csv[0].back(), "results");
    EXPECT_EQ(csv.back()[0], "partition");
    EXPECT_NE(tool("compare 1 2 --format markdown").out.find("|---|"), std::string::npos);
    // Timing noise on a shared machine decides these verdicts; only their vocabulary is fixed.
    // The parsed document outlives the loop (a range-for over a temporary's member does
    // not keep the temporary alive in C++20: ASan found a use after free).
    const auto report = nlohmann::json::parse(tool("compare 1 2 --format json").out);
    for (const auto& p : report.at("phases")) {
        const std::string verdict = p["verdict"];
        EXPECT_TRUE(verdict == "no_difference" || verdict == "faster" || verdict == "slower" ||
                    verdict == "too_few_samples") << verdict;
    }
}

TEST_F(CliCompareTest, ExperimentArmsCompareWithOneArgument) {
    // One run per arm, interleaved by `zkbatch run`; queue depth does not change the results.
    run("--set job.partitions=6 --set 'pipeline.queue_depth=[2, 3]'");
    const auto result = tool("compare experiment=1 --format json");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto json = nlohmann::json::parse(result.out);
    EXPECT_EQ(json["a"]["arm"], "pipeline.queue_depth=2");
    EXPECT_EQ(json["b"]["arm"], "pipeline.queue_depth=3");
    EXPECT_EQ(json["results"]["status"], "same");
    EXPECT_EQ(json["results"]["partitions_compared"], 6);
    EXPECT_EQ(phase(json, "partition")["count_b"], 6);
    const auto chosen = nlohmann::json::parse(
        tool("compare experiment=1,arm=pipeline.queue_depth=3 experiment=1,arm=pipeline.queue_depth=2 --format json").out);
    EXPECT_EQ(chosen["a"]["run_ids"], json["b"]["run_ids"]);
    const auto pooled = tool("compare experiment=1 latest");  // both arms on one side
    EXPECT_EQ(pooled.exit_code, 4);
    EXPECT_NE(pooled.err.find("selects runs that differ"), std::string::npos) << pooled.err;
}

TEST_F(CliCompareTest, GatePassesOnHonestBaselineAndFailsOnDoctoredOne) {
    // A regression must also be 2 s of median: honest runs on a loaded machine stay far
    // below (CI once saw idle_gap's median of 0.075 ms grow to 1.3 ms, +1665%).
    const std::string rule = "--fail-on-regression 1000 --min-change-ms 2000";
    const std::string gate = "compare --baseline previous --job smoke " + rule;
    run("--set job.partitions=12");
    const auto first = tool(gate);
    EXPECT_EQ(first.exit_code, 0) << first.err;
    EXPECT_NE(first.err.find("no baseline yet"), std::string::npos) << first.err;

    run("--set job.partitions=12");
    // Another job and a failed-looking run must not become the baseline.
    run("--set job.partitions=12 --set job.name=other");
    const auto honest = tool(gate);
    EXPECT_EQ(honest.exit_code, 0) << honest.out << honest.err;
    EXPECT_NE(honest.out.find("A: run 1 (previous"), std::string::npos) << honest.out;
    EXPECT_NE(honest.out.find("B: run 2 (latest"), std::string::npos) << honest.out;
    EXPECT_NE(honest.out.find("gate: pass"), std::string::npos) << honest.out;

    // The candidates made 100 s slower at proving: beyond both thresholds against run 1.
    sql("UPDATE partition SET prove_ms = prove_ms + 100000, compute_ms = compute_ms + 100000 WHERE run_id > 1");
    const auto doctored = tool(gate);
    EXPECT_EQ(doctored.exit_code, 7) << doctored.out << doctored.err;
    EXPECT_NE(doctored.out.find("gate: FAIL"), std::string::npos) << doctored.out;
    EXPECT_NE(doctored.out.find("prove +"), std::string::npos) << doctored.out;
    EXPECT_NE(doctored.out.find("slower (REGRESSION)"), std::string::npos) << doctored.out;
    // A pinned baseline, JSON on stdout and the verdict on stderr.
    const auto pinned = tool("compare --baseline 1 " + rule + " --format json");
    EXPECT_EQ(pinned.exit_code, 7);
    EXPECT_FALSE(nlohmann::json::parse(pinned.out)["gate"]["passed"]);
    EXPECT_NE(pinned.err.find("gate: FAIL"), std::string::npos) << pinned.err;
    // Without --fail-on-regression nothing gates.
    EXPECT_EQ(tool("compare 1 2").exit_code, 0);
}

TEST_F(CliCompareTest, FastWrongBackendStandsOut) {
    run("--set verify.mode=none");
    run("--set verify.mode=none --plugin-path " + std::string(FAULT_PLUGIN) + " --set backend.options.corrupt_h_partition=2",
        "fault-inject");
    const auto result = tool("compare 1 2");
    EXPECT_EQ(result.exit_code, 5) << result.out << result.err;
    EXPECT_NE(result.out.find("!!! DIFFERENT PROOFS in 1 of 4 partitions (first: partition 2) !!!"), std::string::npos)
        << result.out;
    const auto json = tool("compare 1 2 --format json");
    EXPECT_EQ(json.exit_code, 5);
    EXPECT_EQ(nlohmann::json::parse(json.out)["results"]["first_different_partition"], 2);
    EXPECT_NE(json.err.find("DIFFERENT PROOFS"), std::string::npos);
}

TEST_F(CliCompareTest, ExportWritesParseableJsonAndCsv) {
    run("--set output.tags.arm=a");
    const auto file = folder_.path() / "export.json";
    const auto written = tool("export latest -o " + file.string());
    ASSERT_EQ(written.exit_code, 0) << written.err;
    std::ifstream in(file);
    const auto json = nlohmann::json::parse(in);
    ASSERT_EQ(json["runs"].size(), 1u);
    EXPECT_EQ(json["runs"][0]["run"]["job_name"], "smoke");
    EXPECT_EQ(json["runs"][0]["run"]["tags"]["arm"], "a");
    EXPECT_EQ(json["runs"][0]["run"]["facts"]["plugin.abi_version"].is_string(), true);
    ASSERT_EQ(json["runs"][0]["partitions"].size(), 4u);
    for (const auto& partition : json["runs"][0]["partitions"]) {
        EXPECT_EQ(partition["status"], "ok");
        EXPECT_GT(partition["synth_ms"].get<double>(), 0);
        EXPECT_GT(partition["partition_ms"].get<double>(), 0);
        EXPECT_EQ(partition["verified"], 1);
    }
    const auto csv = zkbatch::testing::parse_csv(tool("export 1 --format csv").out);
    ASSERT_EQ(csv.size(), 5u);  // header + 4 partitions
    EXPECT_EQ(csv[0][0], "run_id");
    EXPECT_EQ(csv[0][1], "run_job_name");
    EXPECT_NE(std::find(csv[0].begin(), csv[0].end(), "run_tag_arm"), csv[0].end());
    EXPECT_NE(std::find(csv[0].begin(), csv[0].end(), "partition_ms"), csv[0].end());
}

TEST_F(CliCompareTest, HistoryAndErrorsHaveTheirExitCodes) {
    run();
    run();
    const auto history = tool("history --job smoke");
    EXPECT_EQ(history.exit_code, 0) << history.err;
    EXPECT_NE(history.out.find("job smoke: partition (ms per run, median over the run's partitions)"), std::string::npos)
        << history.out;
    EXPECT_NE(history.out.find("0 step changes found"), std::string::npos) << history.out;
    EXPECT_EQ(tool("history --job smoke --metric partitions_per_hour").exit_code, 0);
    EXPECT_EQ(tool("history --job smoke --metric nope").exit_code, 2);
    EXPECT_EQ(tool("history --job weekly").exit_code, 4);
    const auto missing = tool("compare 1 99");
    EXPECT_EQ(missing.exit_code, 4);
    EXPECT_NE(missing.err.find("there is no run 99"), std::string::npos) << missing.err;
    EXPECT_EQ(tool("compare").exit_code, 2);
    EXPECT_EQ(tool("compare --baseline previous").exit_code, 2);  // which job?
    EXPECT_EQ(tool("compare 1 2 --format yaml").exit_code, 2);
    EXPECT_EQ(tool("export 1 --format xml").exit_code, 2);
}

}  // namespace
