// Bad key and witness files through the real zkbatch executable: a damaged key in the
// key cache, a malformed .zkey or .wtns, a key larger than the disk. Each must end in
// the exit code README.md's "When things go wrong" documents, with a message that names
// the file and says what to do, and with nothing recorded as proved.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/file_bytes.hpp"
#include "support/private_mount.hpp"
#include "support/zkbatch_process.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using zkbatch::test::CommandResult;

namespace {

constexpr int kUsageExitCode = 2;    // runner/cli/exit_codes.hpp: a malformed .zkey or .wtns
constexpr int kStorageExitCode = 4;  // a key file that is damaged or cannot be written

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class KeyInputTest : public ::testing::Test {
protected:
    CommandResult zkbatch(std::vector<std::string> args) const {
        args.insert(args.begin(), {"--log-level", "warn"});
        return zkbatch::test::run_zkbatch(args, dir_, 300s);
    }

    // The smoke job, one partition of 2^8 rows, with its seeded key cached in `cache`.
    std::vector<std::string> smoke_args(const fs::path& cache) const {
        return {std::string(SOURCE_DIR) + "/jobs/smoke.toml", "--set", "setup.cache_dir=" + cache.string(),
                "--set", "circuit.log_n=8", "--set", "job.partitions=1"};
    }
    CommandResult setup_smoke(const fs::path& cache) const {
        std::vector<std::string> args{"setup"};
        for (const auto& arg : smoke_args(cache)) args.push_back(arg);
        return zkbatch(args);
    }
    CommandResult run_smoke(const fs::path& cache) const {
        std::vector<std::string> args{"run", "--backend", "cpu-ref", "--db", db_};
        for (const auto& arg : smoke_args(cache)) args.push_back(arg);
        return zkbatch(args);
    }

    // The one key file `zkbatch setup` made in `cache`.
    static fs::path cached_key(const fs::path& cache) {
        std::vector<fs::path> keys;
        for (const auto& entry : fs::directory_iterator(cache)) keys.push_back(entry.path());
        EXPECT_EQ(keys.size(), 1u) << "one key file in " << cache;
        return keys.empty() ? fs::path() : keys.front();
    }

    // What the database holds as proved: runs and partitions recorded ok.
    std::string recorded_ok() const {
        if (!fs::exists(db_)) return "no database";
        return zkbatch::test::scalar(db_, "SELECT (SELECT count(*) FROM run WHERE status = 'ok') || ' runs, ' || "
                                          "(SELECT count(*) FROM partition WHERE status = 'ok') || ' partitions'");
    }
    std::string nothing_ok() const { return fs::exists(db_) ? "0 runs, 0 partitions" : "no database"; }

    zkbatch::test::TempDir scratch_{"zkbatch-keys"};
    const fs::path dir_ = scratch_.path();
    const std::string db_ = (dir_ / "runs.db").string();
};

// What every damaged cached key must say: its path, and delete it / setup remakes it.
void expect_remake_advice(const CommandResult& result, const fs::path& key) {
    EXPECT_NE(result.err.find("key file " + key.string() + ":"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("delete it and run `zkbatch setup MANIFEST` again"), std::string::npos) << result.err;
}

// A cached key cut short (a full disk while it was copied, say): exit 4, named as
// truncated; `zkbatch setup` refuses it too; deleted and remade as the message says,
// the run proves.
TEST_F(KeyInputTest, TruncatedCachedKeyIsAStorageErrorAndSetupRemakesIt) {
    const fs::path cache = dir_ / "keys";
    ASSERT_EQ(setup_smoke(cache).exit_code, 0);
    const fs::path key = cached_key(cache);
    const uintmax_t full_bytes = fs::file_size(key);
    fs::resize_file(key, full_bytes / 2);

    const auto run = run_smoke(cache);
    EXPECT_EQ(run.exit_code, kStorageExitCode) << run.out << run.err;
    expect_remake_advice(run, key);
    EXPECT_NE(run.err.find("truncated: " + std::to_string(full_bytes / 2) + " bytes where the header says " +
                           std::to_string(full_bytes)),
              std::string::npos)
        << run.err;
    EXPECT_EQ(recorded_ok(), nothing_ok());

    const auto setup = setup_smoke(cache);
    EXPECT_EQ(setup.exit_code, kStorageExitCode) << setup.out << setup.err;
    expect_remake_advice(setup, key);

    fs::remove(key);
    ASSERT_EQ(setup_smoke(cache).exit_code, 0);
    EXPECT_EQ(fs::file_size(key), full_bytes);
    const auto remade = run_smoke(cache);
    EXPECT_EQ(remade.exit_code, 0) << remade.err;
    EXPECT_EQ(recorded_ok(), "1 runs, 1 partitions");
}

// One flipped bit in a point of the bulk sections, which only the points' digest
// covers (the header and the verifying key are intact): the backend's load finds it,
// and the run names the file as damaged, exit 4, not the backend as failing (exit 3).
// `zkbatch setup` checks every point of a cached key, so it finds it too.
TEST_F(KeyInputTest, FlippedBitInACachedKeysPointsIsAStorageError) {
    // docs/formats.md, "Key files": the (offset, count) of sections vk, a, b_g1, b_g2,
    // l, h from byte 40, 16 bytes each.
    for (const auto& [section, name] : {std::pair{1, "a"}, std::pair{5, "h"}}) {
        SCOPED_TRACE(name);
        const fs::path cache = dir_ / (std::string("keys-") + name);
        ASSERT_EQ(setup_smoke(cache).exit_code, 0);
        const fs::path key = cached_key(cache);
        std::string bytes = read_bytes(key);
        uint64_t offset = 0;
        std::memcpy(&offset, bytes.data() + 40 + 16 * section, sizeof offset);
        ASSERT_LT(offset + 60, bytes.size());
        bytes[offset + 60] ^= 0x10;  // the first point's y coordinate
        write_bytes(key, bytes);

        const auto run = run_smoke(cache);
        EXPECT_EQ(run.exit_code, kStorageExitCode) << run.out << run.err;
        expect_remake_advice(run, key);
        EXPECT_NE(run.err.find("corrupted: the points' digest is "), std::string::npos) << run.err;
        EXPECT_EQ(recorded_ok(), nothing_ok());

        const auto setup = setup_smoke(cache);
        EXPECT_EQ(setup.exit_code, kStorageExitCode) << setup.out << setup.err;
        expect_remake_advice(setup, key);
    }
}

// setup.key = "backend" (plugin ABI v6): no key file; each device's backend makes the
// seeded key and reports its points digest. On cpu-ref (two "devices"), the key it
// makes must be the one `zkbatch setup` writes to the cache (the file's digest comes
// from write_key_file, the backend's from its own key in memory), and it must prove the
// same bytes; `zkbatch setup` has nothing to make. On either curve.
class KeyTheBackendMakes : public KeyInputTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(KeyTheBackendMakes, IsTheCachedKeyAndProvesTheSameBytes) {
    const fs::path cache = dir_ / "keys";
    const std::string curve = "circuit.curve=\"" + GetParam() + "\"";
    auto run = [&](const std::string& key_source) {
        std::vector<std::string> args{"run", "--backend", "cpu-ref", "--db", db_};
        for (const auto& arg : smoke_args(cache)) args.push_back(arg);
        for (const std::string& set : {"setup.key=\"" + key_source + "\"", std::string("job.partitions=2"),
                                      std::string("pipeline.devices=all"), std::string("backend.options.device_count=2"),
                                      curve})
            args.insert(args.end(), {"--set", set});
        return zkbatch(args);
    };
    std::vector<std::string> setup_args{"setup"};
    for (const auto& arg : smoke_args(cache)) setup_args.push_back(arg);
    setup_args.insert(setup_args.end(), {"--set", "setup.key=\"backend\"", "--set", curve});
    const auto setup = zkbatch(setup_args);
    EXPECT_EQ(setup.exit_code, 0) << setup.err;
    EXPECT_NE(setup.out.find("nothing to make"), std::string::npos) << setup.out;

    const auto made = run("backend");
    ASSERT_EQ(made.exit_code, 0) << made.err;
    EXPECT_FALSE(fs::exists(cache)) << "setup.key = \"backend\" wrote a key file";
    const auto cached = run("cache");
    ASSERT_EQ(cached.exit_code, 0) << cached.err;
    const auto checked = run("backend");  // now against the cached file's digest as well
    ASSERT_EQ(checked.exit_code, 0) << checked.err;

    using zkbatch::test::scalar;
    const std::string file_digest = scalar(db_, "SELECT key_digest FROM run WHERE id = 2");
    EXPECT_EQ(file_digest.size(), 32u);
    EXPECT_EQ(scalar(db_, "SELECT group_concat(key_digest, ' ') FROM run WHERE id IN (1, 3)"),
              file_digest + " " + file_digest);
    EXPECT_EQ(scalar(db_, "SELECT count(*) FROM run WHERE key_path IS NULL AND key_bytes IS NULL"), "2");
    EXPECT_EQ(scalar(db_, "SELECT group_concat(run_id || ':' || device_index || ':' || key_how || ':' || "
                          "coalesce(key_digest = '" + file_digest + "', 'null'), ' ') FROM "
                          "(SELECT * FROM run_device ORDER BY run_id, device_index)"),
              "1:0:generated:1 1:1:generated:1 2:0:mapped:null 2:1:mapped:null 3:0:generated:1 3:1:generated:1");
    auto proofs = [&](int run_id) {
        return scalar(db_, "SELECT group_concat(proof_digest, ' ') FROM (SELECT proof_digest FROM partition "
                           "WHERE run_id = " + std::to_string(run_id) + " AND status = 'ok' ORDER BY partition_index)");
    };
    const std::string first = proofs(1);
    EXPECT_EQ(first.size(), 65u) << first;
    EXPECT_EQ(proofs(2), first);
    EXPECT_EQ(proofs(3), first);
    EXPECT_EQ(scalar(db_, "SELECT group_concat(DISTINCT curve) FROM run"), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Curves, KeyTheBackendMakes, ::testing::Values("bls12-381", "bn254"),
                         [](const auto& curve) { return curve.param == "bn254" ? "Bn254" : "Bls12381"; });

// A backend that makes a different key from its peers, or from the cached file of the
// same setup, is a bug in the backend: the run stops before any partition (exit 3,
// the backend named, and the way around it).
TEST_F(KeyInputTest, KeyTheBackendMakesWrongIsRefused) {
    constexpr int kPluginExitCode = 3;
    const fs::path cache = dir_ / "keys";
    auto run_faulty = [&](const std::string& devices) {
        std::vector<std::string> args{"run", "--plugin-path", FAULT_PLUGIN, "--backend", "fault-inject", "--db", db_};
        for (const auto& arg : smoke_args(cache)) args.push_back(arg);
        for (const std::string& set : {std::string("setup.key=\"backend\""), "pipeline.devices=" + devices,
                                      std::string("backend.options.device_count=2"),
                                      std::string("backend.options.wrong_key_device=1")})
            args.insert(args.end(), {"--set", set});
        return zkbatch(args);
    };
    const auto peers = run_faulty("all");
    EXPECT_EQ(peers.exit_code, kPluginExitCode) << peers.out << peers.err;
    EXPECT_NE(peers.err.find("fault-inject (device 1) made a proving key with points digest"), std::string::npos)
        << peers.err;
    EXPECT_NE(peers.err.find("but the key of device 0 has"), std::string::npos) << peers.err;
    EXPECT_NE(peers.err.find("set setup.key = \"cache\""), std::string::npos) << peers.err;

    ASSERT_EQ(setup_smoke(cache).exit_code, 0);
    const auto file = run_faulty("[1]");
    EXPECT_EQ(file.exit_code, kPluginExitCode) << file.out << file.err;
    EXPECT_NE(file.err.find("but the cached key file of this setup has"), std::string::npos) << file.err;
    EXPECT_EQ(recorded_ok(), nothing_ok());
    EXPECT_EQ(run_faulty("[0]").exit_code, 0) << "device 0 makes the right key";
}

// The key's points a backend holds in host memory (a GPU backend streams the queries its
// device cannot hold from there) count against the host's memory beside everything else
// the run will allocate: a run they leave no room for is refused once the key is loaded,
// before any partition (exit 2, with the numbers), and nothing is recorded.
TEST_F(KeyInputTest, KeyHeldInHostMemoryMustLeaveRoomForTheRun) {
    const fs::path cache = dir_ / "keys";
    ASSERT_EQ(setup_smoke(cache).exit_code, 0);
    auto run_faulty = [&](const std::string& held) {
        std::vector<std::string> args{"run", "--plugin-path", FAULT_PLUGIN, "--backend", "fault-inject", "--db", db_};
        for (const auto& arg : smoke_args(cache)) args.push_back(arg);
        args.insert(args.end(), {"--set", "backend.options.host_key_bytes=\"" + held + "\""});
        return zkbatch(args);
    };
    const auto refused = run_faulty("512TiB");
    EXPECT_EQ(refused.exit_code, kUsageExitCode) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("the proving key's points the backend holds in host memory 512.0 TiB"),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("was available before the key was loaded"), std::string::npos) << refused.err;
    EXPECT_EQ(recorded_ok(), nothing_ok());
    const auto fits = run_faulty("1MiB");
    EXPECT_EQ(fits.exit_code, 0) << fits.out << fits.err;
}

// A snarkjs key and witnesses (the chain-4 circuit of tests/fixtures/circom, as the
// fuzz corpus commits them), copied so that a test may damage its copies.
class ZkeyInputTest : public KeyInputTest {
protected:
    void SetUp() override {
        const fs::path corpus = fs::path(SOURCE_DIR) / "tests/fuzz/corpus";
        fs::copy_file(corpus / "zkey/chain-4.zkey", zkey_);
        for (const char* name : {"small", "large", "zero"}) {
            witnesses_.push_back(dir_ / (std::string(name) + ".wtns"));
            fs::copy_file(corpus / "wtns" / ("chain-4-" + std::string(name) + ".wtns"), witnesses_.back());
        }
    }

    // `zkbatch COMMAND` on a manifest of the key and the witnesses; `run` records into db_.
    CommandResult zkey_job(const std::string& command = "run", const std::string& verify_mode = "proof") const {
        std::string list;
        for (const auto& witness : witnesses_) list += (list.empty() ? "\"" : ", \"") + witness.string() + "\"";
        const fs::path manifest = zkbatch::test::write_file(
            dir_ / "circom.toml", "[job]\nname = \"circom\"\n[circuit]\nkind = \"zkey\"\nzkey = \"" + zkey_.string() +
                                      "\"\nwitnesses = [" + list + "]\n[backend]\nname = \"cpu-ref\"\n" +
                                      "[verify]\nmode = \"" + verify_mode + "\"\n" + "[setup]\ncache_dir = \"" +
                                      cache_dir_.string() + "\"\n");
        if (command != "run") return zkbatch({command, manifest.string()});
        return zkbatch({"run", manifest.string(), "--db", db_});
    }
    CommandResult run_zkey(const std::string& verify_mode = "proof") const { return zkey_job("run", verify_mode); }

    const fs::path zkey_ = dir_ / "chain-4.zkey";
    const fs::path cache_dir_ = dir_ / "cache";  // its checked-zkeys records the keys checked
    std::vector<fs::path> witnesses_;
};

// The files as snarkjs made them prove: the damaged copies below fail for their damage.
TEST_F(ZkeyInputTest, IntactFilesProve) {
    const auto run = run_zkey();
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(recorded_ok(), "1 runs, 3 partitions");
}

TEST_F(ZkeyInputTest, TruncatedZkeyNamesTheFileAndTheSection) {
    const std::string bytes = read_bytes(zkey_);
    write_bytes(zkey_, bytes.substr(0, bytes.size() / 2));
    const auto run = run_zkey();
    EXPECT_EQ(run.exit_code, kUsageExitCode) << run.out << run.err;
    EXPECT_NE(run.err.find("error: " + zkey_.string() + ": truncated: section "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(" at byte "), std::string::npos) << run.err;
    EXPECT_EQ(recorded_ok(), nothing_ok());
}

TEST_F(ZkeyInputTest, FileThatIsNoZkeyIsNamedAsSuch) {
    for (const auto& [bytes, says] :
         {std::pair{read_bytes(witnesses_[0]), std::string("this is a .wtns file, not a .zkey")},
          std::pair{std::string("{\"protocol\": \"groth16\"}\n"), std::string("not a .zkey file")}}) {
        write_bytes(zkey_, bytes);
        const auto run = run_zkey();
        EXPECT_EQ(run.exit_code, kUsageExitCode) << run.out << run.err;
        EXPECT_NE(run.err.find("error: " + zkey_.string() + ": " + says), std::string::npos) << run.err;
        EXPECT_EQ(recorded_ok(), nothing_ok());
    }
}

// One bad witness of three: refused before anything is proved, naming that file.
TEST_F(ZkeyInputTest, TruncatedWitnessIsRefusedBeforeAnyPartition) {
    const std::string bytes = read_bytes(witnesses_[1]);
    write_bytes(witnesses_[1], bytes.substr(0, bytes.size() - 40));
    const auto run = run_zkey();
    EXPECT_EQ(run.exit_code, kUsageExitCode) << run.out << run.err;
    EXPECT_NE(run.err.find("error: " + witnesses_[1].string() + ": truncated: section 2 (values) at byte "),
              std::string::npos)
        << run.err;
    EXPECT_EQ(recorded_ok(), nothing_ok());
}

TEST_F(ZkeyInputTest, WitnessWithTheWrongMagicIsNamedAsSuch) {
    std::string bytes = read_bytes(witnesses_[2]);
    bytes.replace(0, 4, "wtnz");
    write_bytes(witnesses_[2], bytes);
    const auto run = run_zkey();
    EXPECT_EQ(run.exit_code, kUsageExitCode) << run.out << run.err;
    EXPECT_NE(run.err.find("error: " + witnesses_[2].string() + ": not a .wtns file"), std::string::npos) << run.err;
    EXPECT_EQ(recorded_ok(), nothing_ok());
}

// A .zkey whose points a run checked is read without those checks by the next run: the
// key cache's record names it by the SHA-256 of its bytes (as sha256sum computes it).
// One bit of other bytes is another file, checked again: a point moved off its curve is
// refused although the former bytes are recorded. A record that cannot be written costs
// the next run a check, not this run.
TEST_F(ZkeyInputTest, PointsCheckedOnceAreNotCheckedAgainUntilTheBytesChange) {
    const fs::path record = cache_dir_ / "checked-zkeys";
    const auto first = run_zkey();
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const auto sha256sum = zkbatch::test::run_program({"/usr/bin/sha256sum", zkey_.string()}, dir_);
    ASSERT_EQ(sha256sum.exit_code, 0) << sha256sum.err;
    const std::string digest = sha256sum.out.substr(0, 64);
    EXPECT_EQ(zkbatch::test::read_file(record),
              "zkey-points-v1 " + digest + " " + std::to_string(fs::file_size(zkey_)) + "\n");

    const auto again = zkbatch::test::run_zkbatch({"--log-level", "info", "run", (dir_ / "circom.toml").string(),
                                                   "--db", db_},
                                                  dir_, 300s);
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.err.find("(its points were checked before: " + record.string() + ")"), std::string::npos)
        << again.err;
    EXPECT_EQ(recorded_ok(), "2 runs, 6 partitions");

    // Point 1 of section 5 (A's query: u_1, not at infinity in this circuit) with its y's
    // low byte changed: still a field element, no longer on the curve.
    std::vector<char> damaged = zkbatch::test::read_file_bytes(zkey_);
    const size_t a_query = zkbatch::test::snarkjs_sections(damaged).at(5).first;
    damaged.at(a_query + 96 + 48) ^= 1;
    zkbatch::test::write_file_bytes(zkey_, damaged);
    const auto refused = run_zkey();
    EXPECT_EQ(refused.exit_code, kUsageExitCode) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("error: " + zkey_.string() + ": section 5"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("point 1 is not on the curve"), std::string::npos) << refused.err;
    EXPECT_EQ(recorded_ok(), "2 runs, 6 partitions");

    // A record in a folder that cannot be made (a file stands in its way): the run proves
    // and warns.
    damaged.at(a_query + 96 + 48) ^= 1;
    zkbatch::test::write_file_bytes(zkey_, damaged);
    fs::remove_all(cache_dir_);
    zkbatch::test::write_file(cache_dir_, "not a folder");
    const auto unrecorded = run_zkey();
    EXPECT_EQ(unrecorded.exit_code, 0) << unrecorded.err;
    EXPECT_NE(unrecorded.err.find("cannot record that"), std::string::npos) << unrecorded.err;
}

// Damage a check finds before anything is proved: exit 2, naming the file and what is
// wrong, nothing recorded as proved. A witness value >= r is found at load, not when its
// partition reads it; a key with a fixed point at infinity is refused, whatever
// verify.mode says.
TEST_F(ZkeyInputTest, DamageFoundAtLoadIsRefusedBeforeAnyPartition) {
    const std::vector<char> zkey = zkbatch::test::read_file_bytes(zkey_);
    const std::vector<char> witness = zkbatch::test::read_file_bytes(witnesses_[1]);
    const size_t groth16_header = zkbatch::test::snarkjs_sections(zkey).at(2).first;
    const size_t values = zkbatch::test::snarkjs_sections(witness).at(2).first;
    struct Case {
        fs::path file;
        size_t at, size;
        std::string says;
    };
    // docs/formats.md: alpha1 at byte 100 of section 2, delta2 the last 192 of its 964.
    for (const Case& c : {Case{zkey_, groth16_header + 100, 96, "[alpha]1 is the point at infinity"},
                          Case{zkey_, groth16_header + 964 - 192, 192, "[delta]2 is the point at infinity"},
                          Case{witnesses_[1], values + 2 * 32, 32, "value 2 is not below r"}}) {
        SCOPED_TRACE(c.says);
        std::vector<char> damaged = c.file == zkey_ ? zkey : witness;
        std::memset(damaged.data() + c.at, c.file == zkey_ ? 0 : 0xff, c.size);
        zkbatch::test::write_file_bytes(c.file, damaged);
        const auto run = run_zkey("none");
        EXPECT_EQ(run.exit_code, kUsageExitCode) << run.out << run.err;
        EXPECT_NE(run.err.find("error: " + c.file.string() + ": section "), std::string::npos) << run.err;
        EXPECT_NE(run.err.find(c.says), std::string::npos) << run.err;
        EXPECT_EQ(recorded_ok(), nothing_ok());
        zkbatch::test::write_file_bytes(zkey_, zkey);
        zkbatch::test::write_file_bytes(witnesses_[1], witness);
    }
}

// `zkbatch validate` refuses what `run` refuses before it starts: a .zkey that is not
// there, a witness file that is not there; it used to say "ok".
TEST_F(ZkeyInputTest, ValidateRefusesTheMissingFilesRunRefuses) {
    ASSERT_EQ(zkey_job("validate").exit_code, 0);
    for (const fs::path& file : {zkey_, witnesses_[1]}) {
        SCOPED_TRACE(file.string());
        const std::vector<char> bytes = zkbatch::test::read_file_bytes(file);
        fs::remove(file);
        const auto validate = zkey_job("validate");
        EXPECT_EQ(validate.exit_code, kUsageExitCode) << validate.out << validate.err;
        EXPECT_NE(validate.err.find(file == zkey_ ? zkey_.string() + ": cannot open the proving key: No such file"
                                                  : "matches no file"),
                  std::string::npos)
            << validate.err;
        EXPECT_EQ(validate.out.find(": ok: "), std::string::npos) << validate.out;
        zkbatch::test::write_file_bytes(file, bytes);
    }
}

// A .zkey or .wtns that is a FIFO, or a directory, is refused at once (a FIFO would
// block the run forever), saying what it is.
TEST_F(ZkeyInputTest, InputsThatAreNotRegularFilesAreRefusedAtOnce) {
    for (const fs::path& file : {zkey_, witnesses_[2]}) {
        for (const bool fifo : {true, false}) {
            SCOPED_TRACE(file.string() + (fifo ? " as a FIFO" : " as a directory"));
            fs::remove(file);
            if (fifo) ASSERT_EQ(mkfifo(file.c_str(), 0600), 0);
            else fs::create_directory(file);
            const auto run = run_zkey();
            EXPECT_EQ(run.exit_code, kUsageExitCode) << run.out << run.err;
            EXPECT_NE(run.err.find(file.string() + ": cannot open the "), std::string::npos) << run.err;
            EXPECT_NE(run.err.find(fifo ? "it is a FIFO (named pipe), not a regular file"
                                        : "it is a directory, not a regular file"),
                      std::string::npos)
                << run.err;
            fs::remove(file);
        }
        fs::copy_file(file == zkey_ ? fs::path(SOURCE_DIR) / "tests/fuzz/corpus/zkey/chain-4.zkey"
                                    : fs::path(SOURCE_DIR) / "tests/fuzz/corpus/wtns/chain-4-zero.wtns",
                      file);
    }
    EXPECT_EQ(recorded_ok(), nothing_ok());
}

// --resume re-reads the .zkey, the witness files and the stored manifest: each must be
// what the run recorded, or the resume is refused (exit 2) naming what differs, with the
// run left as it was. Otherwise the remaining partitions would be proved with other
// inputs than the rest, and (for another key) exported beside a verifying key that does
// not verify them. The run is cut short by hand: recorded failed, its last partition
// gone, as a run killed before it would leave it.
TEST_F(ZkeyInputTest, ResumeRefusesInputsThatChangedSinceTheRun) {
    ASSERT_EQ(run_zkey().exit_code, 0);
    const auto cut_short = [this] {
        zkbatch::test::execute(db_, "PRAGMA foreign_keys = ON; UPDATE run SET status = 'failed'; "
                                    "DELETE FROM partition WHERE partition_index = 2;");
    };
    cut_short();
    const auto resume = [this] { return zkbatch({"run", "--resume", "1", "--db", db_}); };
    const std::vector<char> zkey = zkbatch::test::read_file_bytes(zkey_);

    // A witness file of the run replaced by another valid one (of a partition already proved).
    zkbatch::test::write_file_bytes(witnesses_[0], zkbatch::test::read_file_bytes(witnesses_[1]));
    auto refused = resume();
    EXPECT_EQ(refused.exit_code, kUsageExitCode) << refused.out << refused.err;
    const std::string not_what = ": not what run 1 proved its other partitions with";
    EXPECT_NE(refused.err.find("error: " + witnesses_[0].string() + not_what), std::string::npos) << refused.err;
    fs::copy_file(fs::path(SOURCE_DIR) / "tests/fuzz/corpus/wtns/chain-4-small.wtns", witnesses_[0],
                  fs::copy_options::overwrite_existing);

    // The .zkey replaced by another that still parses: an IC point swapped for [alpha]1.
    std::vector<char> other = zkey;
    const size_t alpha = zkbatch::test::snarkjs_sections(zkey).at(2).first + 100;
    std::memcpy(other.data() + zkbatch::test::snarkjs_sections(zkey).at(3).first, zkey.data() + alpha, 96);
    zkbatch::test::write_file_bytes(zkey_, other);
    refused = resume();
    EXPECT_EQ(refused.exit_code, kUsageExitCode) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("error: " + zkey_.string() + not_what), std::string::npos) << refused.err;
    zkbatch::test::write_file_bytes(zkey_, zkey);

    // The stored manifest edited in the database.
    const std::string manifest = zkbatch::test::scalar(db_, "SELECT manifest_text FROM run WHERE id = 1");
    zkbatch::test::execute(db_, "UPDATE run SET manifest_text = manifest_text || '# edited' WHERE id = 1");
    refused = resume();
    EXPECT_EQ(refused.exit_code, kUsageExitCode) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("its stored manifest and overrides no longer match the digest"), std::string::npos)
        << refused.err;
    zkbatch::test::execute(db_, "UPDATE run SET manifest_text = substr(manifest_text, 1, length(manifest_text) - 8)");
    EXPECT_EQ(zkbatch::test::scalar(db_, "SELECT manifest_text FROM run WHERE id = 1"), manifest);

    // Every refusal left the run as it was; with its inputs as recorded, it resumes.
    EXPECT_EQ(zkbatch::test::scalar(db_, "SELECT status || ' ' || resume_count FROM run"), "failed 0");
    const auto resumed = resume();
    EXPECT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
    EXPECT_EQ(recorded_ok(), "1 runs, 3 partitions");
    EXPECT_EQ(zkbatch::test::scalar(db_, "SELECT count(*) FROM run WHERE zkey_digest IS NOT NULL AND "
                                         "length(witness_digests) = 3 * 33"),
              "1");
}

// A cached key file that is a FIFO: refused at once as the cache's problem (exit 4).
TEST_F(KeyInputTest, CachedKeyThatIsAFifoIsRefusedAtOnce) {
    const fs::path cache = dir_ / "keys";
    ASSERT_EQ(setup_smoke(cache).exit_code, 0);
    const fs::path key = cached_key(cache);
    fs::remove(key);
    ASSERT_EQ(mkfifo(key.c_str(), 0600), 0);
    const auto run = run_smoke(cache);
    EXPECT_EQ(run.exit_code, kStorageExitCode) << run.out << run.err;
    EXPECT_NE(run.err.find("key file " + key.string() + ": cannot open: it is a FIFO (named pipe)"), std::string::npos)
        << run.err;
    EXPECT_EQ(recorded_ok(), nothing_ok());
}

// Making a seeded key holds all of its points in host memory: one larger than this
// machine's memory (2^28: some 150 GB) is refused before the setup starts, exit 2 with
// the numbers, not by the out-of-memory killer minutes later; nothing is written.
TEST_F(KeyInputTest, SeededKeyLargerThanTheMemoryIsRefusedBeforeTheSetup) {
    const fs::path cache = dir_ / "keys";
    for (const std::string& command : std::vector<std::string>{"setup", "run"}) {
        SCOPED_TRACE(command);
        std::vector<std::string> args{command, std::string(SOURCE_DIR) + "/jobs/smoke.toml", "--set",
                                      "setup.cache_dir=" + cache.string(), "--set", "circuit.log_n=28", "--set",
                                      "job.partitions=1"};
        if (command == "run") args.insert(args.end(), {"--backend", "cpu-ref", "--db", db_});
        const auto result = zkbatch(args);
        EXPECT_EQ(result.exit_code, kUsageExitCode) << result.out << result.err;
        EXPECT_NE(result.err.find("of host memory"), std::string::npos) << result.err;
        EXPECT_FALSE(fs::exists(cache)) << "the setup started";
    }
    EXPECT_EQ(recorded_ok(), nothing_ok());
}

// The key cache on a file system with less room than the key: refused before the
// setup runs, exit 4, with the key's size and the free space in bytes; no file left
// behind in the cache, nothing recorded as proved.
TEST_F(KeyInputTest, KeyLargerThanTheFreeDiskIsRefusedWithTheNumbers) {
    // First, while this process has one thread (a user namespace demands it).
    const fs::path tiny = dir_ / "tiny";
    fs::create_directory(tiny);
    if (const std::string why = zkbatch::test::mount_private_tmpfs(tiny, "64k"); !why.empty()) GTEST_SKIP() << why;
    struct Unmount {
        fs::path path;
        ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
    } unmount{tiny};
    // The key's size, from a key made where there is room.
    ASSERT_EQ(setup_smoke(dir_ / "roomy").exit_code, 0);
    const uintmax_t key_bytes = fs::file_size(cached_key(dir_ / "roomy"));

    const fs::path cache = tiny / "keys";
    fs::create_directory(cache);
    struct statvfs room {};
    ASSERT_EQ(statvfs(cache.c_str(), &room), 0);
    const uint64_t free_bytes = uint64_t{room.f_bavail} * room.f_frsize;
    ASSERT_LT(free_bytes, key_bytes) << "the test needs a key larger than the tmpfs";

    for (const auto& result : {run_smoke(cache), setup_smoke(cache)}) {
        EXPECT_EQ(result.exit_code, kStorageExitCode) << result.out << result.err;
        EXPECT_NE(result.err.find("key file " + cache.string() + "/"), std::string::npos) << result.err;
        EXPECT_NE(result.err.find("needs " + std::to_string(key_bytes) + " bytes"), std::string::npos) << result.err;
        EXPECT_NE(result.err.find("has " + std::to_string(free_bytes) + " bytes"), std::string::npos) << result.err;
        EXPECT_NE(result.err.find("free some space or point setup.cache_dir elsewhere"), std::string::npos)
            << result.err;
        EXPECT_TRUE(fs::is_empty(cache)) << "a key file or a partial one was left in " << cache;
    }
    EXPECT_EQ(recorded_ok(), nothing_ok());
}

}  // namespace
