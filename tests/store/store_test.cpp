// The SQLite store: round trips, statistics in SQL, migrations, failure paths,
// concurrent writers and the saved queries under results/queries.
#include "manifest/manifest.hpp"
#include "store/sqlite_support.hpp"
#include "store/store.hpp"
#include "store_test_util.hpp"
#include "support/unprivileged.hpp"
#include "util/usage_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <latch>
#include <set>
#include <sstream>
#include <typeinfo>
#include <thread>

namespace zkbatch {
namespace {

using namespace zkbatch::test;

// Like EXPECT_THAT(text, HasSubstr(part)), without needing gmock.
#define EXPECT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(::testing::IsSubstring, part, text)

class StoreTest : public ::testing::Test {
protected:
    // tests/store/fixtures/schema-vN.db, a database zkbatch wrote at schema version N,
    // copied to `db`.
    void use_fixture(int version) const {
        fs::create_directories(db.parent_path());
        fs::copy_file(fs::path(ZKBATCH_SOURCE_DIR) / fmt::format("tests/store/fixtures/schema-v{}.db", version), db);
        ASSERT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(version));
    }

    TempDir dir;
    fs::path db = dir.path() / "results" / "zkbatch.db";  // folder created by the Store
};

// Runs `body`, which must throw Error, and returns its message.
template <typename Error, typename Body>
std::string error_of(Body&& body) {
    try {
        body();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a " << typeid(Error).name();
    return {};
}
template <typename Body>
std::string store_error_of(Body&& body) {
    return error_of<StoreError>(body);
}

// The oracles: median = mean of the two middle values for an even count; p95 =
// nearest rank, the value at rank ceil(0.95 * count) (1-based).
double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}
double p95_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const auto rank = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(values.size())));
    return values[rank - 1];
}

const PhaseStats* find_phase(const std::vector<PhaseStats>& stats, const std::string& phase) {
    for (const auto& s : stats) {
        if (s.phase == phase) return &s;
    }
    return nullptr;
}

// A partition with only the given phases measured (everything else -1, no intervals).
PartitionRecord bare_partition(uint64_t index) {
    PartitionRecord partition;
    partition.partition_index = index;
    partition.h_digest = "00112233445566778899aabbccddeeff";
    return partition;
}

// --- round trip ------------------------------------------------------------------

TEST_F(StoreTest, RoundTripOfRunPartitionsAndIntervals) {
    Store store(db);
    RunRecord run = sample_run();
    run.devices = {{0, "NVIDIA H200", 1}};
    const int64_t run_id = store.begin_run(run);

    PartitionRecord first = sample_partition(0, run.started_steady_ns);
    PartitionRecord unmeasured = bare_partition(2);  // index 1 never recorded
    unmeasured.status = PartitionStatus::verify_failed;
    unmeasured.error = "h(x) identity does not hold";
    unmeasured.verified = false;
    store.record_partition(run_id, first);
    store.record_partition(run_id, unmeasured);

    RunSummary summary;
    summary.status = RunStatus::ok;
    summary.ended_unix_ns = run.started_unix_ns + 7'200'000'000'000;  // two hours later
    summary.wall_ms = 7'200'000;
    summary.partitions_ok = 3;
    summary.partitions_failed = 1;
    summary.device_busy_ms = {{0, 4'500'000}};  // 0.625 of the wall
    summary.peak_rss_bytes = 3 * 1024 * 1024;
    store.finish_run(run_id, summary);

    // The run row, read back on another connection.
    const auto run_row = sql_rows(db, fmt::format(
        "SELECT job_name, status, started_at, ended_at, gpu_name, gpu_sm_count, "
        "typeof(gpu_sm_count), gpu_memory_bytes, pcie_gen, pcie_width, pool_setup_ms, "
        "gpu_driver_version, seed, overrides, manifest_text, started_steady_ns, wall_ms, "
        "partitions_ok, gpu_busy_fraction, peak_rss_bytes, cuda_runtime_version "
        "FROM run WHERE id = {}", run_id))[0];
    EXPECT_EQ(run_row, (std::vector<std::string>{
                           "nightly", "ok", "2023-11-14T22:13:20.123Z", "2023-11-15T00:13:20.123Z",
                           "NVIDIA H200", "132", "integer", "NULL" /* "unknown" is no number */,
                           "5", "16", "812.5", "580.159.04", "42", run.overrides,
                           run.manifest_text, "5000000000", "7200000.0", "3", "0.625",
                           "3145728", "NULL"}));
    EXPECT_EQ(sql_rows(db, "SELECT key, value FROM run_tag ORDER BY key"),
              (std::vector<std::vector<std::string>>{{"night", "2025-03-01"}, {"purpose", "a/b"}}));
    EXPECT_EQ(sql_value(db, "SELECT value FROM run_fact WHERE key = 'device.memory_bytes'"),
              "unknown");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM run_fact"), "7");

    // Partitions: -1 and unmeasured bytes are NULL, verified is NULL/0/1.
    EXPECT_EQ(sql_rows(db, "SELECT partition_index, status, error, synth_ms, h2d_ms, h2d_bytes, "
                           "d2h_bytes, malloc_trim_ms, idle_gap_ms, verified, h_digest "
                           "FROM partition ORDER BY partition_index"),
              (std::vector<std::vector<std::string>>{
                  {"0", "ok", "NULL", "10.0", "2.0", "100000000", "20000000", "NULL", "NULL", "1",
                   first.h_digest},
                  {"2", "verify_failed", "h(x) identity does not hold", "NULL", "NULL", "NULL",
                   "NULL", "NULL", "NULL", "0", "00112233445566778899aabbccddeeff"}}));

    // Intervals: relative to started_steady_ns; bytes 0 and device -1 stored as NULL.
    EXPECT_EQ(sql_rows(db, "SELECT phase, lane, start_ns, end_ns, bytes, on_device, device_index "
                           "FROM phase_interval ORDER BY start_ns"),
              (std::vector<std::vector<std::string>>{
                  {"synth", "synth.0", "0", "10000000", "NULL", "0", "NULL"},
                  {"h2d", "stream0.copy", "20000000", "22000000", "100000000", "1", "0"},
                  {"finalize", "finalize", "50000000", "60000000", "NULL", "0", "NULL"}}));
    EXPECT_EQ(sql_rows(db, "SELECT start_ms, end_ms, duration_ms FROM timeline WHERE phase = 'h2d'"),
              (std::vector<std::vector<std::string>>{{"20.0", "22.0", "2.0"}}));

    // The Store's own readers.
    const auto runs = store.list_runs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].run_id, run_id);
    EXPECT_EQ(runs[0].started, "2023-11-14T22:13:20.123Z");
    EXPECT_EQ(runs[0].job_name, "nightly");
    EXPECT_EQ(runs[0].backend_name, "cuda-pinned");
    EXPECT_EQ(runs[0].status, "ok");
    EXPECT_EQ(runs[0].partitions_ok, 3u);
    EXPECT_EQ(runs[0].partitions_failed, 1u);
    EXPECT_EQ(runs[0].wall_ms, 7'200'000.0);

    const auto environment = store.run_environment(run_id);
    const auto value_of = [&](const std::string& key) -> std::optional<std::string> {
        for (const auto& [k, v] : environment) {
            if (k == key) return v;
        }
        return std::nullopt;
    };
    EXPECT_EQ(value_of("hostname"), "host-a");
    EXPECT_EQ(value_of("gpu_sm_count"), "132");
    EXPECT_EQ(value_of("git_revision"), "abc1234");
    EXPECT_EQ(value_of("manifest_text"), std::nullopt);      // long: left to SQL
    EXPECT_EQ(value_of("started_steady_ns"), std::nullopt);  // a raw clock
    EXPECT_EQ(value_of("cuda_runtime_version"), std::nullopt);  // NULL: not reported

    EXPECT_EQ(store.run_tags(run_id), (std::vector<std::pair<std::string, std::string>>{
                                          {"night", "2025-03-01"}, {"purpose", "a/b"}}));
    EXPECT_EQ(store.run_facts(run_id).size(), 7u);
    EXPECT_EQ(store.partition_digests(run_id),
              (std::vector<std::string>{first.h_digest, "", "00112233445566778899aabbccddeeff"}));

    const RunOverview overview = store.run_overview(run_id);
    EXPECT_EQ(overview.status, "ok");
    EXPECT_EQ(overview.partitions_ok, 3u);
    EXPECT_DOUBLE_EQ(*overview.partitions_per_hour, 1.5);  // 3 ok in two hours
    EXPECT_DOUBLE_EQ(*overview.gpu_busy_fraction, 0.625);
    EXPECT_DOUBLE_EQ(*overview.median_h2d_gb_per_s, 50);  // 1e8 bytes in 2 ms
    EXPECT_EQ(overview.peak_rss_bytes, 3u * 1024 * 1024);

    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
    EXPECT_TRUE(sql_rows(db, "PRAGMA foreign_key_check").empty());
}

TEST_F(StoreTest, RunningRunCountsRecordedPartitions) {
    Store store(db);
    const RunRecord run = sample_run();
    const int64_t run_id = store.begin_run(run);
    store.record_partition(run_id, sample_partition(0, run.started_steady_ns));
    PartitionRecord failed = bare_partition(1);
    failed.status = PartitionStatus::failed;
    failed.error = "device lost";
    store.record_partition(run_id, failed);
    // No finish_run: the process "died". The summary still shows what was recorded.
    const RunOverview overview = store.run_overview(run_id);
    EXPECT_EQ(overview.status, "running");
    EXPECT_EQ(overview.partitions_ok, 1u);
    EXPECT_EQ(overview.partitions_failed, 1u);
    EXPECT_FALSE(overview.wall_ms.has_value());
    EXPECT_FALSE(overview.partitions_per_hour.has_value());
}

// --- statistics --------------------------------------------------------------------

TEST_F(StoreTest, MedianAndP95OfKnownValuesFromPhaseStatsAndFromTheView) {
    Store store(db);
    const RunRecord run = sample_run();
    const int64_t run_id = store.begin_run(run);
    const std::vector<double> synth_ms = {5, 1, 4, 2, 3};        // odd count
    const std::vector<double> prove_ms = {10, 40, 20, 30, -1};   // even count once -1 is out
    const std::vector<double> h2d_ms = {100, 50, 20, -1, -1};    // 1e9 bytes: 10, 20, 50 GB/s
    for (size_t i = 0; i < synth_ms.size(); ++i) {
        PartitionRecord partition = bare_partition(i);
        partition.phases["synth"].ms = synth_ms[i];
        partition.phases["prove"].ms = prove_ms[i];
        partition.phases["h2d"].ms = h2d_ms[i];
        partition.phases["h2d"].bytes = 1'000'000'000;
        store.record_partition(run_id, partition);
    }
    // A failed partition stopped part-way: its times are left out of the summary.
    PartitionRecord failed = bare_partition(5);
    failed.status = PartitionStatus::failed;
    failed.phases["synth"].ms = 1000;
    store.record_partition(run_id, failed);
    // One partition with synth and finalize intervals gives the derived total.
    PartitionRecord timed = sample_partition(6, run.started_steady_ns);
    timed.phases["synth"].ms = 3;
    timed.phases["prove"].ms = -1;
    timed.phases["h2d"].ms = -1;
    store.record_partition(run_id, timed);

    const std::vector<double> synth_all = {5, 1, 4, 2, 3, 3};
    const std::vector<double> prove_all = {10, 40, 20, 30};
    const auto stats = store.phase_stats(run_id);

    const PhaseStats* synth = find_phase(stats, "synth");
    ASSERT_NE(synth, nullptr);
    EXPECT_EQ(synth->count, 6u);
    EXPECT_DOUBLE_EQ(synth->median_ms, 3);   // (3 + 3) / 2
    EXPECT_DOUBLE_EQ(synth->p95_ms, 5);      // rank ceil(5.7) = 6
    EXPECT_DOUBLE_EQ(synth->min_ms, 1);
    EXPECT_DOUBLE_EQ(synth->max_ms, 5);      // 1000 belongs to the failed partition
    EXPECT_DOUBLE_EQ(synth->median_ms, median_of(synth_all));
    EXPECT_FALSE(synth->median_gb_per_s.has_value());

    const PhaseStats* prove = find_phase(stats, "prove");
    ASSERT_NE(prove, nullptr);
    EXPECT_EQ(prove->count, 4u);
    EXPECT_DOUBLE_EQ(prove->median_ms, 25);  // (20 + 30) / 2
    EXPECT_DOUBLE_EQ(prove->p95_ms, 40);
    EXPECT_DOUBLE_EQ(prove->median_ms, median_of(prove_all));
    EXPECT_DOUBLE_EQ(prove->p95_ms, p95_of(prove_all));

    const PhaseStats* h2d = find_phase(stats, "h2d");
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->count, 3u);
    EXPECT_DOUBLE_EQ(h2d->median_ms, 50);
    ASSERT_TRUE(h2d->median_gb_per_s.has_value());
    EXPECT_DOUBLE_EQ(*h2d->median_gb_per_s, 20);
    EXPECT_DOUBLE_EQ(*store.run_overview(run_id).median_h2d_gb_per_s, 20);

    const PhaseStats* total = find_phase(stats, "partition");
    ASSERT_NE(total, nullptr);
    EXPECT_EQ(total->count, 1u);
    EXPECT_DOUBLE_EQ(total->median_ms, 60);  // synth starts at 0, finalize ends at 60 ms

    // Phases come in pipeline order, and unmeasured phases are absent.
    std::vector<std::string> order;
    for (const auto& s : stats) order.push_back(s.phase);
    EXPECT_EQ(order, (std::vector<std::string>{"pool_wait", "synth", "queue_wait", "h2d",
                                               "compute", "d2h", "prove", "finalize", "verify",
                                               "partition"}));

    // The same numbers straight from the view with raw SQL on another connection.
    const auto view = sql_rows(db, fmt::format(
        "SELECT phase, count, median_ms, p95_ms, min_ms, max_ms FROM phase_summary "
        "WHERE run_id = {} AND phase IN ('synth', 'prove') ORDER BY phase", run_id));
    EXPECT_EQ(view, (std::vector<std::vector<std::string>>{
                        {"prove", "4", "25.0", "40.0", "10.0", "40.0"},
                        {"synth", "6", "3.0", "5.0", "1.0", "5.0"}}));
}

TEST_F(StoreTest, NearestRankP95IsNotTheMaximumForTwentyOrMoreValues) {
    Store store(db);
    for (const size_t count : {20u, 21u, 40u}) {
        const int64_t run_id = store.begin_run(sample_run());
        std::vector<double> values;
        for (size_t i = 0; i < count; ++i) {
            // A scrambled order, so the view has to sort.
            const double compute_ms = 1.5 * static_cast<double>((i * 11) % count + 1);
            values.push_back(compute_ms);
            PartitionRecord partition = bare_partition(i);
            partition.phases["compute"].ms = compute_ms;
            store.record_partition(run_id, partition);
        }
        // Kept in a variable: find_phase points into it (ASan found a use after free).
        const std::vector<PhaseStats> stats = store.phase_stats(run_id);
        const PhaseStats* compute = find_phase(stats, "compute");
        ASSERT_NE(compute, nullptr);
        EXPECT_EQ(compute->count, count);
        EXPECT_DOUBLE_EQ(compute->median_ms, median_of(values)) << count << " values";
        EXPECT_DOUBLE_EQ(compute->p95_ms, p95_of(values)) << count << " values";
        EXPECT_DOUBLE_EQ(compute->max_ms, 1.5 * static_cast<double>(count));
    }
    // Known answers: 20 values -> rank 19, 21 values -> rank 20, 40 -> rank 38.
    EXPECT_EQ(sql_rows(db, "SELECT run_id, median_ms, p95_ms FROM phase_summary "
                           "WHERE phase = 'compute' ORDER BY run_id"),
              (std::vector<std::vector<std::string>>{
                  {"1", "15.75", "28.5"}, {"2", "16.5", "30.0"}, {"3", "30.75", "57.0"}}));
}

// --- selectors ---------------------------------------------------------------------

TEST_F(StoreTest, ResolveRunSelectors) {
    Store store(db);
    const int64_t first = store.begin_run(sample_run("a"));
    const int64_t second = store.begin_run(sample_run("b"));
    const int64_t third = store.begin_run(sample_run("c"));
    EXPECT_EQ(store.resolve_run("latest"), third);
    EXPECT_EQ(store.resolve_run("latest~0"), third);
    EXPECT_EQ(store.resolve_run("latest~1"), second);
    EXPECT_EQ(store.resolve_run("latest~2"), first);
    EXPECT_EQ(store.resolve_run(std::to_string(second)), second);

    for (const std::string unknown : {"latest~3", "99"}) {
        const std::string message = store_error_of([&] { store.resolve_run(unknown); });
        EXPECT_CONTAINS(message, "'" + unknown + "'");
        EXPECT_CONTAINS(message, db.string());
        EXPECT_CONTAINS(message, "zkbatch runs");
    }
    for (const std::string malformed : {"", "last", "latest~", "latest~-1", "latest~x", "-2", "0"}) {
        const std::string message = error_of<UsageError>([&] { store.resolve_run(malformed); });
        EXPECT_CONTAINS(message, "latest~K") << "selector '" << malformed << "'";
    }
}

TEST_F(StoreTest, ResolveLatestInAnEmptyDatabase) {
    Store store(db);
    EXPECT_CONTAINS(store_error_of([&] { store.resolve_run("latest"); }), "no run 'latest'");
}

// --- schema and migrations ----------------------------------------------------------

// The phase table (store/phases.hpp) is the schema's list of phases: phase_name holds
// its rows in its order, the partition table a column for each stored phase (and a
// bytes column for each copy), and partition_phase reports exactly those phases.
TEST_F(StoreTest, ThePhaseTableIsTheSchemasListOfPhases) {
    Store store(db);
    std::vector<std::vector<std::string>> expected_rows;
    for (size_t i = 0; i < kPhaseCount; ++i)
        expected_rows.push_back({std::string(kPhases[i].name), std::to_string(i + 1), std::string(kPhases[i].description)});
    EXPECT_EQ(sql_rows(db, "SELECT phase, sort_order, description FROM phase_name ORDER BY sort_order"), expected_rows);

    std::set<std::string> columns;
    for (const auto& row : sql_rows(db, "SELECT name FROM pragma_table_info('partition')")) columns.insert(row[0]);
    PartitionRecord partition = sample_partition(0, sample_run().started_steady_ns);
    std::set<std::string> measured;
    for (size_t i = 0; i < kPhaseCount; ++i) {
        const PhaseInfo& phase = kPhases[i];
        if (phase.source == PhaseSource::derived) continue;
        EXPECT_TRUE(columns.contains(ms_column(phase))) << phase.name;
        EXPECT_EQ(columns.contains(bytes_column(phase)), phase.moves_bytes) << phase.name;
        partition.phases[PhaseKey::at(i)] = {static_cast<double>(i + 1), phase.moves_bytes ? 1000 * (i + 1) : 0};
        measured.insert(std::string(phase.name));
    }
    store.record_partition(store.begin_run(sample_run()), partition);
    measured.insert("partition");  // sample_partition has synth and finalize intervals
    std::set<std::string> reported;
    for (const auto& row : sql_rows(db, "SELECT phase, ms, bytes FROM partition_phase")) {
        reported.insert(row[0]);
        const auto key = PhaseKey::find(row[0]);
        ASSERT_TRUE(key) << row[0];
        if (key->info().source == PhaseSource::derived) continue;
        EXPECT_EQ(std::stod(row[1]), static_cast<double>(key->index() + 1)) << row[0];
        EXPECT_EQ(row[2], key->info().moves_bytes ? std::to_string(1000 * (key->index() + 1)) : "NULL") << row[0];
    }
    EXPECT_EQ(reported, measured);
}

// docs/schema.md lists every phase of the table, as a row of its phase table.
TEST(SchemaDocs, NameEveryPhase) {
    std::ifstream file(fs::path(ZKBATCH_SOURCE_DIR) / "docs" / "schema.md");
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty());
    for (const PhaseInfo& phase : kPhases)
        EXPECT_NE(text.find("| `" + std::string(phase.name) + "` |"), std::string::npos) << phase.name;
}

TEST_F(StoreTest, MigratesAnEmptyFileToTheCurrentSchema) {
    fs::create_directories(db.parent_path());
    std::ofstream(db).close();  // zero bytes: a valid, empty SQLite database
    {
        Store store(db);
        int foreign_keys = 0;
        sqlite3_stmt* statement = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(store.handle(), "PRAGMA foreign_keys", -1, &statement, nullptr),
                  SQLITE_OK);
        ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
        foreign_keys = sqlite3_column_int(statement, 0);
        sqlite3_finalize(statement);
        EXPECT_EQ(foreign_keys, 1);
        store.begin_run(sample_run());
    }
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion));
    EXPECT_EQ(sql_value(db, "PRAGMA journal_mode"), "wal");
    EXPECT_EQ(sql_rows(db, "SELECT name FROM pragma_table_list WHERE schema = 'main' "
                           "AND type = 'table' AND name NOT LIKE 'sqlite%' AND strict = 0"),
              (std::vector<std::vector<std::string>>{}));  // every table STRICT
    EXPECT_EQ(sql_rows(db, "SELECT type, name FROM sqlite_schema WHERE type IN ('table', 'view') "
                           "ORDER BY type, name"),
              (std::vector<std::vector<std::string>>{
                  {"table", "experiment"}, {"table", "partition"}, {"table", "phase_interval"},
                  {"table", "phase_name"}, {"table", "run"}, {"table", "run_device"},
                  {"table", "run_fact"}, {"table", "run_tag"}, {"view", "device_summary"},
                  {"view", "partition_phase"}, {"view", "phase_summary"},
                  {"view", "run_summary"}, {"view", "timeline"}}));

    // Reopening is not a second migration, and keeps the data.
    Store again(db);
    EXPECT_EQ(again.list_runs().size(), 1u);
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion));
}

// fixtures/schema-v1.db was written by zkbatch with schema v1 (a 4-partition smoke run
// on cpu-ref). Opening it migrates in place and keeps every row.
TEST_F(StoreTest, MigratesASchemaV1DatabaseWrittenByAnOlderZkbatch) {
    use_fixture(1);
    const auto digests_before = sql_rows(db, "SELECT partition_index, h_digest FROM partition ORDER BY 1");
    ASSERT_EQ(digests_before.size(), 4u);
    {
        Store store(db);
        EXPECT_EQ(store.partition_digests(1).size(), 4u);
        EXPECT_EQ(store.phase_stats(1).empty(), false);
    }
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion));
    EXPECT_EQ(sql_rows(db, "SELECT partition_index, h_digest FROM partition ORDER BY 1"), digests_before);
    EXPECT_EQ(sql_value(db, "SELECT length(uuid) FROM run WHERE id = 1"), "32");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM experiment"), "0");
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
    EXPECT_TRUE(sql_rows(db, "PRAGMA foreign_key_check").empty());
}

// fixtures/schema-v2.db was written by zkbatch with schema v2 (a 4-partition smoke run
// on cpu-ref, before devices were recorded). Opening it adds the device columns and
// tables empty: its partitions have no device, its run no device rows.
TEST_F(StoreTest, MigratesASchemaV2DatabaseWrittenByAnOlderZkbatch) {
    use_fixture(2);
    const auto rows_before =
        sql_rows(db, "SELECT partition_index, status, h_digest, prove_ms FROM partition ORDER BY 1");
    ASSERT_EQ(rows_before.size(), 4u);
    const std::string uuid_before = sql_value(db, "SELECT uuid FROM run WHERE id = 1");
    {
        Store store(db);
        EXPECT_EQ(store.partition_digests(1).size(), 4u);
        EXPECT_TRUE(store.device_stats(1).empty());
        EXPECT_EQ(store.run_overview(1).partitions_ok, 4u);
    }
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion));
    EXPECT_EQ(sql_rows(db, "SELECT partition_index, status, h_digest, prove_ms FROM partition ORDER BY 1"),
              rows_before);
    EXPECT_EQ(sql_value(db, "SELECT uuid FROM run WHERE id = 1"), uuid_before);
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition WHERE device_index IS NOT NULL"), "0");
    EXPECT_EQ(sql_value(db, "SELECT devices IS NULL FROM run WHERE id = 1"), "1");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM run_device"), "0");
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
    EXPECT_TRUE(sql_rows(db, "PRAGMA foreign_key_check").empty());
}

// fixtures/schema-v3.db was written by zkbatch with schema v3: run 1 a plain cpu-ref
// run; run 2 replays 2 input sets (replay_inputs and on_error in its manifest,
// finalize_workers and verify.every from --set); run 3 like run 2 without those --set,
// its stored manifest then given a key this zkbatch refuses. The migration to v4 reads
// each run's pipeline settings into run columns, the refused key notwithstanding, and
// keeps every row.
TEST_F(StoreTest, MigratesASchemaV3DatabaseIntoRunColumnsOfItsPipelineSettings) {
    use_fixture(3);
    // Later versions add partition columns: compare the ones v3 had.
    std::string v3_columns;
    for (const auto& column : sql_rows(db, "SELECT name FROM pragma_table_info('partition')"))
        v3_columns += (v3_columns.empty() ? "" : ", ") + column.at(0);
    const std::string v3_partitions = "SELECT " + v3_columns + " FROM partition ORDER BY id";
    const auto partitions_before = sql_rows(db, v3_partitions);
    ASSERT_EQ(partitions_before.size(), 12u);
    const std::string manifest_3 = sql_value(db, "SELECT manifest_text FROM run WHERE id = 3");
    ASSERT_THROW(parse_manifest(manifest_3, "run 3"), ManifestError) << "the fixture's point: run 3 no longer parses";
    { Store store(db); }
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion));
    EXPECT_EQ(sql_rows(db, "SELECT id, replay_inputs, finalize_workers, verify_every, on_error FROM run ORDER BY id"),
              (std::vector<std::vector<std::string>>{
                  {"1", "0", "2", "1", "stop"}, {"2", "2", "3", "2", "continue"}, {"3", "2", "2", "1", "continue"}}));
    EXPECT_EQ(sql_rows(db, v3_partitions), partitions_before);
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_name"), std::to_string(kPhaseCount));
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
    EXPECT_TRUE(sql_rows(db, "PRAGMA foreign_key_check").empty());
}

// A run of v3 whose manifest is not TOML at all keeps the settings it cannot tell
// NULL; that it synthesized every partition (no replay.setup_ms fact) is still known.
TEST_F(StoreTest, SchemaV4LeavesUnreadableSettingsNull) {
    use_fixture(3);
    sql_rows(db, "UPDATE run SET manifest_text = '[job' WHERE id IN (1, 2)");
    { Store store(db); }
    EXPECT_EQ(sql_rows(db, "SELECT id, replay_inputs, finalize_workers, verify_every, on_error FROM run "
                           "WHERE id IN (1, 2) ORDER BY id"),
              (std::vector<std::vector<std::string>>{{"1", "0", "NULL", "NULL", "NULL"},
                                                     {"2", "NULL", "NULL", "NULL", "NULL"}}));
}

// fixtures/schema-v4.db was written by zkbatch with schema v4 (before Groth16 proofs):
// run 1 a plain cpu-ref smoke run, run 2 the same replaying 2 input sets. The migration
// to v5 keeps every row and value, and records that they proved the quotient alone.
TEST_F(StoreTest, MigratesASchemaV4DatabaseIntoQuotientRuns) {
    use_fixture(4);
    std::string v4_columns;
    for (const auto& column : sql_rows(db, "SELECT name FROM pragma_table_info('partition')"))
        v4_columns += (v4_columns.empty() ? "" : ", ") + column.at(0);
    const std::string v4_partitions = "SELECT " + v4_columns + " FROM partition ORDER BY id";
    const auto partitions_before = sql_rows(db, v4_partitions);
    const auto intervals_before = sql_rows(db, "SELECT * FROM phase_interval ORDER BY id");
    ASSERT_EQ(partitions_before.size(), 6u);
    {
        Store store(db);
        EXPECT_EQ(store.run_proof_setting(1).workload, "quotient");
        EXPECT_TRUE(store.run_proof_setting(2).verifying_key.empty());
        EXPECT_EQ(store.partition_proof_digests(1), (std::vector<std::string>{"", "", ""}));
    }
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion));
    EXPECT_EQ(sql_rows(db, "SELECT id, workload, circuit_kind, key_path, verifying_key FROM run ORDER BY id"),
              (std::vector<std::vector<std::string>>{{"1", "quotient", "NULL", "NULL", "NULL"},
                                                     {"2", "quotient", "NULL", "NULL", "NULL"}}));
    EXPECT_EQ(sql_rows(db, v4_partitions), partitions_before);
    EXPECT_EQ(sql_rows(db, "SELECT * FROM phase_interval ORDER BY id"), intervals_before);
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition WHERE proof IS NOT NULL OR msm_h_ms IS NOT NULL"), "0");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_name"), std::to_string(kPhaseCount));
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
    // The new columns' checks hold: a proof is 192 bytes or nothing.
    EXPECT_THROW(sql_rows(db, "UPDATE partition SET proof = x'00' WHERE id = 1"), std::runtime_error);
}

// fixtures/schema-v6.db was written by zkbatch with schema v6: run 1 a cpu-ref run of
// the chain-4 .zkey (tests/fuzz/corpus) with two witness files. The migrations to v7 and
// v8 keep every row and value; the run has no file digests (a resume checks it on its
// circuit and key digest alone), and new runs record them; it is BLS12-381's, and a
// partition's proof may now be BN254's 128 bytes as well as 192, and nothing else.
TEST_F(StoreTest, MigratesASchemaV6DatabaseKeepingItsZkeyRun) {
    use_fixture(6);
    const auto runs_before = sql_rows(db, "SELECT * FROM run ORDER BY id");
    const auto partitions_before = sql_rows(db, "SELECT * FROM partition ORDER BY id");
    ASSERT_EQ(partitions_before.size(), 2u);
    {
        Store store(db);
        const Store::ResumeSource source = store.resume_source(1);
        EXPECT_EQ(source.witnesses, (std::vector<std::string>{"wtns/large.wtns", "wtns/small.wtns"}));
        EXPECT_EQ(source.key_digest.size(), 32u);
        EXPECT_NE(source.circuit.find("circuit=zkey"), std::string::npos) << source.circuit;
        EXPECT_TRUE(source.zkey_digest.empty());
        EXPECT_TRUE(source.witness_digests.empty());
    }
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion));
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM run WHERE zkey_digest IS NULL AND witness_digests IS NULL"), "1");
    EXPECT_EQ(sql_value(db, "SELECT group_concat(curve) FROM run"), "bls12-381");
    auto runs_after = sql_rows(db, "SELECT * FROM run ORDER BY id");
    for (auto& row : runs_after) row.resize(runs_before.front().size());  // without the new columns
    EXPECT_EQ(runs_after, runs_before);
    EXPECT_EQ(sql_rows(db, "SELECT * FROM partition ORDER BY id"), partitions_before);
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
    sql_rows(db, "UPDATE partition SET proof = zeroblob(128) WHERE id = 1");
    EXPECT_EQ(sql_value(db, "SELECT length(proof) FROM partition WHERE id = 1"), "128");
    EXPECT_THROW(sql_rows(db, "UPDATE partition SET proof = zeroblob(96) WHERE id = 1"), std::runtime_error);
    EXPECT_THROW(sql_rows(db, "UPDATE run SET curve = 'bn128'"), std::runtime_error);
}

// Three devices; device 2 proves nothing. Partition counts, medians and busy fractions
// per device, checked through device_stats and against plain SQL on the tables; the
// run's GPU busy is the mean over its devices.
TEST_F(StoreTest, DeviceRowsCountPartitionsAndMediansPerDevice) {
    RunRecord run = sample_run();
    run.devices = {{0, "GPU zero", 2}, {1, "GPU one", 2}, {2, "", 2}};
    Store store(db);
    const int64_t run_id = store.begin_run(run);
    // device 0: compute 1, 2, 3 ms (median 2); device 1: 4, 10 (median 7) plus a
    // failed partition that does not count.
    // On-device intervals (ms since the start): device 0 [0,300) [100,200) [250,450) [600,650)
    // -> union 500 ms; device 1 [0,100) [100,150) -> 150 ms (the pipeline's
    // union_length_ns computes these; its own test checks it).
    struct Proved {
        int32_t device;
        double compute_ms;
        std::vector<std::pair<int64_t, int64_t>> busy_ms;
    };
    const std::vector<Proved> proved = {{0, 3, {{0, 300}, {100, 200}}}, {1, 10, {{0, 100}}},
                                        {0, 1, {{250, 450}}}, {1, 4, {{100, 150}}}, {0, 2, {{600, 650}}}};
    uint64_t index = 0;
    for (const Proved& one : proved) {
        PartitionRecord partition = sample_partition(index++, run.started_steady_ns);
        partition.device_index = one.device;
        partition.phases["compute"].ms = one.compute_ms;
        partition.phases["prove"].ms = one.compute_ms + 1;
        partition.intervals.clear();
        for (auto [start_ms, end_ms] : one.busy_ms)
            partition.intervals.push_back({"compute", "gpu.compute", run.started_steady_ns + start_ms * 1'000'000,
                                           run.started_steady_ns + end_ms * 1'000'000, 0, true, one.device});
        partition.intervals.push_back({"finalize", "finalize", run.started_steady_ns,
                                       run.started_steady_ns + 900'000'000, 0, false, -1});
        store.record_partition(run_id, partition);
    }
    PartitionRecord failed = sample_partition(index++, run.started_steady_ns);
    failed.device_index = 1;
    failed.status = PartitionStatus::failed;
    failed.error = "device lost";
    failed.phases["compute"].ms = 1000;
    failed.intervals.clear();
    store.record_partition(run_id, failed);
    PartitionRecord unassigned = sample_partition(index++, run.started_steady_ns);
    unassigned.status = PartitionStatus::failed;
    unassigned.error = "synthesis failed";
    store.record_partition(run_id, unassigned);  // device_index -1: never reached a device

    RunSummary summary;
    summary.ended_unix_ns = run.started_unix_ns + 1'000'000'000;
    summary.wall_ms = 1000;
    summary.partitions_ok = 5;
    summary.partitions_failed = 2;
    summary.device_busy_ms = {{0, 500}, {1, 150}};
    store.finish_run(run_id, summary);

    const auto devices = store.device_stats(run_id);
    ASSERT_EQ(devices.size(), 3u);
    EXPECT_EQ(devices[0].device_index, 0);
    EXPECT_EQ(devices[0].name, "GPU zero");
    EXPECT_EQ(devices[0].partitions, 3u);
    ASSERT_TRUE(devices[0].busy_fraction);
    EXPECT_NEAR(*devices[0].busy_fraction, 0.5, 1e-12);
    EXPECT_EQ(devices[0].median_compute_ms, 2.0);
    EXPECT_EQ(devices[0].median_prove_ms, 3.0);
    EXPECT_EQ(devices[1].partitions, 2u);
    EXPECT_EQ(devices[1].median_compute_ms, 7.0);
    ASSERT_TRUE(devices[1].busy_fraction);
    EXPECT_NEAR(*devices[1].busy_fraction, 0.15, 1e-12);
    EXPECT_EQ(devices[2].device_index, 2);
    EXPECT_EQ(devices[2].name, "");
    EXPECT_EQ(devices[2].partitions, 0u);
    EXPECT_EQ(devices[2].busy_fraction, 0.0);  // idle while the others worked
    EXPECT_FALSE(devices[2].median_compute_ms);

    // The oracle: the tables themselves.
    EXPECT_EQ(sql_value(db, "SELECT devices FROM run WHERE id = " + std::to_string(run_id)), "0,1,2");
    EXPECT_EQ(sql_rows(db, "SELECT device_index, count(*) FROM partition WHERE status <> 'failed' "
                           "GROUP BY device_index ORDER BY 1"),
              (std::vector<std::vector<std::string>>{{"0", "3"}, {"1", "2"}}));
    EXPECT_EQ(sql_rows(db, "SELECT device_index, prove_workers, round(busy_fraction, 6) FROM run_device ORDER BY 1"),
              (std::vector<std::vector<std::string>>{{"0", "2", "0.5"}, {"1", "2", "0.15"}, {"2", "2", "0.0"}}));
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition WHERE device_index IS NULL"), "1");
    EXPECT_EQ(sql_value(db, "SELECT round(gpu_busy_fraction, 6) FROM run"), "0.216667");  // (0.5 + 0.15 + 0) / 3
}

TEST_F(StoreTest, DeviceBusyIsNullWithoutDeviceActivity) {
    RunRecord run = sample_run();
    run.devices = {{0, "", 1}, {1, "", 1}};
    Store store(db);
    const int64_t run_id = store.begin_run(run);
    PartitionRecord partition = sample_partition(0, run.started_steady_ns);
    partition.device_index = 1;
    for (auto& piece : partition.intervals) piece.on_device = false;  // a CPU backend
    store.record_partition(run_id, partition);
    RunSummary summary;  // no device_busy_ms: nothing ran on a device
    summary.wall_ms = 100;
    store.finish_run(run_id, summary);
    EXPECT_FALSE(store.run_overview(run_id).gpu_busy_fraction);
    const auto devices = store.device_stats(run_id);
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[0].partitions, 0u);
    EXPECT_EQ(devices[1].partitions, 1u);
    EXPECT_FALSE(devices[0].busy_fraction);
    EXPECT_FALSE(devices[1].busy_fraction);
}

TEST_F(StoreTest, RunsOfADeadWriterAreMarkedInterrupted) {
    int64_t run_id = 0;
    {
        Store store(db);
        run_id = store.begin_run(sample_run());
    }
    // Pretend the writer was another process on this host that has since exited.
    char host[256] = {};
    ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
    sql_rows(db, "UPDATE run SET hostname = '" + std::string(host) +
                     "', pid = 2147483000, process_start_ticks = 1 WHERE id = " + std::to_string(run_id));
    Store reopened(db);
    EXPECT_EQ(sql_value(db, "SELECT status FROM run WHERE id = " + std::to_string(run_id)), "interrupted");
    EXPECT_NE(sql_value(db, "SELECT error FROM run WHERE id = " + std::to_string(run_id)).find("ended before"),
              std::string::npos);
}

TEST_F(StoreTest, ARunOfALiveWriterStaysRunning) {
    RunRecord run = sample_run();
    char host[256] = {};
    ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
    run.hostname = host;
    Store store(db);
    const int64_t run_id = store.begin_run(run);
    Store second(db);  // this process is alive: its run is not interrupted
    EXPECT_EQ(sql_value(db, "SELECT status FROM run WHERE id = " + std::to_string(run_id)), "running");
}

// Named parameters: a name the statement does not have is refused, naming it, rather
// than binding nothing (SQLite would leave the parameter NULL).
TEST_F(StoreTest, BindingAParameterTheStatementLacksIsAnError) {
    Store store(db);
    sqlite::Statement statement(store.handle(), db, "SELECT :present");
    statement.bind_int(":present", 7);
    ASSERT_TRUE(statement.step("reading"));
    EXPECT_EQ(statement.int_at(0), 7);
    statement.reset();
    const std::string message = store_error_of([&] { statement.bind_int(":absent", 1); });
    EXPECT_CONTAINS(message, ":absent");
    EXPECT_CONTAINS(message, "SELECT :present");
}

// A row built column by column: its INSERT names the columns in the order added, and
// each value is stored with the type and NULL rules of the Cursor bind of that name.
TEST_F(StoreTest, ColumnValuesInsertEachColumnItsValue) {
    Store store(db);
    sqlite::exec(store.handle(), db,
                 "CREATE TABLE t (i INTEGER, r REAL, s TEXT, e TEXT, b BLOB, nb BLOB, oi INTEGER, onull REAL) STRICT",
                 "creating");
    const std::vector<uint8_t> bytes = {1, 2, 255};
    sqlite::ColumnValues row;
    row.integer("i", -7).real("r", 2.5).text("s", "x").text_or_null("e", "").blob("b", bytes).blob("nb", {});
    row.optional_int("oi", std::optional<uint32_t>(9)).optional_real("onull", std::nullopt);
    const std::string sql = row.insert_sql("t");
    EXPECT_EQ(sql, "INSERT INTO t (i, r, s, e, b, nb, oi, onull) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    sqlite::Statement insert(store.handle(), db, sql);
    row.bind(insert);
    insert.step("inserting");
    EXPECT_EQ(sql_rows(db, "SELECT typeof(i), i, typeof(r), r, s, typeof(e), hex(b), typeof(nb), oi, typeof(onull) "
                           "FROM t"),
              (std::vector<std::vector<std::string>>{
                  {"integer", "-7", "real", "2.5", "x", "null", "0102FF", "null", "9", "null"}}));
}

// The insert differs from one that succeeds in the type of one value only, and the
// error is SQLite's STRICT refusal of it, not any other (a typo in the SQL, a missing run).
TEST_F(StoreTest, StrictTablesRejectWronglyTypedValues) {
    {
        Store store(db);
        store.begin_run(sample_run());
    }
    const auto insert = [&](const std::string& index) {
        return "INSERT INTO partition (run_id, partition_index, status, synth_worker, prove_worker) "
               "VALUES (1, " + index + ", 'ok', 0, 0)";
    };
    sql_rows(db, insert("7"));
    std::string error;
    try {
        sql_rows(db, insert("'first'"));
    } catch (const std::runtime_error& e) {
        error = e.what();
    }
    EXPECT_CONTAINS(error, "cannot store TEXT value in INTEGER column partition.partition_index");
    EXPECT_EQ(sql_value(db, "SELECT group_concat(partition_index) FROM partition"), "7");
}

TEST_F(StoreTest, RefusesANewerSchemaVersion) {
    { Store store(db); }
    sql_rows(db, fmt::format("PRAGMA user_version = {}", Store::kSchemaVersion + 1));
    for (const auto& open : {+[](const fs::path& p) { Store s(p); },
                             +[](const fs::path& p) { Store::open_existing(p); }}) {
        const std::string message = store_error_of([&] { open(db); });
        EXPECT_CONTAINS(message, db.string());
        EXPECT_CONTAINS(message, fmt::format("version {}", Store::kSchemaVersion + 1));
        EXPECT_CONTAINS(message, fmt::format("version {}", Store::kSchemaVersion));
        EXPECT_CONTAINS(message, "upgrade zkbatch");
    }
    // Refusing did not touch it.
    EXPECT_EQ(sql_value(db, "PRAGMA user_version"), std::to_string(Store::kSchemaVersion + 1));
}

TEST_F(StoreTest, RefusesASqliteDatabaseOfAnotherProgram) {
    fs::create_directories(db.parent_path());
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(handle, "CREATE TABLE notes (text TEXT)", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(handle);
    EXPECT_CONTAINS(store_error_of([&] { Store store(db); }), "not made by zkbatch");
    EXPECT_CONTAINS(store_error_of([&] { Store::open_existing(db); }), "not made by zkbatch");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM sqlite_schema"), "1");
}

TEST_F(StoreTest, RefusesAFileThatIsNotADatabase) {
    fs::create_directories(db.parent_path());
    {
        std::ofstream file(db);
        for (int i = 0; i < 100; ++i) file << "this is a text file, not a database\n";
    }
    for (const auto& open : {+[](const fs::path& p) { Store s(p); },
                             +[](const fs::path& p) { Store::open_existing(p); }}) {
        const std::string message = store_error_of([&] { open(db); });
        EXPECT_CONTAINS(message, db.string());
        EXPECT_CONTAINS(message, "is not a SQLite database");
    }
}

// A stored partition index is used as a size by the readers of digests: one no job has
// (from a damaged database or a shard merged from one) is refused, not allocated.
TEST_F(StoreTest, RefusesAPartitionIndexNoJobHas) {
    Store store(db);
    const RunRecord run = sample_run();
    const int64_t run_id = store.begin_run(run);
    store.record_partition(run_id, sample_partition(0, run.started_steady_ns));
    sql_rows(db, "UPDATE partition SET partition_index = 1099511627776");
    EXPECT_CONTAINS(store_error_of([&] { store.partition_digests(run_id); }), "records partition 1099511627776");
    EXPECT_CONTAINS(store_error_of([&] { store.partition_proof_digests(run_id); }), "which no job has");
}

TEST_F(StoreTest, OpenExistingRefusesAMissingOrEmptyFile) {
    EXPECT_CONTAINS(store_error_of([&] { Store::open_existing(db); }), "no database here");
    EXPECT_FALSE(fs::exists(db));  // and did not create it
    fs::create_directories(db.parent_path());
    std::ofstream(db).close();
    EXPECT_CONTAINS(store_error_of([&] { Store::open_existing(db); }), "empty database");
}

TEST_F(StoreTest, OpenExistingReadsWhatWasWritten) {
    int64_t run_id = 0;
    {
        Store store(db);
        run_id = store.begin_run(sample_run());
        store.record_partition(run_id, sample_partition(0, 5'000'000'000));
    }
    const Store reader = Store::open_existing(db);
    EXPECT_EQ(reader.resolve_run("latest"), run_id);
    EXPECT_EQ(reader.partition_digests(run_id).size(), 1u);
}

TEST_F(StoreTest, CannotCreateTheDatabaseFolder) {
    fs::create_directories(dir.path());
    std::ofstream(dir.path() / "file").close();
    const fs::path below_a_file = dir.path() / "file" / "zkbatch.db";
    const std::string message = store_error_of([&] { Store store(below_a_file); });
    EXPECT_CONTAINS(message, "cannot create the folder");
    EXPECT_CONTAINS(message, below_a_file.string());
}

TEST_F(StoreTest, CannotOpenAFolderAsADatabase) {
    fs::create_directories(db);
    const std::string message = store_error_of([&] { Store store(db); });
    EXPECT_CONTAINS(message, db.string());
    EXPECT_CONTAINS(message, "cannot open");
}

// SQLite would open a FIFO (the database, or its -wal beside it) and wait on it forever:
// refused at once, for writing and for reading, naming what it is.
TEST_F(StoreTest, RefusesAFifoAsTheDatabaseOrItsWal) {
    fs::create_directories(db.parent_path());
    for (const fs::path& fifo : {db, fs::path(db.string() + "-wal")}) {
        SCOPED_TRACE(fifo.string());
        if (fifo != db) std::ofstream(db).close();
        ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
        for (const auto& open : {+[](const fs::path& p) { Store s(p); },
                                 +[](const fs::path& p) { Store::open_existing(p); }}) {
            const std::string message = store_error_of([&] { open(db); });
            EXPECT_CONTAINS(message, fifo.string() + ": cannot open the database: it is a FIFO (named pipe)");
        }
        fs::remove(fifo);
        fs::remove(db);
    }
}

// --- failure paths ---------------------------------------------------------------------

TEST_F(StoreTest, DuplicatePartitionFailsAndLeavesEarlierRowsIntact) {
    Store store(db);
    const RunRecord run = sample_run();
    const int64_t run_id = store.begin_run(run);
    store.record_partition(run_id, sample_partition(0, run.started_steady_ns));
    store.record_partition(run_id, sample_partition(1, run.started_steady_ns));

    PartitionRecord again = sample_partition(1, run.started_steady_ns);
    again.h_digest = "ffffffffffffffffffffffffffffffff";
    const std::string message = store_error_of([&] { store.record_partition(run_id, again); });
    EXPECT_CONTAINS(message, "partition 1 of run 1");
    EXPECT_CONTAINS(message, "already recorded");
    EXPECT_CONTAINS(message, db.string());

    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition"), "2");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_interval"), "6");
    EXPECT_EQ(sql_value(db, "SELECT h_digest FROM partition WHERE partition_index = 1"),
              sample_partition(1, 0).h_digest);
    // The store is still usable afterwards.
    store.record_partition(run_id, sample_partition(2, run.started_steady_ns));
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition"), "3");
}

TEST_F(StoreTest, PartitionOfAnUnknownRunOrWithABackwardIntervalIsRefused) {
    Store store(db);
    EXPECT_CONTAINS(store_error_of([&] { store.record_partition(42, sample_partition(0, 0)); }), "there is no run 42");
    EXPECT_CONTAINS(store_error_of([&] { store.finish_run(42, RunSummary{}); }), "there is no run 42");

    const int64_t run_id = store.begin_run(sample_run());
    PartitionRecord backward = sample_partition(0, 0);
    backward.intervals[1].end_ns = backward.intervals[1].start_ns - 1;
    EXPECT_CONTAINS(store_error_of([&] { store.record_partition(run_id, backward); }), "ends");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition"), "0");
}

// A failure after the partition row and some intervals were written (injected by a
// temporary trigger on the Store's own connection): the whole partition is undone.
TEST_F(StoreTest, FailureMidTransactionLeavesNoPartialRows) {
    Store store(db);
    const RunRecord run = sample_run();
    const int64_t run_id = store.begin_run(run);
    store.record_partition(run_id, sample_partition(0, run.started_steady_ns));
    ASSERT_EQ(sqlite3_exec(store.handle(),
                           "CREATE TEMP TRIGGER inject_failure BEFORE INSERT ON phase_interval "
                           "WHEN NEW.lane = 'poison' BEGIN SELECT RAISE(ABORT, 'injected'); END",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    PartitionRecord poisoned = sample_partition(1, run.started_steady_ns);
    poisoned.intervals.back().lane = "poison";  // the third of three intervals
    const std::string message = store_error_of([&] { store.record_partition(run_id, poisoned); });
    EXPECT_CONTAINS(message, "cannot record partition 1 of run 1: injected");

    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition"), "1");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_interval"), "3");
    // The connection is not left inside a transaction: the next partition commits.
    store.record_partition(run_id, sample_partition(2, run.started_steady_ns));
    EXPECT_EQ(sql_value(db, "SELECT group_concat(partition_index) FROM partition"), "0,2");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_interval"), "6");
}

// A full disk part-way through a partition's transaction: the database's page limit
// stands in for the disk. Nothing of that partition may remain.
TEST_F(StoreTest, FullDiskRollsBackTheWholePartition) {
    Store store(db);
    const RunRecord run = sample_run();
    const int64_t run_id = store.begin_run(run);
    store.record_partition(run_id, sample_partition(0, run.started_steady_ns));

    const std::string page_count = sql_value(db, "PRAGMA page_count");
    ASSERT_EQ(sqlite3_exec(store.handle(),
                           ("PRAGMA max_page_count = " + page_count).c_str(), nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    PartitionRecord big = sample_partition(1, run.started_steady_ns);
    for (int i = 0; i < 2000; ++i) {
        big.intervals.push_back({"compute", "stream0.compute.kernel-" + std::to_string(i) +
                                                std::string(64, 'k'),
                                 0, 1, 0, true, 0});
        big.intervals.back().start_ns = run.started_steady_ns;
        big.intervals.back().end_ns = run.started_steady_ns + 1;
    }
    const std::string message = store_error_of([&] { store.record_partition(run_id, big); });
    EXPECT_CONTAINS(message, "cannot record partition 1 of run 1");
    EXPECT_CONTAINS(message, "Free disk space");
    EXPECT_CONTAINS(message, db.string());

    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition"), "1");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_interval"), "3");
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");

    // With space again, the same store records it.
    ASSERT_EQ(sqlite3_exec(store.handle(), "PRAGMA max_page_count = 1073741823", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    store.record_partition(run_id, big);
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_interval"), "2006");
}

TEST_F(StoreTest, ReadOnlyOpenRefusesWritesWithAClearMessage) {
    {
        Store writer(db);
        writer.begin_run(sample_run());
    }
    Store reader = Store::open_existing(db);
    const std::string message = store_error_of([&] { reader.begin_run(sample_run()); });
    EXPECT_CONTAINS(message, db.string());
    EXPECT_CONTAINS(message, "read-only");
    EXPECT_CONTAINS(message, "permissions");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM run"), "1");
}

TEST_F(StoreTest, QueryOnlyConnectionRefusesAPartitionWithAClearMessage) {
    Store store(db);
    const int64_t run_id = store.begin_run(sample_run());
    ASSERT_EQ(sqlite3_exec(store.handle(), "PRAGMA query_only = 1", nullptr, nullptr, nullptr),
              SQLITE_OK);
    const std::string message =
        store_error_of([&] { store.record_partition(run_id, sample_partition(0, 0)); });
    EXPECT_CONTAINS(message, "cannot record partition 0 of run 1");
    EXPECT_CONTAINS(message, "read-only");
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM partition"), "0");
}

// As root (CI) the checks run in a child that has become nobody: root writes anyway.
TEST_F(StoreTest, WriteProtectedFileGivesAClearMessage) {
    hand_over_to_unprivileged(dir.path());
    const std::string message = run_unprivileged([&] {
        { Store store(db); }
        fs::remove(fs::path(db.string() + "-wal"));
        fs::remove(fs::path(db.string() + "-shm"));
        fs::permissions(db, fs::perms::owner_read);
        fs::permissions(db.parent_path(), fs::perms::owner_read | fs::perms::owner_exec);
        const std::string error = store_error_of([&] {
            Store writer(db);
            writer.begin_run(sample_run());
        });
        fs::permissions(db.parent_path(), fs::perms::owner_all);
        return error;
    });
    EXPECT_CONTAINS(message, db.string());
    EXPECT_CONTAINS(message, "permissions");
}

// `zkbatch runs/show` on a database in a folder this user cannot write (an installed
// reference history): SQLite cannot create the -shm file a WAL reader needs.
TEST_F(StoreTest, OpenExistingReadsFromAFolderItCannotWrite) {
    const fs::path folder = dir.path() / "odd name %20 #1";
    const fs::path reference = folder / "history.db";
    hand_over_to_unprivileged(dir.path());
    const std::string outcome = run_unprivileged([&] {
        {
            Store store(reference);
            store.record_partition(store.begin_run(sample_run()), sample_partition(0, 5'000'000'000));
        }
        if (fs::exists(reference.string() + "-shm")) return std::string("the -shm file outlived the last close");
        fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
        if (access(folder.c_str(), W_OK) == 0) return std::string("the folder is still writable");
        std::string text;
        try {
            const Store reader = Store::open_existing(reference);
            text = fmt::format("{} runs", reader.list_runs().size());
        } catch (const StoreError& e) {
            text = e.what();
        }
        fs::permissions(folder, fs::perms::owner_all);
        return text;
    });
    EXPECT_EQ(outcome, "1 runs");
}

// --- concurrency ---------------------------------------------------------------------

// Two writers (each its own Store, as two zkbatch processes would be) create, migrate
// and fill one new database at the same time. Every row arrives; no busy error.
TEST_F(StoreTest, ConcurrentWritersOnOneFile) {
    constexpr int kPartitionsPerWriter = 40;
    std::latch start(2);
    std::string errors[2];
    auto writer = [&](int which) {
        try {
            start.arrive_and_wait();
            Store store(db);
            const RunRecord run = sample_run(fmt::format("writer-{}", which));
            const int64_t run_id = store.begin_run(run);
            for (int i = 0; i < kPartitionsPerWriter; ++i) {
                store.record_partition(run_id, sample_partition(i, run.started_steady_ns));
            }
            RunSummary summary;
            summary.wall_ms = 1;
            summary.partitions_ok = kPartitionsPerWriter;
            store.finish_run(run_id, summary);
        } catch (const std::exception& e) {
            errors[which] = e.what();
        }
    };
    std::thread first(writer, 0), second(writer, 1);
    first.join();
    second.join();
    EXPECT_EQ(errors[0], "");
    EXPECT_EQ(errors[1], "");
    EXPECT_EQ(sql_rows(db, "SELECT r.job_name, r.status, count(p.id) FROM run AS r "
                           "JOIN partition AS p ON p.run_id = r.id GROUP BY r.id ORDER BY r.job_name"),
              (std::vector<std::vector<std::string>>{{"writer-0", "ok", "40"},
                                                     {"writer-1", "ok", "40"}}));
    EXPECT_EQ(sql_value(db, "SELECT count(*) FROM phase_interval"),
              std::to_string(2 * kPartitionsPerWriter * 3));
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
}

// The same with separate processes, as several zkbatch runs on one host would be
// (file locks behave differently between processes than between threads).
TEST_F(StoreTest, ConcurrentProcessesOnOneFile) {
    constexpr int kWriters = 3;
    constexpr int kPartitionsPerWriter = 25;
    // The writers race to create it too (the thread test above covers that as well).
    std::vector<pid_t> children;
    for (int which = 0; which < kWriters; ++which) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int status = 0;
            try {
                Store store(db);
                const RunRecord run = sample_run(fmt::format("process-{}", which));
                const int64_t run_id = store.begin_run(run);
                for (int i = 0; i < kPartitionsPerWriter; ++i) {
                    store.record_partition(run_id, sample_partition(i, run.started_steady_ns));
                }
            } catch (const std::exception& e) {
                std::fprintf(stderr, "writer %d: %s\n", which, e.what());
                status = 1;
            }
            std::_Exit(status);  // no gtest teardown in the child
        }
        children.push_back(pid);
    }
    for (const pid_t pid : children) {
        int status = -1;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed (see stderr)";
    }
    EXPECT_EQ(sql_value(db, "SELECT count(DISTINCT run_id) || ' ' || count(*) FROM partition"),
              fmt::format("{} {}", kWriters, kWriters * kPartitionsPerWriter));
    EXPECT_EQ(sql_value(db, "PRAGMA integrity_check"), "ok");
}

// --- saved queries -----------------------------------------------------------------------

struct ShellResult {
    int exit_code = -1;
    std::vector<std::vector<std::string>> rows;  // CSV, header first
};

ShellResult run_saved_query(const fs::path& db, const std::string& query_file) {
    const fs::path query = fs::path(ZKBATCH_SOURCE_DIR) / "results" / "queries" / query_file;
    const std::string command = fmt::format("'{}' -bail -csv -header '{}' < '{}' 2>&1",
                                            ZKBATCH_SQLITE3_SHELL, db.string(), query.string());
    ShellResult result;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return result;
    std::string output;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    result.exit_code = pclose(pipe);
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::vector<std::string> cells;
        std::istringstream fields(line);
        for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
        if (!line.empty() && line.back() == ',') cells.emplace_back();
        result.rows.push_back(std::move(cells));
    }
    return result;
}

class SavedQueryTest : public StoreTest {
protected:
    void SetUp() override {
        if (std::string(ZKBATCH_SQLITE3_SHELL).empty()) {
            GTEST_SKIP() << "the sqlite3 shell was not found at configure time";
        }
        Store store(db);
        for (int r = 0; r < 2; ++r) {
            const RunRecord run = sample_run(r == 0 ? "pinned" : "pageable");
            const int64_t run_id = store.begin_run(run);
            for (int i = 0; i < 4 + r; ++i) {
                PartitionRecord partition = sample_partition(i, run.started_steady_ns);
                partition.phases["synth"].ms = 10.25 * (i + 1) + r;
                partition.phases["h2d"].ms = r == 0 ? 2.0 + i : 16.0 + 3 * i;
                partition.phases["compute"].ms = 1.0 / (i + 3);  // not exactly representable
                store.record_partition(run_id, partition);
            }
            RunSummary summary;
            summary.wall_ms = 3'600'000.0 / (r + 1);
            summary.partitions_ok = 4 + r;
            store.finish_run(run_id, summary);
        }
    }
};

TEST_F(SavedQueryTest, PhaseMediansMatchPhaseStats) {
    const ShellResult result = run_saved_query(db, "phase_medians.sql");
    ASSERT_EQ(result.exit_code, 0) << (result.rows.empty() ? "" : result.rows[0][0]);
    ASSERT_EQ(result.rows.size(), 3u);  // header and two runs
    const auto& header = result.rows[0];
    const Store store = Store::open_existing(db);
    size_t compared = 0;
    for (size_t r = 1; r < result.rows.size(); ++r) {
        const auto& row = result.rows[r];
        ASSERT_EQ(row.size(), header.size());
        const int64_t run_id = std::stoll(row[0]);
        for (const PhaseStats& stats : store.phase_stats(run_id)) {
            const auto column = std::find(header.begin(), header.end(), stats.phase + "_ms");
            ASSERT_NE(column, header.end()) << "no column for phase " << stats.phase;
            const std::string& cell = row[static_cast<size_t>(column - header.begin())];
            ASSERT_FALSE(cell.empty()) << stats.phase;
            // The query rounds to 3 decimals for people; the rest is the same number.
            EXPECT_NEAR(std::stod(cell), stats.median_ms, 0.0005 + 1e-12)
                << "run " << run_id << " phase " << stats.phase;
            ++compared;
        }
    }
    EXPECT_EQ(compared, 2u * 10u);  // ten measured phases (pool_wait ... verify, partition) per run
    // Hand-computed medians: run 1's synth is 10.25, 20.5, 30.75, 41 and run 2's is
    // 11.25, 21.5, 31.75, 42, 52.25.
    const auto synth = std::find(header.begin(), header.end(), "synth_ms") - header.begin();
    EXPECT_EQ(result.rows[1][static_cast<size_t>(synth)], "25.625");  // (20.5 + 30.75) / 2
    EXPECT_EQ(result.rows[2][static_cast<size_t>(synth)], "31.75");
}

TEST_F(SavedQueryTest, RunsListsEveryRun) {
    const ShellResult result = run_saved_query(db, "runs.sql");
    ASSERT_EQ(result.exit_code, 0) << (result.rows.empty() ? "" : result.rows[0][0]);
    ASSERT_EQ(result.rows.size(), 3u);
    const auto& header = result.rows[0];
    const auto column = [&](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        EXPECT_NE(it, header.end()) << name;
        return static_cast<size_t>(it - header.begin());
    };
    EXPECT_EQ(result.rows[1][column("job")], "pinned");
    EXPECT_EQ(result.rows[2][column("job")], "pageable");
    EXPECT_EQ(result.rows[1][column("partitions_per_hour")], "4.0");   // 4 in an hour
    EXPECT_EQ(result.rows[2][column("partitions_per_hour")], "10.0");  // 5 in half an hour
    // Median h2d rate: 1e8 bytes over the median partition's copy.
    const Store store = Store::open_existing(db);
    for (size_t r = 1; r <= 2; ++r) {
        const double expected = *store.run_overview(static_cast<int64_t>(r)).median_h2d_gb_per_s;
        EXPECT_NEAR(std::stod(result.rows[r][column("h2d_gb_per_s")]), expected, 0.005);
    }
}

}  // namespace
}  // namespace zkbatch
