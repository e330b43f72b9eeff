// The README's tested blocks, run as written: each line in turn, from a folder laid out
// as the repository root is after the build (build/, jobs/, tools/ and tests/ beside
// each other), so a newcomer who types them sees what the README says: their runs
// listed by `zkbatch runs`, shown by `zkbatch show latest`, their exported proofs
// accepted by snarkjs.
#include "support/zkbatch_process.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using zkbatch::test::CommandResult;

constexpr const char* kMarker = "<!-- tests/cli/readme_test.cpp runs the next block";

// The lines of the first ```sh block after the README's index-th marker comment.
std::vector<std::string> tested_block(const std::string& readme, int index) {
    size_t marker = readme.find(kMarker);
    for (int i = 0; i < index && marker != std::string::npos; ++i) marker = readme.find(kMarker, marker + 1);
    if (marker == std::string::npos) return {};
    const size_t open = readme.find("```sh\n", marker);
    const size_t close = readme.find("\n```", open);
    if (open == std::string::npos || close == std::string::npos) return {};
    std::vector<std::string> lines;
    std::istringstream block(readme.substr(open + 6, close - open - 6));
    for (std::string line; std::getline(block, line);)
        if (!line.empty()) lines.push_back(line);
    return lines;
}

class Readme : public ::testing::Test {
protected:
    Readme() : scratch_("zkbatch-readme"), root_(scratch_.path()) {
        fs::create_directory_symlink(fs::path(zkbatch::test::zkbatch_exe()).parent_path(), root_ / "build");
        for (const char* folder : {"jobs", "tools", "tests"})
            fs::create_directory_symlink(fs::path(SOURCE_DIR) / folder, root_ / folder);
    }

    // Runs the index-th tested block; every line must exit 0.
    std::vector<CommandResult> run_block(int index, size_t min_lines) {
        const auto lines = tested_block(zkbatch::test::read_file(fs::path(SOURCE_DIR) / "README.md"), index);
        EXPECT_GE(lines.size(), min_lines) << "tested block " << index << " missing from README.md";
        std::vector<CommandResult> results;
        for (const std::string& line : lines) {
            results.push_back(zkbatch::test::run_shell(
                "cd " + zkbatch::test::shell_quoted(root_.string()) + " && " + line, root_, std::chrono::seconds(240)));
            EXPECT_EQ(results.back().exit_code, 0) << line << "\n" << results.back().out << results.back().err;
            if (results.back().exit_code != 0) break;
        }
        lines_ = lines;
        return results;
    }
    std::string db() const { return (root_ / "results" / "zkbatch.db").string(); }

    zkbatch::test::TempDir scratch_;
    fs::path root_;
    std::vector<std::string> lines_;
};

TEST_F(Readme, RunAJobWorksAsWritten) {
    const auto results = run_block(0, 3);
    ASSERT_EQ(results.size(), lines_.size());
    // The run of the first line is what `runs` and `show latest` talk about.
    ASSERT_TRUE(lines_[0].starts_with("build/zkbatch run jobs/smoke.toml")) << lines_[0];
    ASSERT_TRUE(lines_[1].starts_with("build/zkbatch runs")) << lines_[1];
    ASSERT_TRUE(lines_[2].starts_with("build/zkbatch show latest")) << lines_[2];
    EXPECT_NE(results[1].out.find("smoke"), std::string::npos) << results[1].out;
    EXPECT_NE(results[2].out.find("smoke"), std::string::npos) << results[2].out;
    EXPECT_NE(results[2].out.find("synth"), std::string::npos) << results[2].out;
    EXPECT_EQ(zkbatch::test::scalar(db(), "SELECT count(*) FROM run WHERE status = 'ok'"), "3");
}

// snarkjs's CLI prints "OK!" for an accepted proof (and its exit status alone has not
// always meant rejection), so the last line's output is read too.
void expect_snarkjs_accepted(const std::vector<std::string>& lines, const std::vector<CommandResult>& results) {
    ASSERT_FALSE(lines.empty());
    ASSERT_EQ(results.size(), lines.size());
    ASSERT_NE(lines.back().find("snarkjs groth16 verify"), std::string::npos) << lines.back();
    EXPECT_NE((results.back().out + results.back().err).find("OK!"), std::string::npos)
        << results.back().out << results.back().err;
}

TEST_F(Readme, Groth16ProofsAreAcceptedBySnarkjsAsWritten) {
    const auto results = run_block(1, 4);
    expect_snarkjs_accepted(lines_, results);
    EXPECT_EQ(zkbatch::test::scalar(db(), "SELECT count(*) FROM partition WHERE proof IS NOT NULL AND status = 'ok'"),
              "4");
}

TEST_F(Readme, ProveYourOwnCircomCircuitAsWritten) {
    const auto results = run_block(2, 6);
    expect_snarkjs_accepted(lines_, results);
    EXPECT_EQ(zkbatch::test::scalar(db(), "SELECT group_concat(workload || ' ' || circuit_kind || ' ' || "
                                          "partitions, ', ') FROM run"),
              "groth16 zkey 3, groth16 zkey 1");
    // One partition per witness the fixture tool computed (three inputs of chain-4), then
    // `zkbatch prove`'s one.
    EXPECT_EQ(zkbatch::test::scalar(db(), "SELECT count(*) FROM partition WHERE proof IS NOT NULL AND status = 'ok'"),
              "4");
}

}  // namespace
