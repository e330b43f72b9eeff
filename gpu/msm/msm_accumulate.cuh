// BucketAccumulator<C> (msm.hpp): steps 4-6 of msm_steps.hpp on the device. Included by
// msm_g1.cu and msm_g2.cu, one curve each, so the two compile in parallel.
#pragma once

#include "gpu/util/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "core/plugin/error.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace zkbatch::cuda::msm {

namespace detail {

// Threads per block of the point kernels. Their registers (an XYZZ sum, a point and the
// formula's temporaries) limit the occupancy, not the block size; 128 keeps the tail of a
// level short.
inline constexpr uint32_t kPointThreads = 128;

// No minimum of blocks per SM: G1's level 0 compiles to 167 registers as it is, which
// already fits three blocks of 128 in an SM's 65536 (12 warps); asking for three makes
// ptxas spill 16 bytes at 168 (docs/msm.md#level-0-in-whole-waves). The other levels and
// G2 need what they need.
template <class C, class Source>
__global__ void __launch_bounds__(kPointThreads)
    accumulate_kernel(const Source source, const Level level, const LevelOutput<C> out) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < level.threads()) accumulate_segment<C>(source, level, out, t);
}

// Level 0 with batched affine rounds: thread `slot` takes the segments slot, slot +
// slots, ... in its scratch slot (the grid holds one wave of slots).
template <class C>
__global__ void __launch_bounds__(kPointThreads)
    accumulate_affine_kernel(const GatherSource<C> source, const Level level, const LevelOutput<C> out,
                             const AffineScratch<C> scratch) {
    const uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= scratch.slots) return;
    for (uint32_t t = slot; t < level.threads(); t += scratch.slots) {
        accumulate_segment_affine<C>(source, level, out, scratch, slot, t);
    }
}

// Threads of `kernel` (blocks of kPointThreads) the current device holds at once.
template <class Kernel>
uint64_t resident_threads(Kernel kernel) {
    int device = 0, sm_count = 0, blocks_per_sm = 0;
    ZKB_CUDA_CHECK(cudaGetDevice(&device));
    ZKB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
    ZKB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kPointThreads, 0));
    return uint64_t(sm_count) * uint64_t(blocks_per_sm) * kPointThreads;
}

// The threads of accumulate_affine_kernel the current device holds at once: its scratch
// slots (whole blocks).
template <class C>
uint32_t affine_slots() {
    return static_cast<uint32_t>(resident_threads(accumulate_affine_kernel<C>));
}

// The rounds' scratch laid out in one block: both buffers' points, the prefixes, then
// both buffers' keys (the 16-byte-aligned arrays first: every point type is a multiple of
// 16 bytes, so each array starts aligned where the block does).
template <class C>
struct AffineScratchLayout {
    uint64_t items[2];  // each buffer's keys and points: slots x affine_capacity
    uint64_t prefixes;

    AffineScratchLayout(uint32_t slots, uint32_t max_segment)
        : items{uint64_t{slots} * affine_capacity(max_segment, 0), uint64_t{slots} * affine_capacity(max_segment, 1)},
          prefixes(items[0]) {}
    uint64_t bytes() const {
        return (items[0] + items[1]) * (sizeof(ec::Affine<C>) + sizeof(uint32_t)) + prefixes * sizeof(BaseField<C>);
    }
    // Points the arrays into the block at `base`.
    void carve(void* base, ec::Affine<C>* points[2], BaseField<C>*& prefix, uint32_t* keys[2]) const {
        auto* at = static_cast<unsigned char*>(base);
        for (int b = 0; b < 2; ++b) {
            points[b] = reinterpret_cast<ec::Affine<C>*>(at);
            at += items[b] * sizeof(ec::Affine<C>);
        }
        prefix = reinterpret_cast<BaseField<C>*>(at);
        at += prefixes * sizeof(BaseField<C>);
        for (int b = 0; b < 2; ++b) {
            keys[b] = reinterpret_cast<uint32_t*>(at);
            at += items[b] * sizeof(uint32_t);
        }
    }
    static_assert(sizeof(BaseField<C>) % 16 == 0);
};

template <class C>
__global__ void __launch_bounds__(kPointThreads) reduce_buckets_kernel(const BucketReduceParams params,
                                                                       const ec::Xyzz<C>* buckets,
                                                                       ec::Xyzz<C>* partials) {
    const uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
    if (thread < params.threads()) reduce_bucket_chunk<C>(params, buckets, partials, thread);
}

// One group per block (msm_steps.hpp: tree_thread_sum, tree_step).
template <class C>
__global__ void __launch_bounds__(kTreeThreads) tree_sum_kernel(const ec::Xyzz<C>* in, uint32_t group_size,
                                                                ec::Xyzz<C>* out) {
    __shared__ ec::Xyzz<C> sums[kTreeThreads];
    sums[threadIdx.x] = tree_thread_sum<C>(in, group_size, blockIdx.x, threadIdx.x);
    __syncthreads();
    for (uint32_t stride = kTreeThreads / 2; stride > 0; stride /= 2) {
        tree_step<C>(sums, stride, threadIdx.x);
        __syncthreads();
    }
    if (threadIdx.x == 0) store_point(out + blockIdx.x, sums[0]);
}

template <class C>
__global__ void combine_windows_kernel(const ec::Xyzz<C>* window_sums, const WindowLayout layout,
                                       ec::Jacobian<C>* result) {
    if (blockIdx.x == 0 && threadIdx.x == 0) store_point(result, combine_windows<C>(window_sums, layout));
}

template <class C>
__global__ void infinity_kernel(ec::Jacobian<C>* result) {
    if (blockIdx.x == 0 && threadIdx.x == 0) store_point(result, ec::Jacobian<C>::infinity());
}

inline uint32_t point_blocks(uint64_t threads) {
    return static_cast<uint32_t>((threads + kPointThreads - 1) / kPointThreads);
}

// Runs the levels of `plan` (msm_steps.hpp, plan_levels): level 0 from `source` (in
// batched affine rounds when `affine` is given), the rest from the spill buffers, whole
// runs into dest[key < key_limit]; `flags` holds one zeroed word per level
// (LevelOutput::spilled).
template <class C>
void run_levels(const LevelPlan& plan, const GatherSource<C>& source, const AffineScratch<C>* affine,
                ec::Xyzz<C>* dest, uint32_t key_limit, uint32_t* const spill_keys[2],
                ec::Xyzz<C>* const spill_points[2], const uint64_t capacity[2], uint32_t* flags,
                cudaStream_t stream) {
    for (int k = 0; k < plan.count; ++k) {
        const Level& level = plan.levels[k];
        if (level.spill_count() > capacity[k % 2]) {
            throw std::logic_error(plugin::concat("BucketAccumulator: level ", k, " spills ", level.spill_count(),
                                                  " entries into a buffer of ", capacity[k % 2]));
        }
        const LevelOutput<C> out{dest,        key_limit, spill_keys[k % 2], spill_points[k % 2], flags + k,
                                 k > 0 ? flags + k - 1 : nullptr};
        if (k == 0 && affine != nullptr) {
            const uint32_t blocks = std::min(point_blocks(level.threads()), point_blocks(affine->slots));
            accumulate_affine_kernel<C><<<blocks, kPointThreads, 0, stream>>>(source, level, out, *affine);
            ZKB_CUDA_CHECK_LAUNCH("accumulate_affine_kernel");
        } else if (k == 0) {
            accumulate_kernel<C, GatherSource<C>><<<point_blocks(level.threads()), kPointThreads, 0, stream>>>(
                source, level, out);
            ZKB_CUDA_CHECK_LAUNCH("accumulate_kernel (level 0)");
        } else {
            const PointSource<C> spills{spill_keys[(k - 1) % 2], spill_points[(k - 1) % 2]};
            accumulate_kernel<C, PointSource<C>><<<point_blocks(level.threads()), kPointThreads, 0, stream>>>(
                spills, level, out);
            ZKB_CUDA_CHECK_LAUNCH("accumulate_kernel (spills)");
        }
    }
}

}  // namespace detail

template <class C>
BucketAccumulator<C>::BucketAccumulator(const MsmCapacity& capacity, void* lent_rounds_scratch, DeviceArena* arena)
    : capacity_(capacity) {
    resident_threads_ = detail::resident_threads(detail::accumulate_kernel<C, GatherSource<C>>);
    reduce_resident_threads_ = detail::resident_threads(detail::reduce_buckets_kernel<C>);
    buckets_ = DeviceBuffer<ec::Xyzz<C>>(capacity.max_buckets(), arena);
    for (int i = 0; i < 2; ++i) {
        spill_points_[i] = DeviceBuffer<ec::Xyzz<C>>(capacity.max_spills(i), arena);
        spill_keys_[i] = DeviceBuffer<uint32_t>(capacity.max_spills(i), arena);
    }
    level_flags_ = DeviceBuffer<uint32_t>(LevelPlan::kMaxLevels, arena);
    partials_ = DeviceBuffer<ec::Xyzz<C>>(capacity.max_reduce_threads(reduce_resident_threads_), arena);
    tree_sums_ = DeviceBuffer<ec::Xyzz<C>>(partials_.size() / 2 + 1, arena);  // a tree pass's groups are 2 or more
    window_sums_ = DeviceBuffer<ec::Xyzz<C>>(WindowLayout::windows_for(1), arena);
    if (capacity.affine_rounds) {
        affine_slots_ = detail::affine_slots<C>();
        const detail::AffineScratchLayout<C> scratch(affine_slots_, capacity.affine_segment);
        if (lent_rounds_scratch == nullptr) {
            own_rounds_scratch_ = DeviceBuffer<uint8_t>(scratch.bytes(), arena);
            lent_rounds_scratch = own_rounds_scratch_.data();
        }
        scratch.carve(lent_rounds_scratch, affine_points_, affine_prefix_, affine_keys_);
        affine_min_pairs_ = default_affine_min_pairs<C>();
    }
}

template <class C>
void BucketAccumulator<C>::set_affine_min_pairs(uint32_t min_pairs) {
    if (min_pairs != 0 && affine_slots_ == 0) {
        throw std::invalid_argument("BucketAccumulator: affine rounds need a capacity with affine_rounds set");
    }
    affine_min_pairs_ = min_pairs;
}

template <class C>
uint32_t BucketAccumulator<C>::device_affine_slots() {
    return detail::affine_slots<C>();
}

template <class C>
uint64_t BucketAccumulator<C>::device_bytes_for(const MsmCapacity& capacity) {
    // The constructor's buffers: buckets, the partials and the tree passes' half of them,
    // the two spill levels' points and keys, the level flags and the window sums.
    const uint64_t partials = capacity.max_reduce_threads(detail::resident_threads(detail::reduce_buckets_kernel<C>));
    const uint64_t spills = capacity.max_spills(0) + capacity.max_spills(1);
    const uint64_t points =
        capacity.max_buckets() + partials + (partials / 2 + 1) + spills + WindowLayout::windows_for(1);
    return points * sizeof(ec::Xyzz<C>) + (spills + LevelPlan::kMaxLevels) * sizeof(uint32_t) +
           rounds_scratch_bytes(capacity);
}

template <class C>
uint64_t BucketAccumulator<C>::rounds_scratch_bytes(const MsmCapacity& capacity) {
    if (!capacity.affine_rounds) return 0;
    return detail::AffineScratchLayout<C>(detail::affine_slots<C>(), capacity.affine_segment).bytes();
}

template <class C>
uint64_t BucketAccumulator<C>::device_bytes() const {
    return buckets_.bytes() + spill_points_[0].bytes() + spill_points_[1].bytes() + spill_keys_[0].bytes() +
           spill_keys_[1].bytes() + level_flags_.bytes() + partials_.bytes() + tree_sums_.bytes() +
           window_sums_.bytes() + own_rounds_scratch_.bytes();
}

template <class C>
void BucketAccumulator<C>::check_plain(const ScalarPlan& plan) {
    if (plan.layout().shared()) {
        throw std::invalid_argument("BucketAccumulator: a plan from prepare_shared runs over a BaseTable");
    }
}

template <class C>
void BucketAccumulator<C>::check_table(const ScalarPlan& plan, const BaseTable<C>& table) {
    const WindowLayout& layout = plan.layout();
    const TableShape shape = table.shape();
    if (layout.bits != shape.window_bits || layout.table_stride != shape.stride ||
        plan.point_count() != table.point_count()) {
        throw std::invalid_argument(plugin::concat(
            "BucketAccumulator: a table of ", table.point_count(), " points at ", shape.window_bits, " bits, stride ",
            shape.stride, ", needs a plan from prepare_shared of as many points in that shape (the plan: ",
            plan.point_count(), " points, ", layout.bits, " bits, ",
            layout.shared() ? plugin::concat("stride ", layout.table_stride, ")") : std::string("not shared)")));
    }
}

template <class C>
void BucketAccumulator<C>::run(const ScalarPlan& plan, const ec::Affine<C>* bases, ec::Jacobian<C>* result,
                               const Stream& stream, uint32_t first_segment, RunEvents* events) {
    check_plain(plan);
    accumulate(plan, bases, result, stream, first_segment, events);
}

template <class C>
void BucketAccumulator<C>::run(const ScalarPlan& plan, const BaseTable<C>& table, ec::Jacobian<C>* result,
                               const Stream& stream, uint32_t first_segment, RunEvents* events) {
    check_table(plan, table);
    accumulate(plan, table.points(), result, stream, first_segment, events);
}

template <class C>
WindowLayout BucketAccumulator<C>::run_windows(const ScalarPlan& plan, const ec::Affine<C>* bases,
                                               ec::Xyzz<C>* window_sums, const Stream& stream) {
    check_plain(plan);
    return accumulate_windows(plan, bases, window_sums, stream);
}

template <class C>
WindowLayout BucketAccumulator<C>::run_windows(const ScalarPlan& plan, const BaseTable<C>& table,
                                               ec::Xyzz<C>* window_sums, const Stream& stream) {
    check_table(plan, table);
    return accumulate_windows(plan, table.points(), window_sums, stream);
}

template <class C>
void BucketAccumulator<C>::accumulate(const ScalarPlan& plan, const ec::Affine<C>* points, ec::Jacobian<C>* result,
                                      const Stream& stream, uint32_t first_segment, RunEvents* events) {
    const ec::Xyzz<C>* sums = sum_windows(plan, points, stream, first_segment, events);
    // Step 6 (every scalar zero: the sum is infinity).
    if (sums != nullptr) {
        detail::combine_windows_kernel<C><<<1, 1, 0, stream.handle()>>>(sums, plan.layout().buckets(), result);
        ZKB_CUDA_CHECK_LAUNCH("combine_windows_kernel");
    } else {
        detail::infinity_kernel<C><<<1, 1, 0, stream.handle()>>>(result);
        ZKB_CUDA_CHECK_LAUNCH("infinity_kernel");
    }
    if (events) events->combined.record(stream);
}

template <class C>
WindowLayout BucketAccumulator<C>::accumulate_windows(const ScalarPlan& plan, const ec::Affine<C>* points,
                                                      ec::Xyzz<C>* window_sums, const Stream& stream) {
    const ec::Xyzz<C>* sums = sum_windows(plan, points, stream, 0, nullptr);
    if (sums == nullptr) return WindowLayout{plan.layout().bits, 0, 0};
    const WindowLayout layout = plan.layout().buckets();
    ZKB_CUDA_CHECK(cudaMemcpyAsync(window_sums, sums, layout.windows * sizeof(ec::Xyzz<C>), cudaMemcpyDeviceToDevice,
                                   stream.handle()));
    return layout;
}

template <class C>
const ec::Xyzz<C>* BucketAccumulator<C>::sum_windows(const ScalarPlan& plan, const ec::Affine<C>* points,
                                                     const Stream& stream, uint32_t first_segment, RunEvents* events) {
    if (first_segment != 0 && first_segment < std::max<uint32_t>(capacity_.min_forced_segment, 1)) {
        throw std::invalid_argument(plugin::concat("level-0 segment ", first_segment,
                                                   " is below the capacity's min_forced_segment ",
                                                   capacity_.min_forced_segment));
    }
    const cudaStream_t handle = stream.handle();
    stream.wait(plan.ready());
    if (events) events->start.record(stream);
    const WindowLayout layout = plan.layout().buckets();  // what steps 4-6 see: the windows with buckets
    const uint64_t entries = plan.entry_count();
    if (entries == 0) {  // every scalar zero (or no points)
        if (events) {
            events->accumulated.record(stream);
            events->buckets_reduced.record(stream);
        }
        return nullptr;
    }
    if (layout.bucket_count() > buckets_.size()) {
        throw std::logic_error(plugin::concat("BucketAccumulator: ", layout.bucket_count(),
                                              " buckets exceed the capacity of ", buckets_.size()));
    }
    uint32_t* const spill_keys[2] = {spill_keys_[0].data(), spill_keys_[1].data()};
    ec::Xyzz<C>* const spill_points[2] = {spill_points_[0].data(), spill_points_[1].data()};
    const uint64_t capacity[2] = {spill_keys_[0].size(), spill_keys_[1].size()};

    // Step 4: buckets start at infinity (ZZ = 0, what is_infinity reads), then the levels.
    ZKB_CUDA_CHECK(cudaMemsetAsync(buckets_.data(), 0, layout.bucket_count() * sizeof(ec::Xyzz<C>), handle));
    ZKB_CUDA_CHECK(cudaMemsetAsync(level_flags_.data(), 0, level_flags_.bytes(), handle));
    // Level 0 in batched affine rounds when they are on and the entries fill the slots
    // (or the caller forces the segment: tests).
    const uint32_t affine_segment =
        first_segment == 0 && affine_min_pairs_ != 0
            ? choose_affine_segment(entries, affine_slots_, capacity_.affine_segment)
            : 0;
    const bool rounds = affine_min_pairs_ != 0 && (first_segment != 0 || affine_segment != 0);
    ran_rounds_ = rounds;
    AffineScratch<C> affine;
    if (rounds) {
        for (int b = 0; b < 2; ++b) {
            affine.keys[b] = affine_keys_[b];
            affine.points[b] = affine_points_[b];
            affine.capacity[b] = affine_capacity(capacity_.affine_segment, b);
        }
        affine.prefix = affine_prefix_;
        affine.slots = affine_slots_;
        affine.min_pairs = affine_min_pairs_;
    }
    const uint32_t segment = level0_segment(entries, first_segment, affine_segment, resident_threads_, capacity[0]);
    const LevelPlan levels = plan_levels(static_cast<uint32_t>(entries), segment, kLaterSegment);
    const GatherSource<C> gather{plan.keys(), plan.values(), points};
    detail::run_levels<C>(levels, gather, rounds ? &affine : nullptr, buckets_.data(),
                          layout.bucket_count(), spill_keys, spill_points, capacity, level_flags_.data(), handle);
    if (events) events->accumulated.record(stream);

    // Step 5: chunks of buckets, then the chunks' sums per window in tree passes.
    const BucketReduceParams reduce{layout, choose_chunk_log(layout, reduce_resident_threads_)};
    if (reduce.threads() > partials_.size()) {  // MsmCapacity::max_reduce_threads's bound: a logic error if it fails
        throw std::logic_error(plugin::concat("BucketAccumulator: ", reduce.threads(),
                                              " bucket chunks exceed the capacity of ", partials_.size()));
    }
    detail::reduce_buckets_kernel<C><<<detail::point_blocks(reduce.threads()), detail::kPointThreads, 0, handle>>>(
        reduce, buckets_.data(), partials_.data());
    ZKB_CUDA_CHECK_LAUNCH("reduce_buckets_kernel");
    const TreePasses passes = plan_tree_passes(reduce.chunks_per_window());
    const ec::Xyzz<C>* sums = partials_.data();  // per window: chunks_per_window, then fewer
    uint32_t per_window = reduce.chunks_per_window();
    for (int pass = 0; pass < passes.count; ++pass) {
        const uint32_t group = passes.group_size[pass];
        per_window /= group;
        ec::Xyzz<C>* out = pass + 1 == passes.count ? window_sums_.data()
                           : pass % 2 == 0          ? tree_sums_.data()
                                                    : partials_.data();
        const uint32_t groups = layout.windows * per_window;
        detail::tree_sum_kernel<C><<<groups, kTreeThreads, 0, handle>>>(sums, group, out);
        ZKB_CUDA_CHECK_LAUNCH("tree_sum_kernel");
        sums = out;
    }
    if (events) events->buckets_reduced.record(stream);
    return sums;
}

}  // namespace zkbatch::cuda::msm
