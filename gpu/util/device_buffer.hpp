// DeviceBuffer<T>: `count` elements of T in device memory (cudaMalloc), freed in the
// destructor; or, taken from a DeviceArena, memory lent by its owner and not freed here.
// Allocated once and reused: a per-partition cudaMalloc/cudaFree would synchronize the
// device and stall every other worker on it.
#pragma once

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_arena.hpp"
#include "gpu/util/stream.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace zkbatch::cuda {

template <class T>
class DeviceBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable values");

public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count > 0) ZKB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    }
    // From `arena` where one is given (lent: never freed here), else as above.
    DeviceBuffer(size_t count, DeviceArena* arena) : DeviceBuffer(arena == nullptr ? count : 0) {
        if (arena == nullptr) return;
        count_ = count;
        data_ = static_cast<T*>(arena->take(count * sizeof(T)));
        owned_ = false;
    }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          count_(std::exchange(other.count_, 0)),
          owned_(std::exchange(other.owned_, true)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            count_ = std::exchange(other.count_, 0);
            owned_ = std::exchange(other.owned_, true);
        }
        return *this;
    }

    T* data() const { return data_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    // Synchronous copies of `count` elements (set-up and tests; the prove path uses
    // Stream's asynchronous copies).
    // Synchronous in full. cudaMemcpy from pageable memory may return once the bytes
    // are staged, before the DMA lands, and our streams are non-blocking, so they do not
    // wait for the legacy stream: without the sync, a kernel launched next could read
    // the old contents (seen on the H200 as a rare NTT test failure).
    void copy_from_host(const T* host, size_t count) {
        ZKB_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
        ZKB_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }
    void copy_to_host(T* host, size_t count) const {
        ZKB_CUDA_CHECK(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost));
    }

private:
    void release() noexcept {
        // cudaFree fails only on a broken context, which has been reported already.
        if (owned_ && data_ != nullptr) (void)cudaFree(data_);
    }

    T* data_ = nullptr;
    size_t count_ = 0;
    bool owned_ = true;  // false: lent by an arena
};

}  // namespace zkbatch::cuda
