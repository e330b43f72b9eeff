// export_runs: the JSON parses and holds every run column, tag, fact and partition;
// the CSV has the documented header and survives a parser written here (RFC 4180).
#include "analysis/export.hpp"
#include "fake_history.hpp"
#include "support/zkbatch_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace zkbatch {
namespace {

class ExportTest : public ::testing::Test {
protected:
    void SetUp() override {
        testing::FakeRun first;
        first.partition_ms = {10, 20, 30};
        first.tags = {{"arm", "pinned"}, {"note", "has, a comma and \"quotes\""}};
        first.facts = {{"device.name", "NVIDIA H200"}};
        first_ = testing::add_run(store_, first);
        testing::FakeRun second;
        second.job = "smoke";
        second.partition_ms = {5, 6};
        second.tags = {{"purpose", "smoke"}};
        second_ = testing::add_run(store_, second);
    }
    zkbatch::test::TempDir folder_{"zkbatch-compare"};
    const std::filesystem::path db_ = folder_.path() / "export.db";
    Store store_{db_};
    int64_t first_ = 0, second_ = 0;
};

TEST_F(ExportTest, JsonHoldsRunsWithEnvironmentAndPartitions) {
    const auto json = nlohmann::json::parse(export_runs(store_, {first_, second_}, ExportFormat::json));
    EXPECT_EQ(json["format"], "zkbatch-export");
    EXPECT_EQ(json["version"], 1);
    ASSERT_EQ(json["runs"].size(), 2u);
    const auto& run = json["runs"][0]["run"];
    EXPECT_EQ(run["id"], first_);
    EXPECT_EQ(run["job_name"], "nightly");
    EXPECT_EQ(run["log_n"], 12);
    EXPECT_EQ(run["status"], "ok");
    EXPECT_TRUE(run["pcie_gen"].is_null());        // NULL: not reported
    EXPECT_EQ(run["gpu_name"], "NVIDIA H200");     // from the device.name fact
    EXPECT_TRUE(run["manifest_text"].is_string());
    EXPECT_EQ(run["tags"]["arm"], "pinned");
    EXPECT_EQ(run["facts"]["device.name"], "NVIDIA H200");
    // Every column of the run table is there: the table's own list, from SQLite, not
    // the row the export itself reads.
    const auto columns = zkbatch::test::query(db_.string(), "SELECT name FROM pragma_table_info('run')");
    ASSERT_GT(columns.size(), 40u);
    for (const auto& column : columns) EXPECT_TRUE(run.contains(column.at(0))) << column.at(0);
    const auto& partitions = json["runs"][0]["partitions"];
    ASSERT_EQ(partitions.size(), 3u);
    EXPECT_EQ(partitions[1]["partition_index"], 1);
    EXPECT_DOUBLE_EQ(partitions[1]["synth_ms"].get<double>(), 8.0);
    EXPECT_NEAR(partitions[1]["partition_ms"].get<double>(), 20.0, 1e-6);
    EXPECT_EQ(partitions[1]["h_digest"].get<std::string>().size(), 32u);
    EXPECT_FALSE(partitions[1].contains("id"));
    EXPECT_FALSE(partitions[1].contains("run_id"));
    for (const auto& column : zkbatch::test::query(db_.string(), "SELECT name FROM pragma_table_info('partition')")) {
        if (column.at(0) != "id" && column.at(0) != "run_id") {
            EXPECT_TRUE(partitions[1].contains(column.at(0))) << column.at(0);
        }
    }
    EXPECT_EQ(json["runs"][1]["partitions"].size(), 2u);
}

TEST_F(ExportTest, CsvHasOneRowPerPartitionAndTheDocumentedHeader) {
    const auto rows = testing::parse_csv(export_runs(store_, {first_, second_}, ExportFormat::csv));
    ASSERT_EQ(rows.size(), 1u + 3 + 2);
    const auto& header = rows[0];
    EXPECT_EQ(header[0], "run_id");
    EXPECT_EQ(header[1], "run_job_name");
    const auto column = [&](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        EXPECT_NE(it, header.end()) << name;
        return static_cast<size_t>(it - header.begin());
    };
    for (const char* name : {"run_status", "run_backend_name", "run_log_n", "run_manifest_text", "partition_index",
                             "status", "synth_ms", "prove_ms", "finalize_ms", "h_digest", "partition_ms",
                             "run_tag_arm", "run_tag_note", "run_tag_purpose", "run_fact_device.name"})
        column(name);
    for (const auto& row : rows) ASSERT_EQ(row.size(), header.size());
    EXPECT_EQ(rows[1][column("run_tag_note")], "has, a comma and \"quotes\"");
    EXPECT_EQ(rows[1][column("run_manifest_text")], "[job]\nname = \"nightly\"\n");
    EXPECT_EQ(rows[3][column("partition_index")], "2");
    EXPECT_EQ(std::stod(rows[3][column("synth_ms")]), 12.0);
    EXPECT_EQ(rows[4][column("run_job_name")], "smoke");
    EXPECT_EQ(rows[4][column("run_tag_arm")], "");        // the second run has no such tag
    EXPECT_EQ(rows[4][column("run_tag_purpose")], "smoke");
    EXPECT_EQ(rows[4][column("run_gpu_name")], "");  // NULL
    EXPECT_EQ(rows[1][column("run_gpu_name")], "NVIDIA H200");
}

}  // namespace
}  // namespace zkbatch
