#include "gpu/util/event.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/stream.hpp"

#include <utility>

namespace zkbatch::cuda {

Event::Event() { ZKB_CUDA_CHECK(cudaEventCreate(&event_)); }

Event::~Event() {
    // See ~Stream: nothing to report that has not been reported already.
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
    if (this != &other) {
        if (event_ != nullptr) (void)cudaEventDestroy(event_);
        event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
}

void Event::record(const Stream& stream) const { ZKB_CUDA_CHECK(cudaEventRecord(event_, stream.handle())); }

void Event::synchronize() const { ZKB_CUDA_CHECK(cudaEventSynchronize(event_)); }

float Event::milliseconds_since(const Event& earlier) const {
    float milliseconds = 0.0f;
    ZKB_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, earlier.event_, event_));
    return milliseconds;
}

}  // namespace zkbatch::cuda
