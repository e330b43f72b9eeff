// Step-change detection on synthetic histories (planted steps found where they are,
// pure noise rarely flagged) and `history` over a doctored database.
#include "fake_history.hpp"
#include "support/zkbatch_process.hpp"
#include "analysis/history.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

namespace zkbatch {
namespace {

// `count` run values: `level` with multiplicative noise of `noise` (log-normal sd).
std::vector<double> runs(std::mt19937_64& rng, size_t count, double level, double noise) {
    std::normal_distribution<double> normal(0, noise);
    std::vector<double> values(count);
    for (double& v : values) v = level * std::exp(normal(rng));
    return values;
}

std::vector<double> concat(std::vector<double> a, const std::vector<double>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(StepChanges, PlantedStepIsFoundWhereItIs) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        std::mt19937_64 rng(seed);
        const auto values = concat(runs(rng, 12, 100, 0.03), runs(rng, 8, 130, 0.03));
        const auto steps = detect_step_changes(values);
        ASSERT_EQ(steps.size(), 1u) << "seed " << seed;
        EXPECT_EQ(steps[0].index, 12u) << "seed " << seed;
        EXPECT_NEAR(steps[0].relative_change, 0.30, 0.06) << "seed " << seed;
        EXPECT_LT(steps[0].p_value, 0.05 / 15);
    }
}

TEST(StepChanges, StepNearTheEndAndTwoStepsAreFound) {
    std::mt19937_64 rng(5);
    // A step three runs before the end: the shortest segment allowed.
    const auto late = concat(runs(rng, 17, 50, 0.02), runs(rng, 3, 60, 0.02));
    const auto late_steps = detect_step_changes(late);
    ASSERT_EQ(late_steps.size(), 1u);
    EXPECT_EQ(late_steps[0].index, 17u);
    // Up, then back down (a regression that was fixed).
    const auto both = concat(concat(runs(rng, 10, 100, 0.03), runs(rng, 10, 140, 0.03)), runs(rng, 10, 100, 0.03));
    const auto steps = detect_step_changes(both);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].index, 10u);
    EXPECT_EQ(steps[1].index, 20u);
    EXPECT_GT(steps[0].relative_change, 0.25);
    EXPECT_LT(steps[1].relative_change, -0.2);
}

TEST(StepChanges, PureNoiseIsRarelyFlagged) {
    int flagged = 0;
    for (uint64_t seed = 1; seed <= 50; ++seed) {
        std::mt19937_64 rng(1000 + seed);
        flagged += !detect_step_changes(runs(rng, 30, 100, 0.05)).empty();
    }
    std::printf("noise-only histories (30 runs, 5%% noise) with a step flagged: %d of 50\n", flagged);
    EXPECT_LE(flagged, 5) << "of 50 noise-only histories";  // alpha 0.05, Bonferroni: fewer expected
}

TEST(StepChanges, OutliersShortHistoriesAndSmallStepsAreNotSteps) {
    std::mt19937_64 rng(9);
    auto spiky = runs(rng, 20, 100, 0.02);
    spiky[7] = 400;  // one bad night
    spiky[8] = 380;
    EXPECT_TRUE(detect_step_changes(spiky).empty());
    // Two runs after a step are not enough to name it (min_segment = 3).
    EXPECT_TRUE(detect_step_changes(concat(runs(rng, 10, 100, 0.01), runs(rng, 2, 200, 0.01))).empty());
    // A consistent 2% step is below the default 5% minimum, found when the minimum is lowered.
    const auto small = concat(runs(rng, 15, 100, 0.002), runs(rng, 15, 102, 0.002));
    EXPECT_TRUE(detect_step_changes(small).empty());
    ChangePointOptions sensitive;
    sensitive.min_relative_step = 0.01;
    ASSERT_EQ(detect_step_changes(small, sensitive).size(), 1u);
    EXPECT_TRUE(detect_step_changes(std::vector<double>{}).empty());
}

TEST(History, MarksTheStepAndSkipsFailedRuns) {
    zkbatch::test::TempDir folder{"zkbatch-compare"};
    Store store(folder.path() / "h.db");
    std::vector<int64_t> ids;
    for (int night = 0; night < 12; ++night) {
        testing::FakeRun run;
        run.partition_ms = testing::noisy(8, night < 7 ? 20 : 28, 0.05, 50 + night);
        if (night == 3) run.status = RunStatus::failed;
        if (night == 3) run.partition_ms.assign(8, 500);  // would look like a step if used
        ids.push_back(testing::add_run(store, run));
    }
    testing::FakeRun other;  // another job: not in this history
    other.job = "smoke";
    other.partition_ms = testing::noisy(8, 1, 0.05, 1);
    testing::add_run(store, other);

    const History history = load_history(store, "nightly", "partition", std::nullopt, {});
    ASSERT_EQ(history.points.size(), 12u);
    for (size_t i = 0; i < 12; ++i) {
        EXPECT_EQ(history.points[i].run_id, ids[i]);
        EXPECT_EQ(history.points[i].used, i != 3);
        EXPECT_EQ(history.points[i].step.has_value(), i == 7) << i;
    }
    EXPECT_NEAR(history.points[7].step->relative_change, 0.4, 0.08);
    const std::string text = format_history(history);
    EXPECT_NE(text.find("<- step +"), std::string::npos) << text;
    EXPECT_NE(text.find("(not used: status failed)"), std::string::npos) << text;

    ChangePointOptions window;
    window.max_runs = 5;  // only the latest five usable runs are searched
    const History latest = load_history(store, "nightly", "partition", std::nullopt, window);
    for (size_t i = 0; i < 12; ++i) EXPECT_EQ(latest.points[i].used, i >= 7) << i;
    EXPECT_NE(format_history(latest).find("(before the latest 5 runs searched)"), std::string::npos);

    const History synth = load_history(store, "nightly", "synth", std::nullopt, {});
    EXPECT_NEAR(*synth.points[0].value, 0.4 * *history.points[0].value, 1e-3);
    EXPECT_TRUE(load_history(store, "nightly", "wall_ms", std::nullopt, {}).points[0].value.has_value());
    EXPECT_THROW(load_history(store, "nightly", "no_such_phase", std::nullopt, {}), std::invalid_argument);
    EXPECT_THROW(load_history(store, "weekly", "partition", std::nullopt, {}), StoreError);
    EXPECT_THROW(load_history(store, "nightly", "partition", std::string("cuda-pinned"), {}), StoreError);
}

}  // namespace
}  // namespace zkbatch
