#include "gpu/util/cuda_check.hpp"

#include <string_view>

namespace zkbatch::cuda {

namespace {

// __FILE__ is absolute in a CMake build; the part from the repository's top folders
// on is what a reader needs.
std::string_view short_path(std::string_view file) {
    for (std::string_view top : {"/core/", "/plugins/", "/tests/", "/runner/"}) {
        const size_t at = file.rfind(top);
        if (at != std::string_view::npos) return file.substr(at + 1);
    }
    return file;
}

int error_code_for(cudaError_t status) {
    return status == cudaErrorMemoryAllocation ? ZKB_ERR_OUT_OF_MEMORY : ZKB_ERR_DEVICE;
}

}  // namespace

std::string describe_cuda_error(cudaError_t status, const char* call_text, const char* file, int line) {
    return plugin::concat("CUDA error in `", call_text, "` at ", short_path(file), ":", line, ": ",
                          cudaGetErrorString(status), " (", cudaGetErrorName(status), ")");
}

CudaError::CudaError(cudaError_t status, const char* call_text, const char* file, int line)
    : plugin::Error(error_code_for(status), describe_cuda_error(status, call_text, file, line)),
      status_(status) {}

bool CudaError::is_out_of_memory() const noexcept { return status_ == cudaErrorMemoryAllocation; }

void throw_cuda_error(cudaError_t status, const char* call_text, const char* file, int line) {
    throw CudaError(status, call_text, file, line);
}

}  // namespace zkbatch::cuda
