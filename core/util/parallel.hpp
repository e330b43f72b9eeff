// parallel_for: run fn over [begin, end) on up to `threads` std::threads.
//
// The range is cut into `threads` contiguous chunks of near-equal size (the first
// `count % threads` chunks get one extra index), and fn(chunk_begin, chunk_end) runs
// once per non-empty chunk; the calling thread takes the first chunk. threads <= 1, or
// a range of one index, runs fn inline. The split depends only on (begin, end,
// threads), so which indices share a chunk is reproducible. The first exception thrown
// by any chunk is rethrown after all chunks have finished.
#pragma once

#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace zkbatch::util {

template <class ChunkFn>
void parallel_for(size_t begin, size_t end, unsigned threads, ChunkFn&& fn) {
    if (end <= begin) return;
    const size_t count = end - begin;
    const size_t chunks = threads <= 1 ? 1 : (count < threads ? count : threads);
    if (chunks == 1) {
        fn(begin, end);
        return;
    }
    const size_t base = count / chunks;
    const size_t extra = count % chunks;
    auto chunk_begin = [&](size_t chunk) { return begin + chunk * base + (chunk < extra ? chunk : extra); };

    std::exception_ptr first_error;
    std::mutex error_mutex;
    auto run_chunk = [&](size_t chunk) {
        try {
            fn(chunk_begin(chunk), chunk_begin(chunk + 1));
        } catch (...) {
            const std::lock_guard<std::mutex> lock(error_mutex);
            if (!first_error) first_error = std::current_exception();
        }
    };

    std::vector<std::thread> workers;
    workers.reserve(chunks - 1);
    size_t first_inline_chunk = chunks;
    for (size_t chunk = 1; chunk < chunks; ++chunk) {
        try {
            workers.emplace_back(run_chunk, chunk);
        } catch (const std::system_error&) {
            first_inline_chunk = chunk;  // no more threads available: run the rest here
            break;
        }
    }
    run_chunk(0);
    for (size_t chunk = first_inline_chunk; chunk < chunks; ++chunk) run_chunk(chunk);
    for (auto& worker : workers) worker.join();
    if (first_error) std::rethrow_exception(first_error);
}

}  // namespace zkbatch::util
