// compare_runs, the results check, the regression gate and the output formats, on
// doctored databases whose timings and digests the tests choose.
#include "analysis/compare.hpp"
#include "fake_history.hpp"
#include "support/zkbatch_process.hpp"
#include "util/usage_error.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace zkbatch {
namespace {

using testing::FakeRun;

class CompareTest : public ::testing::Test {
protected:
    int64_t add(FakeRun run) { return testing::add_run(store_, run); }
    static FakeRun run_of(std::vector<double> partition_ms) {
        FakeRun run;
        run.partition_ms = std::move(partition_ms);
        return run;
    }
    Comparison compare(int64_t a, int64_t b) {
        return compare_runs(store_, {std::to_string(a), {a}}, {std::to_string(b), {b}});
    }
    static const PhaseComparison& phase(const Comparison& c, const std::string& name) {
        for (const auto& p : c.phases)
            if (p.phase == name) return p;
        throw std::runtime_error("no phase " + name);
    }

    zkbatch::test::TempDir folder_{"zkbatch-compare"};
    Store store_{folder_.path() / "compare.db"};
};

TEST_F(CompareTest, SlowerArmIsSlowerInEveryPhaseItSlowed) {
    const int64_t a = add(run_of(testing::noisy(16, 10, 0.05, 1)));
    const int64_t b = add(run_of(testing::noisy(16, 13, 0.05, 2)));
    const Comparison c = compare(a, b);
    std::vector<std::string> phases;
    for (const auto& p : c.phases) phases.push_back(p.phase);
    EXPECT_EQ(phases, (std::vector<std::string>{"synth", "prove", "finalize", "verify", "partition"}));
    for (const auto& p : c.phases) {
        EXPECT_EQ(p.stats.verdict, stats::Verdict::slower) << p.phase;
        EXPECT_LT(p.stats.test.p_value, 1e-6) << p.phase;  // disjoint samples, 16 each: exact p = 2 / C(32, 16)
        EXPECT_NEAR(p.stats.relative_change, 0.3, 0.07) << p.phase;
        EXPECT_GT(p.stats.relative_ci_low, 0.15) << p.phase;
        EXPECT_EQ(p.stats.count_a, 16u);
    }
    EXPECT_EQ(c.results.status, ResultsStatus::same);
    EXPECT_EQ(c.results.partitions_compared, 16u);
    EXPECT_EQ(c.results.message, "same results (16 partitions compared)");
    // And the other way round.
    EXPECT_EQ(phase(compare(b, a), "partition").stats.verdict, stats::Verdict::faster);
}

TEST_F(CompareTest, IdenticalArmsAreMostlyNoDifference) {
    // Ten A/A experiments: both arms drawn from one distribution (+-20%), 12 partitions each.
    int no_difference = 0;
    for (uint64_t repetition = 0; repetition < 10; ++repetition) {
        const int64_t a = add(run_of(testing::noisy(12, 50, 0.2, 100 + 2 * repetition)));
        const int64_t b = add(run_of(testing::noisy(12, 50, 0.2, 101 + 2 * repetition)));
        no_difference += phase(compare(a, b), "partition").stats.verdict == stats::Verdict::no_difference;
    }
    EXPECT_GE(no_difference, 8);
}

TEST_F(CompareTest, WrongResultsStandOutAndOtherParametersAreNotComparable) {
    const int64_t good = add(run_of(testing::noisy(8, 10, 0.05, 1)));
    FakeRun wrong = run_of(testing::noisy(8, 5, 0.05, 2));  // fast and wrong
    wrong.digest_overrides = {{5, std::string(32, 'f')}, {6, std::string(32, 'e')}};
    const int64_t fast_wrong = add(wrong);
    const Comparison c = compare(good, fast_wrong);
    EXPECT_EQ(c.results.status, ResultsStatus::different);
    EXPECT_EQ(c.results.partitions_different, 2u);
    EXPECT_EQ(c.results.first_different_partition, 5u);
    EXPECT_EQ(c.results.message, "DIFFERENT RESULTS in 2 of 8 partitions (first: partition 5)");
    const std::string table = format_comparison(c, CompareFormat::table);
    EXPECT_NE(table.find("!!! DIFFERENT RESULTS in 2 of 8 partitions (first: partition 5) !!!"), std::string::npos)
        << table;

    FakeRun other_seed = run_of(testing::noisy(8, 10, 0.05, 3));
    other_seed.seed = 2;
    const Comparison seeds = compare(good, add(other_seed));
    EXPECT_EQ(seeds.results.status, ResultsStatus::not_comparable);
    EXPECT_NE(seeds.results.message.find("seed differs"), std::string::npos) << seeds.results.message;

    // Replaying runs (run.replay_inputs = k): partition p proves input set p mod k.
    FakeRun replay_two = run_of(testing::noisy(8, 10, 0.05, 4));
    replay_two.facts["replay.setup_ms"] = "1.0";
    replay_two.replay_inputs = 2;
    const int64_t replayed = add(replay_two);
    const Comparison mixed = compare(good, replayed);
    EXPECT_EQ(mixed.results.status, ResultsStatus::not_comparable);
    EXPECT_NE(mixed.results.message.find("pipeline.replay_inputs differs (run 1: 0, run 4: 2)"), std::string::npos)
        << mixed.results.message;
    EXPECT_EQ(compare(replayed, add(replay_two)).results.status, ResultsStatus::same);
    FakeRun replay_three = replay_two;
    replay_three.replay_inputs = 3;
    EXPECT_NE(compare(replayed, add(replay_three)).results.message.find("replay_inputs differs (run 4: 2, run 6: 3)"),
              std::string::npos);
    // The count is read from the run row, never from the manifest text: a manifest that
    // does not parse does not matter, a run row without the count is not comparable.
    FakeRun unreadable = replay_two;
    unreadable.manifest_text = "[job\n";
    EXPECT_EQ(compare(replayed, add(unreadable)).results.status, ResultsStatus::same);
    FakeRun unrecorded = replay_two;
    unrecorded.replay_inputs = std::nullopt;
    const Comparison unknown = compare(replayed, add(unrecorded));
    EXPECT_EQ(unknown.results.status, ResultsStatus::not_comparable);
    EXPECT_NE(unknown.results.message.find("run 8 does not record how many input sets it replays"), std::string::npos)
        << unknown.results.message;
}

// tests/store/fixtures/schema-v3.db (written by zkbatch at schema v3): run 1 synthesized
// every partition, runs 2 and 3 replay 2 input sets of the same circuit; run 3's stored
// manifest was then given a key this zkbatch refuses (as a key a later zkbatch removed
// would be). Until v4, compare parsed the stored manifest again to learn the replay
// count and called runs 2 and 3 not comparable; the migration stores the count as a
// column, and compare reads that.
TEST(CompareMigrated, RunsRecordedBeforeSchema4CompareByTheirReplayColumn) {
    zkbatch::test::TempDir folder{"zkbatch-compare"};
    const std::filesystem::path db = folder.path() / "v3.db";
    std::filesystem::copy_file(std::filesystem::path(SOURCE_DIR) / "tests/store/fixtures/schema-v3.db", db);
    Store store(db);
    const auto compare = [&](int64_t a, int64_t b) {
        return compare_runs(store, {std::to_string(a), {a}}, {std::to_string(b), {b}}).results;
    };
    const ResultsCheck replays = compare(2, 3);
    EXPECT_EQ(replays.status, ResultsStatus::same) << replays.message;
    EXPECT_EQ(replays.partitions_compared, 4u);
    const ResultsCheck fresh_and_replayed = compare(1, 2);
    EXPECT_EQ(fresh_and_replayed.status, ResultsStatus::not_comparable);
    EXPECT_NE(fresh_and_replayed.message.find("pipeline.replay_inputs differs (run 1: 0, run 2: 2)"), std::string::npos)
        << fresh_and_replayed.message;
}

TEST_F(CompareTest, SidesThatMixBackendsAreRefused) {
    const int64_t a = add(run_of({1, 2, 3}));
    FakeRun pinned = run_of({1, 2, 3});
    pinned.backend = "cuda-pinned";
    const int64_t b = add(pinned);
    try {
        compare_runs(store_, {"mixed", {a, b}}, {"1", {a}});
        FAIL() << "a side of two backends was pooled";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("'mixed' selects runs that differ"), std::string::npos) << e.what();
    }
}

// Runs of two curves are refused, across the sides (a usage error: exit 2) and within one.
TEST_F(CompareTest, RunsOfTwoCurvesAreRefused) {
    const int64_t bls = add(run_of({1, 2, 3}));
    FakeRun bn254_run = run_of({1, 2, 3});
    bn254_run.curve = "bn254";
    const int64_t bn254 = add(bn254_run);
    try {
        compare(bls, bn254);
        FAIL() << "runs of two curves were compared";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(fmt::format("run {} proves over bls12-381, run {} over bn254", bls, bn254)),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(compare_runs(store_, {"mixed", {bls, bn254}}, {"1", {bls}}), StoreError);
    EXPECT_EQ(compare(bn254, bn254).results.status, ResultsStatus::same);
}

TEST_F(CompareTest, TwoArmsOfAnExperimentSplit) {
    ExperimentRecord record;
    record.name = "ab";
    record.order_method = "interleaved";
    record.arm_count = 2;
    const int64_t experiment = store_.begin_experiment(record);
    FakeRun pinned = run_of(testing::noisy(10, 10, 0.05, 1)), pageable = run_of(testing::noisy(10, 20, 0.05, 2));
    pinned.experiment_id = pageable.experiment_id = experiment;
    pinned.arm = "backend.name=cuda-pinned";
    pageable.arm = "backend.name=cuda-pageable";
    const int64_t a = add(pinned), b = add(pageable);
    const auto [first, second] = split_two_arms(store_, {"experiment=ab", {a, b}});
    EXPECT_EQ(first.run_ids, std::vector<int64_t>{a});
    EXPECT_EQ(second.run_ids, std::vector<int64_t>{b});
    EXPECT_EQ(second.selector, "experiment=ab,arm=backend.name=cuda-pageable");
    EXPECT_EQ(phase(compare_runs(store_, first, second), "partition").stats.verdict, stats::Verdict::slower);
    EXPECT_THROW(split_two_arms(store_, {"experiment=ab", {a}}), StoreError);
}

TEST_F(CompareTest, GateFindsOnlySignificantRegressionsBeyondTheThreshold) {
    const int64_t base = add(run_of(testing::noisy(12, 100, 0.04, 1)));
    const int64_t plus_20 = add(run_of(testing::noisy(12, 120, 0.04, 2)));
    const Comparison c = compare(base, plus_20);
    const auto at_10 = find_regressions(c, {10, 0.5});
    ASSERT_EQ(at_10.size(), 5u);  // synth, prove, finalize, verify, partition all grew ~20%
    EXPECT_NEAR(at_10.back().relative_change, 0.2, 0.05);
    EXPECT_TRUE(find_regressions(c, {30, 1.0}).empty());  // within the allowed 30%
    // finalize (10 ms) and verify (5 ms) grow ~2 and ~1 ms: under a 3 ms floor they do not count.
    const auto floored = find_regressions(c, {10, 3.0});
    for (const auto& r : floored) EXPECT_TRUE(r.phase == "synth" || r.phase == "prove" || r.phase == "partition") << r.phase;
    // Faster is never a regression.
    EXPECT_TRUE(find_regressions(compare(plus_20, base), {0, 0}).empty());
    // Too few samples: no verdict, so no regression however large.
    const int64_t tiny_a = add(run_of({1, 1.1, 0.9})), tiny_b = add(run_of({9, 9.1, 8.9}));
    EXPECT_TRUE(find_regressions(compare(tiny_a, tiny_b), {10, 0}).empty());
}

TEST_F(CompareTest, PreviousBaselineIsTheLastOkRunWithTheSameSetup) {
    const int64_t first = add(run_of({1, 2, 3}));
    FakeRun failed = run_of({1, 2, 3});
    failed.status = RunStatus::failed;
    add(failed);
    FakeRun other_backend = run_of({1, 2, 3});
    other_backend.backend = "cuda-pinned";
    add(other_backend);
    FakeRun other_size = run_of({1, 2, 3});
    other_size.log_n = 14;
    add(other_size);
    FakeRun more_workers = run_of({1, 2, 3});
    more_workers.prove_workers = 2;
    add(more_workers);
    const int64_t candidate = add(run_of({1, 2, 3}));
    EXPECT_EQ(previous_baseline(store_, candidate), first);
    EXPECT_EQ(previous_baseline(store_, first), std::nullopt);
}

TEST_F(CompareTest, JsonAndCsvHaveTheDocumentedFields) {
    const int64_t a = add(run_of(testing::noisy(8, 10, 0.05, 1)));
    const int64_t b = add(run_of(testing::noisy(8, 15, 0.05, 2)));
    const Comparison c = compare(a, b);
    GateOutcome gate{{10, 1.0}, find_regressions(c, {10, 1.0})};
    const auto json = nlohmann::json::parse(format_comparison(c, CompareFormat::json, &gate));
    EXPECT_EQ(json["format"], "zkbatch-compare");
    EXPECT_EQ(json["version"], 1);
    EXPECT_EQ(json["a"]["run_ids"], nlohmann::json::array({a}));
    EXPECT_EQ(json["results"]["status"], "same");
    EXPECT_FALSE(json["gate"]["passed"]);
    const auto& partition = json["phases"].back();
    EXPECT_EQ(partition["phase"], "partition");
    for (const char* key : {"count_a", "count_b", "median_a_ms", "median_b_ms", "relative_change",
                            "relative_change_ci_low", "relative_change_ci_high", "shift_ms", "shift_ci_low_ms",
                            "shift_ci_high_ms", "ci_confidence", "u_a", "p_value", "p_value_method", "verdict",
                            "regression"})
        EXPECT_TRUE(partition.contains(key)) << key;
    EXPECT_EQ(partition["verdict"], "slower");
    EXPECT_EQ(partition["p_value_method"], "exact");
    EXPECT_EQ(partition["u_a"], 0);
    EXPECT_TRUE(partition["regression"]);

    const std::string csv = format_comparison(c, CompareFormat::csv);
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "phase,count_a,count_b,median_a_ms,median_b_ms,relative_change,relative_change_ci_low,"
              "relative_change_ci_high,shift_ms,shift_ci_low_ms,shift_ci_high_ms,p_value,p_value_method,verdict,"
              "regression,a_run_ids,b_run_ids,results");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(c.phases.size()) + 1);
    EXPECT_NE(csv.find("\npartition,8,8,"), std::string::npos);
    const std::string markdown = format_comparison(c, CompareFormat::markdown);
    EXPECT_NE(markdown.find("| partition | 8 | 8 |"), std::string::npos) << markdown;
}

}  // namespace
}  // namespace zkbatch
