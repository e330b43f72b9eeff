// Everything a user can see of field elements leaves here: canonical little-endian,
// 32 bytes per element (ARCHITECTURE.md). Digests and dumps share one conversion.
#pragma once

#include <zkbatch/ff/fr.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

namespace zkbatch {

// XXH3-128 of the n elements of `h` in canonical little-endian form, as 32 lowercase
// hex digits of XXH128's canonical (big-endian) representation — what `xxhsum -H2`
// prints for the same bytes.
std::string canonical_digest_hex(const ff::Fr* elements, uint64_t n);

// Writes `dir/p<index>.<name>.bin`: exactly n*32 bytes, canonical little-endian.
// Throws std::runtime_error naming the file and the OS error on failure.
void dump_vector(const std::filesystem::path& dir, uint64_t partition_index, const char* name,
                 const ff::Fr* elements, uint64_t n);

}  // namespace zkbatch
