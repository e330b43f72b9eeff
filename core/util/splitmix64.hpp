// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit counter advanced by the golden
// gamma, each output the counter passed through a bijective mixer. Tiny, fast, and
// fully specified by its seed, so streams keyed by (seed, partition, row) give the
// same bits on every machine. Not cryptographic: zkbatch uses it for workloads and
// test points, never for secrets.
#pragma once

#include <cstdint>

namespace zkbatch::util {

inline constexpr uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ULL;

// The SplitMix64 output mixer (a bijection on 64-bit values).
constexpr uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// The key of sub-stream `child` of stream `parent`: streams with different
// (parent, child) are unrelated for all practical purposes.
constexpr uint64_t derive_key(uint64_t parent, uint64_t child) {
    return mix64(parent ^ mix64(child + kSplitMixGamma));
}

class SplitMix64 {
public:
    explicit constexpr SplitMix64(uint64_t seed) : state_(seed) {}
    constexpr uint64_t next() {
        state_ += kSplitMixGamma;
        return mix64(state_);
    }

private:
    uint64_t state_;
};

}  // namespace zkbatch::util
