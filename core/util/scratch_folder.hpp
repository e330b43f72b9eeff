// ScratchFolder: a folder of its own under $TMPDIR (or /tmp), removed with everything in
// it when the object goes. `zkbatch prove --no-record` proves into one; the tests make
// theirs with it. Header-only, so that suites which need nothing else (the store tests,
// the fuzz targets) use it without linking anything.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace zkbatch::util {

class ScratchFolder {
public:
    // Throws std::system_error naming the folder it could not make.
    explicit ScratchFolder(std::string_view prefix) {
        std::string pattern = (parent() / (std::string(prefix) + "-XXXXXX")).string();
        if (mkdtemp(pattern.data()) == nullptr) {
            throw std::system_error(errno, std::generic_category(), "cannot make a scratch folder in " +
                                                                        parent().string());
        }
        path_ = pattern;
    }
    ~ScratchFolder() {
        // Whatever was put in it, a folder made read-only included; never throws.
        std::error_code ignored;
        std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ignored);
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }

    // Where scratch folders go: $TMPDIR, else /tmp.
    static std::filesystem::path parent() {
        const char* tmp = std::getenv("TMPDIR");
        return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }

private:
    std::filesystem::path path_;
};

}  // namespace zkbatch::util
