// h's digest on the device: the XXH3-128 block sums of core/util/xxh3_split.hpp,
// formed where h lies, so that 1/16 of h crosses PCIe instead of h (plugin ABI v4).
#pragma once

#include "gpu/util/stream.hpp"

#include <cstdint>

namespace zkbatch::cuda {

// Enqueues on `stream`: device_rows[row * xxh3::kLanes + lane] = xxh3::block_sum(...)
// for every row and lane of the `bytes` at `device_bytes` (xxh3::splits(bytes) holds;
// xxh3::block_rows(bytes) rows). Throws CudaError when the launch is refused.
void enqueue_xxh3_block_sums(const void* device_bytes, uint64_t bytes, uint64_t* device_rows, const Stream& stream);

}  // namespace zkbatch::cuda
