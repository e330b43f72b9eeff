#include "gpu/key/query_stager.hpp"

#include <algorithm>
#include <stdexcept>

namespace zkbatch::cuda {

namespace {

// The largest point a slot holds: B2's (G2) where it streams, else G1's.
uint64_t slot_bytes_for(uint64_t chunk_points, const KeyPlacement& placement, PointBytes point) {
    if (!placement.any_streamed()) return 0;
    const bool g2 = placement.streamed(groth16::ProofMsm::b_g2);
    return chunk_points * (g2 ? point.g2 : point.g1);
}

}  // namespace

QueryStager::QueryStager(uint64_t chunk_points, const KeyPlacement& placement, PointBytes point, DeviceArena* arena)
    : slot_bytes_(slot_bytes_for(chunk_points, placement, point)) {
    if (slot_bytes_ == 0) return;
    for (DeviceBuffer<uint8_t>& slot : slots_) slot = DeviceBuffer<uint8_t>(slot_bytes_, arena);
    copies_.emplace();
}

uint64_t QueryStager::device_bytes_for(uint64_t chunk_points, const KeyPlacement& placement, PointBytes point) {
    return 2 * slot_bytes_for(chunk_points, placement, point);
}

void QueryStager::begin(const Event* slots_free) {
    if (slots_free != nullptr && copies_) copies_->wait(*slots_free);
    bytes_ = 0;
    last_slot_ = -1;
    prefetched_ = nullptr;
}

uint32_t QueryStager::copy_into_next_slot(const void* host, uint64_t bytes) {
    if (bytes > slot_bytes_) {
        throw std::logic_error("QueryStager: a chunk larger than its slots");
    }
    const uint32_t slot = next_slot_;
    next_slot_ ^= 1;
    copies_->wait(free_[slot]);  // the MSM that read this slot before (none yet: at once)
    if (bytes_ == 0) start_.record(*copies_);
    copies_->copy_to_device(slots_[slot].data(), host, bytes);
    copied_[slot].record(*copies_);
    end_.record(*copies_);
    bytes_ += bytes;
    return slot;
}

template <class Point>
const Point* QueryStager::chunk(const KeyQuery<Point>& query, uint64_t first, uint64_t count, const Stream& compute) {
    if (!query.in_host_memory()) return query.device.data() + first;
    const void* host = query.host_points() + first;
    const uint64_t bytes = count * sizeof(Point);
    uint32_t slot;
    if (prefetched_ != nullptr) {
        if (prefetched_ != host || prefetched_bytes_ != bytes) {
            throw std::logic_error("QueryStager: a chunk other than the one prefetched");
        }
        slot = prefetched_slot_;
        prefetched_ = nullptr;
    } else {
        slot = copy_into_next_slot(host, bytes);
    }
    compute.wait(copied_[slot]);
    last_slot_ = static_cast<int>(slot);
    return reinterpret_cast<const Point*>(slots_[slot].data());
}

template <class Point>
void QueryStager::prefetch(const KeyQuery<Point>& query, uint64_t first, uint64_t count) {
    if (!query.in_host_memory()) return;
    if (prefetched_ != nullptr) throw std::logic_error("QueryStager: a second chunk prefetched");
    prefetched_ = query.host_points() + first;
    prefetched_bytes_ = count * sizeof(Point);
    prefetched_slot_ = copy_into_next_slot(prefetched_, prefetched_bytes_);
}

void QueryStager::synchronize() const noexcept {
    if (copies_) (void)cudaStreamSynchronize(copies_->handle());
}

void QueryStager::release(const Stream& compute) {
    if (last_slot_ < 0) return;
    free_[last_slot_].record(compute);
    last_slot_ = -1;
}

#define ZKB_QUERY_STAGER_INSTANTIATE(Point)                                                              \
    template const Point* QueryStager::chunk(const KeyQuery<Point>&, uint64_t, uint64_t, const Stream&); \
    template void QueryStager::prefetch(const KeyQuery<Point>&, uint64_t, uint64_t);
ZKB_QUERY_STAGER_INSTANTIATE(ec::G1Affine)
ZKB_QUERY_STAGER_INSTANTIATE(ec::G2Affine)
ZKB_QUERY_STAGER_INSTANTIATE(ec::bn254::G1Affine)
ZKB_QUERY_STAGER_INSTANTIATE(ec::bn254::G2Affine)
#undef ZKB_QUERY_STAGER_INSTANTIATE

}  // namespace zkbatch::cuda
