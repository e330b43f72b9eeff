// Device time as the kernel benchmarks report it: the median, over repetitions, of the
// milliseconds between two CUDA events around the work on one stream.
#pragma once

#include "gpu/util/event.hpp"
#include "gpu/util/stream.hpp"

#include <algorithm>
#include <vector>

namespace zkbatch::bench {

// Median milliseconds of `enqueue`'s work on `stream` over `repetitions` runs after
// `warmups`; `before` runs on the host ahead of each run, outside the events (restoring
// inputs, say). Work `enqueue` puts on another stream counts only once it joins `stream`.
template <class Enqueue, class Before>
double median_event_ms(const cuda::Stream& stream, int warmups, int repetitions, Enqueue&& enqueue,
                       Before&& before) {
    const cuda::Event start, stop;
    std::vector<double> samples;
    for (int run = -warmups; run < repetitions; ++run) {
        before();
        start.record(stream);
        enqueue();
        stop.record(stream);
        stop.synchronize();
        if (run >= 0) samples.push_back(stop.milliseconds_since(start));
    }
    if (samples.empty()) return 0.0;
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

template <class Enqueue>
double median_event_ms(const cuda::Stream& stream, int warmups, int repetitions, Enqueue&& enqueue) {
    return median_event_ms(stream, warmups, repetitions, enqueue, [] {});
}

}  // namespace zkbatch::bench
