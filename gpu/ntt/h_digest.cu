#include "gpu/ntt/h_digest.hpp"

#include "gpu/util/cuda_check.hpp"
#include "core/util/xxh3_split.hpp"

namespace zkbatch::cuda {

namespace {

// One thread per row and lane: a warp reads four blocks' stripes, 64 bytes at a time.
// The keys (1 KiB) travel as the kernel's argument, in constant memory.
__global__ void xxh3_block_sums_kernel(const uint64_t* words, uint64_t bytes, uint64_t* rows,
                                       const xxh3::StripeKeys keys) {
    const uint64_t index = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x;
    if (index >= xxh3::block_sum_count(bytes)) return;
    rows[index] = xxh3::block_sum(words, bytes, index / xxh3::kLanes, index % xxh3::kLanes, keys);
}

constexpr uint32_t kThreadsPerBlock = 256;

}  // namespace

void enqueue_xxh3_block_sums(const void* device_bytes, uint64_t bytes, uint64_t* device_rows, const Stream& stream) {
    const uint64_t threads = xxh3::block_sum_count(bytes);
    const auto blocks = static_cast<uint32_t>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
    xxh3_block_sums_kernel<<<blocks, kThreadsPerBlock, 0, stream.handle()>>>(
        static_cast<const uint64_t*>(device_bytes), bytes, device_rows, xxh3::stripe_keys());
    ZKB_CUDA_CHECK_LAUNCH("xxh3_block_sums_kernel");
}

}  // namespace zkbatch::cuda
