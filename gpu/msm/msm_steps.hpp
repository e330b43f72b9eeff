// The device MSM's steps as host/device functions: what one thread of each kernel does,
// written once so the host can run the very same code (tests emulate the kernels thread
// by thread and compare with the CPU's msm::pippenger, without a GPU).
//
// The algorithm (msm.hpp has the API, docs/msm.md#the-algorithm the counts):
//  1. Scalars (canonical, or an Fr in Montgomery form, converted here) are classified: zero
//     (skipped), one, or full. One device-to-host read of the two counts follows; it
//     picks the window width c from the number of full scalars.
//  2. Entries: a full scalar's W = ceil(256 / c) signed c-bit digits become entries
//     (key = window * 2^(c-1) + |digit| - 1, value = point index with the digit's sign in
//     bit 31); a zero digit gets the skip key (sorted to the end, never added). A one is
//     a single entry, window 0 and bucket 0: it is added, not multiplied. Over a table of
//     the bases' window multiples (a shared layout of stride s), key = (w mod s) 2^(c-1) +
//     |digit| - 1 and the value names the table's point 2^(c s floor(w / s)) P_i: s sets
//     of buckets (one when the table holds every window's multiple), and steps 5 and 6
//     for s windows.
//  3. The entries are sorted by key (CUB radix sort), so each bucket's points are one run.
//  4. Accumulation, balanced whatever the bucket sizes: thread t of a level takes the
//     entries [t L, (t + 1) L) and adds each run of equal keys into an XYZZ sum (mixed
//     additions of the gathered affine bases at level 0). Keys are sorted, so a run that
//     does not continue into a neighbour's segment holds its bucket whole and is stored
//     as such; the segment's first and last runs, when they do continue, go to the next
//     level as (key, XYZZ point) entries, two slots per thread (unused slots are marked
//     empty). Each level has a quarter of the previous one's threads, down to one; a
//     level whose predecessor spilled no points returns at once, so uniform scalars
//     (buckets of tens of points) finish in two levels, and a bucket of n points (a
//     witness of all ones) costs n / L additions per thread plus 8 per level, never n
//     in one thread. Optionally (G2; AffineScratch) level 0 first halves its segment in
//     batched affine rounds, one inversion per round.
//  5. Bucket reduction, per window sum_k (k + 1) B_k: thread (w, t) takes the K buckets
//     [t K, (t + 1) K) and forms R = sum B and S = sum (j + 1) B_(tK+j) by running sums,
//     then S + (t K) R by double-and-add; blocks then sum each window's chunks in a tree
//     (shared memory, depth log2 instead of the chunk count).
//  6. The window sums are combined by Horner, c doublings per window, in one thread:
//     sum_w 2^(c w) S_w, in Jacobian coordinates, the result; or on the host, for an MSM
//     whose chunks' window sums are combined together (combine_window_sets).
// Why any order of additions gives the CPU's bytes: the group law is exact and the
// formulas handle P == Q and P == -Q, so the sum is the same group element, and its affine
// form (what a proof encodes) is unique.
#pragma once

#include "core/ec/point.hpp"
#include "core/ff/bn254.hpp"
#include "core/ff/fp2.hpp"
#include "core/ff/fr.hpp"
#include "core/msm/pippenger.hpp"
#include "core/util/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace zkbatch::cuda::msm {

using zkbatch::msm::Scalar;

// How the scalars lie in device memory.
enum class ScalarForm : uint32_t {
    canonical,         // msm::Scalar: the integer below r, four little-endian 64-bit limbs
    montgomery,        // BLS12-381's Fr as it stores itself (x R mod r): converted on the device
    bn254_montgomery,  // BN254's Fr as it stores itself: converted on the device
};

// The Montgomery form of a curve's scalar field F.
template <class F>
constexpr ScalarForm montgomery_form() {
    static_assert(std::is_same_v<F, ff::bls12_381::Fr> || std::is_same_v<F, ff::bn254::Fr>);
    return std::is_same_v<F, ff::bn254::Fr> ? ScalarForm::bn254_montgomery : ScalarForm::montgomery;
}

inline constexpr uint32_t kMaxWindowBits = 24;   // W * 2^(c-1) keys fit easily in 32 bits
inline constexpr uint32_t kSignBit = 0x80000000u;  // in an entry's value: subtract the point
inline constexpr uint64_t kMaxPoints = kSignBit;   // point indices are 31-bit

// The windows of c-bit signed digits of a scalar below r < 2^255 (either curve's r).
// W = ceil(256 / c): the top window's digit (bits c (W-1) .. 255 plus the carry from
// below) is at most 2^(c-1) because c W >= 256, so it is kept non-negative and no carry
// leaves it; the other digits lie in [-2^(c-1), 2^(c-1)). Bucket k of a window holds the
// points whose digit has |digit| = k + 1.
// Shared (over a BaseTable of stride s, whose multiple k of base i, 2^(c s k) P_i, lies
// at k n + i): window w's digits name multiple floor(w / s) and go into bucket set
// w mod s, since 2^(c w) P_i = 2^(c (w mod s)) 2^(c s floor(w / s)) P_i. So s sets of
// buckets are reduced and combined as windows 0 .. s - 1; at s = 1 one set and no
// combination (docs/msm.md#base-tables).
struct WindowLayout {
    uint32_t bits = 1;
    uint32_t windows = 1;
    uint32_t table_stride = 0;  // 0: over the bases themselves, every window its own buckets

    ZKB_HOST_DEVICE static constexpr uint32_t windows_for(uint32_t bits) { return (256 + bits - 1) / bits; }
    ZKB_HOST_DEVICE constexpr bool shared() const { return table_stride != 0; }
    ZKB_HOST_DEVICE constexpr uint32_t buckets_per_window() const { return 1u << (bits - 1); }
    // The windows that have buckets of their own: all, or the stride's when they share.
    ZKB_HOST_DEVICE constexpr uint32_t bucket_windows() const {
        return table_stride == 0 || table_stride > windows ? windows : table_stride;
    }
    ZKB_HOST_DEVICE constexpr uint32_t bucket_count() const { return bucket_windows() * buckets_per_window(); }
    // The layout the reduction and the combination see: the bucket windows.
    ZKB_HOST_DEVICE constexpr WindowLayout buckets() const { return WindowLayout{bits, bucket_windows(), 0}; }
    // The key of zero digits: past every bucket, so sorting puts them last.
    ZKB_HOST_DEVICE constexpr uint32_t skip_key() const { return bucket_count(); }
    // How many low key bits the sort must look at.
    constexpr uint32_t key_bits() const {
        uint32_t bits_needed = 0;
        while ((uint64_t{1} << bits_needed) <= skip_key()) ++bits_needed;
        return bits_needed;
    }
};

// A BaseTable's shape: c-bit windows, and the multiples 2^(c s k) P_i of every base for
// k < ceil(W / s). Stride 1 holds every window's multiple (W n points, one set of
// buckets); a larger stride holds every s-th one in 1/s of that memory, for s sets of
// buckets to reduce (what fits where a whole table does not:
// docs/msm.md#tables-of-every-s-th-window).
struct TableShape {
    uint32_t window_bits = 1;
    uint32_t stride = 1;

    ZKB_HOST_DEVICE constexpr uint32_t multiples() const {
        return (WindowLayout::windows_for(window_bits) + stride - 1) / stride;
    }
    friend constexpr bool operator==(const TableShape&, const TableShape&) = default;
};

// ---- step 1: classification -------------------------------------------------------------

enum class ScalarClass : uint8_t { zero = 0, one = 1, full = 2 };

ZKB_HOST_DEVICE inline ScalarClass classify(const Scalar& s) {
    if ((s.limbs[1] | s.limbs[2] | s.limbs[3]) != 0) return ScalarClass::full;
    if (s.limbs[0] == 0) return ScalarClass::zero;
    return s.limbs[0] == 1 ? ScalarClass::one : ScalarClass::full;
}

struct ClassifyParams {
    const void* scalars = nullptr;  // n of ScalarForm
    ScalarForm form = ScalarForm::canonical;
    uint32_t count = 0;
    Scalar* canonical = nullptr;  // out: n canonical scalars
    uint8_t* full_flags = nullptr;  // out: 1 for full scalars
    uint8_t* one_flags = nullptr;   // out: 1 for ones
    // Optional, n indices: the MSM's scalar i is scalars[gather[i]] (a sparse B's MSMs
    // over the variables in B, whose points alone the key holds: DeviceProvingKey::b_variables).
    const uint32_t* gather = nullptr;
};

ZKB_HOST_DEVICE inline void classify_scalar(const ClassifyParams& p, uint32_t i) {
    const uint32_t source = p.gather != nullptr ? p.gather[i] : i;
    Scalar s;
    if (p.form == ScalarForm::montgomery) {
        static_cast<const ff::bls12_381::Fr*>(p.scalars)[source].to_canonical(s.limbs);
    } else if (p.form == ScalarForm::bn254_montgomery) {
        static_cast<const ff::bn254::Fr*>(p.scalars)[source].to_canonical(s.limbs);
    } else {
        s = static_cast<const Scalar*>(p.scalars)[source];
    }
    p.canonical[i] = s;
    const ScalarClass c = classify(s);
    p.full_flags[i] = c == ScalarClass::full ? 1 : 0;
    p.one_flags[i] = c == ScalarClass::one ? 1 : 0;
}

// ---- step 2: entries ----------------------------------------------------------------------

// The signed digit of window w given the carry from window w - 1; updates the carry.
ZKB_HOST_DEVICE inline int32_t signed_digit(const Scalar& s, const WindowLayout& layout, uint32_t window,
                                            uint32_t& carry) {
    const uint32_t raw = ec::scalar_window(s.limbs, window * layout.bits, layout.bits) + carry;
    const uint32_t half = layout.buckets_per_window();
    if (window + 1 < layout.windows && raw >= half) {
        carry = 1;
        return static_cast<int32_t>(raw) - static_cast<int32_t>(half << 1);
    }
    carry = 0;
    return static_cast<int32_t>(raw);
}

struct EntryParams {
    const Scalar* canonical = nullptr;
    const uint32_t* full_indices = nullptr;  // the full scalars' point indices, ascending
    const uint32_t* one_indices = nullptr;   // the ones'
    uint32_t full_count = 0;
    uint32_t one_count = 0;
    WindowLayout layout;
    uint32_t point_stride = 0;  // a shared layout's table: multiple k's points start at k point_stride
    uint32_t* keys = nullptr;    // out: full_count * windows + one_count entries
    uint32_t* values = nullptr;
    ZKB_HOST_DEVICE uint64_t entry_count() const { return uint64_t{full_count} * layout.windows + one_count; }
};

// Thread j < full_count writes full scalar j's entry of window w at w full_count + j
// (window by window, so a warp's stores are contiguous: at j W + w each store of a warp
// would touch 32 sectors, several times slower: docs/msm.md#sorting-the-entries); thread
// full_count + k writes one k's entry after all of them.
ZKB_HOST_DEVICE inline void write_entries(const EntryParams& p, uint32_t j) {
    if (j >= p.full_count) {
        const uint32_t k = j - p.full_count;
        const uint64_t at = uint64_t{p.full_count} * p.layout.windows + k;
        p.keys[at] = 0;  // window 0, |digit| = 1
        p.values[at] = p.one_indices[k];
        return;
    }
    const uint32_t index = p.full_indices[j];
    const Scalar s = p.canonical[index];
    uint32_t carry = 0;
    for (uint32_t w = 0; w < p.layout.windows; ++w) {
        const uint64_t at = uint64_t{w} * p.full_count + j;
        const int32_t digit = signed_digit(s, p.layout, w, carry);
        if (digit == 0) {
            p.keys[at] = p.layout.skip_key();
            p.values[at] = 0;
        } else {
            const uint32_t magnitude = static_cast<uint32_t>(digit < 0 ? -digit : digit);
            const uint32_t stride = p.layout.table_stride;
            const uint32_t bucket_window = stride == 0 ? w : w % stride;
            const uint32_t point = stride == 0 ? index : w / stride * p.point_stride + index;
            p.keys[at] = bucket_window * p.layout.buckets_per_window() + magnitude - 1;
            p.values[at] = point | (digit < 0 ? kSignBit : 0u);
        }
    }
}

// ---- memory access ----------------------------------------------------------------------

// A point from or to global memory: 16-byte vector accesses on the device (every point
// type is a multiple of 16 bytes and cudaMalloc'ed arrays of them are 16-byte aligned);
// read-only loads through the non-coherent path.
template <class T>
ZKB_HOST_DEVICE ZKB_FORCEINLINE T load_point(const T* source) {
    static_assert(sizeof(T) % 16 == 0 && std::is_trivially_copyable_v<T>);
#if defined(__CUDA_ARCH__)
    T value;
    const ulonglong2* words = reinterpret_cast<const ulonglong2*>(source);
    ulonglong2* out = reinterpret_cast<ulonglong2*>(&value);
    ZKB_UNROLL
    for (size_t i = 0; i < sizeof(T) / 16; ++i) out[i] = __ldg(words + i);
    return value;
#else
    return *source;
#endif
}

template <class T>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void store_point(T* destination, const T& value) {
    static_assert(sizeof(T) % 16 == 0 && std::is_trivially_copyable_v<T>);
#if defined(__CUDA_ARCH__)
    ulonglong2* words = reinterpret_cast<ulonglong2*>(destination);
    const ulonglong2* in = reinterpret_cast<const ulonglong2*>(&value);
    ZKB_UNROLL
    for (size_t i = 0; i < sizeof(T) / 16; ++i) words[i] = in[i];
#else
    *destination = value;
#endif
}

ZKB_HOST_DEVICE ZKB_FORCEINLINE uint32_t load_word(const uint32_t* source) {
#if defined(__CUDA_ARCH__)
    return __ldg(source);
#else
    return *source;
#endif
}

// Asks for the cache lines of [address, address + bytes) in L2 ahead of their load (a
// hint: no register waits for it); nothing on the host.
ZKB_HOST_DEVICE ZKB_FORCEINLINE void prefetch_l2(const void* address, size_t bytes) {
#if defined(__CUDA_ARCH__)
    const char* first = static_cast<const char*>(address);
    asm volatile("prefetch.global.L2 [%0];" ::"l"(first));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(first + bytes - 1));
#else
    (void)address, (void)bytes;
#endif
}

// ---- step 4: accumulation levels --------------------------------------------------------

// Level 0's entries: sorted (key, signed point index) pairs over affine bases.
template <class C>
struct GatherSource {
    const uint32_t* keys = nullptr;
    const uint32_t* values = nullptr;
    const ec::Affine<C>* bases = nullptr;

    ZKB_HOST_DEVICE uint32_t key(uint32_t i) const { return load_word(keys + i); }
    // The base entry i names, before its sign.
    ZKB_HOST_DEVICE const ec::Affine<C>* base(uint32_t i) const { return bases + (load_word(values + i) & ~kSignBit); }
    // Entry i's point: its base, negated when the digit was.
    ZKB_HOST_DEVICE ec::Affine<C> point(uint32_t i) const {
        const uint32_t value = load_word(values + i);
        ec::Affine<C> point = load_point(bases + (value & ~kSignBit));
        if (value & kSignBit) point.y = -point.y;
        return point;
    }
    // The gathered point of entry i, into L2 before add() needs it.
    ZKB_HOST_DEVICE void prefetch(uint32_t i) const { prefetch_l2(base(i), sizeof(ec::Affine<C>)); }
    ZKB_HOST_DEVICE ec::Xyzz<C> add(const ec::Xyzz<C>& sum, uint32_t i) const {
        return ec::xyzz_add_mixed(sum, point(i));
    }
};

// Later levels' entries: (key, XYZZ partial sum) pairs, sorted by key.
template <class C>
struct PointSource {
    const uint32_t* keys = nullptr;
    const ec::Xyzz<C>* points = nullptr;

    ZKB_HOST_DEVICE uint32_t key(uint32_t i) const { return load_word(keys + i); }
    ZKB_HOST_DEVICE void prefetch(uint32_t) const {}  // read in order: the loads stream
    ZKB_HOST_DEVICE ec::Xyzz<C> add(const ec::Xyzz<C>& sum, uint32_t i) const {
        return ec::xyzz_add(sum, load_point(points + i));
    }
};

// Spill entries carry their run's key, with this bit set when the entry holds no points
// (a slot whose run was complete, or a run of skipped digits): such entries keep the keys
// sorted and are never written to a bucket. Bucket and window keys stay below 2^31.
inline constexpr uint32_t kEmptyBit = 0x80000000u;

// One level: `count` entries in segments of `segment`, one thread each, the boundaries
// shifted down by `offset`: thread t takes [t segment - offset, (t + 1) segment - offset)
// within [0, count). Later levels shift by segment - 1, so their boundaries fall between
// a thread's two spill slots, never between one thread's last slot and the next one's
// first: a bucket that straddled one boundary of the level before is whole in one
// segment of this level, and uniform scalars need no third level.
struct Level {
    uint32_t count = 0;
    uint32_t segment = 1;
    uint32_t offset = 0;  // < segment
    ZKB_HOST_DEVICE uint32_t threads() const { return (count + offset + segment - 1) / segment; }
    ZKB_HOST_DEVICE uint32_t begin(uint32_t t) const { return t == 0 ? 0 : t * segment - offset; }
    ZKB_HOST_DEVICE uint32_t end(uint32_t t) const {
        const uint64_t end = uint64_t{t + 1} * segment - offset;
        return end < count ? static_cast<uint32_t>(end) : count;
    }
    ZKB_HOST_DEVICE bool terminal() const { return threads() <= 1; }
    // The entries the level hands to the next one (two per thread).
    ZKB_HOST_DEVICE uint32_t spill_count() const { return terminal() ? 0 : 2 * threads(); }
};

// Where a level's sums go: whole runs to dest[key], the segment's first and last runs,
// when they continue in a neighbour's segment, to spill entries 2t and 2t + 1.
// `spilled` is set to 1 when any thread spills points; a level whose `previous_spilled`
// is 0 has nothing left to do (every bucket is complete) and returns at once.
template <class C>
struct LevelOutput {
    ec::Xyzz<C>* dest = nullptr;
    uint32_t key_limit = 0;  // keys at or above it (the skip key) are never added or written
    uint32_t* spill_keys = nullptr;
    ec::Xyzz<C>* spill_points = nullptr;
    uint32_t* spilled = nullptr;
    const uint32_t* previous_spilled = nullptr;  // null for level 0
};

// How many entries ahead a level-0 thread asks for its bases: one entry's additions take
// longer than a load from memory, so two keep a load in flight under each addition.
inline constexpr uint32_t kPrefetchDistance = 2;

namespace detail {

template <class C>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void spill(const LevelOutput<C>& out, uint32_t slot, uint32_t key, bool holds_points,
                                           const ec::Xyzz<C>& sum) {
    out.spill_keys[slot] = holds_points ? key : key | kEmptyBit;
    store_point(out.spill_points + slot, holds_points ? sum : ec::Xyzz<C>::infinity());
    if (holds_points) *out.spilled = 1;
}

}  // namespace detail

// The runs at a segment's ends: the first run's key and whether it continues from the
// entry before the segment, the last run's and whether it continues into the next one.
// Equal keys are contiguous, so a run that continues neither way holds all of its key's
// entries of this level.
struct SegmentEnds {
    uint32_t first_key = 0, last_key = 0;
    bool first_continues = false, last_continues = false;
};

template <class Source>
ZKB_HOST_DEVICE SegmentEnds segment_ends(const Source& source, const Level& level, uint32_t begin, uint32_t end) {
    SegmentEnds ends;
    ends.first_key = source.key(begin) & ~kEmptyBit;
    ends.last_key = source.key(end - 1) & ~kEmptyBit;
    ends.first_continues = begin > 0 && (source.key(begin - 1) & ~kEmptyBit) == ends.first_key;
    ends.last_continues = end < level.count && (source.key(end) & ~kEmptyBit) == ends.last_key;
    return ends;
}

namespace detail {

// Where one run's sum goes: a continuing run of the first key to spill slot 2t (the
// single run of a segment too, whichever way it continues), a continuing run of the last
// key to 2t + 1, any other run holding points to dest[key].
template <class C>
struct RunWriter {
    const LevelOutput<C>& out;
    const SegmentEnds& ends;
    bool terminal;
    uint32_t t;
    bool first_slot_written = false, last_slot_written = false;

    ZKB_HOST_DEVICE void finish(uint32_t key, const ec::Xyzz<C>& sum, bool holds_points) {
        const bool single_run = ends.first_key == ends.last_key;
        if (!terminal && key == ends.first_key && (ends.first_continues || (single_run && ends.last_continues))) {
            spill(out, 2 * t, key, holds_points, sum);
            first_slot_written = true;
        } else if (!terminal && !single_run && key == ends.last_key && ends.last_continues) {
            spill(out, 2 * t + 1, key, holds_points, sum);
            last_slot_written = true;
        } else if (holds_points) {
            store_point(out.dest + key, sum);
        }
    }
    // Slots no run spilled to are written empty, with their run's key.
    ZKB_HOST_DEVICE void close() {
        if (terminal) return;
        if (!first_slot_written) spill(out, 2 * t, ends.first_key, false, ec::Xyzz<C>::infinity());
        if (!last_slot_written) spill(out, 2 * t + 1, ends.last_key, false, ec::Xyzz<C>::infinity());
    }
};

}  // namespace detail

// Adds each run of equal keys among items [begin, end) (sorted: a segment's entries, or
// what the batched affine rounds left of them) and writes it where it goes
// (detail::RunWriter). Items with the empty bit or a key at or above the limit are not
// added; their runs still end the runs before them.
template <class C, class Items>
ZKB_HOST_DEVICE void sum_runs(const Items& items, uint32_t begin, uint32_t end, const SegmentEnds& ends,
                              bool terminal, const LevelOutput<C>& out, uint32_t t) {
    detail::RunWriter<C> writer{out, ends, terminal, t};
    if (begin < end) {
        uint32_t key = items.key(begin) & ~kEmptyBit;
        ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
        bool holds_points = false;
        for (uint32_t i = begin; i < end; ++i) {
            if (i + kPrefetchDistance < end) items.prefetch(i + kPrefetchDistance);
            const uint32_t raw_key = items.key(i);
            const uint32_t next_key = raw_key & ~kEmptyBit;
            if (next_key != key) {
                writer.finish(key, sum, holds_points);
                key = next_key;
                sum = ec::Xyzz<C>::infinity();
                holds_points = false;
            }
            if ((raw_key & kEmptyBit) == 0 && next_key < out.key_limit) {
                sum = items.add(sum, i);
                holds_points = true;
            }
        }
        writer.finish(key, sum, holds_points);
    }
    writer.close();
}

// Thread t of a level (the header's step 4): its segment's runs, each stored whole or
// spilled to the next level when it continues beyond the segment. Unused spill slots are
// empty entries with their run's key, which no other thread's entries have.
template <class C, class Source>
ZKB_HOST_DEVICE void accumulate_segment(const Source& source, const Level& level, const LevelOutput<C>& out,
                                        uint32_t t) {
    if (out.previous_spilled != nullptr && *out.previous_spilled == 0) return;
    const uint32_t begin = level.begin(t);
    const uint32_t end = level.end(t);
    if (begin >= end) return;
    sum_runs<C>(source, begin, end, segment_ends(source, level, begin, end), level.terminal(), out, t);
}

// ---- step 4, level 0 in batched affine rounds ----------------------------------------------
// An affine sum P + Q costs 3 products given 1 / (x_Q - x_P), a mixed XYZZ addition 10,
// and one inversion serves a whole batch of them (Montgomery's trick: 3 products each; in
// G2, 17 Fp products in all with the inverse through the norm, against 28). So level 0
// may first halve its segment in rounds: every two neighbouring entries of one bucket
// become their affine sum in a thread's scratch, with one inversion (Fp::inverse's
// divsteps, about 50 products' time) for all of the round's pairs; then the runs of what
// is left are added as before (sum_runs). A round pays when it has more pairs than the
// inversion costs over the saving per pair (AffineScratch::min_pairs), and when the
// rounds' memory traffic does not eat the saving (docs/msm.md#batched-affine-rounds).

// The base field of a curve's coordinates: Fp for G1, the Fp of G2's Fp2; the batch's
// products are in it.
template <class Field>
struct BaseFieldOf {
    using type = Field;
};
template <class Tower>
struct BaseFieldOf<ff::tower::Fp2<Tower>> {
    using type = typename Tower::BaseField;
};
template <class C>
using BaseField = typename BaseFieldOf<typename C::Field>::type;
template <class C>
inline constexpr bool kOverExtension = !std::is_same_v<typename C::Field, BaseField<C>>;

// A thread's scratch: slot s's item j at j slots + s (a warp's slots side by side), two
// buffers the rounds alternate between (the larger first), and the batch's prefix
// products.
template <class C>
struct AffineScratch {
    uint32_t* keys[2] = {nullptr, nullptr};
    ec::Affine<C>* points[2] = {nullptr, nullptr};
    BaseField<C>* prefix = nullptr;  // capacity[0] per slot
    uint32_t capacity[2] = {0, 0};   // items per slot
    uint32_t slots = 0;
    uint32_t min_pairs = 1;  // a round runs only with at least this many pairs (>= 1)
};

// A round's input: a segment's sorted entries (values set: a GatherSource over the
// segment), or the items a previous round left in a thread's slot.
template <class C>
struct RoundItems {
    const uint32_t* keys = nullptr;
    const uint32_t* values = nullptr;  // null for a slot's items
    const ec::Affine<C>* points = nullptr;
    uint32_t stride = 1;

    ZKB_HOST_DEVICE GatherSource<C> entries() const { return GatherSource<C>{keys, values, points}; }
    ZKB_HOST_DEVICE uint32_t key(uint32_t i) const { return load_word(keys + uint64_t{i} * stride); }
    ZKB_HOST_DEVICE const ec::Affine<C>* at(uint32_t i) const {
        return values != nullptr ? entries().base(i) : points + uint64_t{i} * stride;
    }
    ZKB_HOST_DEVICE typename C::Field x(uint32_t i) const { return load_point(&at(i)->x); }  // the sign leaves x
    ZKB_HOST_DEVICE ec::Affine<C> point(uint32_t i) const {
        return values != nullptr ? entries().point(i) : load_point(points + uint64_t{i} * stride);
    }
    ZKB_HOST_DEVICE void prefetch(uint32_t i) const {
        if (values != nullptr) entries().prefetch(i);
    }
    ZKB_HOST_DEVICE ec::Xyzz<C> add(const ec::Xyzz<C>& sum, uint32_t i) const {
        return ec::xyzz_add_mixed(sum, point(i));
    }
};

// How an affine pair adds: along the chord (distinct x), the tangent (P == Q), or with no
// division (either is infinity, or Q == -P; a point with y = 0 would double to infinity).
enum class PairKind : uint8_t { chord, tangent, first, second, infinity };

template <class C>
ZKB_HOST_DEVICE PairKind pair_kind(const ec::Affine<C>& p, const ec::Affine<C>& q) {
    if (q.is_infinity()) return PairKind::first;
    if (p.is_infinity()) return PairKind::second;
    if (p.x != q.x) return PairKind::chord;
    return p.y == q.y && !p.y.is_zero() ? PairKind::tangent : PairKind::infinity;
}

// Whether a pair's denominator goes into the round's batch: a tangent's, and every pair's
// whose x's differ. That includes a pair with one point at infinity, whose sum needs no
// slope: the forward pass then settles every pair with distinct x's from the x's alone.
// A key's query holds many such points (~4% of a full-density synthetic circuit's B: the
// variables no B term references), and a forward pass that loaded their whole points
// would make G2's rounds 8% slower at 2^26 (docs/msm.md#points-at-infinity).
template <class C>
ZKB_HOST_DEVICE bool takes_factor(PairKind kind, const ec::Affine<C>& p, const ec::Affine<C>& q) {
    return kind == PairKind::tangent || p.x != q.x;
}

// The denominator the batch takes for a pair (takes_factor): 2 y_P for a tangent, else
// x_Q - x_P (a chord's slope's; a pair with one point at infinity takes it unused).
template <class C>
ZKB_HOST_DEVICE typename C::Field pair_denominator(PairKind kind, const ec::Affine<C>& p, const ec::Affine<C>& q) {
    return kind == PairKind::tangent ? p.y.dbl() : q.x - p.x;
}

// What the batch multiplies for a denominator d: d in Fp; in Fp2 its norm N(d) (an Fp),
// so the batch's products are Fp products, and 1 / d = conj(d) / N(d).
template <class C>
ZKB_HOST_DEVICE BaseField<C> batch_factor(const typename C::Field& d) {
    if constexpr (kOverExtension<C>) {
        return d.norm();
    } else {
        return d;
    }
}
template <class C>
ZKB_HOST_DEVICE typename C::Field inverse_from_factor(const typename C::Field& d,
                                                      const BaseField<C>& factor_inverse) {
    if constexpr (kOverExtension<C>) {
        return d.conjugate().scale(factor_inverse);
    } else {
        return factor_inverse;
    }
}

// The slope's two products. G2's take Fp2's lazy reduction, which is faster here (the
// rounds' kernel has the registers) and slower as the product of the XYZZ loops
// (docs/msm.md#fp2-products).
template <class C>
ZKB_HOST_DEVICE typename C::Field slope_product(const typename C::Field& a, const typename C::Field& b) {
    if constexpr (kOverExtension<C>) {
        return C::Field::lazy_product(a, b);
    } else {
        return a * b;
    }
}

// P + Q given the inverse of the pair's denominator (read for a chord or a tangent only).
template <class C>
ZKB_HOST_DEVICE ec::Affine<C> pair_sum(PairKind kind, const ec::Affine<C>& p, const ec::Affine<C>& q,
                                      const typename C::Field& denominator_inverse) {
    using Field = typename C::Field;
    if (kind == PairKind::first) return p;
    if (kind == PairKind::second) return q;
    if (kind == PairKind::infinity) return ec::Affine<C>::infinity();
    Field numerator = q.y - p.y;
    if (kind == PairKind::tangent) {
        const Field square = p.x.sqr();
        numerator = square.dbl() + square;
    }
    const Field slope = slope_product<C>(numerator, denominator_inverse);
    ec::Affine<C> sum;
    sum.x = slope.sqr() - p.x - q.x;
    sum.y = slope_product<C>(slope, p.x - sum.x) - p.y;
    return sum;
}

// The pairs a round would make of `count` items: neighbours with equal keys, from the left.
template <class C>
ZKB_HOST_DEVICE uint32_t count_pairs(const RoundItems<C>& items, uint32_t count) {
    uint32_t pairs = 0;
    for (uint32_t i = 0; i + 1 < count;) {
        if (items.key(i) == items.key(i + 1)) {
            ++pairs;
            i += 2;
        } else {
            i += 1;
        }
    }
    return pairs;
}

// Between a round's passes an output key slot holds its pair's first input index.
inline constexpr uint32_t kPairBit = 0x80000000u;

// One round over `count` items into out_keys/out_points (stride apart): each pair
// (count_pairs) becomes its sum, any other item is copied; returns the items written.
// Forward: the pairs' batch factors multiplied up, prefix[j] the product before pair j
// (only the x's are read, the y's only when the x's are equal); one inversion; backward:
// each factor's inverse from the running inverse and its prefix, then the sums.
template <class C>
ZKB_HOST_DEVICE uint32_t affine_round(const RoundItems<C>& in, uint32_t count, uint32_t* out_keys,
                                      ec::Affine<C>* out_points, BaseField<C>* prefix, uint32_t stride) {
    using Field = typename C::Field;
    BaseField<C> product = BaseField<C>::one();
    uint32_t written = 0;
    uint32_t key = count > 0 ? in.key(0) : 0;
    for (uint32_t i = 0; i < count; ++written) {
        const uint32_t next_key = i + 1 < count ? in.key(i + 1) : ~0u;
        const uint64_t at = uint64_t{written} * stride;
        if (next_key == key) {
            const Field xp = in.x(i), xq = in.x(i + 1);
            bool factor = true;
            Field denominator = xq - xp;
            if (xp == xq) {  // rare: P + P, P + (-P) or two at infinity; the whole points decide
                const ec::Affine<C> p = in.point(i), q = in.point(i + 1);
                const PairKind kind = pair_kind(p, q);
                factor = takes_factor(kind, p, q);
                denominator = pair_denominator(kind, p, q);
            }
            if (factor) {
                prefix[at] = product;
                product = product * batch_factor<C>(denominator);
            }
            out_keys[at] = i | kPairBit;
            i += 2;
            key = i < count ? in.key(i) : 0;
        } else {
            out_keys[at] = key;
            store_point(out_points + at, in.point(i));
            i += 1;
            key = next_key;
        }
    }
    BaseField<C> inverse = product.inverse();  // 1 / (the product of every factor before the one at hand)
    for (uint32_t j = written; j-- > 0;) {
        const uint64_t at = uint64_t{j} * stride;
        const uint32_t tag = out_keys[at];
        if ((tag & kPairBit) == 0) continue;
        const uint32_t i = tag & ~kPairBit;
        const ec::Affine<C> p = in.point(i), q = in.point(i + 1);
        const PairKind kind = pair_kind(p, q);
        Field denominator_inverse = Field::zero();
        if (takes_factor(kind, p, q)) {
            const Field denominator = pair_denominator(kind, p, q);
            const BaseField<C> factor_inverse = inverse * prefix[at];
            inverse = inverse * batch_factor<C>(denominator);
            denominator_inverse = inverse_from_factor<C>(denominator, factor_inverse);
        }
        out_keys[at] = in.key(i);
        store_point(out_points + at, pair_sum(kind, p, q, denominator_inverse));
    }
    return written;
}

// Thread t of level 0 with batched affine rounds, in scratch slot `slot`: the entries
// below the key limit (a prefix of the segment: skip keys sort last) go through rounds
// while a round has min_pairs pairs and its output fits its buffer, then sum_runs adds
// and writes the runs left, as accumulate_segment would have the segment's.
template <class C>
ZKB_HOST_DEVICE void accumulate_segment_affine(const GatherSource<C>& source, const Level& level,
                                               const LevelOutput<C>& out, const AffineScratch<C>& scratch,
                                               uint32_t slot, uint32_t t) {
    const uint32_t begin = level.begin(t);
    const uint32_t end = level.end(t);
    if (begin >= end) return;
    const SegmentEnds ends = segment_ends(source, level, begin, end);
    uint32_t count = end - begin;
    while (count > 0 && source.key(begin + count - 1) >= out.key_limit) --count;
    RoundItems<C> items{source.keys + begin, source.values + begin, source.bases, 1};
    for (uint32_t round = 0;; ++round) {
        const uint32_t buffer = round % 2;
        const uint32_t pairs = count_pairs(items, count);
        if (pairs == 0 || pairs < scratch.min_pairs || count - pairs > scratch.capacity[buffer]) break;
        uint32_t* const keys = scratch.keys[buffer] + slot;
        ec::Affine<C>* const points = scratch.points[buffer] + slot;
        count = affine_round<C>(items, count, keys, points, scratch.prefix + slot, scratch.slots);
        items = RoundItems<C>{keys, nullptr, points, scratch.slots};
    }
    sum_runs<C>(items, 0, count, ends, level.terminal(), out, t);
}

// Level 0's segment with batched affine rounds for `slots` threads at once: at most
// `max_segment` entries each (MsmCapacity::affine_segment), in whole waves of the slots;
// 0 (no rounds) when that segment is shorter than kMinAffineSegment. A round's one
// inversion is shared by the segment's pairs, so longer segments pay it less often, for
// scratch that grows with them (the slots' whole wave of 226 bytes an entry in G2: 15.6
// GB at 2048 on the H200). On the H200's G2 (docs/msm.md#where-the-rounds-pay), segments
// of about 1,000 entries gain nothing (six waves of 993 over a table at 2^24) or lose (a
// mostly boolean witness's B2, one wave of at most 1,043), and so do seven waves of
// 1,844; one wave of 1,614 or 1,986 gains 13-16% (2^22, over a table and plain),
// 3,000-6,000 gain 9-24%. kMinAffineSegment lies between.
inline constexpr uint32_t kAffineSegment = 2048;  // MsmCapacity::affine_segment's default
inline constexpr uint32_t kMinAffineSegment = 1280;
// The scratch a slot needs in buffer 0 and 1 for segments up to `max_segment` entries:
// half of them and some runs' odd ones after the first round, a quarter and as much
// after the second.
constexpr uint32_t affine_capacity(uint32_t max_segment, int buffer) {
    return (buffer == 0 ? max_segment / 2 : max_segment / 4) + max_segment / 8;
}

inline uint32_t choose_affine_segment(uint64_t entries, uint64_t slots, uint32_t max_segment = kAffineSegment) {
    if (slots == 0 || max_segment < kMinAffineSegment || entries < slots * kMinAffineSegment) return 0;
    const uint64_t waves = (entries + slots * max_segment - 1) / (slots * max_segment);
    const auto segment = static_cast<uint32_t>((entries + waves * slots - 1) / (waves * slots));
    return segment < kMinAffineSegment ? 0 : segment;
}

// The pairs a round needs to pay, by count: a pair's affine sum (6 products with its
// share of the batch; 17 Fp products in G2, the norms included) stands in for one of the
// mixed additions that would have added its points (10; 28 in G2), so a pair saves 4
// (11) against the round's inversion (divsteps, about 50 products' time): ~13 pairs (~5).
// Measured (docs/msm.md#where-the-rounds-pay), G1's rounds are slower at every min_pairs
// (their memory traffic outweighs 4 products a pair), so G1's default is 0, none; G2's 50
// is the best of 16, 50 and 100 for plain G2 at 2^26, B2's shape in large proofs.
template <class C>
constexpr uint32_t default_affine_min_pairs() {
    return kOverExtension<C> ? 50 : 0;
}

// The levels of one accumulation: level 0 of `entries` in segments of `first_segment`,
// each later one of the previous level's spills in segments of `segment` (shifted, see
// Level), until a level has one thread. That is the worst case (a bucket spanning every segment: a
// witness of all ones); when the buckets are small, the levels after the first two find
// nothing spilled and return at once.
struct LevelPlan {
    static constexpr int kMaxLevels = 40;
    Level levels[kMaxLevels];
    int count = 0;
    // The largest spill counts of even and odd levels: the two spill buffers.
    uint32_t spill_capacity[2] = {0, 0};
};

inline LevelPlan plan_levels(uint32_t entries, uint32_t first_segment, uint32_t segment) {
    LevelPlan plan;
    if (entries == 0) return plan;
    uint32_t count = entries;
    uint32_t length = first_segment < 1 ? 1 : first_segment;
    uint32_t next_offset = 0;
    for (;;) {
        Level& level = plan.levels[plan.count];
        level.count = count;
        level.segment = length;
        level.offset = next_offset;
        const uint32_t spills = level.spill_count();
        uint32_t& capacity = plan.spill_capacity[plan.count % 2];
        if (spills > capacity) capacity = spills;
        ++plan.count;
        if (level.terminal()) break;
        count = spills;
        // Shifted boundaries need more than one segment to shrink: 2 ceil((count + L - 1)
        // / L) < count for count > L >= 8; at most one segment's worth is one thread.
        length = segment;
        next_offset = count <= segment ? 0 : segment - 1;
    }
    return plan;
}

// ---- step 5: bucket reduction -------------------------------------------------------------

// k P for a small public k, by double-and-add from k's top bit.
template <class C>
ZKB_HOST_DEVICE ec::Xyzz<C> multiply_small(const ec::Xyzz<C>& point, uint32_t k) {
    ec::Xyzz<C> result = ec::Xyzz<C>::infinity();
    for (int bit = 31; bit >= 0; --bit) {
        result = ec::xyzz_dbl(result);
        if ((k >> bit) & 1) result = ec::xyzz_add(result, point);
    }
    return result;
}

struct BucketReduceParams {
    WindowLayout layout;
    uint32_t chunk_log = 0;  // K = 2^chunk_log buckets per thread, <= bits - 1
    ZKB_HOST_DEVICE uint32_t chunk() const { return 1u << chunk_log; }
    ZKB_HOST_DEVICE uint32_t chunks_per_window() const { return layout.buckets_per_window() >> chunk_log; }
    ZKB_HOST_DEVICE uint32_t threads() const { return layout.windows * chunks_per_window(); }
};

// Thread `thread` = w * chunks_per_window + t: partials[thread] = sum_j (t K + j + 1)
// B_(w, tK + j). The partials lie window by window, chunks_per_window each.
template <class C>
ZKB_HOST_DEVICE void reduce_bucket_chunk(const BucketReduceParams& p, const ec::Xyzz<C>* buckets,
                                         ec::Xyzz<C>* partials, uint32_t thread) {
    const uint32_t window = thread / p.chunks_per_window();
    const uint32_t t = thread % p.chunks_per_window();
    const uint32_t first = t << p.chunk_log;
    const ec::Xyzz<C>* chunk = buckets + uint64_t{window} * p.layout.buckets_per_window() + first;
    ec::Xyzz<C> running = ec::Xyzz<C>::infinity();
    ec::Xyzz<C> weighted = ec::Xyzz<C>::infinity();
    for (uint32_t j = p.chunk(); j-- > 0;) {
        running = ec::xyzz_add(running, load_point(chunk + j));
        weighted = ec::xyzz_add(weighted, running);
    }
    // weighted = sum_j (j + 1) B_j; the chunk's buckets weigh `first` more each.
    if (first != 0) weighted = ec::xyzz_add(weighted, multiply_small(running, first));
    store_point(partials + thread, weighted);
}

// Sums of equal groups of points (the chunk partials of each window): block g of
// kTreeThreads threads sums in[g size, (g + 1) size), thread i the elements i,
// i + kTreeThreads, ... (tree_thread_sum), then the threads' sums pairwise in shared
// memory, halving the stride each step (tree_step), so a group of 512 costs 8 + 6
// serial additions, not 512.
inline constexpr uint32_t kTreeThreads = 64;
inline constexpr uint32_t kTreeFanIn = 512;  // the largest group one block sums

template <class C>
ZKB_HOST_DEVICE ec::Xyzz<C> tree_thread_sum(const ec::Xyzz<C>* in, uint32_t size, uint32_t group, uint32_t thread) {
    ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
    for (uint32_t j = thread; j < size; j += kTreeThreads) {
        sum = ec::xyzz_add(sum, load_point(in + uint64_t{group} * size + j));
    }
    return sum;
}

template <class C>
ZKB_HOST_DEVICE void tree_step(ec::Xyzz<C>* shared, uint32_t stride, uint32_t thread) {
    if (thread < stride) shared[thread] = ec::xyzz_add(shared[thread], shared[thread + stride]);
}

// The group sizes of the passes that take `per_window` partials (a power of two) to one
// per window: each pass sums groups of up to kTreeFanIn.
struct TreePasses {
    static constexpr int kMaxPasses = 8;
    uint32_t group_size[kMaxPasses] = {};
    int count = 0;
};

inline TreePasses plan_tree_passes(uint32_t per_window) {
    TreePasses passes;
    while (per_window > 1) {
        const uint32_t group = per_window < kTreeFanIn ? per_window : kTreeFanIn;
        passes.group_size[passes.count++] = group;
        per_window /= group;
    }
    return passes;
}

// ---- step 6: the windows ------------------------------------------------------------------

// sum_w 2^(c w) S_w by Horner from the top window.
template <class C>
ZKB_HOST_DEVICE ec::Jacobian<C> combine_windows(const ec::Xyzz<C>* window_sums, const WindowLayout& layout) {
    ec::Jacobian<C> total = ec::Jacobian<C>::infinity();
    for (uint32_t w = layout.windows; w-- > 0;) {
        if (w + 1 < layout.windows) {
            for (uint32_t i = 0; i < layout.bits; ++i) total = ec::dbl(total);
        }
        total = ec::add(total, load_point(window_sums + w).to_jacobian());
    }
    return total;
}

// The sum of an MSM's chunks from their window sums, on the host: each chunk leaves its
// S_w (chunk k's at window_sums + k slot, in layouts[k]; no windows for a chunk of zero
// scalars), combined here once where one device thread per chunk would spend c doublings
// a window on each (2 ms in G1, 5 in G2). Chunks of one layout are summed window by window
// first, so each layout costs one Horner.
template <class C>
ec::Jacobian<C> combine_window_sets(const ec::Xyzz<C>* window_sums, size_t slot,
                                    std::span<const WindowLayout> layouts) {
    const auto same = [](const WindowLayout& x, const WindowLayout& y) {
        return x.bits == y.bits && x.windows == y.windows;
    };
    ec::Jacobian<C> total = ec::Jacobian<C>::infinity();
    std::vector<bool> summed(layouts.size(), false);
    std::vector<ec::Xyzz<C>> sums;
    for (size_t k = 0; k < layouts.size(); ++k) {
        const WindowLayout& layout = layouts[k];
        if (summed[k] || layout.windows == 0) continue;
        sums.assign(window_sums + k * slot, window_sums + k * slot + layout.windows);
        for (size_t j = k + 1; j < layouts.size(); ++j) {
            if (summed[j] || !same(layouts[j], layout)) continue;
            for (uint32_t w = 0; w < layout.windows; ++w) sums[w] = ec::xyzz_add(sums[w], window_sums[j * slot + w]);
            summed[j] = true;
        }
        total = ec::add(total, combine_windows<C>(sums.data(), layout));
    }
    return total;
}

// ---- base tables --------------------------------------------------------------------------

// 2^bits P, the next window's point of a BaseTable, in XYZZ: made affine by the table's
// kernel with one inversion per group of points (fixed_base_steps.hpp's invert_group).
// Infinity stays infinity.
template <class C>
ZKB_HOST_DEVICE ec::Xyzz<C> next_window_sum(const ec::Affine<C>& point, uint32_t bits) {
    ec::Xyzz<C> sum = ec::Xyzz<C>::from_affine(point);
    for (uint32_t i = 0; i < bits; ++i) sum = ec::xyzz_dbl(sum);
    return sum;
}

// ---- sizes --------------------------------------------------------------------------------

// The estimated cost of an MSM of `full_count` full scalars at c = `bits`, in Fp
// products: W(c) (n A + 2^(c-1) B), A the cost of an entry (a mixed addition: 10
// products, plus its share of sorting) and B of a bucket (two full additions in the
// reduction, 28, plus the chunk's double-and-add); over a BaseTable of stride s
// (table_stride; 0: over the bases), n W(c) A + min(s, W) 2^(c-1) B: the entries are
// the same, the bucket sets are s.
inline double estimated_msm_cost(uint64_t full_count, uint32_t bits, uint32_t table_stride = 0) {
    constexpr double kEntryCost = 12.0, kBucketCost = 40.0;
    const WindowLayout layout{bits, WindowLayout::windows_for(bits), table_stride};
    return double(layout.windows) * kEntryCost * double(full_count) +
           double(layout.bucket_windows()) * kBucketCost * double(layout.buckets_per_window());
}

// The window width minimizing estimated_msm_cost, up to max_bits. Over a table of stride
// 1 one window's buckets cost what W did, which favours wider windows (20 at 2^22 points,
// 22 at 2^24, 24 at 2^26, against 16, 20 and 20 over the bases). Non-decreasing in
// full_count.
inline uint32_t choose_window_bits(uint64_t full_count, uint32_t max_bits = 20, uint32_t table_stride = 0) {
    uint32_t best = 1;
    double best_cost = 0;
    for (uint32_t bits = 1; bits <= max_bits; ++bits) {
        const double cost = estimated_msm_cost(full_count, bits, table_stride);
        if (bits == 1 || cost < best_cost) {
            best = bits;
            best_cost = cost;
        }
    }
    return best;
}

// The level-0 segment for `entries` entries: about 2^18 threads, each at least 16 entries
// (fewer: more spills, two per thread, each a full addition at level 1) and at most 256;
// then, given the threads the GPU holds at once (`resident_threads`; 0: unknown), a
// little longer, so that they fill whole waves instead of leaving a last partial one
// (2^22 points at c = 16 in segments of 256 are 5.17 waves of G1's 50,688 resident
// threads on the H200; in segments of 265 they are 5), which makes G2's accumulation
// 2.2-2.7% faster and G1's no slower (docs/msm.md#level-0-in-whole-waves). Never shorter
// than the first choice, so the spill bounds (MsmCapacity::max_spills) hold.
inline uint32_t choose_first_segment(uint64_t entries, uint64_t resident_threads) {
    const uint64_t per_thread = (entries + (uint64_t{1} << 18) - 1) >> 18;
    const uint64_t segment = per_thread < 16 ? 16 : per_thread > 256 ? 256 : per_thread;
    const uint64_t waves = resident_threads == 0 ? 0 : (entries + segment - 1) / segment / resident_threads;
    if (waves == 0) return static_cast<uint32_t>(segment);  // under one wave: all run at once
    const uint64_t in_waves = (entries + waves * resident_threads - 1) / (waves * resident_threads);
    return static_cast<uint32_t>(in_waves > segment ? in_waves : segment);  // whole waves already: as it was
}

// `segment`, or the shortest longer one whose level 0 of `entries` spills at most
// `spill_capacity` entries (two a thread) where it would spill more: a capacity sized for
// the rounds' segments (MsmCapacity::spills_for_rounds) lengthens plain ones.
inline uint32_t fit_first_segment(uint64_t entries, uint32_t segment, uint64_t spill_capacity) {
    const uint64_t most_threads = spill_capacity / 2 > 0 ? spill_capacity / 2 : 1;
    const uint64_t shortest = (entries + most_threads - 1) / most_threads;
    return shortest > segment ? static_cast<uint32_t>(shortest) : segment;
}

// Level 0's segment as BucketAccumulator runs it: a caller's forced one, else the
// rounds' (`affine_segment`, 0 when they do not run), else choose_first_segment's for
// `resident_threads`, lengthened to fit `spill_capacity` (fit_first_segment).
inline uint32_t level0_segment(uint64_t entries, uint32_t forced_segment, uint32_t affine_segment,
                               uint64_t resident_threads, uint64_t spill_capacity) {
    if (forced_segment != 0) return forced_segment;
    if (affine_segment != 0) return affine_segment;
    return fit_first_segment(entries, choose_first_segment(entries, resident_threads), spill_capacity);
}

// Entries per thread from level 1 on: a level's serial additions are its segment, and a
// bucket spanning everything needs log_(segment / 2) of the levels, so 8 (depth 8 per
// level of 4x shrinking) beats 32 (depth 32 per 16x).
inline constexpr uint32_t kLaterSegment = 8;
static_assert(kLaterSegment >= 8, "the shifted levels shrink only for segments of 8 or more");

// The reduction's K = 2^chunk_log buckets a thread, for a device that holds
// `resident_threads` reduce_bucket_chunk threads at once (0 counts as 1). A thread
// costs 2K additions and its multiply_small, about (bits - 1) doublings at 0.6 of an
// addition (G2: 24 Fp products against 40) and an addition for every other bit of its
// chunk's first bucket; the kernel costs that times its waves. A fixed K = 32 would take
// G2's 2^21 buckets at 2^24 in two waves of the H200's 33,792 threads, where K = 64 takes
// one (18.8 ms against 22.4; G1's 2^23 at 2^26 11.7 against 20.2:
// docs/msm.md#chunk-length).
inline uint32_t choose_chunk_log(const WindowLayout& layout, uint64_t resident_threads) {
    const uint32_t bucket_log = layout.bits - 1;
    const uint64_t resident = resident_threads == 0 ? 1 : resident_threads;
    uint32_t best = 0;
    double best_cost = 0;
    for (uint32_t chunk_log = 0; chunk_log <= bucket_log; ++chunk_log) {
        const uint64_t threads = uint64_t{layout.windows} << (bucket_log - chunk_log);
        const double waves = double((threads + resident - 1) / resident);
        const double per_thread =
            2.0 * double(1u << chunk_log) + 0.6 * bucket_log + 0.5 * (bucket_log - chunk_log) + 1.0;
        if (chunk_log == 0 || waves * per_thread < best_cost) {
            best = chunk_log;
            best_cost = waves * per_thread;
        }
    }
    return best;
}

}  // namespace zkbatch::cuda::msm
