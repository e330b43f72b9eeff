// Run selectors against a doctored database with known runs.
#include "fake_history.hpp"
#include "support/zkbatch_process.hpp"
#include "analysis/selectors.hpp"
#include "util/usage_error.hpp"

#include <gtest/gtest.h>

namespace zkbatch {
namespace {

class SelectorsTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto add = [&](std::string job, std::string backend, RunStatus status = RunStatus::ok,
                             std::optional<int64_t> experiment = std::nullopt, std::string arm = "") {
            testing::FakeRun run;
            run.job = std::move(job);
            run.backend = std::move(backend);
            run.status = status;
            run.experiment_id = experiment;
            run.arm = std::move(arm);
            run.partition_ms = {1, 2};
            return testing::add_run(store_, run);
        };
        ExperimentRecord experiment;
        experiment.name = "ab";
        experiment.order_method = "interleaved";
        experiment.arm_count = 2;
        experiment.manifest_sha256 = "0";
        first_ab_ = store_.begin_experiment(experiment);
        second_ab_ = store_.begin_experiment(experiment);  // the same name again
        experiment.name = "sweep";
        sweep_ = store_.begin_experiment(experiment);

        add("nightly", "cpu-ref");                            // 1
        add("nightly", "cuda-pinned");                        // 2
        add("smoke", "cpu-ref");                              // 3
        add("nightly", "cpu-ref", RunStatus::failed);         // 4
        add("nightly", "cuda-pinned");                        // 5
        add("ab", "cuda-pinned", RunStatus::ok, first_ab_, "backend.name=\"cuda-pinned\"");      // 6
        add("ab", "cuda-pageable", RunStatus::ok, first_ab_, "backend.name=\"cuda-pageable\"");  // 7
        add("sweep", "cpu-ref", RunStatus::ok, sweep_, "circuit.log_n=20,pipeline.prove_workers=1");  // 8
        add("sweep", "cpu-ref", RunStatus::ok, sweep_, "circuit.log_n=20,pipeline.prove_workers=2");  // 9
        add("smoke", "cpu-ref");                              // 10
    }

    std::vector<int64_t> ids(const std::string& selector, const RunFilter& within = {}) {
        return select_runs(store_, selector, within).run_ids;
    }
    // The message of the StoreError or UsageError a selector throws ("" if none).
    std::string error_of(const std::string& selector, const RunFilter& within = {}) {
        try {
            select_runs(store_, selector, within);
        } catch (const StoreError& e) {
            return e.what();
        } catch (const UsageError& e) {
            return e.what();
        }
        return "";
    }

    zkbatch::test::TempDir folder_{"zkbatch-compare"};
    Store store_{folder_.path() / "selectors.db"};
    int64_t first_ab_ = 0, second_ab_ = 0, sweep_ = 0;
};

using Ids = std::vector<int64_t>;

TEST_F(SelectorsTest, IdsLatestAndJobs) {
    EXPECT_EQ(ids("3"), Ids{3});
    EXPECT_EQ(ids("latest"), Ids{10});
    EXPECT_EQ(ids("latest~2"), Ids{8});
    EXPECT_EQ(ids("job=nightly"), Ids{5});
    EXPECT_EQ(ids("job=nightly,latest~1"), Ids{4});
    EXPECT_EQ(ids("job=nightly,backend=cpu-ref"), Ids{4});
    EXPECT_EQ(ids("backend=cpu-ref,job=nightly,status=ok"), Ids{1});
    EXPECT_EQ(ids("backend=cuda-pageable"), Ids{7});
    EXPECT_EQ(ids("2,job=nightly"), Ids{2});
    EXPECT_EQ(select_one_run(store_, "job=smoke"), 10);
}

TEST_F(SelectorsTest, Experiments) {
    EXPECT_EQ(ids("experiment=" + std::to_string(first_ab_)), (Ids{6, 7}));
    EXPECT_EQ(ids("experiment=" + std::to_string(first_ab_) + ",backend=cuda-pageable"), Ids{7});
    // Arm labels quote their values (backend.name="cuda-pinned"); the quotes are optional here.
    EXPECT_EQ(ids("experiment=" + std::to_string(first_ab_) + ",arm=backend.name=cuda-pinned"), Ids{6});
    EXPECT_EQ(ids("experiment=" + std::to_string(first_ab_) + ",arm=backend.name=\"cuda-pageable\""), Ids{7});
    EXPECT_EQ(ids("experiment=sweep"), (Ids{8, 9}));
    // An arm holding ',' survives the split on ','.
    EXPECT_EQ(ids("experiment=sweep,arm=circuit.log_n=20,pipeline.prove_workers=2"), Ids{9});
    EXPECT_EQ(ids("experiment=sweep,latest"), Ids{9});
    EXPECT_NE(error_of("experiment=ab").find("ambiguous: 2 experiments are named 'ab'"), std::string::npos)
        << error_of("experiment=ab");
    EXPECT_NE(error_of("experiment=nope").find("there is no experiment 'nope'"), std::string::npos);
    // An experiment with no runs of its own.
    EXPECT_NE(error_of("experiment=" + std::to_string(second_ab_)).find("no run matches"), std::string::npos);
    EXPECT_THROW(select_one_run(store_, "experiment=sweep"), StoreError);
}

TEST_F(SelectorsTest, AnArmHoldingAListSurvivesTheSplitOnCommas) {
    ExperimentRecord experiment;
    experiment.name = "gpus";
    experiment.order_method = "interleaved";
    experiment.arm_count = 2;
    experiment.manifest_sha256 = "0";
    const int64_t gpus = store_.begin_experiment(experiment);
    std::vector<int64_t> runs;
    for (const char* arm : {"pipeline.devices=[0]", "pipeline.devices=[0,1]"}) {
        testing::FakeRun run;
        run.job = "gpus";
        run.backend = "cuda-pinned";
        run.experiment_id = gpus;
        run.arm = arm;
        run.partition_ms = {1, 2};
        runs.push_back(testing::add_run(store_, run));
    }
    EXPECT_EQ(ids("experiment=gpus,arm=pipeline.devices=[0,1]"), Ids{runs[1]});
    EXPECT_EQ(ids("arm=pipeline.devices=[0,1],experiment=gpus"), Ids{runs[1]});
    EXPECT_EQ(ids("experiment=gpus,arm=pipeline.devices=[0]"), Ids{runs[0]});
}

TEST_F(SelectorsTest, WithinTheGatedJob) {
    RunFilter nightly;
    nightly.job_name = "nightly";
    EXPECT_EQ(ids("latest", nightly), Ids{5});
    EXPECT_EQ(ids("latest~2", nightly), Ids{2});  // nightly's runs: 1, 2, 4, 5
    EXPECT_EQ(ids("latest~3", nightly), Ids{1});
    EXPECT_EQ(ids("1", nightly), Ids{1});
    EXPECT_NE(error_of("3", nightly).find("run 3 does not match"), std::string::npos) << error_of("3", nightly);
    EXPECT_NE(error_of("job=smoke", nightly).find("limited to job nightly"), std::string::npos);
    EXPECT_THROW(select_runs(store_, "job=smoke", nightly), UsageError);
    EXPECT_NE(error_of("latest~9", nightly).find("only 4 runs match"), std::string::npos) << error_of("latest~9", nightly);
}

TEST_F(SelectorsTest, ErrorsSayWhatIsWrongAndWhatExists) {
    EXPECT_NE(error_of("job=weekly").find("no run of job 'weekly' (jobs here: ab, nightly, smoke, sweep)"),
              std::string::npos)
        << error_of("job=weekly");
    EXPECT_NE(error_of("job=smoke,backend=cuda-pinned").find("no run matches them all"), std::string::npos);
    EXPECT_NE(error_of("backend=rocm").find("backends here: cpu-ref, cuda-pageable, cuda-pinned"), std::string::npos);
    EXPECT_NE(error_of("99").find("there is no run 99"), std::string::npos);
    for (const char* bad : {"", "job", "job=", "color=red", "job=a,job=b", "latest~x", "latest,3", "-4", "0"}) {
        EXPECT_NE(error_of(bad).find("is not a run selector"), std::string::npos) << "'" << bad << "': " << error_of(bad);
        // A selector that cannot mean anything is the command line's fault (exit 2), not the database's.
        EXPECT_THROW(select_runs(store_, bad), UsageError) << "'" << bad << "'";
    }
}

}  // namespace
}  // namespace zkbatch
