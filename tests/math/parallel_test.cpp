// parallel_for: every index exactly once, contiguous deterministic chunks, errors surface.
#include "core/util/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace zkbatch {
namespace {

TEST(ParallelFor, CoversEveryIndexOnceInContiguousChunks) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{64}, size_t{1001}}) {
        for (unsigned threads : {0u, 1u, 2u, 3u, 8u, 40u}) {
            std::vector<std::atomic<int>> visits(count);
            std::mutex mutex;
            std::vector<std::pair<size_t, size_t>> chunks;
            util::parallel_for(10, 10 + count, threads, [&](size_t first, size_t last) {
                ASSERT_LT(first, last);
                for (size_t i = first; i < last; ++i) visits[i - 10]++;
                const std::lock_guard<std::mutex> lock(mutex);
                chunks.emplace_back(first, last);
            });
            for (size_t i = 0; i < count; ++i) ASSERT_EQ(visits[i].load(), 1) << count << " " << threads << " " << i;
            const size_t expected_chunks = count == 0 ? 0 : (threads <= 1 ? 1 : std::min<size_t>(count, threads));
            EXPECT_EQ(chunks.size(), expected_chunks) << count << " " << threads;
            // Chunk sizes differ by at most one.
            size_t smallest = count;
            size_t largest = 0;
            for (const auto& [first, last] : chunks) {
                smallest = std::min(smallest, last - first);
                largest = std::max(largest, last - first);
            }
            if (!chunks.empty()) {
                EXPECT_LE(largest - smallest, 1u);
            }
        }
    }
}

TEST(ParallelFor, RethrowsAnExceptionFromAWorkerChunk) {
    std::atomic<int> finished{0};
    EXPECT_THROW(util::parallel_for(0, 4, 4,
                                    [&](size_t first, size_t) {
                                        if (first == 3) throw std::runtime_error("chunk 3 failed");
                                        finished++;
                                    }),
                 std::runtime_error);
    EXPECT_EQ(finished.load(), 3) << "the other chunks still ran to completion";
}

}  // namespace
}  // namespace zkbatch
