// What a run records about the machine and the build it ran on, so two runs can be
// compared and explained ("a number without its environment is not comparable").
#pragma once

#include <cstdint>
#include <string>

namespace zkbatch {

struct HostEnvironment {
    std::string hostname;
    std::string cpu_model;  // /proc/cpuinfo "model name"
    uint32_t cpu_cores = 0; // logical CPUs this process may use
    std::string zkbatch_version;
    std::string git_revision;  // of the source tree zkbatch was built from; "-dirty" when modified
};

HostEnvironment capture_host_environment();

uint64_t peak_rss_bytes();  // of this process so far

}  // namespace zkbatch
