// The device MSM: sum_i [s_i] P_i for affine bases and scalars in device memory, for G1
// and G2 (one template), equal as a group element to msm::pippenger's (so the affine
// bytes are the same). The algorithm and every thread's code: msm_steps.hpp; the design
// and its measurements: docs/msm.md#the-algorithm.
//
// Two objects, both allocated once for the largest MSM they will see:
// - ScalarPlan: the scalars' sorted bucket entries (classification, signed digits,
//   radix sort). What several MSMs over the same scalars share: a Groth16 proof
//   multiplies its witness z with three queries (A, B in G1, B in G2).
// - BucketAccumulator<C>: the bucket sums of one curve, their reduction and the window
//   combination, for one plan and one set of bases at a time.
// - BaseTable<C> (optional): the bases' multiples 2^(c w) P_i for every window w (or
//   every s-th, TableShape), built once for bases that do not change (a proving key). An
//   MSM over it (a plan from prepare_shared) adds every window into one set of buckets
//   (s sets): W n table points of memory buy away all but one window's bucket reduction
//   and the combination, and make wider windows (fewer of them) pay; W n / s points buy
//   away all but s.
// Everything is enqueued on the caller's stream. prepare() waits once on the host (for
// the counts of full scalars and ones, which size the sort and pick the window width);
// run() does not wait at all.
#pragma once

#include "gpu/util/device_buffer.hpp"
#include "gpu/util/event.hpp"
#include "gpu/msm/msm_steps.hpp"
#include "gpu/util/pinned_buffer.hpp"
#include "gpu/util/stream.hpp"
#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zkbatch::cuda::msm {

// What an MSM's buffers are sized for.
struct MsmCapacity {
    uint64_t max_points = 0;
    // The automatic window width's upper bound (choose_window_bits).
    uint32_t max_window_bits = 20;
    // Window widths a caller may also force (prepare's window_bits); 0 = none.
    std::vector<uint32_t> forced_window_bits;
    // The smallest level-0 segment a caller may force (run's first_segment).
    uint32_t min_forced_segment = 0;
    // The shapes of the BaseTables a plan may be prepared for (prepare_shared).
    std::vector<TableShape> shared_tables;
    // Whether plans are also prepared over the bases themselves (prepare, whose widths
    // include the forced ones). false sizes everything for shared_tables alone: a
    // proof's G2 accumulator over B2's table at 2^24 then holds 2^21 buckets, not 13
    // windows of 2^19, and their spills (2.78 GB instead of 7.43).
    bool plain = true;
    // Scratch for level 0 in batched affine rounds (msm_steps.hpp; a few GB at the H200's
    // resident threads): BucketAccumulator then uses them where they pay.
    bool affine_rounds = false;
    // Their segments' longest (choose_affine_segment); the scratch grows with it.
    uint32_t affine_segment = kAffineSegment;
    // With affine_rounds: level 0's spills sized for the rounds' segments, which are at
    // least kMinAffineSegment entries, not for choose_first_segment's 256. A level 0
    // without rounds (turned off, or too few entries for them) then runs segments long
    // enough to fit where its chosen ones would spill more (fit_first_segment). A proof's
    // G2 at 2^26: 0.7 GB of spills instead of 3.6.
    bool spills_for_rounds = false;

    // The most entries any allowed choice produces for at most max_points scalars.
    uint64_t max_entries() const;
    // The most buckets (bucket windows x 2^(c-1)) of any allowed layout.
    uint64_t max_buckets() const;
    // The most window sums (bucket windows) of any allowed layout: what
    // BucketAccumulator::run_windows writes.
    uint32_t max_windows() const;
    // The most spill entries of level 0 (even levels) and of level 1 (odd levels).
    uint64_t max_spills(int parity) const;
    // The most bucket chunks (BucketReduceParams::threads, the reduction's partial sums)
    // of any allowed layout, on a device holding `resident_threads` reduction threads at
    // once (choose_chunk_log): a few per thread of a wave, far fewer than the buckets.
    uint64_t max_reduce_threads(uint64_t resident_threads) const;
    // The widths prepare() may pick for counts up to max_points (none unless plain),
    // forced ones included.
    std::vector<uint32_t> window_bits_in_use() const;
};

// Optional device timestamps of an MSM's steps (the benchmark's breakdown): each event
// is recorded on the MSM's stream after its step.
struct PlanEvents {
    Event start, classified, counted, entries_written, sorted;
};
struct RunEvents {
    Event start, accumulated, buckets_reduced, combined;
};

class ScalarPlan {
public:
    // Its buffers from `arena` where one is given (device_bytes_for's bytes, each buffer
    // padded to DeviceArena::kAlignment), else memory of its own.
    explicit ScalarPlan(const MsmCapacity& capacity, DeviceArena* arena = nullptr);

    // Steps 1-3 for the n scalars at `scalars` (device memory, `form`), on `stream`.
    // window_bits = 0 chooses from the number of full scalars; otherwise it must be one
    // of the capacity's forced widths. `gather` (n device indices, optional): the MSM's
    // scalar i is scalars[gather[i]]. Blocks until the counts are on the host.
    void prepare(const void* scalars, ScalarForm form, uint64_t n, const Stream& stream, uint32_t window_bits = 0,
                 PlanEvents* events = nullptr, const uint32_t* gather = nullptr);
    // The same for an MSM over a BaseTable of n points and shape `table` (one of the
    // capacity's shared_tables): a shared layout.
    void prepare_shared(const void* scalars, ScalarForm form, uint64_t n, const Stream& stream, TableShape table,
                        PlanEvents* events = nullptr, const uint32_t* gather = nullptr);

    uint64_t point_count() const { return point_count_; }
    uint64_t full_count() const { return full_count_; }
    uint64_t one_count() const { return one_count_; }
    uint64_t entry_count() const { return entry_count_; }
    // Windows whose buckets hold anything: the layout's, or just window 0 for ones alone.
    const WindowLayout& layout() const { return layout_; }
    const uint32_t* keys() const { return keys_; }
    const uint32_t* values() const { return values_; }
    // Recorded on prepare's stream once the entries are sorted: runs on other streams
    // wait for it.
    const Event& ready() const { return ready_; }
    const MsmCapacity& capacity() const { return capacity_; }
    uint64_t device_bytes() const;
    // What a plan of `capacity` allocates, CUB's scratch included (CUB sizes it for the
    // current device): what a backend adds up before it allocates anything. Throws
    // std::invalid_argument for a capacity the constructor refuses.
    static uint64_t device_bytes_for(const MsmCapacity& capacity);

private:
    void prepare_layout(const void* scalars, ScalarForm form, uint64_t n, const Stream& stream, uint32_t window_bits,
                        uint32_t table_stride, PlanEvents* events, const uint32_t* gather);

    MsmCapacity capacity_;
    uint64_t max_entries_ = 0;
    DeviceBuffer<Scalar> canonical_;
    DeviceBuffer<uint8_t> full_flags_, one_flags_;
    DeviceBuffer<uint32_t> full_indices_, one_indices_;
    DeviceBuffer<uint32_t> counts_;  // full, ones
    DeviceBuffer<uint32_t> key_buffers_[2], value_buffers_[2];
    DeviceBuffer<uint8_t> cub_scratch_;
    PinnedBuffer host_counts_;
    Event ready_;

    uint64_t point_count_ = 0, full_count_ = 0, one_count_ = 0, entry_count_ = 0;
    WindowLayout layout_;
    const uint32_t* keys_ = nullptr;
    const uint32_t* values_ = nullptr;
};

template <class C>
class BaseTable {
public:
    // Room for `max_points` bases in `shape` (shape.multiples() of them each). Throws
    // std::invalid_argument for a width outside 1..kMaxWindowBits, a stride outside
    // 1..W, or more than kMaxPoints points.
    BaseTable(uint64_t max_points, TableShape shape);

    // Multiple 0 := the n bases (device memory), multiple k := 2^(c s) times multiple
    // k - 1, affine; enqueued on `stream`. About W c doublings and W / (32 s) inversions
    // per base: seconds at 2^24 points, once per key.
    void build(const ec::Affine<C>* bases, uint64_t n, const Stream& stream);

    TableShape shape() const { return shape_; }
    uint64_t point_count() const { return point_count_; }  // n of the last build
    const ec::Affine<C>* points() const { return points_.data(); }
    uint64_t device_bytes() const { return points_.bytes(); }
    static uint64_t device_bytes_for(uint64_t max_points, TableShape shape);

private:
    TableShape shape_;
    uint64_t max_points_;
    uint64_t point_count_ = 0;
    DeviceBuffer<ec::Affine<C>> points_;
};

extern template class BaseTable<ec::G1Params>;
extern template class BaseTable<ec::G2Params>;
extern template class BaseTable<ec::bn254::G1Params>;
extern template class BaseTable<ec::bn254::G2Params>;

template <class C>
class BucketAccumulator {
public:
    // With capacity.affine_rounds, the rounds' scratch (rounds_scratch_bytes) goes in
    // `lent_rounds_scratch` when given (device memory, 16-byte aligned, that the caller
    // leaves alone while a run on this accumulator may still be in level 0), else in
    // memory of its own. The other buffers come from `arena` where one is given (as
    // ScalarPlan's), else from memory of its own.
    explicit BucketAccumulator(const MsmCapacity& capacity, void* lent_rounds_scratch = nullptr,
                               DeviceArena* arena = nullptr);

    // Steps 4-6: writes sum_i [s_i] bases[i] to *result (device memory) for the plan's
    // scalars; bases holds plan.point_count() points (device memory, (0, 0) = infinity).
    // `stream` first waits for plan.ready(). first_segment = 0 chooses the level-0
    // segment (choose_first_segment, for this device's resident threads); otherwise at
    // least the capacity's min_forced_segment.
    void run(const ScalarPlan& plan, const ec::Affine<C>* bases, ec::Jacobian<C>* result, const Stream& stream,
             uint32_t first_segment = 0, RunEvents* events = nullptr);
    // The same over a table of the bases, for a plan from prepare_shared at the table's
    // shape and point count.
    void run(const ScalarPlan& plan, const BaseTable<C>& table, ec::Jacobian<C>* result, const Stream& stream,
             uint32_t first_segment = 0, RunEvents* events = nullptr);
    // Steps 4 and 5 alone, over the bases or a table as run: the plan's window sums S_w
    // into window_sums (device memory, room for the capacity's max_windows()), for
    // combine_window_sets to combine on the host together with the other chunks of the
    // same MSM. Returns the layout they are in: no windows when every scalar is zero.
    WindowLayout run_windows(const ScalarPlan& plan, const ec::Affine<C>* bases, ec::Xyzz<C>* window_sums,
                             const Stream& stream);
    WindowLayout run_windows(const ScalarPlan& plan, const BaseTable<C>& table, ec::Xyzz<C>* window_sums,
                             const Stream& stream);

    // Level 0's batched affine rounds: a round runs with at least min_pairs pairs (the
    // default: default_affine_min_pairs); 0 turns them off. Needs capacity.affine_rounds.
    // They run when the entries give each of the affine_slots() at least
    // kMinAffineSegment (choose_affine_segment), or with a forced first_segment.
    void set_affine_min_pairs(uint32_t min_pairs);
    uint32_t affine_min_pairs() const { return affine_min_pairs_; }
    uint32_t affine_slots() const { return affine_slots_; }
    // Whether the last run's level 0 ran in batched affine rounds, writing their scratch
    // (lent memory included); decided on the host as the run was enqueued.
    bool ran_rounds() const { return ran_rounds_; }
    // The slots an accumulator with affine_rounds gets on the current device (the rounds'
    // kernel's resident threads): what choose_affine_segment divides the entries among.
    static uint32_t device_affine_slots();

    uint64_t device_bytes() const;
    // What an accumulator of `capacity` allocates: host arithmetic, no device needed
    // (with affine_rounds, the current device's resident threads size the scratch). Less
    // rounds_scratch_bytes where the caller lends that.
    static uint64_t device_bytes_for(const MsmCapacity& capacity);
    // The rounds' scratch under `capacity` on the current device (0 without affine_rounds).
    static uint64_t rounds_scratch_bytes(const MsmCapacity& capacity);

private:
    // Throw std::invalid_argument unless `plan` runs over the bases, or over `table`.
    static void check_plain(const ScalarPlan& plan);
    static void check_table(const ScalarPlan& plan, const BaseTable<C>& table);
    // Steps 4 and 5: the window sums, in the layout plan.layout().buckets(); null when
    // every scalar is zero.
    const ec::Xyzz<C>* sum_windows(const ScalarPlan& plan, const ec::Affine<C>* points, const Stream& stream,
                                   uint32_t first_segment, RunEvents* events);
    // Steps 4-6.
    void accumulate(const ScalarPlan& plan, const ec::Affine<C>* points, ec::Jacobian<C>* result,
                    const Stream& stream, uint32_t first_segment, RunEvents* events);
    // Steps 4 and 5, the sums copied to window_sums.
    WindowLayout accumulate_windows(const ScalarPlan& plan, const ec::Affine<C>* points, ec::Xyzz<C>* window_sums,
                                    const Stream& stream);

    MsmCapacity capacity_;
    uint64_t resident_threads_ = 0;         // level 0's threads the current device holds at once
    uint64_t reduce_resident_threads_ = 0;  // and the bucket reduction's
    DeviceBuffer<ec::Xyzz<C>> buckets_;
    DeviceBuffer<ec::Xyzz<C>> spill_points_[2];
    DeviceBuffer<uint32_t> spill_keys_[2];
    DeviceBuffer<uint32_t> level_flags_;  // LevelOutput::spilled of each level
    DeviceBuffer<ec::Xyzz<C>> partials_, tree_sums_;  // the bucket chunks' sums and the tree passes'
    DeviceBuffer<ec::Xyzz<C>> window_sums_;
    uint32_t affine_slots_ = 0, affine_min_pairs_ = 0;  // AffineScratch
    bool ran_rounds_ = false;
    DeviceBuffer<uint8_t> own_rounds_scratch_;           // empty when lent
    uint32_t* affine_keys_[2] = {nullptr, nullptr};      // in the own or the lent scratch
    ec::Affine<C>* affine_points_[2] = {nullptr, nullptr};
    BaseField<C>* affine_prefix_ = nullptr;
};

extern template class BucketAccumulator<ec::G1Params>;
extern template class BucketAccumulator<ec::G2Params>;
extern template class BucketAccumulator<ec::bn254::G1Params>;
extern template class BucketAccumulator<ec::bn254::G2Params>;

// One MSM in one call, with its own plan and scratch: tests and simple callers.
template <class C>
class DeviceMsm {
public:
    explicit DeviceMsm(const MsmCapacity& capacity) : plan_(capacity), accumulator_(capacity) {}
    void compute(const ec::Affine<C>* bases, const void* scalars, ScalarForm form, uint64_t n,
                 ec::Jacobian<C>* result, const Stream& stream, uint32_t window_bits = 0) {
        plan_.prepare(scalars, form, n, stream, window_bits);
        accumulator_.run(plan_, bases, result, stream);
    }
    const ScalarPlan& plan() const { return plan_; }

private:
    ScalarPlan plan_;
    BucketAccumulator<C> accumulator_;
};

}  // namespace zkbatch::cuda::msm
