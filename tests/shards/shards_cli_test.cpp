// The real zkbatch with cpu-ref: sharded runs merged into one history equal a
// single-process run (digests, compare, trace, report, saved queries); shards of an
// experiment; the Slurm scripts run by bash with a job array's variables; --submit
// with a stand-in sbatch; usage and storage errors.
#include "support/unprivileged.hpp"
#include "support/zkbatch_process.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace zkbatch::test {
namespace {

// At 2^8: sharding and merging do not depend on the size of a partition.
constexpr const char* kManifest = R"toml(
[job]
name = "sharded-e2e"
partitions = 6
seed = 5
[circuit]
log_n = 8
[backend]
name = "cpu-ref"
)toml";

const fs::path kQueries = fs::path(ZKBATCH_SOURCE_DIR) / "results" / "queries";

std::string digests(const fs::path& db) {
    return scalar(db.string(), "SELECT group_concat(partition_index || ':' || h_digest, ' ') FROM "
                               "(SELECT * FROM partition ORDER BY partition_index)");
}

class ShardsCli : public ::testing::Test {
protected:
    TempDir dir{"zkbatch-shards-cli"};
    fs::path manifest = write_file(dir.path() / "job.toml", kManifest);

    CommandResult zkbatch(std::vector<std::string> args) {
        const CommandResult result = run_zkbatch(args, dir.path());
        return result;
    }
    // zkbatch with no Slurm variables, whatever the environment running the test has.
    CommandResult zkbatch_outside_slurm(const std::vector<std::string>& args) {
        std::vector<std::string> argv{"/usr/bin/env"};
        for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
                                 "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_JOB_ID"}) {
            argv.push_back("-u");
            argv.push_back(name);
        }
        argv.push_back(zkbatch_exe());
        argv.insert(argv.end(), args.begin(), args.end());
        return run_program(argv, dir.path());
    }
    std::string path(const std::string& name) const { return (dir.path() / name).string(); }
};

TEST_F(ShardsCli, BadShardsAreUsageErrors) {
    auto result = zkbatch_outside_slurm({"run", manifest.string(), "--shard", "auto", "--db", path("x.db")});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << result.err;
    result = zkbatch({"run", manifest.string(), "--shard", "3/3", "--experiment-key", "k", "--db", path("x.db")});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("below N"), std::string::npos) << result.err;
    result = zkbatch_outside_slurm({"run", manifest.string(), "--shard", "0/2", "--db", path("x.db")});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--experiment-key"), std::string::npos) << result.err;
    result = zkbatch({"run", manifest.string(), "--experiment-key", "k", "--db", path("x.db")});
    EXPECT_EQ(result.exit_code, 2) << "--experiment-key without --shard";
    EXPECT_FALSE(fs::exists(path("x.db"))) << "a refused run must not create its database";
}

TEST_F(ShardsCli, MergedShardsAreTheSingleRun) {
    ASSERT_EQ(zkbatch({"run", manifest.string(), "--db", path("single.db")}).exit_code, 0);
    for (int shard = 0; shard < 3; ++shard) {
        const auto result = zkbatch({"run", manifest.string(), "--shard", fmt::format("{}/3", shard),
                                     "--experiment-key", "night-1", "--db", path(fmt::format("s{}.db", shard))});
        ASSERT_EQ(result.exit_code, 0) << result.err;
        EXPECT_EQ(scalar(path(fmt::format("s{}.db", shard)), "SELECT group_concat(partition_index, ',') FROM "
                                                             "(SELECT * FROM partition ORDER BY partition_index)"),
                  fmt::format("{},{}", shard, shard + 3));
    }
    const std::string history = path("history.db");
    auto merged = zkbatch({"merge", path("s0.db"), path("s1.db"), path("s2.db"), "--into", history});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_NE(merged.out.find("3 runs added, 0 replaced, 0 already there"), std::string::npos) << merged.out;
    merged = zkbatch({"merge", path("s2.db"), path("s0.db"), path("s1.db"), "--into", history});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_NE(merged.out.find("0 runs added, 0 replaced, 3 already there"), std::string::npos) << merged.out;

    EXPECT_EQ(scalar(history, "SELECT count(*) || ' ' || count(DISTINCT partition_index) FROM partition"), "6 6");
    EXPECT_EQ(digests(history), digests(path("single.db")));
    EXPECT_EQ(scalar(history, "SELECT group_concat(shard_index || '/' || shard_count, ' ') FROM run"), "0/3 1/3 2/3");
    EXPECT_EQ(scalar(history, "SELECT count(*) || ' ' || arm_count FROM experiment"), "1 1");
    const std::string uuid = scalar(history, "SELECT uuid FROM experiment");
    // Every shard derived the same experiment uuid on its own.
    for (int shard = 0; shard < 3; ++shard)
        EXPECT_EQ(scalar(path(fmt::format("s{}.db", shard)), "SELECT uuid FROM experiment"), uuid);

    // compare pools the shards' runs (an experiment) against the single-process run.
    ASSERT_EQ(zkbatch({"merge", path("single.db"), "--into", history}).exit_code, 0);
    const auto compared = zkbatch({"compare", "experiment=" + uuid, "4", "--db", history});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_NE(compared.out.find("A: runs 1, 2, 3"), std::string::npos) << compared.out;
    EXPECT_NE(compared.out.find("same proofs (6 partitions compared)"), std::string::npos) << compared.out;
    // A merged run's trace is the trace of the run in its shard (shard 0's run is run 1 in both).
    ASSERT_EQ(zkbatch({"trace", "1", "-o", path("merged.json"), "--db", history}).exit_code, 0);
    ASSERT_EQ(zkbatch({"trace", "1", "-o", path("shard.json"), "--db", path("s0.db")}).exit_code, 0);
    EXPECT_EQ(read_file(path("merged.json")), read_file(path("shard.json")));
    EXPECT_NE(read_file(path("merged.json")).find("\"ph\":\"X\""), std::string::npos);
    const auto report = zkbatch({"report", "experiment=" + uuid, "4", "-o", path("report.html"), "--db", history});
    EXPECT_EQ(report.exit_code, 0) << report.err;
    // The saved queries run on the merged history as on any other.
    if (std::system("command -v sqlite3 >/dev/null 2>&1") == 0) {
        size_t queries = 0;
        for (const auto& entry : fs::directory_iterator(kQueries)) {
            if (entry.path().extension() != ".sql") continue;
            ++queries;
            const auto result = run_program({"/bin/sh", "-c", "sqlite3 -header '" + history + "' < '" +
                                                                   entry.path().string() + "'"},
                                            dir.path());
            EXPECT_EQ(result.exit_code, 0) << entry.path() << ": " << result.err;
            EXPECT_EQ(result.err, "") << entry.path();
        }
        EXPECT_GE(queries, 7u);
    }
}

TEST_F(ShardsCli, AResumedShardProvesOnlyItsPartitionsAndMergesAgain) {
    ASSERT_EQ(zkbatch({"run", manifest.string(), "--db", path("single.db")}).exit_code, 0);
    const std::string shard = path("s1.db"), history = path("history.db");
    ASSERT_EQ(zkbatch({"run", manifest.string(), "--shard", "1/2", "--experiment-key", "k", "--db", shard}).exit_code, 0);
    // As if partition 3 had failed: the run ends failed and is merged like that.
    ASSERT_EQ(run_program({"/bin/sh", "-c", "sqlite3 '" + shard + "' \"UPDATE partition SET status = 'failed', "
                                            "h_digest = NULL, error = 'x' WHERE partition_index = 3; "
                                            "UPDATE run SET status = 'failed'\""},
                          dir.path())
                  .exit_code,
              0);
    ASSERT_EQ(zkbatch({"merge", shard, "--into", history}).exit_code, 0);
    const auto resumed = zkbatch({"run", "--resume", "1", "--db", shard});
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.out.find("ok: 3 ok, 0 failed of 3 partitions; 1 proved now"), std::string::npos) << resumed.out;
    const auto merged = zkbatch({"merge", shard, "--into", history});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_NE(merged.out.find("0 runs added, 1 replaced"), std::string::npos) << merged.out;
    EXPECT_EQ(scalar(history, "SELECT id || ' ' || status || ' ' || resume_count FROM run"), "1 ok 1");
    EXPECT_EQ(scalar(history, "SELECT group_concat(partition_index || ':' || h_digest, ' ') FROM "
                              "(SELECT * FROM partition ORDER BY partition_index)"),
              scalar(path("single.db"), "SELECT group_concat(partition_index || ':' || h_digest, ' ') FROM "
                                        "(SELECT * FROM partition WHERE partition_index % 2 = 1 ORDER BY partition_index)"));
}

TEST_F(ShardsCli, EachShardRunsEveryArmOfAnExperiment) {
    const auto shard_manifest = write_file(dir.path() / "ab.toml", std::string(kManifest) +
                                                                        "[pipeline]\nprove_workers = [1, 2]\n");
    for (int shard = 0; shard < 2; ++shard) {
        const auto result = zkbatch({"run", shard_manifest.string(), "--shard", fmt::format("{}/2", shard),
                                     "--experiment-key", "ab", "--db", path(fmt::format("s{}.db", shard))});
        ASSERT_EQ(result.exit_code, 0) << result.err;
    }
    const std::string history = path("history.db");
    ASSERT_EQ(zkbatch({"merge", path("s0.db"), path("s1.db"), "--into", history}).exit_code, 0);
    EXPECT_EQ(scalar(history, "SELECT count(*) || ' ' || arm_count FROM experiment"), "1 2");
    EXPECT_EQ(scalar(history, "SELECT count(*) || ' ' || count(DISTINCT arm) FROM run"), "4 2");
    // Per arm, the two shards together prove every partition once.
    EXPECT_EQ(scalar(history, "SELECT group_concat(n, ' ') FROM (SELECT count(DISTINCT p.partition_index) AS n "
                              "FROM partition AS p JOIN run AS r ON r.id = p.run_id GROUP BY r.arm)"),
              "6 6");
    const auto compared = zkbatch({"compare", "experiment=1", "--db", history});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_NE(compared.out.find("same proofs (6 partitions compared)"), std::string::npos) << compared.out;
}

TEST_F(ShardsCli, SlurmScriptsRunAsAJobArrayThenMerge) {
    const std::string out = path("slurm");
    const auto wrote = zkbatch({"slurm", manifest.string(), "--shards", "3", "--out", out, "--into", path("history.db"),
                                "--set", "job.seed=9", "--", "--partition=gpu", "--time=5"});
    ASSERT_EQ(wrote.exit_code, 0) << wrote.err;
    EXPECT_NE(wrote.out.find("to submit: bash"), std::string::npos) << wrote.out;
    const std::string shards = read_file(out + "/shards.sbatch");
    EXPECT_NE(shards.find("#SBATCH --array=0-2\n"), std::string::npos) << shards;
    EXPECT_EQ(shards.find("--gres"), std::string::npos) << "no GPUs asked for";
    EXPECT_NE(shards.find("--shard auto"), std::string::npos);
    EXPECT_NE(shards.find("--set 'job.seed=9'"), std::string::npos);
    EXPECT_NE(read_file(out + "/submit.sh").find("--dependency=afterok:\"$shards_job\" '--partition=gpu' '--time=5'"),
              std::string::npos)
        << read_file(out + "/submit.sh");
    for (const char* script : {"shards.sbatch", "merge.sbatch", "submit.sh"})
        EXPECT_EQ(run_program({"/bin/bash", "-n", out + "/" + script}, dir.path()).exit_code, 0) << script;

    // What Slurm would do: each array task with its variables, then the merge.
    fs::create_directories(path("node-tmp"));
    for (int task = 0; task < 3; ++task) {
        const auto ran = run_program({"/usr/bin/env", fmt::format("SLURM_ARRAY_TASK_ID={}", task),
                                      "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=2", "SLURM_ARRAY_TASK_COUNT=3",
                                      "SLURM_ARRAY_JOB_ID=77", "TMPDIR=" + path("node-tmp"), "/bin/bash",
                                      out + "/shards.sbatch"},
                                     dir.path());
        ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
    }
    EXPECT_TRUE(fs::is_empty(path("node-tmp"))) << "the node-local databases are removed";
    const auto merged = run_program({"/bin/bash", out + "/merge.sbatch"}, dir.path());
    ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
    ASSERT_EQ(zkbatch({"run", manifest.string(), "--set", "job.seed=9", "--db", path("single.db")}).exit_code, 0);
    EXPECT_EQ(scalar(path("history.db"), "SELECT count(*) || ' ' || count(DISTINCT partition_index) FROM partition"),
              "6 6");
    EXPECT_EQ(digests(path("history.db")), digests(path("single.db")));

    const auto gpus = zkbatch({"slurm", manifest.string(), "--shards", "2", "--gpus-per-task", "2", "--out", out});
    ASSERT_EQ(gpus.exit_code, 0) << gpus.err;
    EXPECT_NE(read_file(out + "/shards.sbatch").find("#SBATCH --gres=gpu:2\n"), std::string::npos);
}

TEST_F(ShardsCli, SubmitChainsTheMergeAfterTheArray) {
    const fs::path bin = dir.path() / "bin";
    fs::create_directories(bin);
    // A stand-in sbatch: records its arguments; the first call gets job 4242 (with a
    // cluster, as --parsable prints it on a federation), the second 4243.
    write_file(bin / "sbatch", "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/calls\"\n"
                               "if [ \"$(wc -l < \"$(dirname \"$0\")/calls\")\" -eq 1 ]; then echo '4242;hpc'; "
                               "else echo 4243; fi\n");
    fs::permissions(bin / "sbatch", fs::perms::owner_all);
    const std::string out = path("slurm");
    const std::string env_path = "PATH=" + bin.string() + ":" + std::getenv("PATH");
    const auto submitted = run_program({"/usr/bin/env", env_path, zkbatch_exe(), "slurm", manifest.string(), "--shards",
                                        "2", "--out", out, "--submit", "--", "--account=zk", "--time=5"},
                                       dir.path());
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
    EXPECT_NE(submitted.out.find("shards: job 4242 (array 0-1)"), std::string::npos) << submitted.out;
    EXPECT_NE(submitted.out.find("merge: job 4243"), std::string::npos) << submitted.out;
    EXPECT_EQ(read_file(bin / "calls"),
              fmt::format("--parsable --account=zk --time=5 {0}/shards.sbatch\n"
                          "--parsable --dependency=afterok:4242 --account=zk --time=5 {0}/merge.sbatch\n",
                          out));

    // sbatch refusing the job: say so, exit 2, and submit no merge.
    write_file(bin / "sbatch", "#!/bin/sh\necho 'sbatch: error: invalid partition' >&2\nexit 1\n");
    const auto refused = run_program({"/usr/bin/env", env_path, zkbatch_exe(), "slurm", manifest.string(), "--shards",
                                      "2", "--out", out, "--submit"},
                                     dir.path());
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("invalid partition"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.out.find("merge: job"), std::string::npos) << refused.out;
}

// Paths with quotes, $(...), backticks and blanks, given to `zkbatch slurm`, are quoted
// wherever the scripts use them, comments and echo lines included: running submit.sh
// (with a stand-in sbatch), every array task and the merge executes none of them. A
// newline, which no quoting can carry through a comment, is refused (exit 2). Before,
// submit.sh echoed the --into path in double quotes and the shards script's comment
// held the raw manifest path: both ran what they held.
TEST_F(ShardsCli, HostilePathsInSlurmScriptsNeverExecute) {
    const fs::path hostile = dir.path() / "it's $(touch PWNED-dollar) `touch PWNED-backtick` \"q\"";
    fs::create_directories(hostile);
    const fs::path job = write_file(hostile / "job $(touch PWNED-manifest).toml", R"toml(
[job]
name = "hostile"
partitions = 2
[circuit]
log_n = 6
[backend]
name = "cpu-ref"
)toml");
    const std::string history = (hostile / "history $(touch PWNED-history) `touch PWNED-history2`.db").string();
    const std::string out = path("out$(touch${IFS}PWNED-out)");
    const std::string plugins = (hostile / "plugins $(touch PWNED-plugins)").string();
    const fs::path bin = dir.path() / "bin";
    fs::create_directories(bin);
    write_file(bin / "sbatch", "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/calls\"\necho 4242\n");
    fs::permissions(bin / "sbatch", fs::perms::owner_all);
    const auto wrote = zkbatch({"slurm", job.string(), "--shards", "2", "--out", out, "--into", history, "--set",
                                "output.tags.note=$(touch PWNED-set)", "--plugin-path", plugins, "--",
                                "--comment=$(touch PWNED-sbatch)"});
    ASSERT_EQ(wrote.exit_code, 0) << wrote.err;
    const auto bash_n = [&](const std::string& script) {
        return run_program({"/bin/bash", "-n", out + "/" + script}, dir.path()).exit_code;
    };
    for (const char* script : {"shards.sbatch", "merge.sbatch", "submit.sh"}) EXPECT_EQ(bash_n(script), 0) << script;

    // Each script runs in the scratch folder (env -C), where whatever it executed would
    // leave its PWNED file.
    const std::string env_path = "PATH=" + bin.string() + ":" + std::getenv("PATH");
    const auto submitted =
        run_program({"/usr/bin/env", "-C", dir.path().string(), env_path, "/bin/bash", out + "/submit.sh"}, dir.path());
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    EXPECT_NE(submitted.out.find("history: " + history), std::string::npos) << submitted.out;
    fs::create_directories(path("node-tmp"));
    for (int task = 0; task < 2; ++task) {
        const auto ran = run_program({"/usr/bin/env", "-C", dir.path().string(), fmt::format("SLURM_ARRAY_TASK_ID={}", task),
                                      "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=1", "SLURM_ARRAY_TASK_COUNT=2",
                                      "SLURM_ARRAY_JOB_ID=78", "TMPDIR=" + path("node-tmp"), "/bin/bash",
                                      out + "/shards.sbatch"},
                                     dir.path());
        EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
    }
    const auto merged =
        run_program({"/usr/bin/env", "-C", dir.path().string(), "/bin/bash", out + "/merge.sbatch"}, dir.path());
    EXPECT_EQ(merged.exit_code, 0) << merged.out << merged.err;
    EXPECT_EQ(scalar(history, "SELECT count(*) FROM partition"), "2");
    EXPECT_EQ(scalar(history, "SELECT value FROM run_tag WHERE key = 'note' LIMIT 1"), "$(touch PWNED-set)");

    std::vector<std::string> executed;
    for (const auto& entry : fs::recursive_directory_iterator(dir.path()))
        if (entry.path().filename().string().starts_with("PWNED")) executed.push_back(entry.path().string());
    EXPECT_EQ(executed, std::vector<std::string>{});

    for (const std::string& newline : {path("job\nwith a newline.toml"), path("out\ndir")}) {
        fs::path manifest_given = job;
        std::vector<std::string> args{"slurm", "", "--shards", "2", "--out", out};
        if (newline.find("job\n") != std::string::npos) {
            fs::copy_file(job, newline);
            manifest_given = newline;
        } else {
            args[5] = newline;
        }
        args[1] = manifest_given.string();
        const auto refused = zkbatch(args);
        EXPECT_EQ(refused.exit_code, 2) << refused.err;
        EXPECT_TRUE(refused.err.find("newline") != std::string::npos ||
                    refused.err.find("cannot hold blanks") != std::string::npos)
            << refused.err;
    }
}

// A script zkbatch cannot write (its folder is another user's) is a storage error
// (exit 4) naming it; it was "internal error: a bug in zkbatch" (exit 1), from
// std::filesystem's exception. A script is replaced whole or not at all, never written
// in place, so the one there (root's, writable by anyone) is left as it was. Needs a
// folder of another user, so it runs as root (CI), with zkbatch as nobody.
TEST_F(ShardsCli, ASlurmScriptThatCannotBeWrittenIsAStorageError) {
    if (!running_as_root()) GTEST_SKIP() << "needs root, to leave a folder of another user";
    const fs::path out = dir.path() / "slurm";
    fs::create_directories(out / "logs");
    hand_over_to_unprivileged(dir.path());
    ASSERT_EQ(chown(out.c_str(), 0, 0), 0);
    const std::string roots = "# root's, writable by anyone\n";
    write_file(out / "shards.sbatch", roots);
    fs::permissions(out / "shards.sbatch", fs::perms::all & ~fs::perms::owner_exec & ~fs::perms::group_exec &
                                               ~fs::perms::others_exec);
    std::vector<std::string> argv = unprivileged_command();
    argv.insert(argv.end(), {zkbatch_exe(), "slurm", manifest.string(), "--shards", "2", "--out", out.string(),
                             "--into", path("history.db")});
    const auto result = run_program(argv, dir.path());
    EXPECT_EQ(result.exit_code, 4) << result.err;
    EXPECT_NE(result.err.find((out / "shards.sbatch").string() + ": cannot write the file"), std::string::npos)
        << result.err;
    EXPECT_EQ(read_file(out / "shards.sbatch"), roots);
}

TEST_F(ShardsCli, MergeRefusalsNameTheShardAndExitWithStorageError) {
    ASSERT_EQ(zkbatch({"run", manifest.string(), "--db", path("a.db")}).exit_code, 0);
    ASSERT_EQ(run_program({"/bin/sh", "-c", "sqlite3 '" + path("a.db") + "' 'PRAGMA user_version = 99'"}, dir.path())
                  .exit_code,
              0);
    const auto newer = zkbatch({"merge", path("a.db"), "--into", path("history.db")});
    EXPECT_EQ(newer.exit_code, 4);
    EXPECT_NE(newer.err.find("a.db was not merged"), std::string::npos) << newer.err;
    EXPECT_NE(newer.err.find("newer"), std::string::npos) << newer.err;
    const auto missing = zkbatch({"merge", path("nothing.db"), "--into", path("history.db")});
    EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

}  // namespace
}  // namespace zkbatch::test
