// RunPlan: what a `zkbatch run` or `--resume` will do, decided from the command line,
// the manifest and (for a resume) the recorded run, before anything is loaded.
#include "run/run_plan.hpp"

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <set>

namespace zkbatch {
namespace {

namespace fs = std::filesystem;

class RunPlanTest : public ::testing::Test {
protected:
    std::string manifest(const std::string& text) const {
        const fs::path path = dir_.path() / "job.toml";
        std::ofstream(path) << text;
        return path.string();
    }
    RunPlan plan(RunOptions options, std::map<std::string, std::string> env = {}) const {
        return plan_run(options, [env](const char* name) -> const char* {
            const auto found = env.find(name);
            return found == env.end() ? nullptr : found->second.c_str();
        });
    }

    test::TempDir dir_{"zkbatch-plan"};
};

TEST_F(RunPlanTest, APlainJobIsOneArmProvingEveryPartitionInOneBlock) {
    RunOptions options;
    options.manifest_path = manifest("[job]\nname = \"plain\"\npartitions = 5\n[output]\ndb = \"a.db\"\n");
    const RunPlan p = plan(options);
    ASSERT_EQ(p.arms.size(), 1u);
    EXPECT_EQ(p.arms[0].label, "");
    EXPECT_EQ(p.arms[0].backend_name, "auto");
    EXPECT_FALSE(p.is_experiment());
    EXPECT_EQ(p.partitions, (std::vector<uint64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(p.blocks(), (std::vector<std::vector<uint64_t>>{{0, 1, 2, 3, 4}}));
    EXPECT_EQ(p.db_path, fs::path("a.db"));
    EXPECT_FALSE(p.experiment);
    EXPECT_FALSE(p.shard);
    EXPECT_FALSE(p.resume_run_id);

    options.db_path = "b.db";
    options.backend_name = "cpu-ref";
    options.dump_dir = "dumps";
    const RunPlan overridden = plan(options);
    EXPECT_EQ(overridden.db_path, fs::path("b.db"));
    EXPECT_EQ(overridden.arms[0].backend_name, "cpu-ref");
    EXPECT_EQ(overridden.dump_dir, fs::path("dumps"));
}

TEST_F(RunPlanTest, AxesMakeArmsThatTakeTurnsInReproducibleBlocks) {
    RunOptions options;
    options.manifest_path = manifest("[job]\nname = \"ab\"\npartitions = 20\nseed = 9\n"
                                     "[circuit]\nlog_n = [8, 9]\n[pipeline]\nprove_workers = [1, 2]\n");
    const RunPlan p = plan(options);
    ASSERT_EQ(p.arms.size(), 4u);
    EXPECT_TRUE(p.is_experiment());
    EXPECT_EQ(p.arms[0].label, "circuit.log_n=8 pipeline.prove_workers=1");
    EXPECT_EQ(p.arms[3].manifest.circuit.log_n, 9u);
    EXPECT_EQ(p.arms[3].manifest.pipeline.prove_workers, 2u);
    // 20 partitions in 8 blocks: 3 per block, the last one short, in order.
    EXPECT_EQ(p.block_partitions, 3u);
    const auto blocks = p.blocks();
    ASSERT_EQ(blocks.size(), 7u);
    EXPECT_EQ(blocks.back(), (std::vector<uint64_t>{18, 19}));
    std::vector<uint64_t> all;
    for (const auto& block : blocks) all.insert(all.end(), block.begin(), block.end());
    EXPECT_EQ(all, p.partitions);
    // Each block's order is a permutation of the arms, the same for the same seed, and
    // not the same in every block.
    std::set<std::vector<size_t>> orders;
    for (uint64_t block = 0; block < blocks.size(); ++block) {
        std::vector<size_t> order = p.arm_order(block);
        EXPECT_EQ(order, plan(options).arm_order(block));
        orders.insert(order);
        std::sort(order.begin(), order.end());
        EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3}));
    }
    EXPECT_GT(orders.size(), 1u);
    ASSERT_TRUE(p.experiment);
    EXPECT_EQ(p.experiment->name, "ab");
    EXPECT_EQ(p.experiment->order_method, "randomized-blocks");
    EXPECT_EQ(p.experiment->block_partitions, 3u);
    EXPECT_EQ(p.experiment->arm_count, 4u);
    EXPECT_EQ(p.experiment->manifest_sha256, manifest_hash(p.manifest));
    EXPECT_TRUE(p.experiment->uuid.empty());  // a fresh one is drawn when it is recorded
}

TEST_F(RunPlanTest, AShardProvesEveryNthPartitionAsOneExperimentOfItsSubmission) {
    RunOptions options;
    options.manifest_path = manifest("[job]\nname = \"sharded\"\npartitions = 8\n");
    options.shard = "1/3";
    options.experiment_key = "nightly-1";
    options.db_path = "shard-1.db";
    const RunPlan p = plan(options);
    EXPECT_EQ(p.partitions, (std::vector<uint64_t>{1, 4, 7}));
    ASSERT_TRUE(p.shard);
    EXPECT_EQ(p.shard->text(), "1/3");
    ASSERT_TRUE(p.experiment);
    EXPECT_EQ(p.experiment->order_method, "single-arm");
    EXPECT_EQ(p.experiment->arm_count, 1u);
    EXPECT_EQ(p.experiment->uuid.size(), 32u);
    // Another shard of the same submission, writing its own database: the same experiment.
    options.shard = "0/3";
    options.db_path = "shard-0.db";
    EXPECT_EQ(plan(options).experiment->uuid, p.experiment->uuid);
    options.experiment_key = "nightly-2";
    EXPECT_NE(plan(options).experiment->uuid, p.experiment->uuid);
    // Under Slurm the array job names the submission.
    options.experiment_key.reset();
    options.shard = "auto";
    const RunPlan slurm = plan(options, {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                                         {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_JOB_ID", "77"}});
    EXPECT_EQ(slurm.partitions, (std::vector<uint64_t>{2, 5}));
    EXPECT_EQ(slurm.experiment_key, "slurm-cluster-77");
}

TEST_F(RunPlanTest, WhatCannotBePlannedIsAUsageError) {
    RunOptions options;
    EXPECT_THROW(plan(options), RunPlanError);  // no manifest
    options.manifest_path = manifest("[job]\nname = \"x\"\n");
    options.experiment_key = "k";
    EXPECT_THROW(plan(options), ShardError);  // a key without --shard
    options.experiment_key.reset();
    options.shard = "0/2";
    EXPECT_THROW(plan(options), ShardError);  // a shard outside Slurm without a key
    options.shard = "2/2";
    options.experiment_key = "k";
    EXPECT_THROW(plan(options), ShardError);
}

// --resume: the recorded run as it was started.
class ResumePlanTest : public ::testing::Test {
protected:
    int64_t record_run(const std::string& status, std::optional<int64_t> experiment = std::nullopt,
                       std::optional<uint32_t> shard_count = std::nullopt) {
        RunRecord run;
        run.job_name = "resumed";
        run.backend_name = "cpu-ref";
        run.backend_version = run.zkbatch_version = run.git_revision = "test";
        run.manifest_path = "jobs/resumed.toml";
        run.manifest_text = "[job]\nname = \"resumed\"\npartitions = 6\n[circuit]\nlog_n = 8\n";
        run.overrides = "job.partitions=5\n";
        run.manifest_sha256 = manifest_hash(parse_manifest(run.manifest_text, run.manifest_path, {"job.partitions=5"}));
        run.verify_mode = "identity";
        run.experiment_id = experiment;
        if (shard_count) {
            run.shard_index = 1;
            run.shard_count = shard_count;
        }
        const int64_t id = store_.begin_run(run);
        RunSummary end;
        end.status = status == "ok" ? RunStatus::ok : status == "failed" ? RunStatus::failed : RunStatus::cancelled;
        end.ended_unix_ns = 1;
        if (status != "running") store_.finish_run(id, end);
        return id;
    }
    int64_t experiment(const std::string& name, uint32_t arms) {
        ExperimentRecord record;
        record.name = name;
        record.order_method = "single-arm";
        record.arm_count = arms;
        record.manifest_sha256 = "0";
        return store_.begin_experiment(record);
    }
    RunPlan plan(int64_t run_id) const {
        RunOptions options;
        options.resume_run = std::to_string(run_id);
        options.plugin_path = "/plugins";
        return plan_resume(store_, options);
    }

    test::TempDir dir_{"zkbatch-plan"};
    Store store_{dir_.path() / "runs.db"};
};

TEST_F(ResumePlanTest, AResumedRunIsPlannedFromWhatItRecorded) {
    const int64_t run = record_run("cancelled");
    const RunPlan p = plan(run);
    EXPECT_EQ(p.resume_run_id, run);
    ASSERT_EQ(p.arms.size(), 1u);
    EXPECT_EQ(p.arms[0].backend_name, "cpu-ref");
    EXPECT_EQ(p.manifest.job.partitions, 5u);  // the recorded override applied
    EXPECT_EQ(p.arms[0].manifest.circuit.log_n, 8u);
    EXPECT_EQ(p.partitions, (std::vector<uint64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(p.db_path, store_.path());
    EXPECT_EQ(p.plugin_path, "/plugins");
    EXPECT_FALSE(p.experiment);
}

TEST_F(ResumePlanTest, RefusesFinishedAndLiveRunsAndOneArmOfAnExperiment) {
    EXPECT_THROW(plan(record_run("ok")), RunPlanError);
    EXPECT_THROW(plan(record_run("running")), RunPlanError);
    EXPECT_THROW(plan(record_run("failed", experiment("ab", 2))), RunPlanError);
    // A shard's run is one arm of a one-arm experiment: it resumes its own partitions.
    const RunPlan shard = plan(record_run("failed", experiment("sharded", 1), 3));
    ASSERT_TRUE(shard.shard);
    EXPECT_EQ(shard.partitions, (std::vector<uint64_t>{1, 4}));
}

// The manifest a resume plans from is the one stored with the run: text and overrides
// edited in the database since (they no longer match the digest recorded with them) are
// refused.
TEST_F(ResumePlanTest, RefusesAStoredManifestThatNoLongerMatchesItsDigest) {
    const int64_t run = record_run("failed");
    EXPECT_NO_THROW(plan(run));
    const char* edit = "UPDATE run SET overrides = 'job.partitions=6\n'";
    ASSERT_EQ(sqlite3_exec(store_.handle(), edit, nullptr, nullptr, nullptr), SQLITE_OK);
    try {
        plan(run);
        ADD_FAILURE() << "planned from an edited manifest";
    } catch (const RunPlanError& e) {
        EXPECT_NE(std::string(e.what()).find("no longer match the digest recorded with them"), std::string::npos)
            << e.what();
    }
}

// Stored shard columns no run has are refused, not planned: a count of 2^32 became 0
// and the list of the shard's partitions never ended.
TEST_F(ResumePlanTest, RefusesAShardNoRunHas) {
    const int64_t run = record_run("failed", experiment("sharded", 1), 3);
    for (const char* shard : {"shard_count = 4294967296", "shard_count = 0", "shard_index = 3", "shard_index = NULL"}) {
        SCOPED_TRACE(shard);
        const std::string edit =
            std::string("UPDATE run SET shard_index = 1, shard_count = 3; UPDATE run SET ") + shard;
        ASSERT_EQ(sqlite3_exec(store_.handle(), edit.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        EXPECT_THROW(plan(run), StoreError);
    }
}

// The run's experiment is found by its id. Experiments are also looked up by name
// elsewhere (experiment=NAME selectors), and a job may be called "2": the experiment
// named "2" (id 1, two arms) must not stand in for experiment 2 (one arm, a shard's).
TEST_F(ResumePlanTest, FindsTheRunsExperimentByIdNotByADigitName) {
    ASSERT_EQ(experiment("2", 2), 1);
    const int64_t sharded = experiment("sharded", 1);
    ASSERT_EQ(sharded, 2);
    const int64_t run = record_run("failed", sharded, 3);
    EXPECT_NO_THROW(plan(run));
}

}  // namespace
}  // namespace zkbatch
