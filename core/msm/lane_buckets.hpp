// Pippenger's affine buckets on AVX-512 IFMA lanes (ff/lanes52.hpp): the same sums as
// pippenger.cpp's AffineBuckets, eight affine additions at a time.
//
// The bases are converted into radix 2^52 (LanePoints) once for all windows, and a chunk's
// points are sorted by bucket into runs of references (address and sign; the bucket's
// value first). The first round adds the runs' pairs into a scratch array, the later
// rounds pair up the sums there, until one point a bucket is left. A round's pairs go in
// blocks of kBlockPairs: a forward pass loads eight pairs at a time (contiguous rows
// transposed into lanes), keeps their slopes' denominators and the running products of
// them (eight chains, one a lane), one scalar inversion a block, and a backward pass makes
// the sums and stores them. Points are stored canonical (below p), so that equal x is
// seen by comparing words: a pair P, -P vanishes before the round, a pair P, P is doubled
// in its lane.
//
// The bucket values are the same affine points as AffineBuckets', so an MSM's result is
// the same, bit for bit, on either path. Callers check lane_arithmetic_enabled() first.
#pragma once

#include "core/ec/point.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zkbatch::msm {

// AVX-512 IFMA is usable (ff::lanes52::cpu_supported()) and not turned off by the
// environment (ZKBATCH_AVX512_IFMA=0, for side-by-side runs of the portable path).
bool lane_arithmetic_enabled();

// Affine points in radix 2^52: x's parts, then y's (one part for Fp, two for Fp2), L
// words each; infinity is all zero.
template <class C>
class LanePoints {
public:
    // The points bases[indices[j]], in that order (none at infinity).
    LanePoints(const ec::Affine<C>* bases, const size_t* indices, size_t count, unsigned threads);

    static size_t words_per_point();
    const uint64_t* point(size_t j) const { return words_.data() + j * words_per_point(); }

private:
    std::vector<uint64_t> words_;
};

template <class C>
class LaneBuckets {
public:
    explicit LaneBuckets(size_t bucket_count);

    // Adds points.point(first + j) times the sign of digits[j] to bucket |digits[j]| - 1,
    // for j < count (a null `digits` means +1 each, into bucket 0).
    void add_chunk(const LanePoints<C>& points, size_t first, const int16_t* digits, size_t count);

    std::vector<ec::Affine<C>> buckets() const;

    // Frees what add_chunk works in, keeping the buckets (many windows' buckets can wait
    // while a few threads add).
    void release_scratch();

private:
    void clear_round();
    void add_pair(uintptr_t a, uintptr_t b, uint64_t* sum);
    void add_round();
    void reduce_runs();

    size_t bucket_count_;
    std::vector<uint64_t> buckets_;  // words_per_point() each
    std::vector<uint32_t> start_, length_;
    std::vector<uintptr_t> refs_;    // a chunk's points by bucket: addresses, bit 0 for -P
    std::vector<uint64_t> scratch_;  // the runs' sums
    // A round's pairs and where each sum goes.
    std::vector<uintptr_t> a_, b_;
    std::vector<uint64_t*> sums_;
    std::vector<uint32_t> moves_;        // (from, to) points: runs' odd last points
    std::vector<uint64_t> block_words_;  // a block's inputs and running products
};

}  // namespace zkbatch::msm
