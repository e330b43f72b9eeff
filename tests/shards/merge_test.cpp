// merge.hpp against databases written through the Store: every table copied with its
// ids remapped, identity by uuid, idempotence, a resumed shard merged again, refusals,
// and one transaction per shard. Read back with plain SQL.
#include "cluster/merge.hpp"

#include "store/store.hpp"
#include "support/zkbatch_process.hpp"
#include "util/usage_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <set>
#include <string>

namespace zkbatch {
namespace {

namespace fs = std::filesystem;
using test::query;
using test::scalar;
using test::TempDir;

void exec(sqlite3* db, const std::string& sql) {
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << sql << ": " << error;
}

// A digest that tells (partition) apart, as a real run's would.
std::string digest_of(uint64_t partition) { return fmt::format("{:032x}", partition * 7919 + 17); }

PartitionRecord make_partition(uint64_t index, int64_t start_ns, PartitionStatus status = PartitionStatus::ok) {
    PartitionRecord p;
    p.partition_index = index;
    p.status = status;
    if (status != PartitionStatus::ok) p.error = "injected";
    p.phases["synth"].ms = 1.0 + static_cast<double>(index);
    p.phases["prove"].ms = 2.0 + static_cast<double>(index);
    p.phases["h2d"].ms = 0.5;
    p.phases["h2d"].bytes = 96;
    p.phases["finalize"].ms = 0.25;
    p.phases["idle_gap"].ms = index == 0 ? -1 : 0.125;
    p.device_index = 0;
    p.verified = status == PartitionStatus::ok;
    if (status == PartitionStatus::ok) p.h_digest = digest_of(index);
    p.intervals = {{"synth", "synth.0", start_ns, start_ns + 1'000'000, 0, false, -1},
                   {"h2d", "gpu0.copy", start_ns + 1'000'000, start_ns + 1'500'000, 96, true, 0},
                   {"prove", "prove.0", start_ns + 1'000'000, start_ns + 3'000'000, 0, false, -1},
                   {"finalize", "finalize", start_ns + 3'000'000, start_ns + 3'250'000, 0, false, -1}};
    return p;
}

struct ShardDb {
    fs::path path;
    std::vector<std::string> run_uuids;
};

// One shard's database: an experiment (uuid shared by every shard) and one run per arm
// proving partitions index, index + count, ... of `partitions`.
ShardDb make_shard(const fs::path& path, uint32_t index, uint32_t count, uint64_t partitions,
                   const std::vector<std::string>& arms = {""}, RunStatus status = RunStatus::ok) {
    Store store(path);
    ExperimentRecord experiment;
    experiment.name = "sharded";
    experiment.order_method = "single-arm";
    experiment.arm_count = static_cast<uint32_t>(arms.size());
    experiment.manifest_sha256 = "m";
    experiment.created_unix_ns = 1'700'000'000'000'000'000 + index;
    experiment.uuid = "0123456789abcdef0123456789abcdef";
    const int64_t experiment_id = store.begin_experiment(experiment);
    ShardDb shard{path, {}};
    for (const std::string& arm : arms) {
        RunRecord run;
        run.job_name = "sharded";
        run.backend_name = "cpu-ref";
        run.backend_version = "1";
        run.zkbatch_version = "0.1.0";
        run.git_revision = "abc";
        run.hostname = fmt::format("node{}", index);
        run.cpu_model = "cpu";
        run.cpu_cores = 2;
        run.manifest_path = "/m.toml";
        run.manifest_text = "[job]\n";
        run.manifest_sha256 = "m";
        run.log_n = 10;
        run.partitions = static_cast<uint32_t>(partitions);
        run.seed = 1;
        run.terms_per_row = 4;
        run.synthesis_workers = 1;
        run.prove_workers = 1;
        run.queue_depth = 2;
        run.verify_mode = "identity";
        run.tags = {{"shard", std::to_string(index)}};
        run.facts = {{"device.name", "cpu"}, {"plugin.file", "/x.so"}};
        run.started_unix_ns = 1'700'000'000'000'000'000;
        run.started_steady_ns = 1'000'000'000;
        run.experiment_id = experiment_id;
        run.arm = arm;
        run.shard_index = index;
        run.shard_count = count;
        run.devices = {{0, "cpu", 1}};
        const int64_t run_id = store.begin_run(run);
        uint64_t recorded = 0;
        for (uint64_t p = index; p < partitions; p += count)
            store.record_partition(run_id, make_partition(p, run.started_steady_ns + 4'000'000 * static_cast<int64_t>(recorded++)));
        RunSummary summary;
        summary.status = status;
        summary.ended_unix_ns = run.started_unix_ns + 1'000'000'000;
        summary.wall_ms = 1000;
        summary.partitions_ok = recorded;
        summary.device_busy_ms = {{0, 500}};  // half the wall
        summary.peak_rss_bytes = 1 << 20;
        store.finish_run(run_id, summary);
        shard.run_uuids.push_back(
            scalar(path.string(), fmt::format("SELECT uuid FROM run WHERE id = {}", run_id)));
    }
    return shard;
}

std::vector<std::string> table_names(const fs::path& db) {
    std::vector<std::string> names;
    for (const auto& row : query(db.string(), "SELECT name FROM sqlite_schema WHERE type = 'table' "
                                              "AND name NOT LIKE 'sqlite_%' ORDER BY name"))
        names.push_back(row.at(0));
    return names;
}

int64_t count_rows(const fs::path& db, const std::string& table) {
    return std::stoll(scalar(db.string(), "SELECT count(*) FROM \"" + table + "\""));
}

std::map<std::string, int64_t> row_counts(const fs::path& db) {
    std::map<std::string, int64_t> counts;
    for (const std::string& table : table_names(db)) counts[table] = count_rows(db, table);
    return counts;
}

// (run uuid, partition index) -> digest, intervals and their total length: what a
// partition is, independent of the row ids of the database holding it.
std::map<std::string, std::string> partitions_by_identity(const fs::path& db) {
    std::map<std::string, std::string> result;
    for (const auto& row : query(db.string(), R"sql(
            SELECT r.uuid || '/' || p.partition_index,
                   coalesce(p.h_digest, '-') || ' ' || p.status || ' ' || coalesce(p.device_index, '-') || ' ' ||
                   (SELECT count(*) || ':' || coalesce(sum(i.end_ns - i.start_ns), 0) || ':' ||
                           coalesce(group_concat(i.lane, ','), '')
                    FROM phase_interval AS i WHERE i.partition_id = p.id)
            FROM partition AS p JOIN run AS r ON r.id = p.run_id)sql"))
        result[row.at(0)] = row.at(1);
    return result;
}

class Merge : public ::testing::Test {
protected:
    TempDir dir{"zkbatch-merge-test"};
    fs::path history_path = dir.path() / "history.db";
};

TEST_F(Merge, CopiesEveryRowWithItsIdsRemapped) {
    const ShardDb a = make_shard(dir.path() / "a.db", 0, 2, 7);
    const ShardDb b = make_shard(dir.path() / "b.db", 1, 2, 7);
    Store history(history_path);
    const MergeCounts first = merge_shard(history, a.path);
    const MergeCounts second = merge_shard(history, b.path);
    EXPECT_EQ(first.runs_added, 1u);
    EXPECT_EQ(first.experiments_added, 1u);
    EXPECT_EQ(second.runs_added, 1u);
    EXPECT_EQ(second.experiments_added, 0u);
    EXPECT_EQ(second.experiments_known, 1u);
    EXPECT_EQ(first.rows_added.at("partition"), 4u);
    EXPECT_EQ(second.rows_added.at("partition"), 3u);

    // Both shards' runs ended up with ids 1 and 1 in their own databases; here they
    // are two runs of one experiment, and each partition is exactly the shard's.
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM experiment"), "1");
    EXPECT_EQ(scalar(history_path.string(), "SELECT group_concat(shard_index || '/' || shard_count, ' ') FROM "
                                            "(SELECT * FROM run ORDER BY shard_index)"),
              "0/2 1/2");
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(DISTINCT experiment_id) FROM run"), "1");
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(DISTINCT partition_index) || ' ' || count(*) FROM partition"),
              "7 7");
    std::map<std::string, std::string> expected = partitions_by_identity(a.path);
    expected.merge(partitions_by_identity(b.path));
    EXPECT_EQ(partitions_by_identity(history_path), expected);
    // Tags, facts and devices follow their run.
    EXPECT_EQ(scalar(history_path.string(), "SELECT group_concat(r.hostname || '=' || t.value, ' ') FROM run_tag AS t "
                                            "JOIN run AS r ON r.id = t.run_id ORDER BY r.id"),
              "node0=0 node1=1");
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM run_fact"), "4");
    // The history passes SQLite's own checks, foreign keys included.
    EXPECT_EQ(scalar(history_path.string(), "PRAGMA integrity_check"), "ok");
    EXPECT_EQ(query(history_path.string(), "PRAGMA foreign_key_check").size(), 0u);
}

// The guard against a schema change that merge would silently drop: every table of
// the current schema must be planned, must hold rows in this test's shards (extend
// make_shard when a new table appears), and must hold all of them after the merge.
TEST_F(Merge, EveryTableOfTheSchemaIsMerged) {
    const ShardDb a = make_shard(dir.path() / "a.db", 0, 2, 5, {"x=1", "x=2"});
    const ShardDb b = make_shard(dir.path() / "b.db", 1, 2, 5, {"x=1", "x=2"});
    const auto counts_a = row_counts(a.path), counts_b = row_counts(b.path);
    {
        Store history(history_path);
        std::set<std::string> planned;
        std::map<std::string, MergeRole> roles;
        for (const TableMergePlan& plan : plan_merge(history.handle(), history.path())) {
            planned.insert(plan.table);
            roles[plan.table] = plan.role;
        }
        const auto tables = table_names(history_path);
        EXPECT_EQ(planned, std::set<std::string>(tables.begin(), tables.end()));
        merge_shard(history, a.path);
        merge_shard(history, b.path);
        for (const std::string& table : tables) {
            EXPECT_GT(counts_a.at(table), 0) << "table " << table << " has no rows in this test's shards: "
                                             << "fill it in make_shard, so this test shows merge copies it";
            const int64_t merged = count_rows(history_path, table);
            if (roles.at(table) == MergeRole::reference)
                EXPECT_EQ(merged, counts_a.at(table)) << table;
            else if (roles.at(table) == MergeRole::experiment)
                EXPECT_EQ(merged, 1) << table;  // one experiment, one uuid
            else
                EXPECT_EQ(merged, counts_a.at(table) + counts_b.at(table)) << table;
        }
    }
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM run_device"), "4");
}

TEST_F(Merge, IsIdempotent) {
    const ShardDb a = make_shard(dir.path() / "a.db", 0, 2, 6);
    const ShardDb b = make_shard(dir.path() / "b.db", 1, 2, 6);
    Store history(history_path);
    merge_shard(history, a.path);
    merge_shard(history, b.path);
    const auto before = row_counts(history_path);
    const auto partitions = partitions_by_identity(history_path);
    for (const ShardDb* shard : {&a, &b, &a}) {
        const MergeCounts again = merge_shard(history, shard->path);
        EXPECT_EQ(again.runs_added, 0u);
        EXPECT_EQ(again.runs_replaced, 0u);
        EXPECT_EQ(again.runs_unchanged, 1u);
        EXPECT_EQ(again.experiments_added, 0u);
        for (const auto& [table, added] : again.rows_added) EXPECT_EQ(added, 0u) << table;
    }
    EXPECT_EQ(row_counts(history_path), before);
    EXPECT_EQ(partitions_by_identity(history_path), partitions);
}

TEST_F(Merge, AShardResumedAfterItWasMergedReplacesItsRunUnderTheSameId) {
    const fs::path shard_path = dir.path() / "a.db";
    // A shard whose partition 2 failed: merged as it is.
    make_shard(shard_path, 0, 1, 4, {""}, RunStatus::failed);
    {
        Store shard(shard_path);
        exec(shard.handle(), "UPDATE partition SET status = 'failed', h_digest = NULL, error = 'x' "
                             "WHERE partition_index = 2");
    }
    const ShardDb other = make_shard(dir.path() / "b.db", 0, 1, 3);  // another run, merged first
    Store history(history_path);
    merge_shard(history, other.path);
    merge_shard(history, shard_path);
    const std::string run_id = scalar(history_path.string(), "SELECT id FROM run WHERE status = 'failed'");
    ASSERT_EQ(run_id, "2");
    // Resumed (Store::resume_run, as `zkbatch run --resume` does) and finished ok.
    {
        Store shard(shard_path);
        EXPECT_EQ(shard.resume_run(1), (std::vector<uint64_t>{0, 1, 3}));
        shard.record_partition(1, make_partition(2, 1'000'000'000 + 20'000'000));
        RunSummary summary;
        summary.ended_unix_ns = 1'800'000'000'000'000'000;
        summary.wall_ms = 2000;
        summary.partitions_ok = 4;
        shard.finish_run(1, summary);
    }
    const MergeCounts again = merge_shard(history, shard_path);
    EXPECT_EQ(again.runs_replaced, 1u);
    EXPECT_EQ(again.runs_added, 0u);
    EXPECT_EQ(again.rows_added.at("partition"), 4u);
    EXPECT_EQ(scalar(history_path.string(), "SELECT status || ' ' || resume_count FROM run WHERE id = " + run_id), "ok 1");
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) || ' ' || count(DISTINCT partition_index) || ' ' || "
                                            "sum(status = 'ok') FROM partition WHERE run_id = " + run_id),
              "4 4 4");
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM run"), "2");
    EXPECT_EQ(query(history_path.string(), "PRAGMA foreign_key_check").size(), 0u);
    // The other run was not touched, and merging once more changes nothing.
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM partition WHERE run_id = 1"), "3");
    EXPECT_EQ(merge_shard(history, shard_path).runs_unchanged, 1u);
}

TEST_F(Merge, ARunStillRecordingIsMergedAsFarAsItGotAndUpdatedLater) {
    const fs::path shard_path = dir.path() / "a.db";
    make_shard(shard_path, 0, 1, 2);
    Store shard(shard_path);
    exec(shard.handle(), "UPDATE run SET status = 'running', ended_at = NULL, partitions_ok = NULL");
    Store history(history_path);
    merge_shard(history, shard_path);
    EXPECT_EQ(scalar(history_path.string(), "SELECT status FROM run"), "running");
    shard.record_partition(1, make_partition(2, 1'000'000'000 + 10'000'000));
    const MergeCounts later = merge_shard(history, shard_path);
    EXPECT_EQ(later.runs_replaced, 1u);
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM partition"), "3");
}

TEST_F(Merge, RefusesANewerSchemaAndLeavesTheHistoryAlone) {
    const ShardDb a = make_shard(dir.path() / "a.db", 0, 1, 2);
    {
        Store shard(a.path);
        exec(shard.handle(), fmt::format("PRAGMA user_version = {}", Store::kSchemaVersion + 1));
    }
    Store history(history_path);
    try {
        merge_shard(history, a.path);
        FAIL() << "a newer shard was merged";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("a.db"), std::string::npos) << e.what();
    }
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM run"), "0");
}

TEST_F(Merge, RefusesAShardWhoseTablesDifferAtTheSameVersion) {
    const ShardDb a = make_shard(dir.path() / "a.db", 0, 1, 2);
    {
        Store shard(a.path);
        exec(shard.handle(), "CREATE TABLE extra (x INTEGER) STRICT");
    }
    Store history(history_path);
    try {
        merge_shard(history, a.path);
        FAIL() << "merged";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("tables differ"), std::string::npos) << e.what();
    }
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM run"), "0");
}

// A shard holding a value no zkbatch records (a time that is not finite or that no
// measurement gives, public inputs or a verifying key of the wrong size) is refused
// whole, naming the row and the column; the history stays as it was.
TEST_F(Merge, RefusesAShardHoldingValuesNoZkbatchRecords) {
    struct Case {
        std::string damage, says;
    };
    for (const Case& c : {Case{"UPDATE partition SET prove_ms = 9e999 WHERE partition_index = 1",
                               "partition.prove_ms is not a finite number"},
                          Case{"UPDATE partition SET synth_ms = 1e300 WHERE partition_index = 1",
                               "partition.synth_ms is 1e+300 ms, a time no measurement gives"},
                          Case{"UPDATE run SET wall_ms = -5", "run.wall_ms is -5 ms"},
                          Case{"UPDATE partition SET public_inputs = x'0011' WHERE partition_index = 1",
                               "partition.public_inputs is 2 bytes, not 32 per input"},
                          Case{"UPDATE run SET verifying_key = x'00'", "run.verifying_key"}}) {
        SCOPED_TRACE(c.damage);
        const fs::path shard_path = dir.path() / "damaged.db";
        make_shard(shard_path, 0, 1, 2);
        {
            Store shard(shard_path);
            exec(shard.handle(), c.damage);
        }
        Store history(history_path);
        try {
            merge_shard(history, shard_path);
            ADD_FAILURE() << "merged";
        } catch (const StoreError& e) {
            EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("damaged.db"), std::string::npos) << e.what();
        }
        EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM run"), "0");
        fs::remove(shard_path);
    }
}

// Merging a database into itself is a usage error (exit 2), by whatever name it is
// given: a link to it, or its -wal file.
TEST_F(Merge, RefusesTheHistoryItself) {
    make_shard(history_path, 0, 1, 2);
    Store history(history_path);
    const fs::path link = dir.path() / "link.db";
    fs::create_symlink(history_path, link);
    for (const fs::path& same : {history_path, link, fs::path(history_path.string() + "-wal")}) {
        SCOPED_TRACE(same.string());
        EXPECT_THROW(merge_shard(history, same), UsageError);
    }
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM run"), "1");
}

// Tables a future schema might add: one that hangs off run is merged without merge.cpp
// knowing it; one merge has no rule for is refused by name, before anything is written.
TEST_F(Merge, PlansTablesItWasNotToldAbout) {
    const ShardDb a = make_shard(dir.path() / "a.db", 0, 1, 2);
    const char* owned = "CREATE TABLE run_note (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES run (id) "
                        "ON DELETE CASCADE, note TEXT NOT NULL) STRICT;"
                        "CREATE TABLE note_word (note_id INTEGER NOT NULL REFERENCES run_note (id) ON DELETE CASCADE, "
                        "word TEXT NOT NULL) STRICT";
    {
        Store shard(a.path);
        exec(shard.handle(), owned);
        exec(shard.handle(), "INSERT INTO run_note (id, run_id, note) VALUES (40, 1, 'slow disk');"
                             "INSERT INTO note_word VALUES (40, 'slow'), (40, 'disk')");
    }
    const ShardDb b = make_shard(dir.path() / "b.db", 0, 1, 2);  // fills history's run id 1 first
    {
        Store shard(b.path);
        exec(shard.handle(), owned);
    }
    Store history(history_path);
    exec(history.handle(), owned);
    merge_shard(history, b.path);
    const MergeCounts counts = merge_shard(history, a.path);
    EXPECT_EQ(counts.rows_added.at("run_note"), 1u);
    EXPECT_EQ(counts.rows_added.at("note_word"), 2u);
    EXPECT_EQ(scalar(history_path.string(), "SELECT r.hostname || ' ' || n.note || ' ' || "
                                            "(SELECT group_concat(word, '+') FROM note_word WHERE note_id = n.id) "
                                            "FROM run_note AS n JOIN run AS r ON r.id = n.run_id"),
              "node0 slow disk slow+disk");
    EXPECT_EQ(scalar(history_path.string(), "SELECT run_id FROM run_note"), "2");
    EXPECT_EQ(scalar(history_path.string(), "SELECT count(*) FROM note_word WHERE note_id = (SELECT id FROM run_note)"), "2");
}

std::string plan_error(const std::string& create) {
    TempDir dir("zkbatch-merge-plan");
    Store store(dir.path() / "x.db");
    exec(store.handle(), create);
    try {
        plan_merge(store.handle(), store.path());
    } catch (const StoreError& e) {
        return e.what();
    }
    return "<planned>";
}

TEST(MergePlan, RefusesTablesWithoutARule) {
    // Row ids that other rows could refer to, but no uuid and no run: ids cannot be matched.
    EXPECT_NE(plan_error("CREATE TABLE host (id INTEGER PRIMARY KEY, name TEXT)").find("table 'host'"),
              std::string::npos);
    // Owned by a run, but a replaced run would leave them behind.
    EXPECT_NE(plan_error("CREATE TABLE note (run_id INTEGER REFERENCES run (id), t TEXT)").find("ON DELETE CASCADE"),
              std::string::npos);
    // A key that is not a row id cannot be remapped.
    EXPECT_NE(plan_error("CREATE TABLE by_uuid (run_uuid TEXT REFERENCES run (uuid) ON DELETE CASCADE)")
                  .find("table 'by_uuid'"),
              std::string::npos);
    // Reference data (no ids, no keys) is fine.
    EXPECT_EQ(plan_error("CREATE TABLE unit (name TEXT PRIMARY KEY) WITHOUT ROWID"), "<planned>");
}

TEST_F(Merge, AFailureHalfWayLeavesTheHistoryAsItWas) {
    const ShardDb a = make_shard(dir.path() / "a.db", 0, 2, 6);
    const ShardDb b = make_shard(dir.path() / "b.db", 1, 2, 6, {"x=1", "x=2"});
    {
        // The second run's last partition breaks a CHECK of the history's schema; the
        // shard took it only because its checks were switched off.
        Store shard(b.path);
        exec(shard.handle(), "PRAGMA ignore_check_constraints = ON; UPDATE partition SET status = 'bogus' "
                             "WHERE id = (SELECT max(id) FROM partition)");
    }
    Store history(history_path);
    merge_shard(history, a.path);
    const auto before = row_counts(history_path);
    try {
        merge_shard(history, b.path);
        FAIL() << "merged a row the schema forbids";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("b.db"), std::string::npos) << e.what();
    }
    EXPECT_EQ(row_counts(history_path), before);
    // The history is still writable: the transaction was rolled back, not left open.
    EXPECT_EQ(merge_shard(history, a.path).runs_unchanged, 1u);
}

}  // namespace
}  // namespace zkbatch
