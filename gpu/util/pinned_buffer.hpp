// PinnedBuffer: page-locked host memory from cudaHostAlloc, freed with cudaFreeHost.
// Copies from it run at PCIe line rate; copies from ordinary (pageable) memory are
// staged through a small driver buffer at a fraction of that
// (docs/performance.md#pinned-against-pageable-host-memory).
// Allocating it is slow (about 2 GB/s), so it is allocated once, up front.
#pragma once

#include <cstddef>

namespace zkbatch::cuda {

class PinnedBuffer {
public:
    PinnedBuffer() = default;
    // Throws CudaError (ZKB_ERR_OUT_OF_MEMORY when the driver cannot pin that much).
    explicit PinnedBuffer(size_t bytes);
    ~PinnedBuffer();
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& other) noexcept;
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;

    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace zkbatch::cuda
