#include "core/util/xxh3_split.hpp"

// xxHash's internals (scramble, merge, the default secret) for this file alone: the
// chain must be XXH3's own arithmetic, and xxhash.h is where it is written.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <bit>
#include <cstring>

namespace zkbatch::xxh3 {

// The block sums read the input as native 64-bit words: XXH3 reads little-endian ones.
static_assert(std::endian::native == std::endian::little);
static_assert(XXH_STRIPE_LEN == kStripeBytes && XXH_ACC_NB == kLanes &&
              (sizeof(XXH3_kSecret) - XXH_STRIPE_LEN) / XXH_SECRET_CONSUME_RATE == kStripesPerBlock);

const StripeKeys& stripe_keys() {
    static const StripeKeys keys = [] {
        StripeKeys made{};
        for (unsigned lane = 0; lane < kLanes; ++lane) {
            for (unsigned s = 0; s < kStripesPerBlock; ++s)
                made.stripe[s][lane] = XXH_readLE64(XXH3_kSecret + s * XXH_SECRET_CONSUME_RATE + 8 * lane);
            made.last_stripe[lane] = XXH_readLE64(XXH3_kSecret + sizeof(XXH3_kSecret) - XXH_STRIPE_LEN -
                                                  XXH_SECRET_LASTACC_START + 8 * lane);
        }
        return made;
    }();
    return keys;
}

// XXH3_hashLong_128b_internal with the accumulation already summed per block.
std::array<uint8_t, 16> digest_from_block_sums(const uint64_t* rows, uint64_t bytes) {
    XXH_ALIGN(XXH_ACC_ALIGN) xxh_u64 acc[XXH_ACC_NB] = XXH3_INIT_ACC;
    const xxh_u8* const secret = XXH3_kSecret;
    const size_t secret_bytes = sizeof(XXH3_kSecret);
    const uint64_t full_blocks = block_rows(bytes) - 1;
    for (uint64_t row = 0; row <= full_blocks; ++row) {
        for (unsigned lane = 0; lane < kLanes; ++lane) acc[lane] += rows[row * kLanes + lane];
        if (row < full_blocks) XXH3_scrambleAcc(acc, secret + secret_bytes - XXH_STRIPE_LEN);
    }
    XXH128_hash_t hash;
    hash.low64 = XXH3_mergeAccs(acc, secret + XXH_SECRET_MERGEACCS_START, bytes * XXH_PRIME64_1);
    hash.high64 = XXH3_mergeAccs(acc, secret + secret_bytes - sizeof(acc) - XXH_SECRET_MERGEACCS_START,
                                 ~(bytes * XXH_PRIME64_2));
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, hash);
    std::array<uint8_t, 16> digest;
    std::memcpy(digest.data(), canonical.digest, digest.size());
    return digest;
}

}  // namespace zkbatch::xxh3
