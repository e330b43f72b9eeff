// MsmCapacity (msm.hpp): the bounds every MSM buffer is sized from, so nothing is
// allocated per call.
#include "gpu/msm/msm.hpp"

#include <algorithm>

namespace zkbatch::cuda::msm {

namespace {

// The largest m in [1, n] for which choose_window_bits(m) <= bits (0 when none): the
// choice is non-decreasing in m, so that set is a prefix.
uint64_t last_count_with_bits_at_most(uint64_t n, uint32_t bits, uint32_t max_bits) {
    if (n == 0 || choose_window_bits(1, max_bits) > bits) return 0;
    uint64_t low = 1, high = n;  // choose(low) <= bits
    while (low < high) {
        const uint64_t middle = low + (high - low + 1) / 2;
        if (choose_window_bits(middle, max_bits) <= bits) {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    return low;
}

bool allowed_width(uint32_t bits) { return bits >= 1 && bits <= kMaxWindowBits; }

// Each layout with every window a capacity allows: over the bases at each width in use,
// over each shared table (a stride of 0 counted as 1, a whole table).
template <class Visit>
void for_each_layout(const MsmCapacity& capacity, Visit&& visit) {
    for (uint32_t bits : capacity.window_bits_in_use()) visit(WindowLayout{bits, WindowLayout::windows_for(bits), 0});
    for (const TableShape& table : capacity.shared_tables) {
        const uint32_t bits = table.window_bits;
        if (allowed_width(bits)) visit(WindowLayout{bits, WindowLayout::windows_for(bits), std::max(table.stride, 1u)});
    }
}

}  // namespace

std::vector<uint32_t> MsmCapacity::window_bits_in_use() const {
    std::vector<uint32_t> widths;
    const uint32_t largest = plain ? choose_window_bits(std::max<uint64_t>(max_points, 1), max_window_bits) : 0;
    for (uint32_t bits = 1; bits <= largest; ++bits) {
        if (last_count_with_bits_at_most(max_points, bits, max_window_bits) >
            last_count_with_bits_at_most(max_points, bits - 1, max_window_bits)) {
            widths.push_back(bits);
        }
    }
    for (uint32_t bits : forced_window_bits) {
        if (bits >= 1 && bits <= kMaxWindowBits) widths.push_back(bits);
    }
    std::sort(widths.begin(), widths.end());
    widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
    return widths;
}

uint64_t MsmCapacity::max_entries() const {
    // full * W(c(full)) + ones with full + ones <= n, so at most full (W - 1) + n: largest
    // at the last count of each width. (Bounding the ones by n on their own would add n
    // entries: 1.07 GB of a plan of 2^26 points, 3 GB of B2's rounds' scratch at 2^26.)
    uint64_t most = 0;
    for (uint32_t bits = 1; plain && bits <= max_window_bits; ++bits) {
        const uint64_t count = last_count_with_bits_at_most(max_points, bits, max_window_bits);
        if (count > 0 && choose_window_bits(count, max_window_bits) == bits) {
            most = std::max(most, count * (WindowLayout::windows_for(bits) - 1) + max_points);
        }
    }
    for (uint32_t bits : forced_window_bits) {
        if (allowed_width(bits)) most = std::max(most, max_points * WindowLayout::windows_for(bits));
    }
    for (const TableShape& table : shared_tables) {
        if (allowed_width(table.window_bits)) {
            most = std::max(most, max_points * WindowLayout::windows_for(table.window_bits));
        }
    }
    return std::max<uint64_t>(most, max_points);
}

uint64_t MsmCapacity::max_buckets() const {
    uint64_t most = 1;
    for_each_layout(*this, [&](const WindowLayout& layout) { most = std::max<uint64_t>(most, layout.bucket_count()); });
    return most;
}

uint32_t MsmCapacity::max_windows() const {
    uint32_t most = 1;
    for_each_layout(*this, [&](const WindowLayout& layout) { most = std::max(most, layout.bucket_windows()); });
    return most;
}

uint64_t MsmCapacity::max_reduce_threads(uint64_t resident_threads) const {
    uint64_t most = 1;
    // A plan's layout has all its windows, or one (ones alone); the reduction sees its
    // bucket windows.
    for_each_layout(*this, [&](const WindowLayout& layout) {
        for (uint32_t windows : {layout.windows, 1u}) {
            const WindowLayout buckets = WindowLayout{layout.bits, windows, layout.table_stride}.buckets();
            most = std::max<uint64_t>(
                most, BucketReduceParams{buckets, choose_chunk_log(buckets, resident_threads)}.threads());
        }
    });
    return most;
}

uint64_t MsmCapacity::max_spills(int parity) const {
    // Level 0: 2 ceil(N / L0) with L0 = choose_first_segment(N) is at most 2^19 + 2 while
    // L0 < 256 and 2 ceil(N / 256) beyond (or the rounds' kMinAffineSegment, past which
    // the accumulator lengthens plain segments); a forced segment adds its own bound.
    const uint64_t entries = max_entries();
    const uint64_t shortest = affine_rounds && spills_for_rounds ? kMinAffineSegment : 256;
    uint64_t level0 = std::max<uint64_t>((uint64_t{1} << 19) + 2, 2 * ((entries + shortest - 1) / shortest));
    if (min_forced_segment > 0) {
        level0 = std::max<uint64_t>(level0, 2 * ((entries + min_forced_segment - 1) / min_forced_segment));
    }
    // Later levels shrink. Level 1's boundaries are shifted down by kLaterSegment - 1
    // (Level), which can add a thread: 2 ceil((level0 + kLaterSegment - 1) / kLaterSegment)
    // spills (a level 0 of 589,824 spills, a multiple of 8, makes 147,458, not 147,456).
    // Level 2 spills less than level 0, and so on.
    if (parity == 0) return level0;
    return 2 * ((level0 + 2 * kLaterSegment - 2) / kLaterSegment);
}

}  // namespace zkbatch::cuda::msm
