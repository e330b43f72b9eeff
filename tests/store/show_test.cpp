// The text of `zkbatch runs` and `zkbatch show`.
#include "report/show.hpp"
#include "store_test_util.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace zkbatch {
namespace {

using namespace zkbatch::test;

#define EXPECT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(::testing::IsSubstring, part, text)
#define EXPECT_NOT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(::testing::IsNotSubstring, part, text)

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

TEST(FormatDuration, KnownAnswers) {
    EXPECT_EQ(format_duration_ms(0), "0 ms");
    EXPECT_EQ(format_duration_ms(850.4), "850 ms");
    EXPECT_EQ(format_duration_ms(12'345), "12.3 s");
    EXPECT_EQ(format_duration_ms(245'000), "4 min 05 s");
    EXPECT_EQ(format_duration_ms(2 * 3'600'000 + 3 * 60'000), "2 h 03 min");
}

TEST(FormatRunList, ColumnsLineUp) {
    std::vector<RunListRow> rows(2);
    rows[0] = {7, "2025-03-01T02:03:04.567Z", "nightly", "cuda-pinned", "ok", 10, 0, 12'345.0};
    rows[1] = {12, "2025-03-02T02:03:04.567Z", "ab", "cpu-ref", "running", 3, 1, std::nullopt};
    const auto lines = lines_of(format_run_list(rows));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "id  started                   job      backend      status   ok/failed    wall");
    EXPECT_EQ(lines[1], " 7  2025-03-01T02:03:04.567Z  nightly  cuda-pinned  ok            10/0  12.3 s");
    EXPECT_EQ(lines[2], "12  2025-03-02T02:03:04.567Z  ab       cpu-ref      running        3/1       -");
    EXPECT_EQ(format_run_list({}), "no runs recorded\n");
}

class FormatRunDetails : public ::testing::Test {
protected:
    TempDir dir;
    fs::path db = dir.path() / "zkbatch.db";
};

TEST_F(FormatRunDetails, ShowsEnvironmentOutcomeAndPhases) {
    Store store(db);
    RunRecord run = sample_run();
    run.devices = {{0, "NVIDIA H200", 1}};
    const int64_t run_id = store.begin_run(run);
    for (uint64_t i = 0; i < 3; ++i) {
        PartitionRecord partition = sample_partition(i, run.started_steady_ns);
        partition.phases["synth"].ms = 10.0 * static_cast<double>(i + 1);  // median 20, p95 30
        store.record_partition(run_id, partition);
    }
    RunSummary summary;
    summary.wall_ms = 1'800'000;  // 3 in half an hour: 6 per hour
    summary.partitions_ok = 3;
    summary.device_busy_ms = {{0, 900'000}};  // half the wall
    summary.peak_rss_bytes = 3ull << 30;
    store.finish_run(run_id, summary);

    const std::string text = format_run_details(store, run_id);
    EXPECT_CONTAINS(text, "run 1 in " + db.string());
    EXPECT_CONTAINS(text, "hostname");
    EXPECT_CONTAINS(text, "host-a");
    EXPECT_CONTAINS(text, "circuit.log_n=12 job.partitions=3");  // overrides on one line
    EXPECT_CONTAINS(text, "night");
    EXPECT_CONTAINS(text, "NVIDIA H200");
    EXPECT_CONTAINS(text, "partitions per hour  6.0");
    EXPECT_CONTAINS(text, "GPU busy             50.0 %");
    EXPECT_CONTAINS(text, "h2d median           50.00 GB/s");  // 1e8 bytes in 2 ms
    EXPECT_CONTAINS(text, "peak RSS             3.0 GiB");
    EXPECT_CONTAINS(text, "3 ok, 0 failed");
    EXPECT_CONTAINS(text, "median GB/s");
    // The phase table: header, then synth's count / median / p95 / min / max.
    const auto lines = lines_of(text);
    const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
        return line.find("phase") != std::string::npos && line.find("median") != std::string::npos;
    });
    ASSERT_NE(header, lines.end());
    const auto synth = std::find_if(header, lines.end(), [](const std::string& line) {
        return line.rfind("  synth ", 0) == 0;
    });
    ASSERT_NE(synth, lines.end());
    std::istringstream cells(*synth);
    std::string phase, count, median, p95, min, max;
    cells >> phase >> count >> median >> p95 >> min >> max;
    EXPECT_EQ(std::vector<std::string>({phase, count, median, p95, min, max}),
              std::vector<std::string>({"synth", "3", "20.000", "30.000", "10.000", "30.000"}));
    // Columns line up: each number ends under its header.
    EXPECT_EQ(synth->find("20.000") + 6, header->find("median") + 6);
}

TEST_F(FormatRunDetails, LeavesOutWhatWasNotMeasured) {
    Store store(db);
    RunRecord run = sample_run();
    run.backend_name = "cpu-ref";
    run.facts.clear();
    run.tags.clear();
    const int64_t run_id = store.begin_run(run);
    std::string text = format_run_details(store, run_id);
    EXPECT_CONTAINS(text, "running");
    EXPECT_CONTAINS(text, "none recorded");
    EXPECT_NOT_CONTAINS(text, "GPU busy");
    // A CPU partition: phases but no copies, so no rate column.
    PartitionRecord cpu = sample_partition(0, run.started_steady_ns);
    cpu.phases["h2d"].ms = -1;
    cpu.phases["d2h"].ms = -1;
    store.record_partition(run_id, cpu);
    text = format_run_details(store, run_id);
    EXPECT_CONTAINS(text, "synth");
    EXPECT_NOT_CONTAINS(text, "GB/s");
    EXPECT_NOT_CONTAINS(text, "GPU busy");
    EXPECT_NOT_CONTAINS(text, "h2d median");
    EXPECT_NOT_CONTAINS(text, "backend facts");
    EXPECT_NOT_CONTAINS(text, "partitions per hour");
}

TEST_F(FormatRunDetails, UnknownRunIsAStoreError) {
    Store store(db);
    EXPECT_THROW(format_run_details(store, 5), StoreError);
}

}  // namespace
}  // namespace zkbatch
