// TempDir: a scratch folder under $TMPDIR (or /tmp), removed with everything in it.
// Header-only, so suites that need nothing else of the harness (the store tests, the
// fuzz targets) use it without linking zkbatch_test_support.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace zkbatch::test {

class TempDir {
public:
    explicit TempDir(std::string_view prefix = "zkbatch-test") {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern =
            (std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / (std::string(prefix) + "-XXXXXX")).string();
        if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a scratch folder " + pattern);
        path_ = pattern;
    }
    ~TempDir() {
        // A test may have made the folder read-only; a test that failed half-way may leave
        // odd things. Never throw here.
        std::error_code ignored;
        std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ignored);
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace zkbatch::test
