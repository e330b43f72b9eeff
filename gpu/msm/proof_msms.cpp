#include "gpu/msm/proof_msms.hpp"

#include "core/plugin/error.hpp"

#include <algorithm>
#include <future>
#include <initializer_list>
#include <optional>
#include <stdexcept>

namespace zkbatch::cuda {

namespace {

uint64_t chunks(uint64_t points, uint64_t chunk_points) {
    return std::max<uint64_t>(1, (points + chunk_points - 1) / chunk_points);
}

struct ChunkCounts {
    uint64_t z, a, b, l, h;  // chunks of z (its upload's), of A's MSM, of B's two, of L's, of H's
    bool sparse_b;           // B's chunks follow A's, which then make one interval
    uint64_t g1_sums() const { return a + b + l + h; }
    // Where a G1 MSM's chunk sums start among g1_sums(): A's, B1's, L's, then H's.
    uint64_t first_g1_sum(groth16::ProofMsm msm) const {
        switch (msm) {
            case groth16::ProofMsm::a: return 0;
            case groth16::ProofMsm::b_g1: return a;
            case groth16::ProofMsm::l: return a + b;
            case groth16::ProofMsm::h: return a + b + l;
            case groth16::ProofMsm::b_g2: break;
        }
        throw std::logic_error("ChunkCounts: B2's sums are G2 points");
    }
    uint64_t intervals() const { return (sparse_b ? 1 : z) + 2 * b + 2; }  // ProofMsms::kMaxChunkIntervals
};

// 0 (no chunks) as the largest MSM.
template <class Curve>
uint64_t effective_chunk(const groth16::generic::ProvingKey<Curve>& header, uint64_t chunk_points) {
    const uint64_t largest = largest_query(header);
    return chunk_points == 0 ? largest : std::min(chunk_points, largest);
}

// For B's queries of `b_points` points (DeviceProvingKey::b_points), with a lane beside H
// in chunks of `beside_points` (0: none), which runs L's MSM, and A's where B is sparse.
// device_bytes_for sizes for a dense B's and A beside H, the most there can be.
template <class Curve>
ChunkCounts chunk_counts(const groth16::generic::ProvingKey<Curve>& header, uint64_t chunk_points,
                         uint64_t beside_points, std::optional<uint64_t> b_points = std::nullopt) {
    const uint64_t b = b_points.value_or(header.num_variables);
    const bool sparse_b = b < header.num_variables;
    const uint64_t z = chunks(header.num_variables, chunk_points);
    const bool a_beside_h = beside_points != 0 && (sparse_b || !b_points);
    return {z,
            a_beside_h ? chunks(header.num_variables, beside_points) : z,
            chunks(b, chunk_points),
            chunks(header.private_variables(), beside_points != 0 ? beside_points : chunk_points),
            chunks(header.h_points(), chunk_points),
            sparse_b};
}

// For at most `points` points of MSMs of which some run over `tables` and some over
// the bases themselves (`plain`).
msm::MsmCapacity capacity_for(uint64_t points, std::initializer_list<std::optional<msm::TableShape>> tables,
                              bool plain) {
    msm::MsmCapacity capacity;
    capacity.max_points = points;
    for (const auto& table : tables) {
        if (table) capacity.shared_tables.push_back(*table);
    }
    capacity.plain = plain;
    return capacity;
}

// Prepares `plan` for an MSM over a base table of shape `table`, or for one over the
// bases themselves when there is none.
void prepare(msm::ScalarPlan& plan, const std::optional<msm::TableShape>& table, const void* scalars,
             msm::ScalarForm form, uint64_t n, const Stream& stream, const uint32_t* gather = nullptr) {
    if (table) {
        plan.prepare_shared(scalars, form, n, stream, *table, nullptr, gather);
    } else {
        plan.prepare(scalars, form, n, stream, 0, nullptr, gather);
    }
}

// The shape of a key's table, if it has one.
template <class C>
std::optional<msm::TableShape> shape_of(const msm::BaseTable<C>* table) {
    return table ? std::optional(table->shape()) : std::nullopt;
}

// The window sums of one MSM (or chunk) of `plan`'s scalars into `window_sums`: over
// `table` when the query has one, else over `bases`. Returns their layout.
template <class C>
msm::WindowLayout accumulate(msm::BucketAccumulator<C>& accumulator, const msm::ScalarPlan& plan,
                             const msm::BaseTable<C>* table, const ec::Affine<C>* bases, ec::Xyzz<C>* window_sums,
                             const Stream& stream) {
    return table != nullptr ? accumulator.run_windows(plan, *table, window_sums, stream)
                            : accumulator.run_windows(plan, bases, window_sums, stream);
}

// What the plan and each accumulator are sized for: chunks of at most `chunk` points of
// the MSMs each serves (the plan and the G1 accumulator: all but B2's, the G2
// accumulator: z's), in the layouts `memory`'s tables leave them, and G2's rounds'
// scratch for the longest segment its most entries can use of memory.g2_affine_segment.
// Where B2 runs on the host there is no G2 accumulator (its capacity is unused).
struct Capacities {
    msm::MsmCapacity plan, g1, g2;
};
template <class Curve>
Capacities capacities(const groth16::generic::ProvingKey<Curve>& header, uint64_t chunk, const MsmMemoryPlan& memory) {
    const uint64_t z = std::min(chunk, header.num_variables);
    const uint64_t most = std::max(z, std::min(chunk, std::max(header.private_variables(), header.h_points())));
    const bool all_tabled = memory.z && memory.h && memory.l;
    Capacities sized{capacity_for(most, {memory.z, memory.h, memory.l}, !all_tabled),
                     capacity_for(most, {memory.z, memory.h, memory.l}, !all_tabled),
                     capacity_for(z, {memory.z}, !memory.z)};
    if (memory.g2_affine_segment != 0 && !memory.key.b2_on_host()) {
        sized.g2.affine_segment = msm::choose_affine_segment(
            sized.g2.max_entries(), msm::BucketAccumulator<typename Curve::G2Params>::device_affine_slots(),
            memory.g2_affine_segment);
        sized.g2.affine_rounds = sized.g2.affine_segment != 0;
        sized.g2.spills_for_rounds = true;
    }
    return sized;
}

// A lane beside H's plan and G1 accumulator: chunks of `points` over the bases themselves
// (a streamed key has no tables).
msm::MsmCapacity beside_h_capacity(uint64_t points) { return capacity_for(points, {}, true); }

// The queries a lane beside H streams: those of A and L the key streams.
KeyPlacement beside_h_placement(const KeyPlacement& key) {
    KeyPlacement placement;
    for (groth16::ProofMsm msm : {groth16::ProofMsm::a, groth16::ProofMsm::l}) {
        if (key.streamed(msm)) placement.stream(msm);
    }
    return placement;
}

// A lane's buffers in chunks of `points`, each of its fewer than 32 buffers padded to the
// arena's alignment.
template <class Curve>
uint64_t beside_h_bytes(uint64_t points, const KeyPlacement& key) {
    const msm::MsmCapacity capacity = beside_h_capacity(points);
    return msm::ScalarPlan::device_bytes_for(capacity) +
           msm::BucketAccumulator<typename Curve::G1Params>::device_bytes_for(capacity) +
           QueryStager::device_bytes_for(points, beside_h_placement(key), PointBytes::of<Curve>()) +
           32 * DeviceArena::kAlignment;
}

// Where G2's accumulator puts its rounds' scratch: `lent` when the plan shares it (before
// the accumulator would allocate its own in its place), else its own memory (null).
void* lent_scratch(const MsmMemoryPlan& memory, void* lent) {
    if (!memory.g2_scratch_in_vectors) return nullptr;
    if (lent == nullptr) {
        throw std::invalid_argument("ProofMsms: B2's rounds' scratch is planned in the caller's memory, but none lent");
    }
    return lent;
}

// B2's rounds' scratch where the plan puts it in the caller's memory, else 0.
template <class Curve>
uint64_t lent_of(const Capacities& sized, const MsmMemoryPlan& memory) {
    using G2Accumulator = msm::BucketAccumulator<typename Curve::G2Params>;
    return memory.g2_scratch_in_vectors ? G2Accumulator::rounds_scratch_bytes(sized.g2) : 0;
}

// B2's chunk sums: one per chunk of B, none where B2 runs on the host.
uint64_t g2_sums(const ChunkCounts& counts, const MsmMemoryPlan& memory) {
    return memory.key.b2_on_host() ? 0 : counts.b;
}

// A G1 chunk's slot of window sums: the most windows of either lane's accumulator.
uint32_t g1_slot(const Capacities& sized, uint64_t beside_points) {
    const uint32_t main = sized.g1.max_windows();
    return beside_points != 0 ? std::max(main, beside_h_capacity(beside_points).max_windows()) : main;
}

// The chunks' window sums: a slot for each chunk.
template <class Curve>
uint64_t window_sums_bytes(const ChunkCounts& counts, const Capacities& sized, uint64_t beside_points,
                           const MsmMemoryPlan& memory) {
    return counts.g1_sums() * g1_slot(sized, beside_points) * sizeof(ec::Xyzz<typename Curve::G1Params>) +
           g2_sums(counts, memory) * sized.g2.max_windows() * sizeof(ec::Xyzz<typename Curve::G2Params>);
}

}  // namespace

template <class Curve>
BesideHLane ProofMsms<Curve>::beside_h(const KeyHeader& header, uint64_t chunk_points, const MsmMemoryPlan& memory) {
    const KeyPlacement& key = memory.key;
    if (memory.beside_h == cuda::BesideH::off ||
        !(key.streamed(groth16::ProofMsm::a) || key.streamed(groth16::ProofMsm::l))) {
        return {};
    }
    const uint64_t chunk = effective_chunk(header, chunk_points);
    // Smaller chunks cost each MSM more plans and bucket reductions: past 1/8 the lane
    // would gain less than it costs.
    for (uint64_t points = chunk; points >= std::max<uint64_t>(chunk / 8, 1); points /= 2) {
        const uint64_t bytes = beside_h_bytes<Curve>(points, key);
        if (bytes <= memory.beside_h_room_bytes) return {points, bytes, true};
    }
    if (memory.beside_h == cuda::BesideH::on) return {chunk, beside_h_bytes<Curve>(chunk, key), false};
    return {};
}

template <class Curve>
uint64_t ProofMsms<Curve>::chunk_intervals(const KeyHeader& header, uint64_t b_points, uint64_t chunk_points) {
    return chunk_counts(header, effective_chunk(header, chunk_points), 0, b_points).intervals();
}

template <class Curve>
uint64_t ProofMsms<Curve>::z_chunks(const KeyHeader& header) const {
    return chunk_counts(header, chunk_points_, 0).z;
}

template <class Curve>
uint32_t ProofMsms<Curve>::g2_affine_segment(const KeyHeader& header, uint64_t chunk_points,
                                             const MsmMemoryPlan& memory) {
    const msm::MsmCapacity g2 = capacities(header, effective_chunk(header, chunk_points), memory).g2;
    return g2.affine_rounds ? g2.affine_segment : 0;
}

template <class Curve>
ProofMsms<Curve>::Lane::Lane(const msm::MsmCapacity& capacity, uint64_t points, const KeyPlacement& placement,
                             DeviceArena* arena)
    : chunk_points(points),
      plan(capacity, arena),
      g1(capacity, nullptr, arena),
      stager(points, placement, PointBytes::of<Curve>(), arena) {}

template <class Curve>
const Event& ProofMsms<Curve>::Lane::mark(const Stream& stream) {
    const Event& event = events.at(events_used++);
    event.record(stream);
    return event;
}

template <class Curve>
ProofMsms<Curve>::ProofMsms(const KeyHeader& header, uint64_t b_points, uint64_t chunk_points,
                            const MsmMemoryPlan& memory, void* lent, void* beside_h_memory)
    : chunk_points_(effective_chunk(header, chunk_points)),
      b_points_(b_points),
      memory_(memory),
      main_(capacities(header, chunk_points_, memory).plan, chunk_points_, memory.key) {
    const Capacities sized = capacities(header, chunk_points_, memory);
    const BesideHLane lane = beside_h(header, chunk_points_, memory);
    const ChunkCounts counts = chunk_counts(header, chunk_points_, lane.chunk_points, b_points);
    if (!memory.key.b2_on_host()) g2_.emplace(sized.g2, lent_scratch(memory, lent));
    g1_slot_ = g1_slot(sized, lane.chunk_points);
    g2_slot_ = sized.g2.max_windows();
    g1_windows_ = DeviceBuffer<ec::Xyzz<G1Params>>(counts.g1_sums() * g1_slot_);
    g2_windows_ = DeviceBuffer<ec::Xyzz<G2Params>>(g2_sums(counts, memory) * g2_slot_);
    g1_layouts_.resize(counts.g1_sums());
    g2_layouts_.resize(g2_sums(counts, memory));
    host_sums_ = PinnedBuffer(window_sums_bytes<Curve>(counts, sized, lane.chunk_points, memory));
    const uint64_t intervals = counts.intervals();
    if (intervals > kMaxChunkIntervals) {
        throw std::invalid_argument(plugin::concat("MSMs of up to ", largest_query(header), " points in chunks of ",
                                                   chunk_points_, " make ", intervals, " intervals, more than ",
                                                   kMaxChunkIntervals, ": use larger chunks"));
    }
    if (memory.any_table() && chunk_points_ < largest_query(header)) {
        throw std::invalid_argument("ProofMsms: base tables, but MSMs in chunks: tables are for whole MSMs");
    }
    main_.events.resize(2 * intervals);
    intervals_.reserve(intervals);
    if (lane.chunk_points != 0) {
        if (beside_h_memory == nullptr) {
            throw std::invalid_argument("ProofMsms: a lane beside H is planned, but no memory given for it");
        }
        DeviceArena arena(beside_h_memory, lane.bytes);
        beside_ = std::make_unique<Lane>(beside_h_capacity(lane.chunk_points), lane.chunk_points,
                                         beside_h_placement(memory.key), &arena);
        beside_->events.resize(4);  // A's and L's intervals
        beside_stream_.emplace();
        ZKB_CUDA_CHECK(cudaGetDevice(&device_));
    }
}

template <class Curve>
ProofMsms<Curve>::~ProofMsms() {
    synchronize_lane_beside_h();
}

template <class Curve>
uint64_t ProofMsms<Curve>::device_bytes_for(const KeyHeader& header, uint64_t chunk_points,
                                            const MsmMemoryPlan& memory) {
    const uint64_t chunk = effective_chunk(header, chunk_points);
    const Capacities sized = capacities(header, chunk, memory);
    const uint64_t beside_points = beside_h(header, chunk, memory).chunk_points;
    const uint64_t g2_bytes =
        memory.key.b2_on_host() ? 0 : msm::BucketAccumulator<G2Params>::device_bytes_for(sized.g2);
    return msm::ScalarPlan::device_bytes_for(sized.plan) +
           msm::BucketAccumulator<G1Params>::device_bytes_for(sized.g1) + g2_bytes +
           window_sums_bytes<Curve>(chunk_counts(header, chunk, beside_points), sized, beside_points, memory) +
           QueryStager::device_bytes_for(chunk, memory.key, PointBytes::of<Curve>()) - lent_of<Curve>(sized, memory);
}

template <class Curve>
uint64_t ProofMsms<Curve>::lent_bytes(const KeyHeader& header, uint64_t chunk_points, const MsmMemoryPlan& memory) {
    return lent_of<Curve>(capacities(header, effective_chunk(header, chunk_points), memory), memory);
}

template <class Curve>
void ProofMsms<Curve>::advance(Step previous, Step next) {
    if (done_ != previous) throw std::logic_error("ProofMsms: run_z, run_l and run_h out of order");
    done_ = next;
}

template <class Curve>
const Event& ProofMsms<Curve>::run_z(const Key& key, const Fr* z, const Stream& stream,
                                     std::span<const Event> z_ready) {
    const KeyTables<Curve>& tables = key.tables;
    if (shape_of(tables.a.get()) != memory_.z || shape_of(tables.b_g1.get()) != memory_.z ||
        shape_of(tables.b_g2.get()) != memory_.z || shape_of(tables.h.get()) != memory_.h ||
        shape_of(tables.l.get()) != memory_.l) {
        throw std::invalid_argument(plugin::concat("ProofMsms: the key's base tables (", tables.shapes(),
                                                   ") are not the ones it was sized for"));
    }
    if (key.b_points() != b_points_) {
        throw std::invalid_argument(plugin::concat("ProofMsms: a key with ", key.b_points(), " points in B's queries, "
                                                   "sized for ", b_points_));
    }
    const uint64_t m = key.header.num_variables;
    const ChunkCounts counts = chunk_counts(key.header, chunk_points_, beside_chunk_points(), key.b_points());
    if (z_ready.size() < counts.z) {
        throw std::invalid_argument(plugin::concat("ProofMsms: ", z_ready.size(), " events for z's ", counts.z,
                                                   " chunks"));
    }
    synchronize_lane_beside_h();  // a proof that failed part way is abandoned
    done_ = Step::z;
    lent_written_ = false;
    main_.events_used = 0;
    intervals_.clear();
    main_.stager.begin();
    QueryStager& stager = main_.stager;

    const bool sparse_b = key.b_variables.size() != 0;
    const uint64_t a_sums = counts.first_g1_sum(groth16::ProofMsm::a);
    const uint64_t b_g1_sums = counts.first_g1_sum(groth16::ProofMsm::b_g1);
    // A dense B's A, B1 and B2 take turns a chunk at a time, each chunk an interval. A
    // sparse B's A runs its chunks back to back, one interval for them all (as L's and
    // H's), which then counts the waits for z's later pieces too; or beside H, where B's
    // chunks wait for all of z instead.
    const bool a_here = !sparse_b || beside_ == nullptr;
    for (uint64_t chunk = 0; !a_here && chunk < counts.z; ++chunk) stream.wait(z_ready[chunk]);
    const Event* a_start = nullptr;
    for (uint64_t chunk = 0; a_here && chunk < counts.z; ++chunk) {
        const uint64_t first = chunk * chunk_points_, count = std::min(chunk_points_, m - first);
        stream.wait(z_ready[chunk]);
        if (!sparse_b || chunk == 0) a_start = &main_.mark(stream);
        // A streamed chunk's copy is enqueued before the preparation blocks the host, so
        // that it runs under the MSM before it, and so is the next chunk's: B1's of this
        // chunk of z where B is dense, else A's next, or B1's first after A's last.
        const curve::G1Affine<Curve>* a_bases = stager.chunk(key.a_query, first, count, stream);
        if (!sparse_b) {
            stager.prefetch(key.b_g1_query, first, count);
        } else if (chunk + 1 < counts.z) {
            stager.prefetch(key.a_query, first + count, std::min(chunk_points_, m - first - count));
        } else if (counts.b > 0) {
            stager.prefetch(key.b_g1_query, 0, std::min(chunk_points_, key.b_points()));
        }
        prepare(main_.plan, memory_.z, z + first, msm::montgomery_form<Fr>(), count, stream);
        accumulate_g1(main_, tables.a.get(), a_bases, a_sums + chunk, stream);
        stager.release(stream);
        if (sparse_b && chunk + 1 < counts.z) continue;
        const Event& a_done = main_.mark(stream);
        intervals_.push_back({groth16::ProofMsm::a, a_start, &a_done});
        if (!sparse_b) {  // over A's plan
            const curve::G1Affine<Curve>* b_g1_bases = stager.chunk(key.b_g1_query, first, count, stream);
            run_b_chunk(key, first, count, b_g1_bases, b_g1_sums + chunk, chunk, a_done, stream);
        }
    }
    // A sparse B: a plan of z at B's variables alone, over B's points of them.
    for (uint64_t chunk = 0; sparse_b && chunk < counts.b; ++chunk) {
        const uint64_t first = chunk * chunk_points_, count = std::min(chunk_points_, key.b_points() - first);
        const Event& start = main_.mark(stream);
        const curve::G1Affine<Curve>* b_g1_bases = stager.chunk(key.b_g1_query, first, count, stream);
        if (g2_) {
            stager.prefetch(key.b_g2_query, first, count);
        } else if (chunk + 1 < counts.b) {  // B2 on the host: B1's next chunk
            stager.prefetch(key.b_g1_query, first + count, std::min(chunk_points_, key.b_points() - first - count));
        }
        prepare(main_.plan, memory_.z, z, msm::montgomery_form<Fr>(), count, stream, key.b_variables.data() + first);
        run_b_chunk(key, first, count, b_g1_bases, b_g1_sums + chunk, chunk, start, stream);
    }
    return *intervals_.back().end;
}

template <class Curve>
void ProofMsms<Curve>::run_b_chunk(const Key& key, uint64_t first, uint64_t count,
                                   const curve::G1Affine<Curve>* b_g1_bases, uint64_t b_g1_sum, uint64_t b_g2_sum,
                                   const Event& start, const Stream& stream) {
    accumulate_g1(main_, key.tables.b_g1.get(), b_g1_bases, b_g1_sum, stream);
    main_.stager.release(stream);
    const Event& b_g1_done = main_.mark(stream);
    intervals_.push_back({groth16::ProofMsm::b_g1, &start, &b_g1_done});
    if (!g2_) return;  // B2 on the host
    const curve::G2Affine<Curve>* b_g2_bases = main_.stager.chunk(key.b_g2_query, first, count, stream);
    g2_layouts_[b_g2_sum] = accumulate(*g2_, main_.plan, key.tables.b_g2.get(), b_g2_bases,
                                       g2_windows_.data() + b_g2_sum * g2_slot_, stream);
    lent_written_ = lent_written_ || (memory_.g2_scratch_in_vectors && g2_->ran_rounds());
    main_.stager.release(stream);
    intervals_.push_back({groth16::ProofMsm::b_g2, &b_g1_done, &main_.mark(stream)});
}

// The plan is made again for each chunk, on the lane's stream, after the previous run has
// read it; nothing else runs on it between, so one interval covers each MSM's chunks.
template <class Curve>
void ProofMsms<Curve>::run_g1_chunks(Lane& lane, groth16::ProofMsm msm, const void* scalars, msm::ScalarForm form,
                                     uint64_t points, const msm::BaseTable<G1Params>* table,
                                     const KeyQuery<curve::G1Affine<Curve>>& query, uint64_t first_sum,
                                     const Stream& stream, std::vector<Interval>& intervals) {
    const uint64_t step = lane.chunk_points;
    const Event& start = lane.mark(stream);
    for (uint64_t chunk = 0, first = 0; first < points || chunk == 0; ++chunk, first += step) {
        const uint64_t count = std::min(step, points - first);
        const curve::G1Affine<Curve>* bases = lane.stager.chunk(query, first, count, stream);
        if (first + count < points) {
            lane.stager.prefetch(query, first + count, std::min(step, points - first - count));
        }
        prepare(lane.plan, shape_of(table), static_cast<const unsigned char*>(scalars) + first * sizeof(Fr), form,
                count, stream);
        accumulate_g1(lane, table, bases, first_sum + chunk, stream);
        lane.stager.release(stream);
    }
    intervals.push_back({msm, &start, &lane.mark(stream), &lane == beside_.get()});
}

template <class Curve>
void ProofMsms<Curve>::run_l(const Key& key, const Fr* z, const Stream& stream) {
    if (beside_) throw std::logic_error("ProofMsms: L runs beside H, in run_h");
    advance(Step::z, Step::l);
    const KeyHeader& header = key.header;
    const ChunkCounts counts = chunk_counts(header, chunk_points_, 0, key.b_points());
    run_g1_chunks(main_, groth16::ProofMsm::l, z + header.num_public + 1, msm::montgomery_form<Fr>(),
                  header.private_variables(), key.tables.l.get(), key.l_query,
                  counts.first_g1_sum(groth16::ProofMsm::l), stream, intervals_);
}

template <class Curve>
void ProofMsms<Curve>::run_beside_h(const Key& key, const Fr* z) {
    ZKB_CUDA_CHECK(cudaSetDevice(device_));
    const KeyHeader& header = key.header;
    const ChunkCounts counts = chunk_counts(header, chunk_points_, beside_->chunk_points, key.b_points());
    const Stream& stream = *beside_stream_;
    // The lane's memory is the caller's until what run_h's caller enqueued before it is
    // done: the lane's kernels and its stager's copies wait for that.
    stream.wait(beside_start_);
    beside_->stager.begin(&beside_start_);
    if (counts.sparse_b) {
        run_g1_chunks(*beside_, groth16::ProofMsm::a, z, msm::montgomery_form<Fr>(), header.num_variables, nullptr,
                      key.a_query, counts.first_g1_sum(groth16::ProofMsm::a), stream, beside_intervals_);
    }
    run_g1_chunks(*beside_, groth16::ProofMsm::l, z + header.num_public + 1, msm::montgomery_form<Fr>(),
                  header.private_variables(), nullptr, key.l_query, counts.first_g1_sum(groth16::ProofMsm::l), stream,
                  beside_intervals_);
    beside_end_.record(stream);
}

template <class Curve>
void ProofMsms<Curve>::run_h(const Key& key, const Fr* z, const Fr* h, const Stream& stream, const Event& h_ready) {
    advance(beside_ ? Step::z : Step::l, Step::h);
    const KeyHeader& header = key.header;
    const ChunkCounts counts = chunk_counts(header, chunk_points_, beside_chunk_points(), key.b_points());
    if (beside_) {
        beside_->events_used = 0;
        beside_intervals_.clear();
        beside_start_.record(stream);
        beside_run_ = std::async(std::launch::async, [this, &key, z] { run_beside_h(key, z); });
    }
    try {
        stream.wait(h_ready);
        run_g1_chunks(main_, groth16::ProofMsm::h, h, msm::ScalarForm::canonical, header.h_points(), key.tables.h.get(),
                      key.h_query, counts.first_g1_sum(groth16::ProofMsm::h), stream, intervals_);
    } catch (...) {
        synchronize_lane_beside_h();
        throw;
    }
    if (beside_) {
        beside_run_.get();  // rethrows the lane's error; its end event is recorded once this returns
        stream.wait(beside_end_);
        intervals_.insert(intervals_.end(), beside_intervals_.begin(), beside_intervals_.end());
    }
    auto* host = static_cast<unsigned char*>(host_sums_.data());
    stream.copy_to_host(host, g1_windows_.data(), g1_windows_.bytes());
    if (g2_windows_.size() != 0)
        stream.copy_to_host(host + g1_windows_.bytes(), g2_windows_.data(), g2_windows_.bytes());
}

template <class Curve>
void ProofMsms<Curve>::synchronize_lane_beside_h() noexcept {
    if (!beside_) return;
    if (beside_run_.valid()) {
        try {
            beside_run_.get();
        } catch (...) {  // the caller is unwinding an error of its own already
        }
    }
    (void)cudaStreamSynchronize(beside_stream_->handle());
    beside_->stager.synchronize();
}

template <class Curve>
void ProofMsms<Curve>::accumulate_g1(Lane& lane, const msm::BaseTable<G1Params>* table,
                                     const curve::G1Affine<Curve>* bases, uint64_t sum, const Stream& stream) {
    g1_layouts_[sum] = accumulate(lane.g1, lane.plan, table, bases, g1_windows_.data() + sum * g1_slot_, stream);
}

template <class Curve>
groth16::generic::MsmSums<Curve> ProofMsms<Curve>::sums(const Key& key, const Stream& stream) {
    advance(Step::h, Step::none);
    const ChunkCounts counts = chunk_counts(key.header, chunk_points_, beside_chunk_points(), key.b_points());
    stream.synchronize();

    // Each MSM's chunks' window sums combined (msm_steps.hpp, combine_window_sets).
    const auto* g1_windows = static_cast<const ec::Xyzz<G1Params>*>(host_sums_.data());
    const auto g1_total = [&](groth16::ProofMsm msm, uint64_t count) {
        const uint64_t first = counts.first_g1_sum(msm);
        return msm::combine_window_sets<G1Params>(g1_windows + first * g1_slot_, g1_slot_,
                                                  std::span(g1_layouts_).subspan(first, count));
    };
    groth16::generic::MsmSums<Curve> result;
    result.a = g1_total(groth16::ProofMsm::a, counts.a);
    result.b_g1 = g1_total(groth16::ProofMsm::b_g1, counts.b);
    result.l = g1_total(groth16::ProofMsm::l, counts.l);
    result.h = g1_total(groth16::ProofMsm::h, counts.h);
    const auto* g2_windows = reinterpret_cast<const ec::Xyzz<G2Params>*>(
        static_cast<const unsigned char*>(host_sums_.data()) + g1_windows_.bytes());
    result.b_g2 =
        g2_ ? msm::combine_window_sets<G2Params>(g2_windows, g2_slot_, g2_layouts_) : curve::G2<Curve>::infinity();
    return result;
}

template class ProofMsms<curve::Bls12_381>;
template class ProofMsms<curve::Bn254>;

}  // namespace zkbatch::cuda
