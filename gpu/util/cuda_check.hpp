// The one error path for CUDA calls. Every runtime call goes through ZKB_CUDA_CHECK,
// every kernel launch is followed by ZKB_CUDA_CHECK_LAUNCH(); a failure throws
// CudaError carrying CUDA's own message, the call's text, the file and the line.
//
// CudaError is a plugin::Error, so the plugin boundary (plugin::guarded) turns it into
// ZKB_ERR_OUT_OF_MEMORY (device or pinned-host allocation failed) or ZKB_ERR_DEVICE
// (anything else) without a special case.
#pragma once

#include "core/plugin/error.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace zkbatch::cuda {

class CudaError : public plugin::Error {
public:
    CudaError(cudaError_t status, const char* call_text, const char* file, int line);
    cudaError_t status() const noexcept { return status_; }
    bool is_out_of_memory() const noexcept;

private:
    cudaError_t status_;
};

// Builds the message of a CudaError: "CUDA error in `cudaMalloc(...)` at
// gpu/msm/msm_g1.cu:12: out of memory (cudaErrorMemoryAllocation)".
std::string describe_cuda_error(cudaError_t status, const char* call_text, const char* file, int line);

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call_text, const char* file, int line);

}  // namespace zkbatch::cuda

#define ZKB_CUDA_CHECK(call)                                                                  \
    do {                                                                                      \
        const cudaError_t zkb_cuda_status_ = (call);                                          \
        if (zkb_cuda_status_ != cudaSuccess) {                                                \
            ::zkbatch::cuda::throw_cuda_error(zkb_cuda_status_, #call, __FILE__, __LINE__);   \
        }                                                                                     \
    } while (0)

// After a <<<...>>> launch: catches a bad configuration or a missing kernel image at
// once; faults inside the kernel surface at the next synchronizing call.
#define ZKB_CUDA_CHECK_LAUNCH(kernel_name)                                                    \
    do {                                                                                      \
        const cudaError_t zkb_cuda_status_ = cudaGetLastError();                              \
        if (zkb_cuda_status_ != cudaSuccess) {                                                \
            ::zkbatch::cuda::throw_cuda_error(zkb_cuda_status_, "launch of " kernel_name,     \
                                              __FILE__, __LINE__);                            \
        }                                                                                     \
    } while (0)
