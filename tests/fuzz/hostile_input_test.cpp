// Hostile manifests through the real zkbatch binary: every one is refused before any
// work starts, with exit code 2, a message naming the file, and no crash. Files in
// hostile/ (each with its expected message below) plus inputs too large to commit,
// made here: over-sized files, /dev/zero, a 1 MiB dotted key, hostile --set values.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/zkbatch_process.hpp"

namespace fs = std::filesystem;

namespace {

using namespace std::chrono_literals;
using Outcome = zkbatch::test::CommandResult;
using zkbatch::test::read_file;

const fs::path kHostileDir = HOSTILE_DIR;

std::string quoted(const std::string& text) { return zkbatch::test::shell_quoted(text); }

class HostileInput : public ::testing::Test {
protected:
    // zkbatch with `args` (shell-quoted by the caller); stdout and stderr captured.
    Outcome zkbatch(const std::string& args) const {
        return zkbatch::test::run_zkbatch_shell("--log-level warn " + args, dir_, 120s);
    }

    // `validate` and `run` both refuse `manifest` (plus `extra` arguments) with exit
    // code 2 and a message containing `expected`; `run` creates no database.
    void expect_refused(const fs::path& manifest, const std::string& expected, const std::string& extra = "") const {
        const fs::path db = dir_ / "runs.db";
        for (const std::string& command :
             {"validate " + quoted(manifest.string()) + extra,
              "run " + quoted(manifest.string()) + " --backend cpu-ref --db " + quoted(db.string()) + extra}) {
            SCOPED_TRACE(command.substr(0, 200));
            const Outcome outcome = zkbatch(command);
            EXPECT_EQ(outcome.signal, 0) << "killed by signal " << outcome.signal << "\n" << outcome.err;
            EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
            EXPECT_TRUE(outcome.err.starts_with("error: ")) << outcome.err;
            EXPECT_NE(outcome.err.find(expected), std::string::npos) << "expected '" << expected << "' in:\n"
                                                                      << outcome.err.substr(0, 2000);
            // A message, not an echo of the input: a few lines at most.
            EXPECT_LT(outcome.err.size(), 2000u) << outcome.err.substr(0, 2000);
            EXPECT_FALSE(fs::exists(db)) << "a refused run must not create its database";
        }
    }

    fs::path write(const std::string& name, const std::string& text) const {
        const fs::path path = dir_ / name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    zkbatch::test::TempDir scratch_{"zkbatch-hostile"};
    const fs::path dir_ = scratch_.path();
};

// Each committed hostile manifest and a piece of the message it must be refused with.
struct HostileCase {
    std::string file;
    std::string expected;
};

const std::vector<HostileCase> kCases = {
    {"huge_integer.toml", "is not representable in 64 bits"},
    {"huge_negative_integer.toml", "is not representable in 64 bits"},
    {"int64_max_partitions.toml", "job.partitions: must be in 1..1000000, found 9223372036854775807"},
    {"huge_float.toml", "'1e999' could not be interpreted as a value"},
    {"deep_array.toml", "nested more than 64 levels deep"},
    {"deep_inline_table.toml", "nested more than 64 levels deep"},
    {"deep_dotted_key.toml", "nested more than 64 levels deep"},
    {"deep_table_header.toml", "nested more than 64 levels deep"},
    {"deep_array_of_tables.toml", "nested more than 64 levels deep"},
    {"deep_mixed.toml", "nested more than 64 levels deep"},
    {"invalid_utf8_string.toml", "utf-8"},
    {"invalid_utf8_comment.toml", "utf-8"},
    {"invalid_utf8_key.toml", "hostile/invalid_utf8_key.toml:4:2: a character outside ASCII outside quotes"},
    {"overlong_utf8.toml", "utf-8"},
    {"utf8_surrogate.toml", "utf-8"},
    {"escape_beyond_unicode.toml", "values greater than U+10FFFF are invalid"},
    {"nul_byte.toml", "hostile/nul_byte.toml:3:10: "},
    {"duplicate_key.toml", "cannot redefine existing integer 'partitions'"},
    {"duplicate_table.toml", "hostile/duplicate_table.toml:4:1: "},
    {"dotted_redefines_table.toml", "cannot redefine existing table 'job'"},
    {"empty.toml", "job.name: required key is missing"},
    {"only_bom.toml", "job.name: required key is missing"},
    {"binary_garbage.toml", "hostile/binary_garbage.toml:1:1: "},
    {"non_ascii_bare_key.toml", "hostile/non_ascii_bare_key.toml:5:1: a character outside ASCII outside quotes"},
    {"non_ascii_after_value.toml", "hostile/non_ascii_after_value.toml:4:15: a character outside ASCII in or right after a value"},
    {"non_ascii_escape.toml", "hostile/non_ascii_escape.toml:5:12: '\\' followed by a character outside ASCII"},
    {"non_ascii_after_line_ending_backslash.toml",
     "hostile/non_ascii_after_line_ending_backslash.toml:6:5: a character outside ASCII right after a line-ending"},
    {"non_ascii_bom_lookalike.toml", "hostile/non_ascii_bom_lookalike.toml:1:1: a character outside ASCII"},
};

class HostileFile : public HostileInput, public ::testing::WithParamInterface<HostileCase> {};

TEST_P(HostileFile, RefusedWithExitCode2) {
    expect_refused(kHostileDir / GetParam().file, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileFile, ::testing::ValuesIn(kCases), [](const auto& test_info) {
    std::string name = test_info.param.file.substr(0, test_info.param.file.find('.'));
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

TEST(HostileCorpus, EveryFileHasACase) {
    for (const auto& entry : fs::directory_iterator(kHostileDir)) {
        const std::string file = entry.path().filename().string();
        if (file.starts_with("memory_")) continue;  // HostileInput.MemoryHungry*
        EXPECT_TRUE(std::any_of(kCases.begin(), kCases.end(), [&](const auto& c) { return c.file == file; }))
            << file << " has no row in kCases";
    }
}

// --- Made here: too large to commit, or not a file ------------------------------------

TEST_F(HostileInput, OverOneMebibyteIsRefusedBeforeParsing) {
    std::string text = "[job]\nname = \"big\"\n# ";
    text += std::string(2u << 20, 'x');
    expect_refused(write("big.toml", text + "\n"), "a manifest may be at most 1048576 bytes");
}

TEST_F(HostileInput, EndlessDeviceIsNotReadWhole) {
    // /dev/zero never ends: reading it whole would exhaust memory.
    expect_refused("/dev/zero", "cannot open the manifest: it is a character device, not a regular file");
}

// A FIFO blocks whoever opens it until something writes to it: every input a command
// opens (a manifest, a database, a shard, a plugin) is refused at once instead, saying
// what it is, with the exit code of that input's kind.
TEST_F(HostileInput, SpecialFilesAreRefusedAtOnceWithWhatTheyAre) {
    const fs::path fifo = dir_ / "fifo", plugins = dir_ / "plugins";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    fs::create_directory(plugins);
    ASSERT_EQ(mkfifo((plugins / "libzkbatch-fifo.so").c_str(), 0600), 0);
    expect_refused(fifo, "cannot open the manifest: it is a FIFO (named pipe), not a regular file");
    expect_refused(dir_, "cannot open the manifest: it is a directory, not a regular file");
    const std::string is_a_fifo = "it is a FIFO (named pipe), not a regular file";
    struct Case {
        std::string args;
        int exit_code;
    };
    for (const Case& c : {Case{"runs --db " + quoted(fifo.string()), 4},
                          Case{"merge " + quoted(fifo.string()) + " --into " + quoted((dir_ / "h.db").string()), 4},
                          Case{"backends --plugin-path " + quoted(plugins.string()), 0}}) {
        SCOPED_TRACE(c.args);
        const Outcome outcome = zkbatch::test::run_zkbatch_shell("--log-level warn " + c.args, dir_, 30s);
        EXPECT_EQ(outcome.exit_code, c.exit_code) << outcome.out << outcome.err;
        EXPECT_NE((outcome.out + outcome.err).find(is_a_fifo), std::string::npos) << outcome.out << outcome.err;
    }
}

TEST_F(HostileInput, MebibyteDottedKeyIsRefusedWithoutStackOverflow) {
    // 500 000 levels: TOML++ alone overflows the stack at ~30 000.
    std::string key = "a";
    for (int i = 1; i < 500'000; ++i) key += ".a";
    expect_refused(write("deep.toml", "[job]\nname = \"deep\"\n" + key + " = 1\n"), "nested more than 64 levels deep");
}

TEST_F(HostileInput, LongKeyGetsAShortMessage) {
    expect_refused(write("long_key.toml", "[job]\nname = \"x\"\n[" + std::string(200'000, 'k') + "]\n"),
                   "(200000 bytes): unknown table");
}

TEST_F(HostileInput, LongJobNameGetsAShortMessage) {
    expect_refused(write("long_name.toml", "[job]\nname = \"" + std::string(200'000, 'n') + " \"\n"),
                   "job.name: \"nnnn");
}

// A name is capped where it is read (job.name at 128 bytes: it names Slurm jobs and
// folders, which a 100 KB one broke), from the file and from --set alike.
TEST_F(HostileInput, LongNamesAreRefusedWhereTheyAreRead) {
    const std::string name(100'000, 'n');
    expect_refused(write("long_valid_name.toml", "[job]\nname = \"" + name + "\"\n"),
                   "is 100000 bytes long; at most 128 are accepted");
    expect_refused(kHostileDir / "empty.toml", "output.tags: \"" + std::string(64, 't'),
                   " --set job.name=x --set output.tags." + std::string(200, 't') + "=1");
}

// What the command line gets wrong is a usage error (exit 2), whatever it names: a
// malformed run selector, a database merged into itself.
TEST_F(HostileInput, MalformedSelectorsAndMergingIntoItselfAreUsageErrors) {
    const fs::path db = dir_ / "runs.db";
    ASSERT_EQ(zkbatch("run " + std::string(SOURCE_DIR) + "/jobs/smoke.toml --backend cpu-ref --set circuit.log_n=4 "
                      "--set job.partitions=1 --db " + quoted(db.string()))
                  .exit_code,
              0);
    const std::vector<std::string> commands = {"show latest~x", "show 0", "compare job= 1", "export 'latest,3'",
                                               "trace color=red -o -",
                                               "merge " + quoted(db.string()) + " --into " + quoted(db.string())};
    for (const std::string& args : commands) {
        SCOPED_TRACE(args);
        const Outcome outcome = zkbatch(args + (args.starts_with("merge") ? "" : " --db " + quoted(db.string())));
        EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
    }
    EXPECT_EQ(zkbatch::test::scalar(db.string(), "SELECT count(*) FROM run"), "1");
}

TEST_F(HostileInput, DeepSetValueIsRefused) {
    std::string value;
    for (int i = 0; i < 20'000; ++i) value += "{a=";
    value += "1" + std::string(20'000, '}');
    expect_refused(kHostileDir / "empty.toml", "the value nests more than 64 levels deep",
                   " --set job.name=x --set " + quoted("output.tags.x=" + value));
}

TEST_F(HostileInput, DeepSetKeyIsRefused) {
    std::string key = "output.tags";
    for (int i = 0; i < 20'000; ++i) key += ".a";
    expect_refused(kHostileDir / "empty.toml", "nests more than 64 levels deep",
                   " --set job.name=x --set " + quoted(key + "=1"));
}

TEST_F(HostileInput, HugeSetIntegerIsRefused) {
    expect_refused(kHostileDir / "empty.toml", "job.partitions: expected an integer",
                   " --set job.name=x --set job.partitions=99999999999999999999");
}

// --- Valid manifests that need more memory than any machine has -----------------------

TEST_F(HostileInput, MemoryHungryRunIsRefusedUpFront) {
    for (const char* file : {"memory_buffer_sets.toml", "memory_replay.toml"}) {
        SCOPED_TRACE(file);
        const fs::path db = dir_ / "runs.db";
        const Outcome run = zkbatch("run " + (kHostileDir / file).string() + " --backend cpu-ref --db " + db.string());
        EXPECT_EQ(run.exit_code, 2) << run.err;
        EXPECT_NE(run.err.find("this run needs about"), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("GiB is available ("), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("Lower circuit.log_n"), std::string::npos) << run.err;
        EXPECT_FALSE(fs::exists(db));
    }
}

TEST_F(HostileInput, MemoryHungryManifestStillValidates) {
    // Valid wherever it may run; validate says that this machine is too small.
    const Outcome validate = zkbatch("validate " + (kHostileDir / "memory_buffer_sets.toml").string());
    EXPECT_EQ(validate.exit_code, 0) << validate.err;
    EXPECT_NE(validate.out.find("note: `zkbatch run` would refuse it on this machine"), std::string::npos)
        << validate.out;
}

}  // namespace
