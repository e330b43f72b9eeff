// Fuzz target: a zkbatch key file through groth16::parse_verifying_key, the checks a
// run makes of a cached key before it proves with it (the header against the file's
// size, the verifying key's digest and points). It either reads (and then agrees with
// its header) or throws KeyFileError; anything else is a finding.
//
// The header and the vk section carry XXH3 digests that random bytes never match. The
// input's last byte says which of them this target writes correct before reading (bit
// 0: the header's, bit 1: the vk section's), so the fuzzer reaches the checks behind
// them as well as the digest checks themselves. The vk section's size follows the
// header's curve field (BLS12-381's points or BN254's).
#include "core/groth16/key_file.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace {

// docs/formats.md, "Key files": where the digests sit, where the vk section is named.
constexpr size_t kHeaderBytes = 4096, kHeaderDigestAt = 4080, kVkDigestAt = 168, kVkEntryAt = 40;
constexpr size_t kCurveAt = 12, kNumPublicAt = 32;
constexpr uint32_t kBn254 = 2;

void put_digest(std::vector<uint8_t>& file, size_t at, const uint8_t* data, size_t size) {
    const std::string hex = zkbatch::groth16::bytes_digest({data, size});
    for (size_t i = 0; i < 16; ++i) file[at + i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
}

uint64_t u64_at(const std::vector<uint8_t>& file, size_t at) {
    uint64_t value;
    std::memcpy(&value, file.data() + at, 8);
    return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const uint8_t fix = data[size - 1];
    std::vector<uint8_t> file(data, data + size - 1);
    if (file.size() >= kHeaderBytes) {
        // The vk section as the header places it: offset, and l + 1 IC points.
        const uint64_t offset = u64_at(file, kVkEntryAt), num_public = u64_at(file, kNumPublicAt);
        uint32_t curve;
        std::memcpy(&curve, file.data() + kCurveAt, sizeof curve);
        const size_t g1_bytes = curve == kBn254 ? 64 : 96, fixed_vk_bytes = 3 * g1_bytes + 3 * 2 * g1_bytes;
        if ((fix & 2) && num_public < file.size() / g1_bytes && offset < file.size() &&
            fixed_vk_bytes + (num_public + 1) * g1_bytes <= file.size() - offset)
            put_digest(file, kVkDigestAt, file.data() + offset, fixed_vk_bytes + (num_public + 1) * g1_bytes);
        if (fix & 1) put_digest(file, kHeaderDigestAt, file.data(), kHeaderDigestAt);
    }
    try {
        zkbatch::groth16::KeyFileInfo info;
        const zkbatch::groth16::AnyVerifyingKey vk = zkbatch::groth16::parse_verifying_key(file, "fuzz.zkbkey", &info);
        if (info.file_bytes != file.size() || zkbatch::groth16::num_public(vk) != info.num_public ||
            zkbatch::groth16::curve_of(vk) != info.curve ||
            info.num_public >= info.num_variables) {
            std::fprintf(stderr, "parse_verifying_key accepted a key whose sizes disagree\n");
            std::abort();
        }
    } catch (const zkbatch::groth16::KeyFileError&) {
    }
    return 0;
}
