#include "test_support.hpp"

#include <zkbatch/cuda/device_info.hpp>

namespace zkbatch::test {

const std::string& gpu_unavailable_reason() {
    static const std::string reason = cuda::cuda_unavailable_reason(0);
    return reason;
}

}  // namespace zkbatch::test
