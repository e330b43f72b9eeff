// Stream: one CUDA stream, created in the constructor and destroyed in the destructor.
// Work is enqueued through its methods, so algorithm code never handles a raw
// cudaStream_t. Non-blocking: it does not synchronize with the legacy default stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace zkbatch::cuda {

class Event;

class Stream {
public:
    Stream();
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;

    // Asynchronous copies. From pageable host memory CUDA stages through a bounce
    // buffer and the call returns only once the data is staged; from pinned memory it
    // returns at once and the copy runs at link speed.
    void copy_to_device(void* device_destination, const void* host_source, size_t bytes) const;
    void copy_to_host(void* host_destination, const void* device_source, size_t bytes) const;

    // Later work on this stream waits until `event` has completed (on any stream).
    void wait(const Event& event) const;
    // Blocks the calling thread until all work enqueued so far is done; throws CudaError
    // for any failure of that work (a kernel fault surfaces here).
    void synchronize() const;

    cudaStream_t handle() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

}  // namespace zkbatch::cuda
