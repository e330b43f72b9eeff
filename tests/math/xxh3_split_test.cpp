// XXH3 in two steps (core/util/xxh3_split.hpp) against libxxhash's XXH3_128bits of
// the same bytes: the block sums the GPU forms, chained on the host, must give the
// digest the runner computes from h itself.
#include "core/util/splitmix64.hpp"
#include "core/util/xxh3_split.hpp"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <array>
#include <cstring>
#include <vector>

namespace zkbatch::xxh3 {
namespace {

std::vector<uint64_t> random_words(uint64_t bytes, uint64_t seed) {
    std::vector<uint64_t> words(bytes / 8);
    util::SplitMix64 random(seed);
    for (uint64_t& word : words) word = random.next();
    return words;
}

std::array<uint8_t, 16> libxxhash_digest(const std::vector<uint64_t>& words) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(words.data(), words.size() * 8));
    std::array<uint8_t, 16> digest;
    std::memcpy(digest.data(), canonical.digest, digest.size());
    return digest;
}

// Every row and lane formed on its own, as one GPU thread each forms them.
std::array<uint8_t, 16> two_step_digest(const std::vector<uint64_t>& words) {
    const uint64_t bytes = words.size() * 8;
    std::vector<uint64_t> rows(block_sum_count(bytes));
    for (uint64_t row = 0; row < block_rows(bytes); ++row)
        for (unsigned lane = 0; lane < kLanes; ++lane)
            rows[row * kLanes + lane] = block_sum(words.data(), bytes, row, lane, stripe_keys());
    return digest_from_block_sums(rows.data(), bytes);
}

TEST(Xxh3Split, MatchesLibxxhashForEveryLengthOfH) {
    // h of 2^log_n elements of 32 bytes: from the first length XXH3 takes in blocks.
    for (uint32_t log_n = 3; log_n <= 20; ++log_n) {
        const auto words = random_words((uint64_t{1} << log_n) * 32, log_n);
        EXPECT_EQ(two_step_digest(words), libxxhash_digest(words)) << "log_n " << log_n;
    }
}

TEST(Xxh3Split, MatchesLibxxhashAroundBlockAndStripeEdges) {
    // One stripe short of, at, and past block boundaries, and a tail of every stripe count.
    std::vector<uint64_t> lengths = {256, 320, 960, 1024, 1088, 1984, 2048, 2112, 3072 + 64};
    for (uint64_t stripes = 0; stripes < kStripesPerBlock; ++stripes) lengths.push_back(4 * kBlockBytes + 64 * (stripes + 1));
    for (uint64_t bytes : lengths) {
        ASSERT_TRUE(splits(bytes)) << bytes;
        const auto words = random_words(bytes, bytes);
        EXPECT_EQ(two_step_digest(words), libxxhash_digest(words)) << bytes << " bytes";
    }
}

TEST(Xxh3Split, MatchesLibxxhashOnInputsWithoutRandomness) {
    // All-zero and all-ones words: products of zero and carries through every lane.
    for (uint64_t fill : {uint64_t{0}, ~uint64_t{0}}) {
        const std::vector<uint64_t> words(3 * kBlockBytes / 8, fill);
        EXPECT_EQ(two_step_digest(words), libxxhash_digest(words)) << std::hex << fill;
    }
}

TEST(Xxh3Split, SplitsOnlyWholeStripesOfLongInputs) {
    EXPECT_FALSE(splits(64));
    EXPECT_FALSE(splits(128));  // h at log_n 2 takes XXH3's short path
    EXPECT_FALSE(splits(240));
    EXPECT_FALSE(splits(256 + 8));
    EXPECT_TRUE(splits(256));
    EXPECT_EQ(block_rows(1024), 1u);  // XXH3 scrambles only blocks before the last byte's
    EXPECT_EQ(block_rows(1025 + 63), 2u);
}

}  // namespace
}  // namespace zkbatch::xxh3
