// Device memory as the kernel benchmarks budget it: each row counts the bytes it will
// allocate before it allocates them, and a row that does not fit in free device memory
// is skipped and noted, not left to die on cudaErrorMemoryAllocation. The notes go
// after the row's table, as "# <row>: skipped, needs 54.2 GiB of device memory, 41.0 GiB
// free" lines, so the rows that ran keep their format.
#pragma once

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/host_memory.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace zkbatch::bench {

// Kept free beside a row's counted buffers: allocation granularity, CUB's and the
// driver's own, and the local memory of kernels launched later.
inline constexpr uint64_t kSpareBytes = uint64_t{512} << 20;

inline uint64_t free_device_bytes() {
    size_t free_bytes = 0, total_bytes = 0;
    ZKB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

// The rows left out for want of device memory, each noted with what it needs, printed
// after the table they belong to.
class Skips {
public:
    // Whether `bytes`, what the row `what` allocates (counted before it does), fit in free
    // device memory with kSpareBytes to spare; if not, notes the row as skipped.
    bool fits(const std::string& what, uint64_t bytes) {
        const uint64_t free_bytes = free_device_bytes();
        if (bytes + kSpareBytes <= free_bytes) return true;
        note(what + ": skipped, needs " + cuda::format_gib(bytes + kSpareBytes) + " of device memory, " +
             cuda::format_gib(free_bytes) + " free");
        return false;
    }

    // Runs `row`, and returns whether it ran. An allocation that fails in it anyway (the
    // count fell short) skips the row instead of ending the benchmark: the row's buffers
    // are freed as the exception unwinds, and CUDA's last error is cleared so that the
    // next launch's check does not report it. Other errors propagate.
    template <class Row>
    bool run_or_skip(const std::string& what, Row&& row) {
        try {
            row();
            return true;
        } catch (const cuda::CudaError& error) {
            if (!error.is_out_of_memory()) throw;
            (void)cudaGetLastError();
            note(what + ": skipped, its allocation failed with " + cuda::format_gib(free_device_bytes()) +
                 " free (" + error.what() + ")");
            return false;
        }
    }

    void note(std::string line) { notes_.push_back(std::move(line)); }

    // Prints the notes since the last print, after a blank line.
    void print() {
        if (notes_.empty()) return;
        std::printf("\n");
        for (const std::string& line : notes_) std::printf("# %s\n", line.c_str());
        std::fflush(stdout);
        notes_.clear();
    }

private:
    std::vector<std::string> notes_;
};

}  // namespace zkbatch::bench
