#include "pipeline/environment.hpp"

#include "pipeline/build_info.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <thread>

namespace zkbatch {

namespace {

std::string read_cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                auto start = line.find_first_not_of(' ', colon + 1);
                return start == std::string::npos ? std::string() : line.substr(start);
            }
        }
    }
    return "unknown";
}

uint32_t usable_cpu_count() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<uint32_t>(CPU_COUNT(&set));
    return std::thread::hardware_concurrency();
}

}  // namespace

HostEnvironment capture_host_environment() {
    HostEnvironment env;
    std::array<char, 256> name{};
    env.hostname = gethostname(name.data(), name.size() - 1) == 0 ? name.data() : "unknown";
    env.cpu_model = read_cpu_model();
    env.cpu_cores = usable_cpu_count();
    env.zkbatch_version = build_info::version;
    env.git_revision = build_info::git_revision;
    return env;
}

uint64_t peak_rss_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace zkbatch
