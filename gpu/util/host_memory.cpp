#include "gpu/util/host_memory.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace zkbatch::cuda {

HostMemoryInfo read_host_memory_info() {
    HostMemoryInfo info;
    std::ifstream meminfo("/proc/meminfo");
    std::string line;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        std::string key;
        uint64_t kibibytes = 0;
        fields >> key >> kibibytes;
        if (key == "MemTotal:") info.total_bytes = kibibytes * 1024;
        if (key == "MemAvailable:") info.available_bytes = kibibytes * 1024;
    }
    return info;
}

std::string format_gib(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
    return text;
}

}  // namespace zkbatch::cuda
