// A file's bytes, read and written whole: what the tests that damage key, .zkey and
// .wtns files on purpose (truncate, flip a byte) start from. Header-only.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace zkbatch::test {

inline std::vector<char> read_file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

inline void write_file_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace zkbatch::test
