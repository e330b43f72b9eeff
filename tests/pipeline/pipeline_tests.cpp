// Unit tests of the pipeline's building blocks, and of the pipeline on cpu-ref with
// inputs that fail on purpose; the whole pipeline is exercised end to end by tests/cli.
#include "pipeline/bounded_queue.hpp"
#include "pipeline/canonical_output.hpp"
#include "pipeline/pipeline.hpp"
#include "util/clock.hpp"
#include "util/parse_number.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <thread>

namespace zkbatch {
namespace {

TEST(UnionLength, OverlapsCountOnce) {
    EXPECT_EQ(union_length_ns({}), 0);
    EXPECT_EQ(union_length_ns({{0, 10}}), 10);
    EXPECT_EQ(union_length_ns({{0, 10}, {5, 15}}), 15);         // overlap
    EXPECT_EQ(union_length_ns({{20, 30}, {0, 10}}), 20);        // disjoint, unsorted
    EXPECT_EQ(union_length_ns({{0, 100}, {10, 20}, {30, 40}}), 100);  // nested
    EXPECT_EQ(union_length_ns({{0, 10}, {10, 20}}), 20);        // touching
    EXPECT_EQ(union_length_ns({{5, 5}, {7, 3}}), 0);            // empty and inverted
}

TEST(ParseNumber, TheWholeTextIsTheNumberAndFits) {
    EXPECT_EQ(parse_number<uint64_t>("0"), 0u);
    EXPECT_EQ(parse_number<uint64_t>("18446744073709551615"), UINT64_MAX);
    EXPECT_EQ(parse_number<uint64_t>("18446744073709551616"), std::nullopt);  // one past
    EXPECT_EQ(parse_number<int64_t>("-9223372036854775808"), INT64_MIN);
    EXPECT_EQ(parse_number<int64_t>("9223372036854775808"), std::nullopt);
    EXPECT_EQ(parse_number<double>("2.5"), 2.5);
    for (const char* bad : {"", " 1", "1 ", "+1", "1x", "0x10", "1.0", "-"})
        EXPECT_EQ(parse_number<int64_t>(bad), std::nullopt) << "'" << bad << "'";
    EXPECT_EQ(parse_number<uint64_t>("-1"), std::nullopt);
}

TEST(BoundedQueue, IsFifoAndDrainsAfterClose) {
    BoundedQueue<int> queue(3);
    for (int i = 0; i < 3; ++i) {
        int item = i;
        ASSERT_TRUE(queue.push(item));
    }
    queue.close();
    int refused = 9;
    EXPECT_FALSE(queue.push(refused));
    EXPECT_EQ(queue.pop(), 0);
    EXPECT_EQ(queue.pop(), 1);
    EXPECT_EQ(queue.pop(), 2);
    EXPECT_EQ(queue.pop(), std::nullopt);
}

TEST(BoundedQueue, PushBlocksWhileFull) {
    BoundedQueue<int> queue(1);
    int first = 1;
    ASSERT_TRUE(queue.push(first));
    std::atomic<bool> second_pushed{false};
    std::thread producer([&] {
        int second = 2;
        queue.push(second);
        second_pushed = true;
    });
    // The producer cannot finish until we pop; when pop returns the first item, the
    // second must still be either blocked or pushed after it — never lost or reordered.
    EXPECT_EQ(queue.pop(), 1);
    EXPECT_EQ(queue.pop(), 2);
    producer.join();
    EXPECT_TRUE(second_pushed);
}

TEST(BoundedQueue, CloseWakesABlockedConsumer) {
    BoundedQueue<int> queue(1);
    std::optional<int> got = 5;
    std::thread consumer([&] { got = queue.pop(); });
    queue.close();
    consumer.join();
    EXPECT_EQ(got, std::nullopt);
}

TEST(CanonicalDigest, IsXxh3Of32ByteLittleEndianElements) {
    // h = (1, 2): canonical bytes 01 00 .. 00 | 02 00 .. 00. The expected value is what
    // Debian's `xxhsum -H2` (xxHash 0.8.1) prints for a file holding those 64 bytes.
    uint8_t bytes[64] = {};
    bytes[0] = 1;
    bytes[32] = 2;
    EXPECT_EQ(digest_hex(bytes, sizeof bytes), "cfa36db7cbf44a29fecd36bf2a87e2ad");
    // The same bytes as backends write them (ABI v3: canonical h, converted in place).
    ff::Fr h[2] = {ff::Fr::from_u64(1), ff::Fr::from_u64(2)};
    ff::to_canonical_le(h, 2, reinterpret_cast<uint8_t*>(h));
    EXPECT_EQ(digest_hex(h, sizeof h), "cfa36db7cbf44a29fecd36bf2a87e2ad");
}

// Inputs that cannot be made for one partition (synthesis runs out of memory, a
// replayed set cannot be copied): that partition fails with the message, the others are
// proved, and the process goes on. Until the synthesis worker caught it, the exception
// left its thread and ended the process (std::terminate).
class FailingInputs final : public InputSource {
public:
    FailingInputs(const Manifest& manifest, uint64_t failing) : synthetic_(manifest), failing_(failing) {}
    void fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned threads) const override {
        if (partition_index == failing_) throw std::runtime_error("injected: cannot make this partition's inputs");
        synthetic_.fill(partition_index, buffers, threads);
    }

private:
    SyntheticInputs synthetic_;
    uint64_t failing_;
};

TEST(Pipeline, InputsThatThrowFailTheirPartitionNotTheProcess) {
    test::TempDir dir("zkbatch-pipeline");
    const Manifest manifest = parse_manifest(R"([job]
name = "inputs"
partitions = 4
[circuit]
log_n = 6
[proof]
system = "quotient"
[pipeline]
synthesis_workers = 2
on_error = "continue"
)",
                                             "inputs.toml");
    const Backend backend(load_plugin(CPU_REF_PLUGIN_FILE), "", manifest.circuit.log_n,
                          manifest.pipeline.prove_workers);
    Store store(dir.path() / "runs.db");
    RunRecord run;
    run.job_name = "inputs";
    run.backend_name = "cpu-ref";
    run.verify_mode = "identity";
    run.started_steady_ns = steady_now_ns();
    const FailingInputs inputs(manifest, 2);
    PipelineSettings settings;
    settings.manifest = &manifest;
    settings.backend = &backend;
    settings.store = &store;
    settings.run_id = store.begin_run(run);
    settings.partitions = all_partitions(manifest);
    settings.inputs = &inputs;
    const RunSummary summary = run_pipeline(settings);
    EXPECT_EQ(summary.status, RunStatus::failed);
    EXPECT_EQ(summary.partitions_ok, 3u);
    EXPECT_EQ(summary.partitions_failed, 1u);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2((dir.path() / "runs.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* query = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT partition_index, status, error FROM partition WHERE status <> 'ok'", -1,
                                 &query, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(query), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(query, 0), 2);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(query, 1)), "failed");
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(query, 2)),
                 "synthesis: injected: cannot make this partition's inputs");
    EXPECT_EQ(sqlite3_step(query), SQLITE_DONE);
    sqlite3_finalize(query);
    sqlite3_close(db);
}

}  // namespace
}  // namespace zkbatch
