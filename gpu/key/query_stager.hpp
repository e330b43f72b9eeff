// QueryStager: where a proof's MSM finds a chunk of a query's points. A resident query's
// chunk is where it is; a streamed one's (KeyPlacement) is copied from pinned host memory
// into one of two device slots on the stager's own stream, each copy after the MSM that
// read its slot before. The copy of a chunk thus runs under the MSM of the chunk before
// it: ProofMsms enqueues the copy before the next preparation blocks the host
// (ScalarPlan::prepare waits for the stream to reach its counts), and of an MSM's next
// chunk (prefetch) before this chunk's preparation, so that the copies follow one another
// without waiting for the host.
#pragma once

#include "gpu/key/device_key.hpp"
#include "gpu/key/key_placement.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/event.hpp"
#include "gpu/util/stream.hpp"

#include <cstdint>
#include <optional>

namespace zkbatch::cuda {

// A curve's affine points' bytes in G1 and G2: what a slot holds chunks of.
struct PointBytes {
    uint64_t g1 = 0, g2 = 0;

    template <class Curve>
    static constexpr PointBytes of() {
        return {sizeof(curve::G1Affine<Curve>), sizeof(curve::G2Affine<Curve>)};
    }
};

class QueryStager {
public:
    // Slots for chunks of up to `chunk_points` points (of `point`'s sizes) of the queries
    // `placement` streams (none: no memory, no stream), from `arena` where one is given.
    QueryStager(uint64_t chunk_points, const KeyPlacement& placement, PointBytes point, DeviceArena* arena = nullptr);
    static uint64_t device_bytes_for(uint64_t chunk_points, const KeyPlacement& placement, PointBytes point);

    // Forgets the previous proof's copies. With `slots_free`, the copies from now on wait
    // for that event too: slots in memory lent until then (DeviceArena).
    void begin(const Event* slots_free = nullptr);
    // Waits for the copies enqueued so far, errors dropped (a caller unwinding one).
    void synchronize() const noexcept;
    // The device address of points [first, first + count) of `query`. For a streamed
    // query the copy is enqueued, and `compute` waits for it; the caller then enqueues the
    // MSM that reads them and calls release.
    template <class Point>
    const Point* chunk(const KeyQuery<Point>& query, uint64_t first, uint64_t count, const Stream& compute);
    // The last chunk's slot is free once `compute` has done what is enqueued on it so far.
    void release(const Stream& compute);
    // Enqueues now the copy of the chunk the next chunk() will ask for (the same query,
    // first and count; chunk() refuses another), into the slot the chunk before the last
    // one read: one chunk ahead at most. Nothing for a resident query.
    template <class Point>
    void prefetch(const KeyQuery<Point>& query, uint64_t first, uint64_t count);

    // Since begin: the bytes copied, and the events before the first copy and after the
    // last (on the stager's stream; meaningful only with bytes() > 0).
    uint64_t bytes() const { return bytes_; }
    const Event& first_start() const { return start_; }
    const Event& last_end() const { return end_; }

private:
    uint64_t slot_bytes_;
    DeviceBuffer<uint8_t> slots_[2];
    std::optional<Stream> copies_;
    Event copied_[2], free_[2], start_, end_;
    // Enqueues the copy of `bytes` from `host` into the next slot; returns that slot.
    uint32_t copy_into_next_slot(const void* host, uint64_t bytes);

    uint32_t next_slot_ = 0;
    int last_slot_ = -1;  // the slot of the last chunk() not yet released, or -1
    uint64_t bytes_ = 0;
    // The prefetched chunk's host source and size (null: none), and its slot.
    const void* prefetched_ = nullptr;
    uint64_t prefetched_bytes_ = 0;
    uint32_t prefetched_slot_ = 0;
};

}  // namespace zkbatch::cuda
