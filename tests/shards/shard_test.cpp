// shard.hpp: --shard I/N and auto (Slurm), which partitions a shard proves, and the
// experiment uuid every shard of one submission must agree on.
#include "cluster/shard.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace zkbatch {
namespace {

EnvLookup env_of(std::map<std::string, std::string> values) {
    auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(values));
    return [shared](const char* name) -> const char* {
        const auto found = shared->find(name);
        return found == shared->end() ? nullptr : found->second.c_str();
    };
}

const EnvLookup kNoSlurm = env_of({});

std::string message_of(const std::string& text, const EnvLookup& env) {
    try {
        parse_shard(text, env);
    } catch (const ShardError& e) {
        return e.what();
    }
    return "<accepted>";
}

TEST(Shard, ParsesIndexOfCount) {
    const ShardSpec shard = parse_shard("2/5", kNoSlurm);
    EXPECT_EQ(shard.index, 2u);
    EXPECT_EQ(shard.count, 5u);
    EXPECT_EQ(shard.text(), "2/5");
    EXPECT_EQ(parse_shard("0/1", kNoSlurm).count, 1u);
}

TEST(Shard, RefusesWhatIsNotAShard) {
    EXPECT_NE(message_of("4/4", kNoSlurm).find("below N"), std::string::npos);
    EXPECT_NE(message_of("0/0", kNoSlurm).find("must be 1.."), std::string::npos);
    for (const char* bad : {"", "3", "a/b", "-1/4", "1/4x", "1/", "/4", " 1/4", "1//4"})
        EXPECT_NE(message_of(bad, kNoSlurm).find("expected I/N"), std::string::npos) << "'" << bad << "'";
    EXPECT_NE(message_of("0/2000000", kNoSlurm).find("must be 1.."), std::string::npos);
}

TEST(Shard, AutoReadsTheSlurmArrayTask) {
    // --array=3-6: tasks 3..6 are shards 0..3.
    const ShardSpec shard = parse_shard("auto", env_of({{"SLURM_ARRAY_TASK_ID", "5"},
                                                        {"SLURM_ARRAY_TASK_MIN", "3"},
                                                        {"SLURM_ARRAY_TASK_MAX", "6"},
                                                        {"SLURM_ARRAY_TASK_COUNT", "4"}}));
    EXPECT_EQ(shard.index, 2u);
    EXPECT_EQ(shard.count, 4u);
}

TEST(Shard, AutoOutsideSlurmSaysWhatToDo) {
    const std::string message = message_of("auto", kNoSlurm);
    EXPECT_NE(message.find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << message;
    EXPECT_NE(message.find("--shard I/N"), std::string::npos) << message;
    // Half a Slurm environment (a plain sbatch job, not an array) is refused too.
    EXPECT_NE(message_of("auto", env_of({{"SLURM_ARRAY_TASK_ID", "1"}})).find("SLURM_ARRAY_TASK_MIN"),
              std::string::npos);
    EXPECT_NE(message_of("auto", env_of({{"SLURM_ARRAY_TASK_ID", "x"},
                                         {"SLURM_ARRAY_TASK_MIN", "0"},
                                         {"SLURM_ARRAY_TASK_COUNT", "2"}}))
                  .find("not a whole number"),
              std::string::npos);
}

TEST(Shard, AutoRefusesAnArrayWithGaps) {
    // --array=0-6:2 has 4 tasks 0, 2, 4, 6: shard indices would not cover 0..3.
    const std::string message = message_of("auto", env_of({{"SLURM_ARRAY_TASK_ID", "4"},
                                                            {"SLURM_ARRAY_TASK_MIN", "0"},
                                                            {"SLURM_ARRAY_TASK_MAX", "6"},
                                                            {"SLURM_ARRAY_TASK_COUNT", "4"}}));
    EXPECT_NE(message.find("not contiguous"), std::string::npos) << message;
    EXPECT_NE(message.find("--array=0-3"), std::string::npos) << message;
}

TEST(Shard, ShardsCoverEveryPartitionExactlyOnceAndAreBalanced) {
    for (uint32_t count : {1u, 2u, 3u, 4u, 7u, 13u}) {
        for (uint64_t partitions : {0ull, 1ull, 5ull, 12ull, 13ull, 100ull}) {
            std::multiset<uint64_t> seen;
            size_t smallest = SIZE_MAX, largest = 0;
            for (uint32_t index = 0; index < count; ++index) {
                const auto mine = shard_partitions({index, count}, partitions);
                for (uint64_t p : mine) {
                    EXPECT_EQ(p % count, index);
                    seen.insert(p);
                }
                smallest = std::min(smallest, mine.size());
                largest = std::max(largest, mine.size());
            }
            ASSERT_EQ(seen.size(), partitions) << count << " shards of " << partitions;
            for (uint64_t p = 0; p < partitions; ++p) EXPECT_EQ(seen.count(p), 1u);
            EXPECT_LE(largest - smallest, 1u) << count << " shards of " << partitions;
        }
    }
    EXPECT_EQ(shard_partitions({1, 4}, 10), (std::vector<uint64_t>{1, 5, 9}));
}

TEST(Shard, ExperimentKeyDefaultsToTheArrayJob) {
    EXPECT_FALSE(default_experiment_key(kNoSlurm));
    EXPECT_EQ(default_experiment_key(env_of({{"SLURM_ARRAY_JOB_ID", "812"}})), "slurm-cluster-812");
    EXPECT_EQ(default_experiment_key(env_of({{"SLURM_ARRAY_JOB_ID", "812"}, {"SLURM_CLUSTER_NAME", "hpc"}})),
              "slurm-hpc-812");
}

TEST(Shard, ExperimentUuidIsTheSameOnEveryShardAndNamesOneSubmission) {
    // Known answer: SHA-256 (Python hashlib) of the identity text, first 32 hex digits.
    EXPECT_EQ(shard_experiment_uuid("m = 1\n", {"job.seed=2"}, 4, "k1"), "2ebd8aca9ffaddbd0083558543c383b5");
    // Each shard writes its own database (--db): that must not change the identity.
    EXPECT_EQ(shard_experiment_uuid("m = 1\n", {"job.seed=2", "output.db=\"/a/shard-0.db\""}, 4, "k1"),
              shard_experiment_uuid("m = 1\n", {"job.seed=2", "output.db=\"/a/shard-3.db\""}, 4, "k1"));
    const std::string base = shard_experiment_uuid("m = 1\n", {"job.seed=2"}, 4, "k1");
    EXPECT_NE(base, shard_experiment_uuid("m = 1\n", {"job.seed=2"}, 4, "k2"));
    EXPECT_NE(base, shard_experiment_uuid("m = 1\n", {"job.seed=2"}, 3, "k1"));
    EXPECT_NE(base, shard_experiment_uuid("m = 2\n", {"job.seed=2"}, 4, "k1"));
    EXPECT_NE(base, shard_experiment_uuid("m = 1\n", {"job.seed=3"}, 4, "k1"));
}

}  // namespace
}  // namespace zkbatch
