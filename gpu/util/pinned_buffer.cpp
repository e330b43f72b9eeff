#include "gpu/util/pinned_buffer.hpp"

#include "gpu/util/cuda_check.hpp"

#include <utility>

namespace zkbatch::cuda {

PinnedBuffer::PinnedBuffer(size_t bytes) : bytes_(bytes) {
    // Portable: the memory counts as pinned for every device, whichever one a worker uses.
    if (bytes > 0) ZKB_CUDA_CHECK(cudaHostAlloc(&data_, bytes, cudaHostAllocPortable));
}

PinnedBuffer::~PinnedBuffer() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);  // fails only on a broken context
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
        if (data_ != nullptr) (void)cudaFreeHost(data_);
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

}  // namespace zkbatch::cuda
