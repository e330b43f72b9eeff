// TempDir: the tests' scratch folder (util::ScratchFolder), named "zkbatch-test-..." unless
// a test names it.
#pragma once

#include "core/util/scratch_folder.hpp"

#include <string_view>

namespace zkbatch::test {

class TempDir : public util::ScratchFolder {
public:
    explicit TempDir(std::string_view prefix = "zkbatch-test") : ScratchFolder(prefix) {}
};

}  // namespace zkbatch::test
