// The CUDA kernels of the NTT passes (ntt_pass.hpp) and how they are launched.
#pragma once

#include "gpu/ntt/ntt_steps.hpp"
#include "gpu/util/stream.hpp"

#include <string>

namespace zkbatch::cuda::ntt {

// Enqueues every launch of `sequence` on `stream`, in order. Throws CudaError when a
// launch is refused; faults inside kernels surface at the stream's next synchronize.
// Fr: ff::Fr (BLS12-381's) or ff::bn254::Fr, each with kernels of its own.
template <class Fr>
void enqueue(const LaunchSequence<Fr>& sequence, const Stream& stream);

// out[e] = power_from_seeds(lo, hi, lo_bits, e) for e < 2^log_size, on the current
// device's default stream (the caller synchronizes). Builds DeviceDomainTables.
template <class Fr>
void expand_power_table(const Fr* lo, const Fr* hi, uint32_t lo_bits, Fr* out, uint32_t log_size);

// Once per device before the first launch: lets the pass kernels (of both fields) use
// more than the default 48 KiB of shared memory, and checks the device can run this
// build's code.
// Throws CudaError (cudaErrorNoKernelImageForDevice names the problem).
void prepare_device(int device);

}  // namespace zkbatch::cuda::ntt

namespace zkbatch::cuda {

// Empty when device `device_index` can run the kernels of this build (compute capability
// at least the lowest architecture built, CMAKE_CUDA_ARCHITECTURES); else why not.
// Uses only device properties: creates no CUDA context.
std::string kernel_image_unavailable_reason(int device_index);

}  // namespace zkbatch::cuda
