// XXH3-128 of a long input in two steps, so that a GPU can digest h where it lies and
// send 1/16 of its bytes over PCIe instead of all of them:
//
// 1. block sums (this header, host and device): XXH3 folds each 1024-byte block into
//    its eight 64-bit lanes by additions only, so a block's contribution to each lane
//    is a sum that can be formed apart from every other block, all blocks at once;
// 2. the chain (xxh3_split.cpp, host): from XXH3's initial lanes, add each block's
//    sums and scramble, add the tail row, merge. Scramble, merge and the secret are
//    xxHash's own (xxhash.h with XXH_INLINE_ALL), not copies.
//
// The digest is XXH3_128bits of the same bytes, bit for bit (tests/math/xxh3_split_test,
// against libxxhash): a digest from a GPU compares with one from the CPU.
#pragma once

#include "core/util/host_device.hpp"

#include <array>
#include <cstdint>

namespace zkbatch::xxh3 {

inline constexpr uint64_t kStripeBytes = 64;
inline constexpr uint64_t kStripesPerBlock = 16;  // (192-byte default secret - 64) / 8
inline constexpr uint64_t kBlockBytes = kStripeBytes * kStripesPerBlock;
inline constexpr unsigned kLanes = 8;
inline constexpr uint64_t kWordsPerStripe = kStripeBytes / 8;

// Inputs of at most 240 bytes take XXH3's short paths, which have no blocks; whole
// stripes keep the last stripe on a word boundary (h is n * 32 bytes).
ZKB_HOST_DEVICE constexpr bool splits(uint64_t bytes) { return bytes > 240 && bytes % kStripeBytes == 0; }

// Rows of kLanes sums for an input of `bytes`: one per block the chain scrambles, then
// a tail row (the last, partial block and the last stripe), added after the last
// scramble. 64 bytes per 1024 of input.
ZKB_HOST_DEVICE constexpr uint64_t block_rows(uint64_t bytes) { return (bytes - 1) / kBlockBytes + 1; }
// The 64-bit sums of all those rows: what a GPU sends instead of the input.
ZKB_HOST_DEVICE constexpr uint64_t block_sum_count(uint64_t bytes) { return block_rows(bytes) * kLanes; }

// The default secret's 64-bit words as the accumulation reads them: stripe s of a block
// at byte 8 s, the input's last stripe at byte 192 - 64 - 7.
struct StripeKeys {
    uint64_t stripe[kStripesPerBlock][kLanes];
    uint64_t last_stripe[kLanes];
};
const StripeKeys& stripe_keys();  // host only

// What one stripe adds to `lane`: XXH3_accumulate_512's two additions (the
// neighbouring lane's word, and the 32 x 32-bit product of the keyed word).
ZKB_HOST_DEVICE inline uint64_t stripe_lane(const uint64_t* stripe, const uint64_t* keys, unsigned lane) {
    const uint64_t keyed = stripe[lane] ^ keys[lane];
    return stripe[lane ^ 1u] + (keyed & 0xffffffffu) * (keyed >> 32);
}

// Row `row`, lane `lane` of the block sums of `words`, the input as bytes / 8
// little-endian words (splits(bytes) holds).
ZKB_HOST_DEVICE inline uint64_t block_sum(const uint64_t* words, uint64_t bytes, uint64_t row, unsigned lane,
                                          const StripeKeys& keys) {
    const uint64_t full_blocks = block_rows(bytes) - 1;
    const uint64_t* block = words + row * (kBlockBytes / 8);
    const uint64_t stripes =
        row < full_blocks ? kStripesPerBlock : (bytes - 1 - full_blocks * kBlockBytes) / kStripeBytes;
    uint64_t sum = 0;
    for (uint64_t s = 0; s < stripes; ++s) sum += stripe_lane(block + s * kWordsPerStripe, keys.stripe[s], lane);
    if (row == full_blocks) sum += stripe_lane(words + bytes / 8 - kWordsPerStripe, keys.last_stripe, lane);
    return sum;
}

// The chain: XXH3-128 of the `bytes` whose block sums are `rows` (block_rows(bytes)
// rows of kLanes), as XXH128_canonical_t's 16 bytes. Host only.
std::array<uint8_t, 16> digest_from_block_sums(const uint64_t* rows, uint64_t bytes);

}  // namespace zkbatch::xxh3
