// The runner's two clocks. Phase intervals use the monotonic clock (CLOCK_MONOTONIC,
// shared with plugins through the ABI); people read the wall clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace zkbatch {

inline int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

inline int64_t unix_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

inline double ns_to_ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace zkbatch
