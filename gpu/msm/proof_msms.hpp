// ProofMsms: the five MSMs of one Groth16 proof on the device (docs/architecture.md#the-proof),
// over a key in device memory (DeviceProvingKey), or streamed from host memory a chunk at
// a time where memory.key says so (QueryStager):
//   A = sum z_i [u_i]1, B1 = sum z_i [v_i]1, B2 = sum z_i [v_i]2   one plan of z, shared
//   L = sum_private z_i L_i, H = sum_j h_j H_j                     a plan of each
// Where B is sparse (DeviceProvingKey::b_variables), B1 and B2 share a second plan, of z
// at the variables in B alone, over the key's B points of those: a PoRep partition has a
// quarter of its variables in B, and its B2 then adds a quarter of the points.
// The five run one after another on the caller's stream, each filling the GPU, so one
// ScalarPlan serves them all: each preparation follows, in stream order, the last run
// that read the one before. B2 on a second stream beside the G1 MSMs is slower than one
// after the other: the two curves' gathers slow each other (docs/msm.md#a-proofs-five-msms).
// The exception is a streamed key's A and L (beside_h): mostly bits in a PoRep partition,
// their MSMs wait on their points' copies, while H's of full-size scalars keeps the GPU
// busy and leaves the bus idle. They run on a lane of their own (a second plan, G1
// accumulator and stager, on a second stream and host thread) beside H's, in memory dead
// while H runs: the worker's a vector's, once h is made.
// Only the MSMs' window sums come back to the host, where sums() combines each MSM's (the
// Horner steps one device thread would spend 2 ms on, 5 in G2, for each chunk) and
// groth16::combine makes the proof. Where the key's placement runs B2 on the host (KeyPlacement::b2_on_host),
// the four G1 MSMs run here and the caller computes B2; sums() then leaves it at
// infinity. One per prove worker, allocated once for the key's sizes.
//
// The plan and accumulators are sized for `chunk_points` points: an MSM over more runs
// in chunks whose window sums the host adds. A 2^27 key (77 GB) leaves no room on a 141 GB
// GPU for a plan of 2^27 points (36 GB); in chunks of 2^26 it fits.
//
// For whole MSMs, load_key's MsmMemoryPlan says which queries have base tables (their
// MSMs run over them, z's plan in the tables' layout for A, B1 and B2 together) and how
// much scratch B2's batched affine rounds get, and whether that scratch is lent by the
// caller (memory free until z's MSMs are done: the worker's a, b and c); the buffers are
// sized for exactly the layouts that plan leaves (no room for plain G2 buckets when B2
// has a table).
#pragma once

#include "gpu/util/device_buffer.hpp"
#include "gpu/key/device_key.hpp"
#include "gpu/key/query_stager.hpp"
#include "gpu/util/event.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/util/pinned_buffer.hpp"
#include "gpu/util/stream.hpp"
#include "core/curve/curves.hpp"
#include "core/groth16/prover.hpp"

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace zkbatch::cuda {

// Where ProofMsms::beside_h puts a lane beside H, and in what chunks.
struct BesideHLane {
    uint64_t chunk_points = 0;  // 0: no lane
    uint64_t bytes = 0;         // its buffers', each padded to DeviceArena::kAlignment
    bool in_vector_a = false;   // in the a vector's room, else after the quotient's vectors
};

template <class Curve>
class ProofMsms {
public:
    using Fr = typename Curve::Fr;
    using G1Params = typename Curve::G1Params;
    using G2Params = typename Curve::G2Params;
    using Key = DeviceProvingKey<Curve>;
    using KeyHeader = groth16::generic::ProvingKey<Curve>;

    // For a key of `header`'s sizes (m variables, h_points() H points) with `b_points`
    // points in each of B's queries (DeviceProvingKey::b_points), in chunks of at most
    // `chunk_points` points (0: none, every MSM at once), with the tables and B2's rounds
    // of `memory`. Under memory.g2_scratch_in_vectors the rounds' scratch goes in `lent`
    // (lent_bytes of device memory the caller leaves alone until run_z's event). The lane
    // beside H, where beside_h plans one, takes its bytes at `beside_h_memory` (device
    // memory, 256-byte aligned, that the caller leaves alone from run_h until sums).
    // Throws std::invalid_argument when the chunks make more than kMaxChunkIntervals
    // intervals, or come with tables (tables are for whole MSMs), or when the scratch or
    // the lane has no memory given.
    ProofMsms(const KeyHeader& header, uint64_t b_points, uint64_t chunk_points = 0, const MsmMemoryPlan& memory = {},
              void* lent = nullptr, void* beside_h_memory = nullptr);
    ~ProofMsms();

    // Device bytes a ProofMsms of these arguments (any b_points) allocates (the plan,
    // both accumulators, the rounds' scratch unless lent, the sums, the slots for the
    // streamed queries' chunks), before allocating anything: what load_key adds up per
    // worker.
    static uint64_t device_bytes_for(const KeyHeader& header, uint64_t chunk_points = 0,
                                     const MsmMemoryPlan& memory = {});
    // The device bytes it takes in the caller's memory: B2's rounds' scratch under
    // memory.g2_scratch_in_vectors, else 0.
    static uint64_t lent_bytes(const KeyHeader& header, uint64_t chunk_points, const MsmMemoryPlan& memory);
    // The lane beside H under `memory` (none where the option is off, or the key streams
    // neither A nor L): chunks of the largest of chunk_points, 1/2, 1/4 and 1/8 of it,
    // whose buffers fit in memory.beside_h_room_bytes (the a vector's); else, under
    // BesideH::on, chunks as large as the others' in memory after the quotient's vectors.
    // It runs L's MSM, and A's where B is sparse (a dense B's A shares its plan with B1
    // and B2).
    static BesideHLane beside_h(const KeyHeader& header, uint64_t chunk_points, const MsmMemoryPlan& memory);
    // The longest level-0 segment B2's rounds get scratch for under `memory` on the
    // current device: what its most entries can use of memory.g2_affine_segment; 0 when
    // none (too few entries to fill the slots, or no scratch planned).
    static uint32_t g2_affine_segment(const KeyHeader& header, uint64_t chunk_points, const MsmMemoryPlan& memory);
    // The MSMs' intervals in a proof: each of B's chunks for B1 and B2, one for all of
    // L's and one for all of H's, and for A each of z's chunks where B is dense (A, B1 and
    // B2 take turns), one for all of them where B is sparse; 5 unchunked. Each is a phase
    // of the prove report, whose ZKB_MAX_PHASES (64) also holds up to 16 others (copies,
    // the key's among them, the quotient's kernels, digest, combine): z in 15 chunks at
    // most where B is dense, B in 22 where it is sparse.
    static constexpr uint64_t kMaxChunkIntervals = ZKB_MAX_PHASES - 16;
    static uint64_t chunk_intervals(const KeyHeader& header, uint64_t b_points, uint64_t chunk_points);
    // The points of a chunk (the last may have fewer), and how many chunks z makes of a key
    // of `header`'s sizes.
    uint64_t chunk_points() const { return chunk_points_; }
    uint64_t z_chunks(const KeyHeader& header) const;

    // The five MSMs on `stream`, in three steps in this order, then their sums, so that
    // the caller can put the quotient between them: A, B1 and B2 need only z, and so does
    // L; H needs the quotient's h. Each run blocks the host at its plans' counts
    // (ScalarPlan::prepare), that is until the stream has done what came before them.
    //   run_z  A, B1 and B2, each chunk of z once its event in `z_ready` has completed
    //          (z_chunks() of them: the caller uploads z in chunk_points() pieces; a
    //          sparse B's chunks follow A's, whole z uploaded; A beside H: all of z
    //          first). z holds key.header.num_variables elements (device, Montgomery
    //          form). Throws std::invalid_argument for a key whose tables are not the
    //          construction's plan's, or too few events. Returns an event on `stream`
    //          after B2's last chunk: the lent memory is free once it completes.
    //   run_l  L; not with a lane beside H, which runs it in run_h.
    //   run_h  H, once `h_ready` has completed, over the key's h_points() scalars of h
    //          (device, canonical), and the sums' copies to the host. With a lane beside
    //          H, that lane's MSMs (L's, and A's where it has them) on its own stream
    //          and thread, after everything enqueued on `stream` so far (the caller's
    //          last use of the lane's memory); run_h returns once the lane has enqueued
    //          all it runs, and `stream` waits for it.
    //   sums   waits for all five sums on `stream` and returns them (the caller may do
    //          host work under H first); B2's at infinity where it runs on the host.
    // run_l, run_h or sums out of this order throws std::logic_error; run_z always starts
    // anew.
    const Event& run_z(const Key& key, const Fr* z, const Stream& stream, std::span<const Event> z_ready);
    // After run_z: whether B2's rounds wrote their scratch in the lent memory, which is
    // then the caller's again only once run_z's event completes. A witness of few
    // full-size values (a PoRep partition's) gives B2 too few entries for the rounds, and
    // leaves the lent memory alone.
    bool lent_scratch_written() const { return lent_written_; }
    // Whether a lane beside H runs L (and A where B is sparse) in run_h.
    bool has_lane_beside_h() const { return beside_ != nullptr; }
    void run_l(const Key& key, const Fr* z, const Stream& stream);
    void run_h(const Key& key, const Fr* z, const Fr* h, const Stream& stream, const Event& h_ready);
    groth16::generic::MsmSums<Curve> sums(const Key& key, const Stream& stream);
    // Waits for the lane beside H's thread and streams, its errors dropped: for a caller
    // unwinding a failed proof before its memory is used again.
    void synchronize_lane_beside_h() noexcept;

    // After sums: the MSMs' intervals, each between two events on the caller's stream:
    // A's, B1's and B2's of each of z's chunks (A's with the chunk's plan), or where B is
    // sparse, A's of each of z's chunks then B1's and B2's of each of B's (B1's with the
    // chunk's plan); then L's and H's (their plans included). Those of the lane beside H
    // come last, on its stream, and say so.
    struct Interval {
        groth16::ProofMsm msm;
        const Event* start;
        const Event* end;
        bool beside_h = false;
    };
    const std::vector<Interval>& intervals() const { return intervals_; }
    // After sums: the streamed queries' copies (QueryStager::bytes and its events), and
    // those of the lane beside H (null where there is none).
    const QueryStager& key_copies() const { return main_.stager; }
    const QueryStager* beside_h_key_copies() const { return beside_ ? &beside_->stager : nullptr; }

private:
    // What runs G1 MSMs in chunks on one stream: a plan, a G1 accumulator, a stager, and
    // the events of its intervals. The main lane's plan also serves B2.
    struct Lane {
        Lane(const msm::MsmCapacity& capacity, uint64_t points, const KeyPlacement& placement,
             DeviceArena* arena = nullptr);
        // Records a new event on `stream` and returns it.
        const Event& mark(const Stream& stream);

        uint64_t chunk_points;
        msm::ScalarPlan plan;
        msm::BucketAccumulator<G1Params> g1;
        QueryStager stager;         // the streamed queries' chunks
        std::vector<Event> events;  // two per interval, made once, recorded again by every run
        size_t events_used = 0;
    };
    // B1's and B2's MSMs over `count` of B's points from `first` on (B1's at `b_g1_bases`,
    // from the stager), by the plan as prepared, after the event `start`; their window
    // sums to G1's slot b_g1_sum and G2's slot b_g2_sum.
    void run_b_chunk(const Key& key, uint64_t first, uint64_t count, const curve::G1Affine<Curve>* b_g1_bases,
                     uint64_t b_g1_sum, uint64_t b_g2_sum, const Event& start, const Stream& stream);
    // A's, L's or H's chunks on `lane`, one interval for all of them, added to `intervals`.
    void run_g1_chunks(Lane& lane, groth16::ProofMsm msm, const void* scalars, msm::ScalarForm form, uint64_t points,
                       const msm::BaseTable<G1Params>* table, const KeyQuery<curve::G1Affine<Curve>>& query,
                       uint64_t first_sum, const Stream& stream, std::vector<Interval>& intervals);
    // One chunk of a G1 MSM on `lane`, by its plan as prepared, its window sums into slot `sum`.
    void accumulate_g1(Lane& lane, const msm::BaseTable<G1Params>* table, const curve::G1Affine<Curve>* bases,
                       uint64_t sum, const Stream& stream);
    // The lane beside H's MSMs, on its own thread: what run_h starts.
    void run_beside_h(const Key& key, const Fr* z);
    uint64_t beside_chunk_points() const { return beside_ ? beside_->chunk_points : 0; }
    // Throws std::logic_error unless the last step run was `previous`; then `next` is.
    enum class Step { none, z, l, h };
    void advance(Step previous, Step next);

    uint64_t chunk_points_;
    uint64_t b_points_;
    MsmMemoryPlan memory_;
    Lane main_;                                           // z's plan (A, B1, B2), then L's, then H's
    std::optional<msm::BucketAccumulator<G2Params>> g2_;  // none where B2 runs on the host
    // The lane beside H (beside_h; none: null), its stream, the device it runs on, the
    // events between which it runs, its intervals, and its host thread.
    std::unique_ptr<Lane> beside_;
    std::optional<Stream> beside_stream_;
    int device_ = 0;
    Event beside_start_, beside_end_;
    std::vector<Interval> beside_intervals_;
    std::future<void> beside_run_;
    // Each chunk's window sums, a slot of the accumulator's most windows each, combined on
    // the host by sums(): G1's of A, B1, L and H in that order (ChunkCounts::first_g1_sum),
    // G2's of each of B's chunks (none where B2 runs on the host); each slot's layout.
    uint32_t g1_slot_ = 0, g2_slot_ = 0;
    DeviceBuffer<ec::Xyzz<G1Params>> g1_windows_;
    DeviceBuffer<ec::Xyzz<G2Params>> g2_windows_;
    std::vector<msm::WindowLayout> g1_layouts_, g2_layouts_;
    PinnedBuffer host_sums_;  // g1_windows_ then g2_windows_
    std::vector<Interval> intervals_;
    Step done_ = Step::none;  // which of run_z, run_l and run_h ran last (none once sums has)
    bool lent_written_ = false;  // lent_scratch_written
};

extern template class ProofMsms<curve::Bls12_381>;
extern template class ProofMsms<curve::Bn254>;

}  // namespace zkbatch::cuda
