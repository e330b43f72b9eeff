#include "gpu/util/stream.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/event.hpp"

#include <utility>

namespace zkbatch::cuda {

Stream::Stream() { ZKB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

Stream::~Stream() {
    // A destructor cannot throw; destroying a stream fails only when the context is
    // already broken, and that error has been reported by the call that broke it.
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
    if (this != &other) {
        if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
        stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
}

void Stream::copy_to_device(void* device_destination, const void* host_source, size_t bytes) const {
    ZKB_CUDA_CHECK(cudaMemcpyAsync(device_destination, host_source, bytes, cudaMemcpyHostToDevice, stream_));
}

void Stream::copy_to_host(void* host_destination, const void* device_source, size_t bytes) const {
    ZKB_CUDA_CHECK(cudaMemcpyAsync(host_destination, device_source, bytes, cudaMemcpyDeviceToHost, stream_));
}

void Stream::wait(const Event& event) const { ZKB_CUDA_CHECK(cudaStreamWaitEvent(stream_, event.handle(), 0)); }

void Stream::synchronize() const { ZKB_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

}  // namespace zkbatch::cuda
