#include "test_support.hpp"

#include "gpu/util/device_info.hpp"

#include <cstdlib>
#include <filesystem>

namespace zkbatch::test {

const std::string& gpu_unavailable_reason() {
    static const std::string reason = cuda::cuda_unavailable_reason(0);
    return reason;
}

std::string plugin_folder() {
    if (std::getenv("ZKBATCH_PLUGIN_PATH") != nullptr) return {};
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) return {};
    const auto bundled = self.parent_path().parent_path() / "plugins";
    return std::filesystem::is_directory(bundled) ? bundled.string() : std::string();
}

}  // namespace zkbatch::test
