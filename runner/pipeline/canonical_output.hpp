// Everything a user can see of field elements leaves here: canonical little-endian,
// 32 bytes per element (docs/architecture.md#the-scalar-field-fr-and-its-domains). h arrives from backends in that form
// already (plugin ABI v3) and is digested and dumped as it is; a, b, c are in
// Montgomery form and converted for dumps.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fr.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace zkbatch {

// XXH3-128 of `size` bytes, as 32 lowercase hex digits of XXH128's canonical
// (big-endian) representation — what `xxhsum -H2` prints for the same bytes. Of h's
// canonical bytes, it is a partition's h_digest.
std::string digest_hex(const void* bytes, size_t size);
// The same 32 digits of a digest already in canonical form (a backend's, plugin ABI v4).
std::string digest_hex(const std::array<uint8_t, 16>& canonical);

// Writes `dir/p<index>.<name>.bin`: exactly n*32 bytes, the Montgomery-form elements (of
// either curve's Fr) converted to canonical little-endian, whole or not at all. Throws
// util::OutputFileError (a std::runtime_error) naming the file and the OS error.
template <class Fr>
void dump_vector(const std::filesystem::path& dir, uint64_t partition_index, const char* name, const Fr* elements,
                 uint64_t n);

// Writes `dir/p<index>.<name>.bin` holding `size` bytes as they are (canonical h).
void dump_bytes(const std::filesystem::path& dir, uint64_t partition_index, const char* name,
                const void* bytes, size_t size);

}  // namespace zkbatch
