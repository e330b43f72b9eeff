// zkbatch's proving-key file (docs/formats.md, "Key files"): a 4096-byte header, then
// the points section by section in the layout they have in memory (ec::Affine, as in
// snarkjs's .zkey), so loading is a memory map and a digest check, never a copy.
//
//   header   magic "ZKBKEY\r\n", format version, curve (1 BLS12-381, 2 BN254),
//            H convention, log_n, m, l; six (offset, count) sections; XXH3-128
//            digests of the circuit description, the setup description, the vk
//            section, the points (every byte after the header) and of the header
//            itself; both descriptions as text
//   vk       [alpha]1 [beta]1 [delta]1 [beta]2 [gamma]2 [delta]2, IC (l + 1 points)
//   a        m G1 points     b_g1  m G1 points     b_g2  m G2 points
//   l        m - l - 1 G1    h     n - 1 or n G1 (the H convention)
// Sections start on 4096-byte boundaries; integers are little-endian. Points take the
// curve's sizes (G1 96 and G2 192 bytes on BLS12-381, 64 and 128 on BN254).
//
// Integrity: the header's own digest, the file's size against the sections, the
// points' digest (a read of every byte, some 10 GB/s), the circuit it was made for, and
// on-curve and subgroup checks of the verifying key's points. The bulk points are
// trusted once their digest matches: zkbatch wrote them (checking 10^8 subgroup
// memberships would take longer than making the key).
#pragma once

#include "core/curve/curve_id.hpp"
#include "core/groth16/any_curve.hpp"
#include "core/groth16/keys.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch::groth16 {

// A key file that cannot be written or used: the message names the file, says what is
// wrong and what to do.
struct KeyFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a key file's header says.
struct KeyFileInfo {
    std::filesystem::path path;
    uint64_t file_bytes = 0;
    uint32_t format_version = 0;
    curve::CurveId curve = curve::CurveId::bls12_381;
    uint32_t log_n = 0;
    uint64_t num_variables = 0, num_public = 0;
    HConvention h_convention = HConvention::coefficients;
    std::string circuit_description, setup_description;
    std::string circuit_digest, setup_digest, points_digest;  // 32 hex digits each (XXH3-128)
};

inline constexpr uint32_t kKeyFileFormatVersion = 1;

// XXH3-128 of bytes, as 32 hex digits (xxhsum -H2's order): what names a description,
// a .zkey or a witness file in a key file and in the database.
std::string bytes_digest(std::span<const uint8_t> bytes);
// The same of text.
std::string description_digest(const std::string& text);

// The bytes a key file of this curve and shape takes, header included.
uint64_t key_file_bytes(curve::CurveId curve, uint32_t log_n, uint64_t num_variables, uint64_t num_public,
                        HConvention convention);

// Makes `path`'s folder and throws KeyFileError, with both numbers, when its file system
// has less than `file_bytes` free: before a key is made, and again before it is written.
void require_room_for_key_file(const std::filesystem::path& path, uint64_t file_bytes);

// Writes `key` to `path` atomically: a temporary file beside it, flushed to disk, then
// renamed, so an interrupted write never leaves a truncated key under that name.
// Refuses before writing anything when the file system has too little room.
template <class Curve>
void write_key_file(const std::filesystem::path& path, const generic::ProvingKey<Curve>& key,
                    const std::string& circuit_description, const std::string& setup_description);

// Reads the header (and checks its digest) without touching the points.
KeyFileInfo read_key_file_info(const std::filesystem::path& path);

// The points digest of a key file (KeyFileInfo::points_digest: every byte after the
// header, the alignment gaps' zeros too) from the key's sections as they come, in file
// order: vk, a, b_g1, b_g2, l, h, each in one or more pieces. A key that is never
// written (made on a GPU, or in memory) is named by the digest its file would have, so it
// compares with a key file's. Throws std::logic_error for sections out of order or of
// the wrong size.
class KeyPointsDigest {
public:
    enum class Section { vk, a, b_g1, b_g2, l, h };
    KeyPointsDigest(curve::CurveId curve, uint32_t log_n, uint64_t num_variables, uint64_t num_public,
                    HConvention convention);
    ~KeyPointsDigest();
    KeyPointsDigest(const KeyPointsDigest&) = delete;
    KeyPointsDigest& operator=(const KeyPointsDigest&) = delete;

    void add(Section section, const void* data, uint64_t bytes);
    // 32 hex digits; every section must be complete.
    std::string finish();

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The vk section's bytes: [alpha]1 [beta]1 [delta]1 [beta]2 [gamma]2 [delta]2, IC.
template <class Curve>
std::vector<uint8_t> vk_section_bytes(const generic::ProvingKey<Curve>& key);

// The points digest of a key in host memory: its file's, without writing it.
template <class Curve>
std::string key_points_digest(const generic::ProvingKey<Curve>& key);

// Maps the file and checks everything above. A non-empty `expected_circuit` must equal
// the circuit description the key was made for; the file's curve must be Curve.
template <class Curve = curve::Bls12_381>
generic::ProvingKey<Curve> load_key_file(const std::filesystem::path& path, const std::string& expected_circuit,
                                         KeyFileInfo* info = nullptr);

// Only the verifying key (header and vk section, with their digests), over the curve
// the header names: what the runner's verifier needs, in milliseconds whatever the
// key's size.
AnyVerifyingKey load_verifying_key(const std::filesystem::path& path, const std::string& expected_circuit,
                                   KeyFileInfo* info = nullptr);
// The same checks on a whole key file in memory, `name` standing for it in messages:
// the header against the file's size, the vk section's digest and points. For reading
// hostile bytes without a file (tests/fuzz/key_file_fuzz.cpp).
AnyVerifyingKey parse_verifying_key(std::span<const uint8_t> file, const std::filesystem::path& name,
                                    KeyFileInfo* info = nullptr);

}  // namespace zkbatch::groth16
