// pipeline.devices end to end: the real zkbatch, real plugins, a real SQLite file read
// back here with plain SQL. cpu-ref and fault-inject take `device` as a label, so one
// backend per device, the shared prove queue, per-device rows and `show` are all
// exercised without a GPU. No timing is asserted: only who proved what.
#include "support/zkbatch_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using zkbatch::test::CommandResult;
using zkbatch::test::Rows;

class DevicesTest : public ::testing::Test {
protected:
    CommandResult zkbatch(const std::string& args) const { return zkbatch::test::run_zkbatch_shell(args, dir_); }

    // The smoke job (every partition verified) at 2^8, with extra arguments.
    CommandResult run_smoke(const std::string& extra, const std::string& backend = "cpu-ref") const {
        return zkbatch("--log-level warn run " + std::string(SOURCE_DIR) + "/jobs/smoke.toml --backend " + backend +
                       " --db " + db_ + " --set circuit.log_n=8 " + extra);
    }
    CommandResult run_faulty(const std::string& extra) const {
        return run_smoke("--plugin-path " + std::string(FAULT_PLUGIN) + " " + extra, "fault-inject");
    }

    Rows query(const std::string& sql) const { return zkbatch::test::query(db_, sql); }
    std::string scalar(const std::string& sql) const { return zkbatch::test::scalar(db_, sql); }
    std::string latest_run() const { return scalar("SELECT max(id) FROM run"); }
    Rows digests(const std::string& run_id) const {
        return query("SELECT partition_index, h_digest FROM partition WHERE run_id = " + run_id + " ORDER BY 1");
    }
    // Partitions proved per device index, from the partition rows.
    std::map<std::string, int> proved_per_device(const std::string& run_id) const {
        std::map<std::string, int> counts;
        for (const auto& row : query("SELECT device_index, count(*) FROM partition WHERE run_id = " + run_id +
                                     " AND status = 'ok' GROUP BY device_index"))
            counts[row[0]] = std::stoi(row[1]);
        return counts;
    }

    const zkbatch::test::TempDir scratch_{"zkbatch-devices"};
    const fs::path dir_ = scratch_.path();
    const std::string db_ = (dir_ / "runs.db").string();
};

// Three labelled devices, one worker each, every prove slowed to 40 ms so no single
// worker can take the whole queue: every device proves, each partition once, the
// workers map onto their devices, and the per-device rows agree with the partitions.
TEST_F(DevicesTest, ThreeDevicesEachProveAndTheirRowsAgree) {
    const auto run = run_faulty("--set 'pipeline.devices=[0,1,2]' --set job.partitions=12 "
                                "--set backend.options.slow_partition_ms=40");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string id = latest_run();
    EXPECT_EQ(scalar("SELECT devices FROM run WHERE id = " + id), "0,1,2");
    EXPECT_EQ(scalar("SELECT prove_workers FROM run WHERE id = " + id), "1");  // per device
    const auto per_device = proved_per_device(id);
    ASSERT_EQ(per_device.size(), 3u) << "devices that proved: " << per_device.size();
    int total = 0;
    for (const auto& [device, count] : per_device) {
        EXPECT_GE(count, 1) << "device " << device;
        total += count;
    }
    EXPECT_EQ(total, 12);
    EXPECT_EQ(scalar("SELECT count(DISTINCT partition_index) FROM partition WHERE run_id = " + id), "12");
    // Worker k of the device in position s is run-wide worker s * per_device + k.
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + id + " AND prove_worker <> device_index"), "0");
    // device_summary counts what the partition table says, for each of the three.
    for (const auto& row : query("SELECT device_index, partitions FROM device_summary WHERE run_id = " + id))
        EXPECT_EQ(std::stoi(row[1]), per_device.at(row[0])) << "device " << row[0];
    EXPECT_EQ(scalar("SELECT count(*) FROM run_device WHERE run_id = " + id), "3");
    // A CPU backend has no device time.
    EXPECT_EQ(scalar("SELECT count(*) FROM run_device WHERE run_id = " + id + " AND busy_fraction IS NOT NULL"), "0");
    EXPECT_EQ(scalar("SELECT gpu_busy_fraction IS NULL FROM run WHERE id = " + id), "1");

    // show lists the devices with their counts.
    const auto shown = zkbatch("show " + id + " --db " + db_);
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find("devices (partitions proved"), std::string::npos) << shown.out;
    for (const auto& [device, count] : per_device) {
        const std::string row_start = "\n  " + device + "       -";
        EXPECT_NE(shown.out.find(row_start), std::string::npos) << row_start << " in\n" << shown.out;
    }
}

// Digests do not depend on how many devices proved them (cpu-ref, real quotients).
TEST_F(DevicesTest, DigestsWithTwoDevicesEqualThoseWithOne) {
    ASSERT_EQ(run_smoke("--set 'pipeline.devices=[0]' --set job.partitions=6").exit_code, 0);
    const std::string one = latest_run();
    ASSERT_EQ(run_smoke("--set 'pipeline.devices=[0,1]' --set job.partitions=6 --set pipeline.prove_workers=2")
                  .exit_code,
              0);
    const std::string two = latest_run();
    const Rows expected = digests(one);
    ASSERT_EQ(expected.size(), 6u);
    EXPECT_EQ(digests(two), expected);
    // And the same as without pipeline.devices at all, where device 0 is recorded too.
    ASSERT_EQ(run_smoke("--set job.partitions=6").exit_code, 0);
    EXPECT_EQ(digests(latest_run()), expected);
    EXPECT_EQ(scalar("SELECT group_concat(DISTINCT device_index) FROM partition WHERE run_id = " + latest_run()), "0");
    EXPECT_EQ(scalar("SELECT count(*) FROM partition WHERE run_id = " + two + " AND verified = 1"), "6");
}

// One GPU against two as an experiment: one run per arm, each with its own devices, the
// same digests, and `compare experiment=ID` splits them into the two arms.
TEST_F(DevicesTest, DevicesAsAnExperimentAxisGiveOneRunPerChoice) {
    const auto run = run_smoke("--set 'pipeline.devices=[[0],[0,1]]' --set job.partitions=6");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(query("SELECT arm, devices FROM run ORDER BY id"),
              (Rows{{"pipeline.devices=[0]", "0"}, {"pipeline.devices=[0,1]", "0,1"}}));
    EXPECT_EQ(scalar("SELECT count(*) FROM run_device WHERE run_id = 2"), "2");
    EXPECT_EQ(digests("1"), digests("2"));
    const auto compared = zkbatch("compare experiment=1 --db " + db_);
    EXPECT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_NE(compared.out.find("pipeline.devices=[0,1]"), std::string::npos) << compared.out;
    EXPECT_NE(compared.out.find("same proofs (6 partitions compared)"), std::string::npos) << compared.out;
    const auto arm = zkbatch("compare 'experiment=1,arm=pipeline.devices=[0]' 'experiment=1,arm=pipeline.devices=[0,1]' "
                             "--db " + db_);
    EXPECT_EQ(arm.exit_code, 0) << arm.err;
}

// Device 1 sleeps 600 ms per partition, device 0 does not: the shared queue lets
// device 0 take what device 1 cannot, so device 0 proves most of the 8 partitions
// (device 1 at most about one per 600 ms of the run).
TEST_F(DevicesTest, ASlowDeviceTakesFewerPartitions) {
    const auto run = run_faulty("--set 'pipeline.devices=[0,1]' --set job.partitions=8 "
                                "--set backend.options.slow_device=1 --set backend.options.slow_partition_ms=600");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto per_device = proved_per_device(latest_run());
    const int fast = per_device.count("0") ? per_device.at("0") : 0;
    const int slow = per_device.count("1") ? per_device.at("1") : 0;
    EXPECT_EQ(fast + slow, 8);
    EXPECT_GE(fast, 5) << "device 0 proved " << fast << ", the slow device 1 " << slow;
}

// With device time reported (as a GPU backend does), each device has a busy fraction
// within [0, 1], at most its reported compute time, and the run's GPU busy is their mean.
TEST_F(DevicesTest, RunBusyIsTheMeanOfTheDevicesBusyFractions) {
    const auto run = run_faulty("--set 'pipeline.devices=[0,1]' --set job.partitions=8 "
                                "--set backend.options.report_device_time=1 --set backend.options.slow_partition_ms=20");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string id = latest_run();
    const Rows devices = query("SELECT device_index, busy_fraction FROM run_device WHERE run_id = " + id + " ORDER BY 1");
    ASSERT_EQ(devices.size(), 2u);
    double sum = 0;
    for (const auto& row : devices) {
        ASSERT_FALSE(row[1].empty()) << "device " << row[0] << " has no busy fraction";
        const double busy = std::stod(row[1]);
        EXPECT_GE(busy, 0.0);
        EXPECT_LE(busy, 1.0);
        sum += busy;
    }
    const double run_busy = std::stod(scalar("SELECT gpu_busy_fraction FROM run WHERE id = " + id));
    EXPECT_NEAR(run_busy, sum / 2, 1e-9);
    // Each device's busy time is at most the compute it reported (a union of them).
    for (const auto& row : devices) {
        const double compute_ms = std::stod(scalar("SELECT coalesce(sum(compute_ms), 0) FROM partition WHERE run_id = " +
                                                   id + " AND device_index = " + row[0]));
        const double wall_ms = std::stod(scalar("SELECT wall_ms FROM run WHERE id = " + id));
        EXPECT_LE(std::stod(row[1]) * wall_ms, compute_ms + 1e-6) << "device " << row[0];
    }
    const auto shown = zkbatch("show " + id + " --db " + db_);
    EXPECT_NE(shown.out.find("GPU busy"), std::string::npos) << shown.out;
}

TEST_F(DevicesTest, AllAsksTheBackendHowManyDevicesThereAre) {
    ASSERT_EQ(run_smoke("--set pipeline.devices=all --set backend.options.device_count=2").exit_code, 0);
    EXPECT_EQ(scalar("SELECT devices FROM run WHERE id = " + latest_run()), "0,1");
    ASSERT_EQ(run_smoke("--set pipeline.devices=all").exit_code, 0);  // cpu-ref: 1 unless told
    EXPECT_EQ(scalar("SELECT devices FROM run WHERE id = " + latest_run()), "0");
}

TEST_F(DevicesTest, BadDeviceSettingsAreUsageErrorsNamingTheKey) {
    const auto bad = run_smoke("--set 'pipeline.devices=[0,0]'");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("pipeline.devices: device 0 is listed twice"), std::string::npos) << bad.err;
    const auto both = run_smoke("--set 'pipeline.devices=[0,1]' --set backend.options.device=1");
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_NE(both.err.find("backend.options.device: conflicts with pipeline.devices"), std::string::npos) << both.err;
    // A count the backend refuses is the backend's error (exit 3), with its reason.
    const auto refused = run_smoke("--set pipeline.devices=all --set backend.options.device_count=0");
    EXPECT_EQ(refused.exit_code, 3);
    EXPECT_NE(refused.err.find("device_count"), std::string::npos) << refused.err;
}

}  // namespace
