#include "gpu/msm/proof_msms.hpp"

#include "core/plugin/error.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <stdexcept>

namespace zkbatch::cuda {

namespace {

uint64_t chunks(uint64_t points, uint64_t chunk_points) {
    return std::max<uint64_t>(1, (points + chunk_points - 1) / chunk_points);
}

struct ChunkCounts {
    uint64_t z, b, l, h;  // chunks of A's MSM (z's), of B's two, of L's, of H's
    bool sparse_b;        // B's chunks follow A's, which then make one interval
    uint64_t g1_sums() const { return z + b + l + h; }
    // Where a G1 MSM's chunk sums start among g1_sums(): A's, B1's, L's, then H's.
    uint64_t first_g1_sum(groth16::ProofMsm msm) const {
        switch (msm) {
            case groth16::ProofMsm::a: return 0;
            case groth16::ProofMsm::b_g1: return z;
            case groth16::ProofMsm::l: return z + b;
            case groth16::ProofMsm::h: return z + b + l;
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

// For B's queries of `b_points` points (DeviceProvingKey::b_points); device_bytes_for
// sizes for a dense B's, the most there can be.
template <class Curve>
ChunkCounts chunk_counts(const groth16::generic::ProvingKey<Curve>& header, uint64_t chunk_points,
                         std::optional<uint64_t> b_points = std::nullopt) {
    const uint64_t b = b_points.value_or(header.num_variables);
    return {chunks(header.num_variables, chunk_points), chunks(b, chunk_points),
            chunks(header.private_variables(), chunk_points), chunks(header.h_points(), chunk_points),
            b < header.num_variables};
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

// The chunks' window sums: a slot of the accumulator's most windows for each chunk.
template <class Curve>
uint64_t window_sums_bytes(const ChunkCounts& counts, const Capacities& sized, const MsmMemoryPlan& memory) {
    return counts.g1_sums() * sized.g1.max_windows() * sizeof(ec::Xyzz<typename Curve::G1Params>) +
           g2_sums(counts, memory) * sized.g2.max_windows() * sizeof(ec::Xyzz<typename Curve::G2Params>);
}

}  // namespace

template <class Curve>
uint64_t ProofMsms<Curve>::chunk_intervals(const KeyHeader& header, uint64_t b_points, uint64_t chunk_points) {
    return chunk_counts(header, effective_chunk(header, chunk_points), b_points).intervals();
}

template <class Curve>
uint64_t ProofMsms<Curve>::z_chunks(const KeyHeader& header) const {
    return chunk_counts(header, chunk_points_).z;
}

template <class Curve>
uint32_t ProofMsms<Curve>::g2_affine_segment(const KeyHeader& header, uint64_t chunk_points,
                                             const MsmMemoryPlan& memory) {
    const msm::MsmCapacity g2 = capacities(header, effective_chunk(header, chunk_points), memory).g2;
    return g2.affine_rounds ? g2.affine_segment : 0;
}

template <class Curve>
ProofMsms<Curve>::ProofMsms(const KeyHeader& header, uint64_t b_points, uint64_t chunk_points,
                            const MsmMemoryPlan& memory, void* lent)
    : chunk_points_(effective_chunk(header, chunk_points)),
      b_points_(b_points),
      memory_(memory),
      plan_(capacities(header, chunk_points_, memory).plan),
      g1_(capacities(header, chunk_points_, memory).g1),
      stager_(chunk_points_, memory.key, PointBytes::of<Curve>()) {
    const Capacities sized = capacities(header, chunk_points_, memory);
    const ChunkCounts counts = chunk_counts(header, chunk_points_, b_points);
    if (!memory.key.b2_on_host()) g2_.emplace(sized.g2, lent_scratch(memory, lent));
    g1_slot_ = sized.g1.max_windows();
    g2_slot_ = sized.g2.max_windows();
    g1_windows_ = DeviceBuffer<ec::Xyzz<G1Params>>(counts.g1_sums() * g1_slot_);
    g2_windows_ = DeviceBuffer<ec::Xyzz<G2Params>>(g2_sums(counts, memory) * g2_slot_);
    g1_layouts_.resize(counts.g1_sums());
    g2_layouts_.resize(g2_sums(counts, memory));
    host_sums_ = PinnedBuffer(window_sums_bytes<Curve>(counts, sized, memory));
    const uint64_t intervals = counts.intervals();
    if (intervals > kMaxChunkIntervals) {
        throw std::invalid_argument(plugin::concat("MSMs of up to ", largest_query(header), " points in chunks of ",
                                                   chunk_points_, " make ", intervals, " intervals, more than ",
                                                   kMaxChunkIntervals, ": use larger chunks"));
    }
    if (memory.any_table() && chunk_points_ < largest_query(header)) {
        throw std::invalid_argument("ProofMsms: base tables, but MSMs in chunks: tables are for whole MSMs");
    }
    events_.resize(2 * intervals);
    intervals_.reserve(intervals);
}

template <class Curve>
uint64_t ProofMsms<Curve>::device_bytes_for(const KeyHeader& header, uint64_t chunk_points,
                                            const MsmMemoryPlan& memory) {
    const uint64_t chunk = effective_chunk(header, chunk_points);
    const Capacities sized = capacities(header, chunk, memory);
    const uint64_t g2_bytes =
        memory.key.b2_on_host() ? 0 : msm::BucketAccumulator<G2Params>::device_bytes_for(sized.g2);
    return msm::ScalarPlan::device_bytes_for(sized.plan) +
           msm::BucketAccumulator<G1Params>::device_bytes_for(sized.g1) + g2_bytes +
           window_sums_bytes<Curve>(chunk_counts(header, chunk), sized, memory) +
           QueryStager::device_bytes_for(chunk, memory.key, PointBytes::of<Curve>()) - lent_of<Curve>(sized, memory);
}

template <class Curve>
uint64_t ProofMsms<Curve>::lent_bytes(const KeyHeader& header, uint64_t chunk_points, const MsmMemoryPlan& memory) {
    return lent_of<Curve>(capacities(header, effective_chunk(header, chunk_points), memory), memory);
}

template <class Curve>
const Event& ProofMsms<Curve>::mark(const Stream& stream) {
    const Event& event = events_.at(events_used_++);
    event.record(stream);
    return event;
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
    const ChunkCounts counts = chunk_counts(key.header, chunk_points_, key.b_points());
    if (z_ready.size() < counts.z) {
        throw std::invalid_argument(plugin::concat("ProofMsms: ", z_ready.size(), " events for z's ", counts.z,
                                                   " chunks"));
    }
    done_ = Step::z;  // a new proof: one that failed part way is abandoned
    lent_written_ = false;
    events_used_ = 0;
    intervals_.clear();
    stager_.begin();

    const bool sparse_b = key.b_variables.size() != 0;
    const uint64_t a_sums = counts.first_g1_sum(groth16::ProofMsm::a);
    const uint64_t b_g1_sums = counts.first_g1_sum(groth16::ProofMsm::b_g1);
    // A dense B's A, B1 and B2 take turns a chunk at a time, each chunk an interval. A
    // sparse B's A runs its chunks back to back, one interval for them all (as L's and
    // H's), which then counts the waits for z's later pieces too.
    const Event* a_start = nullptr;
    for (uint64_t chunk = 0; chunk < counts.z; ++chunk) {
        const uint64_t first = chunk * chunk_points_, count = std::min(chunk_points_, m - first);
        stream.wait(z_ready[chunk]);
        if (!sparse_b || chunk == 0) a_start = &mark(stream);
        // A streamed chunk's copy is enqueued before the preparation blocks the host, so
        // that it runs under the MSM before it, and so is the next chunk's: B1's of this
        // chunk of z where B is dense, else A's next, or B1's first after A's last.
        const curve::G1Affine<Curve>* a_bases = stager_.chunk(key.a_query, first, count, stream);
        if (!sparse_b) {
            stager_.prefetch(key.b_g1_query, first, count);
        } else if (chunk + 1 < counts.z) {
            stager_.prefetch(key.a_query, first + count, std::min(chunk_points_, m - first - count));
        } else if (counts.b > 0) {
            stager_.prefetch(key.b_g1_query, 0, std::min(chunk_points_, key.b_points()));
        }
        prepare(plan_, memory_.z, z + first, msm::montgomery_form<Fr>(), count, stream);
        accumulate_g1(tables.a.get(), a_bases, a_sums + chunk, stream);
        stager_.release(stream);
        if (sparse_b && chunk + 1 < counts.z) continue;
        const Event& a_done = mark(stream);
        intervals_.push_back({groth16::ProofMsm::a, a_start, &a_done});
        if (!sparse_b) {  // over A's plan
            const curve::G1Affine<Curve>* b_g1_bases = stager_.chunk(key.b_g1_query, first, count, stream);
            run_b_chunk(key, first, count, b_g1_bases, b_g1_sums + chunk, chunk, a_done, stream);
        }
    }
    // A sparse B: a plan of z at B's variables alone, over B's points of them.
    for (uint64_t chunk = 0; sparse_b && chunk < counts.b; ++chunk) {
        const uint64_t first = chunk * chunk_points_, count = std::min(chunk_points_, key.b_points() - first);
        const Event& start = mark(stream);
        const curve::G1Affine<Curve>* b_g1_bases = stager_.chunk(key.b_g1_query, first, count, stream);
        if (g2_) {
            stager_.prefetch(key.b_g2_query, first, count);
        } else if (chunk + 1 < counts.b) {  // B2 on the host: B1's next chunk
            stager_.prefetch(key.b_g1_query, first + count, std::min(chunk_points_, key.b_points() - first - count));
        }
        prepare(plan_, memory_.z, z, msm::montgomery_form<Fr>(), count, stream, key.b_variables.data() + first);
        run_b_chunk(key, first, count, b_g1_bases, b_g1_sums + chunk, chunk, start, stream);
    }
    return *intervals_.back().end;
}

template <class Curve>
void ProofMsms<Curve>::run_b_chunk(const Key& key, uint64_t first, uint64_t count,
                                   const curve::G1Affine<Curve>* b_g1_bases, uint64_t b_g1_sum, uint64_t b_g2_sum,
                                   const Event& start, const Stream& stream) {
    accumulate_g1(key.tables.b_g1.get(), b_g1_bases, b_g1_sum, stream);
    stager_.release(stream);
    const Event& b_g1_done = mark(stream);
    intervals_.push_back({groth16::ProofMsm::b_g1, &start, &b_g1_done});
    if (!g2_) return;  // B2 on the host
    const curve::G2Affine<Curve>* b_g2_bases = stager_.chunk(key.b_g2_query, first, count, stream);
    g2_layouts_[b_g2_sum] =
        accumulate(*g2_, plan_, key.tables.b_g2.get(), b_g2_bases, g2_windows_.data() + b_g2_sum * g2_slot_, stream);
    lent_written_ = lent_written_ || (memory_.g2_scratch_in_vectors && g2_->ran_rounds());
    stager_.release(stream);
    intervals_.push_back({groth16::ProofMsm::b_g2, &b_g1_done, &mark(stream)});
}

// The plan is made again for each chunk of L, then of H, on the same stream, after the
// previous run has read it; nothing else runs on it between, so one interval covers each
// MSM's chunks.
template <class Curve>
void ProofMsms<Curve>::run_g1_chunks(groth16::ProofMsm msm, const void* scalars, msm::ScalarForm form, uint64_t points,
                                     const msm::BaseTable<G1Params>* table,
                                     const KeyQuery<curve::G1Affine<Curve>>& query, uint64_t first_sum,
                                     const Stream& stream) {
    const Event& start = mark(stream);
    for (uint64_t chunk = 0, first = 0; first < points || chunk == 0; ++chunk, first += chunk_points_) {
        const uint64_t count = std::min(chunk_points_, points - first);
        const curve::G1Affine<Curve>* bases = stager_.chunk(query, first, count, stream);
        if (first + count < points) {
            stager_.prefetch(query, first + count, std::min(chunk_points_, points - first - count));
        }
        prepare(plan_, shape_of(table), static_cast<const unsigned char*>(scalars) + first * sizeof(Fr), form, count,
                stream);
        accumulate_g1(table, bases, first_sum + chunk, stream);
        stager_.release(stream);
    }
    intervals_.push_back({msm, &start, &mark(stream)});
}

template <class Curve>
void ProofMsms<Curve>::run_l(const Key& key, const Fr* z, const Stream& stream) {
    advance(Step::z, Step::l);
    const KeyHeader& header = key.header;
    const ChunkCounts counts = chunk_counts(header, chunk_points_, key.b_points());
    run_g1_chunks(groth16::ProofMsm::l, z + header.num_public + 1, msm::montgomery_form<Fr>(),
                  header.private_variables(), key.tables.l.get(), key.l_query,
                  counts.first_g1_sum(groth16::ProofMsm::l), stream);
}

template <class Curve>
void ProofMsms<Curve>::run_h(const Key& key, const Fr* h, const Stream& stream, const Event& h_ready) {
    advance(Step::l, Step::h);
    const KeyHeader& header = key.header;
    const ChunkCounts counts = chunk_counts(header, chunk_points_, key.b_points());
    stream.wait(h_ready);
    run_g1_chunks(groth16::ProofMsm::h, h, msm::ScalarForm::canonical, header.h_points(), key.tables.h.get(),
                  key.h_query, counts.first_g1_sum(groth16::ProofMsm::h), stream);
    auto* host = static_cast<unsigned char*>(host_sums_.data());
    stream.copy_to_host(host, g1_windows_.data(), g1_windows_.bytes());
    if (g2_windows_.size() != 0)
        stream.copy_to_host(host + g1_windows_.bytes(), g2_windows_.data(), g2_windows_.bytes());
}

template <class Curve>
void ProofMsms<Curve>::accumulate_g1(const msm::BaseTable<G1Params>* table, const curve::G1Affine<Curve>* bases,
                                     uint64_t sum, const Stream& stream) {
    g1_layouts_[sum] = accumulate(g1_, plan_, table, bases, g1_windows_.data() + sum * g1_slot_, stream);
}

template <class Curve>
groth16::generic::MsmSums<Curve> ProofMsms<Curve>::sums(const Key& key, const Stream& stream) {
    advance(Step::h, Step::none);
    const ChunkCounts counts = chunk_counts(key.header, chunk_points_, key.b_points());
    stream.synchronize();

    // Each MSM's chunks' window sums combined (msm_steps.hpp, combine_window_sets).
    const auto* g1_windows = static_cast<const ec::Xyzz<G1Params>*>(host_sums_.data());
    const auto g1_total = [&](groth16::ProofMsm msm, uint64_t count) {
        const uint64_t first = counts.first_g1_sum(msm);
        return msm::combine_window_sets<G1Params>(g1_windows + first * g1_slot_, g1_slot_,
                                                  std::span(g1_layouts_).subspan(first, count));
    };
    groth16::generic::MsmSums<Curve> result;
    result.a = g1_total(groth16::ProofMsm::a, counts.z);
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
