// QueryStager: where a proof's MSM finds a chunk of a query's points. A resident query's
// chunk is where it is; a streamed one's (KeyPlacement) is copied from pinned host memory
// into one of two device slots on the stager's own stream, each copy after the MSM that
// read its slot before. The copy of a chunk thus runs under the MSM of the chunk before
// it: ProofMsms enqueues the copy before the next preparation blocks the host
// (ScalarPlan::prepare waits for the stream to reach its counts).
#pragma once

#include "gpu/key/device_key.hpp"
#include "gpu/key/key_placement.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/event.hpp"
#include "gpu/util/stream.hpp"

#include <cstdint>
#include <optional>

namespace zkbatch::cuda {

class QueryStager {
public:
    // Slots for chunks of up to `chunk_points` points of the queries `placement` streams
    // (none: no memory, no stream).
    QueryStager(uint64_t chunk_points, const KeyPlacement& placement);
    static uint64_t device_bytes_for(uint64_t chunk_points, const KeyPlacement& placement);

    // Forgets the previous proof's copies.
    void begin();
    // The device address of points [first, first + count) of `query`. For a streamed
    // query the copy is enqueued, and `compute` waits for it; the caller then enqueues the
    // MSM that reads them and calls release.
    template <class Point>
    const Point* chunk(const KeyQuery<Point>& query, uint64_t first, uint64_t count, const Stream& compute);
    // The last chunk's slot is free once `compute` has done what is enqueued on it so far.
    void release(const Stream& compute);

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
    uint32_t next_slot_ = 0;
    int last_slot_ = -1;  // the slot of the last chunk() not yet released, or -1
    uint64_t bytes_ = 0;
};

}  // namespace zkbatch::cuda
