// The README's "Run a job" block, run as written: each line in turn, from a folder laid
// out as the repository root is after the build (build/ and jobs/ beside each other),
// so a newcomer who types them sees what the README says: their runs listed by
// `zkbatch runs` and shown by `zkbatch show latest`.
#include "support/zkbatch_process.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using zkbatch::test::CommandResult;

// The lines of the first ```sh block after the README's marker comment.
std::vector<std::string> tested_block(const std::string& readme) {
    const size_t marker = readme.find("<!-- tests/cli/readme_test.cpp runs the next block");
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

TEST(Readme, RunAJobWorksAsWritten) {
    const auto lines = tested_block(zkbatch::test::read_file(fs::path(SOURCE_DIR) / "README.md"));
    ASSERT_GE(lines.size(), 3u) << "no tested block in README.md";
    zkbatch::test::TempDir scratch("zkbatch-readme");
    const fs::path root = scratch.path();
    fs::create_directory_symlink(fs::path(zkbatch::test::zkbatch_exe()).parent_path(), root / "build");
    fs::create_directory_symlink(fs::path(SOURCE_DIR) / "jobs", root / "jobs");
    std::vector<CommandResult> results;
    for (const std::string& line : lines) {
        results.push_back(zkbatch::test::run_shell("cd " + zkbatch::test::shell_quoted(root.string()) + " && " + line,
                                                   root, std::chrono::seconds(240)));
        ASSERT_EQ(results.back().exit_code, 0) << line << "\n" << results.back().out << results.back().err;
    }
    // The run of the first line is what `runs` and `show latest` talk about.
    ASSERT_TRUE(lines[0].starts_with("build/zkbatch run jobs/smoke.toml")) << lines[0];
    ASSERT_TRUE(lines[1].starts_with("build/zkbatch runs")) << lines[1];
    ASSERT_TRUE(lines[2].starts_with("build/zkbatch show latest")) << lines[2];
    EXPECT_NE(results[1].out.find("smoke"), std::string::npos) << results[1].out;
    EXPECT_NE(results[2].out.find("smoke"), std::string::npos) << results[2].out;
    EXPECT_NE(results[2].out.find("synth"), std::string::npos) << results[2].out;
    const std::string db = (root / "results" / "zkbatch.db").string();
    EXPECT_EQ(zkbatch::test::scalar(db, "SELECT count(*) FROM run WHERE status = 'ok'"), "3");
}

}  // namespace
