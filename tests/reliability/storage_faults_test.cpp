// Storage faults on a real file system: the database on a tiny tmpfs that
// fills up during a run or a merge, and on a file system remounted read-only. zkbatch must say
// which database and what to do, exit with the storage code (4), damage nothing already
// recorded, and leave the cut-short run resumable once the disk has room again.
//
// The tmpfs is mounted in a mount namespace of the test process alone
// (support/private_mount.hpp). Where that is not allowed the tests skip, saying so.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/private_mount.hpp"
#include "support/zkbatch_process.hpp"

namespace fs = std::filesystem;
using zkbatch::test::CommandResult;
using zkbatch::test::Rows;
using zkbatch::test::TempDir;

namespace {

constexpr int kStorageExitCode = 4;  // runner/exit_codes.hpp: exit_code::storage_error

class StorageFaultTest : public ::testing::Test {
protected:
    void SetUp() override {
        mount_point_ = temp_.path() / "fs";
        fs::create_directory(mount_point_);
        // 1 MiB: room for the schema and a run of 30 small partitions, whose write-ahead
        // log grows by some 20 KiB a partition (SQLite checkpoints it at 4 MiB).
        if (const std::string why = zkbatch::test::mount_private_tmpfs(mount_point_, "1m"); !why.empty())
            GTEST_SKIP() << why;
        mounted_ = true;
        db_ = (mount_point_ / "runs.db").string();
    }
    void TearDown() override {
        if (mounted_) umount2(mount_point_.c_str(), MNT_DETACH);
    }

    // A cpu-ref job writing to `db`; small partitions so the run is quick.
    fs::path manifest(const std::string& name, uint32_t partitions) const {
        const fs::path path = temp_.path() / (name + ".toml");
        std::ofstream(path) << "[job]\nname = \"" << name << "\"\npartitions = " << partitions
                            << "\nseed = 5\n\n[circuit]\nlog_n = 6\nterms_per_row = 2\n\n"
                            << "[pipeline]\nsynthesis_workers = 1\nprove_workers = 1\nqueue_depth = 1\n\n"
                            << "[backend]\nname = \"cpu-ref\"\n\n[output]\ndb = \"" << db_ << "\"\n";
        return path;
    }

    CommandResult zkbatch(const std::vector<std::string>& args) const {
        std::vector<std::string> all{"--log-level", "warn"};
        all.insert(all.end(), args.begin(), args.end());
        return zkbatch::test::run_zkbatch(all, temp_.path());
    }

    // Everything recorded so far, as a reader sees it: what must survive a fault.
    Rows recorded() const {
        return zkbatch::test::query(db_, "SELECT r.id, r.job_name, r.status, p.partition_index, p.status, "
                                         "hex(p.h_digest), (SELECT count(*) FROM phase_interval AS i "
                                         "WHERE i.partition_id = p.id) FROM run AS r JOIN partition AS p "
                                         "ON p.run_id = r.id ORDER BY p.id");
    }
    std::string scalar(const std::string& sql) const { return zkbatch::test::scalar(db_, sql); }

    // Fills the file system, leaving about `leave_bytes` free; returns false if it cannot.
    bool fill_leaving(uint64_t leave_bytes) const {
        struct statvfs info {};
        if (statvfs(mount_point_.c_str(), &info) != 0) return false;
        const uint64_t free_bytes = uint64_t{info.f_bavail} * info.f_frsize;
        if (free_bytes <= leave_bytes) return true;
        std::ofstream filler(mount_point_ / "filler", std::ios::binary);
        const std::string block(free_bytes - leave_bytes, 'x');
        filler.write(block.data(), static_cast<std::streamsize>(block.size()));
        return static_cast<bool>(filler.flush());
    }

    TempDir temp_{"zkbatch-storage"};
    fs::path mount_point_;
    bool mounted_ = false;
    std::string db_;
};

// The disk fills during a run: exit 4 with the database's name, "full" and advice;
// the earlier run is intact; once there is room the cut-short run reads as stopped
// (failed or interrupted, never 'running') and --resume completes it with the digests
// of an uninterrupted run.
TEST_F(StorageFaultTest, FullDiskDuringARunKeepsWhatWasRecordedAndTheRunResumes) {
    const auto first = zkbatch({"run", manifest("before", 3).string()});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const Rows before = recorded();
    ASSERT_EQ(before.size(), 3u);

    // Room for the run to start (write-ahead log and its index), not for all its
    // partitions (each takes a few KiB); all of them fit once the filler is gone.
    constexpr uint32_t kPartitions = 30;
    ASSERT_TRUE(fill_leaving(64 * 1024)) << "cannot fill " << mount_point_;
    const fs::path job = manifest("filling", kPartitions);
    const auto full = zkbatch({"run", job.string()});
    EXPECT_EQ(full.exit_code, kStorageExitCode) << full.out << full.err;
    EXPECT_NE(full.err.find(db_), std::string::npos) << "the message must name the database:\n" << full.err;
    EXPECT_NE(full.err.find("full"), std::string::npos) << full.err;
    EXPECT_NE(full.err.find("Free disk space"), std::string::npos) << "advice missing:\n" << full.err;

    fs::remove(mount_point_ / "filler");
    EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(scalar("PRAGMA foreign_key_check"), "<no row>");
    const Rows after = recorded();
    ASSERT_GE(after.size(), before.size());
    EXPECT_EQ(Rows(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(before.size())), before)
        << "rows recorded before the disk filled changed";

    const std::string run_id = scalar("SELECT id FROM run WHERE job_name = 'filling'");
    ASSERT_NE(run_id, "<no row>") << "the run never began; leave more room: " << full.err;
    const int partitions_kept = std::stoi(scalar("SELECT count(*) FROM partition WHERE run_id = " + run_id));
    EXPECT_LT(partitions_kept, static_cast<int>(kPartitions)) << "the disk never filled";
    std::printf("the disk filled after %d partitions of %u\n", partitions_kept, kPartitions);
    // A writer's open marks a dead writer's run 'interrupted'; finish_run may have
    // recorded 'failed' first. Either way it no longer claims to be running.
    const auto runs = zkbatch({"runs", "--db", db_});
    EXPECT_EQ(runs.exit_code, 0) << runs.err;
    const std::string status = scalar("SELECT status FROM run WHERE id = " + run_id);
    EXPECT_TRUE(status == "failed" || status == "interrupted") << status;

    const auto resume = zkbatch({"run", "--resume", run_id, "--db", db_});
    ASSERT_EQ(resume.exit_code, 0) << resume.err << resume.out;
    EXPECT_EQ(zkbatch::test::query(db_, "SELECT status, partitions_ok, partitions_failed, resume_count FROM run "
                                        "WHERE id = " + run_id),
              (Rows{{"ok", std::to_string(kPartitions), "0", "1"}}));
    const std::string reference_db = (temp_.path() / "reference.db").string();
    ASSERT_EQ(zkbatch({"run", job.string(), "--db", reference_db}).exit_code, 0);
    const std::string digests = "SELECT partition_index, hex(h_digest) FROM partition WHERE run_id = ";
    EXPECT_EQ(zkbatch::test::query(db_, digests + run_id + " ORDER BY partition_index"),
              zkbatch::test::query(reference_db, digests + "1 ORDER BY partition_index"));
    EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
}

// The file system is remounted read-only: a run is refused with exit 4, naming the
// database and "read-only"; reading still works; nothing recorded changes.
TEST_F(StorageFaultTest, ReadOnlyFileSystemRefusesRunsAndKeepsTheDatabase) {
    const auto first = zkbatch({"run", manifest("before", 3).string()});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const Rows before = recorded();
    ASSERT_EQ(before.size(), 3u);

    ASSERT_EQ(mount(nullptr, mount_point_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr),
              0)
        << "remount read-only: " << std::strerror(errno);
    const auto refused = zkbatch({"run", manifest("refused", 3).string()});
    EXPECT_EQ(refused.exit_code, kStorageExitCode) << refused.out << refused.err;
    EXPECT_NE(refused.err.find(db_), std::string::npos) << "the message must name the database:\n" << refused.err;
    EXPECT_NE(refused.err.find("read-only"), std::string::npos) << refused.err;

    const auto runs = zkbatch({"runs", "--db", db_});
    EXPECT_EQ(runs.exit_code, 0) << runs.err;
    EXPECT_NE(runs.out.find("before"), std::string::npos) << runs.out;

    ASSERT_EQ(mount(nullptr, mount_point_.c_str(), nullptr, MS_REMOUNT | MS_NOSUID | MS_NODEV, nullptr), 0)
        << "remount read-write: " << std::strerror(errno);
    EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(recorded(), before);
    EXPECT_EQ(scalar("SELECT count(*) FROM run"), "1");
}


// The disk fills while `zkbatch merge` writes into a history on it: exit 4 naming the
// history and saying what to do; the history keeps exactly what it had (the merge is one
// transaction); once there is room the same merge completes.
TEST_F(StorageFaultTest, FullDiskDuringAMergeLeavesTheHistoryAsItWas) {
    ASSERT_EQ(zkbatch({"run", manifest("before", 3).string()}).exit_code, 0);
    const Rows before = recorded();
    // Off the tmpfs. Its 100 partitions add some 150 KiB to a history (1.5 KiB each), more
    // than twice the room left below; a partition costs 0.1 s of proving under ASan.
    const std::string shard = (temp_.path() / "shard.db").string();
    const auto shard_run = zkbatch({"run", manifest("shard", 100).string(), "--db", shard});
    ASSERT_EQ(shard_run.exit_code, 0) << shard_run.err;

    ASSERT_TRUE(fill_leaving(64 * 1024)) << "cannot fill " << mount_point_;
    const auto full = zkbatch({"merge", shard, "--into", db_});
    EXPECT_EQ(full.exit_code, kStorageExitCode) << full.out << full.err;
    EXPECT_NE(full.err.find(db_), std::string::npos) << "the message must name the history:\n" << full.err;
    EXPECT_NE(full.err.find("Free disk space"), std::string::npos) << "advice missing:\n" << full.err;
    EXPECT_NE(full.err.find("was not merged"), std::string::npos) << full.err;

    fs::remove(mount_point_ / "filler");
    EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
    EXPECT_EQ(recorded(), before);
    const auto merged = zkbatch({"merge", shard, "--into", db_});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(scalar("SELECT count(*) FROM partition AS p JOIN run AS r ON r.id = p.run_id WHERE r.job_name = 'shard'"),
              "100");
}

}  // namespace
