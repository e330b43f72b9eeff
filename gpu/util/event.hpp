// Event: one CUDA event with timing enabled, created in the constructor and destroyed
// in the destructor. Recorded on a stream, it marks a point of that stream's work; two
// recorded events give the device time between them.
#pragma once

#include <cuda_runtime_api.h>

namespace zkbatch::cuda {

class Stream;

class Event {
public:
    Event();
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept;
    Event& operator=(Event&& other) noexcept;

    void record(const Stream& stream) const;
    void synchronize() const;
    // Device milliseconds from `earlier` to this event (both recorded and completed);
    // resolution about 0.5 microseconds.
    float milliseconds_since(const Event& earlier) const;

    cudaEvent_t handle() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace zkbatch::cuda
