// A file's bytes, read and written whole: what the tests that damage key, .zkey and
// .wtns files on purpose (truncate, flip a byte, rewrite a section) start from.
// Header-only.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <utility>
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

// The sections of a snarkjs binary file (.zkey, .wtns: docs/formats.md, "The container"):
// id -> (payload offset, length).
inline std::map<uint32_t, std::pair<size_t, size_t>> snarkjs_sections(const std::vector<char>& bytes) {
    std::map<uint32_t, std::pair<size_t, size_t>> sections;
    uint32_t count;
    std::memcpy(&count, bytes.data() + 8, 4);
    size_t offset = 12;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t id;
        uint64_t length;
        std::memcpy(&id, bytes.data() + offset, 4);
        std::memcpy(&length, bytes.data() + offset + 4, 8);
        sections[id] = {offset + 12, length};
        offset += 12 + length;
    }
    return sections;
}

// The same snarkjs file with section `id`'s payload (and the length before it) replaced.
inline std::vector<char> with_snarkjs_section(const std::vector<char>& bytes, uint32_t id,
                                              const std::vector<char>& payload) {
    const auto [offset, length] = snarkjs_sections(bytes).at(id);
    std::vector<char> out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(offset - 8));
    const uint64_t new_length = payload.size();
    out.insert(out.end(), reinterpret_cast<const char*>(&new_length), reinterpret_cast<const char*>(&new_length) + 8);
    out.insert(out.end(), payload.begin(), payload.end());
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset + length), bytes.end());
    return out;
}

}  // namespace zkbatch::test
