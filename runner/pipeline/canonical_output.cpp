#include "pipeline/canonical_output.hpp"

#include "core/util/output_file.hpp"
#include "core/util/parallel.hpp"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <thread>
#include <vector>

namespace zkbatch {

namespace {

// Converts block by block, so a 2^27-element vector never needs a second 4 GiB copy.
// Leaving Montgomery form costs a multiplication per element (seconds at 2^27 on one
// core), so each block is converted on every core; the file still gets the bytes in
// order. Only dumps of a, b, c pay it: h arrives canonical.
template <class Fr, typename Sink>
void for_each_canonical_chunk(const Fr* elements, uint64_t n, Sink&& sink) {
    constexpr uint64_t kElementsPerThread = 1u << 16;
    const unsigned threads = n < 2 * kElementsPerThread ? 1 : std::max(1u, std::thread::hardware_concurrency());
    const uint64_t block_elements = kElementsPerThread * threads;
    std::vector<uint8_t> bytes(std::min(n, block_elements) * 32);
    for (uint64_t start = 0; start < n; start += block_elements) {
        const uint64_t count = std::min(block_elements, n - start);
        util::parallel_for(0, count, threads, [&](size_t begin, size_t end) {
            ff::to_canonical_le(elements + start + begin, end - begin, bytes.data() + begin * 32);
        });
        sink(bytes.data(), count * 32);
    }
}

}  // namespace

std::string digest_hex(const void* bytes, size_t size) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(bytes, size));
    return digest_hex(std::to_array(canonical.digest));
}

std::string digest_hex(const std::array<uint8_t, 16>& canonical) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (uint8_t byte : canonical) {
        hex += kHex[byte >> 4];
        hex += kHex[byte & 15];
    }
    return hex;
}

namespace {

// Writes dir/p<index>.<name>.bin, whole or not at all, through `write_all(bytes, size)`.
template <typename WriteAll>
void write_dump(const std::filesystem::path& dir, uint64_t partition_index, const char* name, WriteAll&& write_all) {
    util::OutputFile file(dir / fmt::format("p{}.{}.bin", partition_index, name));
    write_all([&file](const void* bytes, size_t size) { file.write({static_cast<const char*>(bytes), size}); });
    file.commit();
}

}  // namespace

template <class Fr>
void dump_vector(const std::filesystem::path& dir, uint64_t partition_index, const char* name, const Fr* elements,
                 uint64_t n) {
    write_dump(dir, partition_index, name, [&](const auto& write) { for_each_canonical_chunk(elements, n, write); });
}
template void dump_vector(const std::filesystem::path&, uint64_t, const char*, const ff::Fr*, uint64_t);
template void dump_vector(const std::filesystem::path&, uint64_t, const char*, const ff::bn254::Fr*, uint64_t);

void dump_bytes(const std::filesystem::path& dir, uint64_t partition_index, const char* name,
                const void* bytes, size_t size) {
    write_dump(dir, partition_index, name, [&](const auto& write) { write(bytes, size); });
}

}  // namespace zkbatch
