#include "gpu/util/device_info.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/ntt/ntt_kernels.hpp"
#include "core/plugin/facts.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>

namespace zkbatch::cuda {

namespace {

std::string read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return {};
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    return line;
}

// "32.0 GT/s PCIe" -> "5". Each PCIe generation doubles the per-lane rate from Gen3's 8 GT/s.
std::string generation_from_speed(const std::string& speed) {
    double gigatransfers = 0.0;
    std::istringstream(speed) >> gigatransfers;
    struct Step {
        double rate;
        const char* generation;
    };
    constexpr Step kSteps[] = {{2.5, "1"}, {5.0, "2"}, {8.0, "3"}, {16.0, "4"}, {32.0, "5"}, {64.0, "6"}};
    for (const Step& step : kSteps) {
        if (gigatransfers > step.rate * 0.9 && gigatransfers < step.rate * 1.1) return step.generation;
    }
    return "unknown";
}

void read_link_from_sysfs(const std::string& bus_id, PcieLink& current, PcieLink& max) {
    const std::string folder = "/sys/bus/pci/devices/" + bus_id + "/";
    const std::string current_speed = read_first_line(folder + "current_link_speed");
    const std::string current_width = read_first_line(folder + "current_link_width");
    if (!current_speed.empty() && !current_width.empty()) {
        current = {generation_from_speed(current_speed), current_width, "sysfs"};
    }
    const std::string max_speed = read_first_line(folder + "max_link_speed");
    const std::string max_width = read_first_line(folder + "max_link_width");
    if (!max_speed.empty() && !max_width.empty()) max = {generation_from_speed(max_speed), max_width, "sysfs"};
}

// The few NVML entry points used, declared here so no NVML header or link is needed:
// libnvidia-ml.so.1 ships with the driver and is opened only if it is there.
struct Nvml {
    using Device = void*;
    using InitFn = int (*)();
    using ShutdownFn = int (*)();
    using HandleByBusIdFn = int (*)(const char*, Device*);
    using UintQueryFn = int (*)(Device, unsigned int*);
    using DriverVersionFn = int (*)(char*, unsigned int);

    void* library = nullptr;
    InitFn init = nullptr;
    ShutdownFn shutdown = nullptr;
    HandleByBusIdFn handle_by_bus_id = nullptr;
    UintQueryFn current_generation = nullptr;
    UintQueryFn current_width = nullptr;
    UintQueryFn max_generation = nullptr;
    UintQueryFn max_width = nullptr;
    DriverVersionFn driver_version = nullptr;
    bool initialized = false;

    Nvml() {
        library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) return;
        init = reinterpret_cast<InitFn>(dlsym(library, "nvmlInit_v2"));
        shutdown = reinterpret_cast<ShutdownFn>(dlsym(library, "nvmlShutdown"));
        handle_by_bus_id = reinterpret_cast<HandleByBusIdFn>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
        current_generation = reinterpret_cast<UintQueryFn>(dlsym(library, "nvmlDeviceGetCurrPcieLinkGeneration"));
        current_width = reinterpret_cast<UintQueryFn>(dlsym(library, "nvmlDeviceGetCurrPcieLinkWidth"));
        max_generation = reinterpret_cast<UintQueryFn>(dlsym(library, "nvmlDeviceGetMaxPcieLinkGeneration"));
        max_width = reinterpret_cast<UintQueryFn>(dlsym(library, "nvmlDeviceGetMaxPcieLinkWidth"));
        driver_version = reinterpret_cast<DriverVersionFn>(dlsym(library, "nvmlSystemGetDriverVersion"));
        initialized = init != nullptr && shutdown != nullptr && init() == 0;  // 0 is NVML_SUCCESS
    }
    ~Nvml() {
        if (initialized) shutdown();
        if (library != nullptr) dlclose(library);
    }
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;
};

void read_link_from_nvml(Nvml& nvml, const std::string& bus_id, PcieLink& current, PcieLink& max) {
    if (!nvml.initialized || nvml.handle_by_bus_id == nullptr) return;
    Nvml::Device device = nullptr;
    if (nvml.handle_by_bus_id(bus_id.c_str(), &device) != 0) return;
    unsigned int generation = 0;
    unsigned int width = 0;
    if (current.source == "none" && nvml.current_generation != nullptr && nvml.current_width != nullptr &&
        nvml.current_generation(device, &generation) == 0 && nvml.current_width(device, &width) == 0) {
        current = {std::to_string(generation), std::to_string(width), "nvml"};
    }
    if (max.source == "none" && nvml.max_generation != nullptr && nvml.max_width != nullptr &&
        nvml.max_generation(device, &generation) == 0 && nvml.max_width(device, &width) == 0) {
        max = {std::to_string(generation), std::to_string(width), "nvml"};
    }
}

// The first token shaped like a version in "NVRM version: NVIDIA UNIX x86_64 Kernel
// Module  580.159.04  Thu ..." -> "580.159.04". The open driver words it differently
// ("... Open Kernel Module for x86_64  580.159.04 ..."; the H200 machine printed that),
// so no fixed position is assumed.
std::string driver_version_from_proc() {
    std::istringstream words(read_first_line("/proc/driver/nvidia/version"));
    for (std::string word; words >> word;) {
        const bool version_shaped = std::isdigit(static_cast<unsigned char>(word.front())) &&
                                    word.find('.') != std::string::npos &&
                                    word.find_first_not_of("0123456789.") == std::string::npos;
        if (version_shaped) return word;
    }
    return {};
}

// sysfs names a device "0000:3b:00.0" (4-digit domain, lower case); CUDA may print
// "0000:3B:00.0" or "00000000:3B:00.0".
std::string sysfs_bus_id(const char* cuda_bus_id) {
    unsigned domain = 0, bus = 0, device = 0, function = 0;
    if (std::sscanf(cuda_bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return cuda_bus_id;
    char text[32];
    std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", domain, bus, device, function);
    return text;
}

}  // namespace

std::string format_cuda_version(int version) {
    return plugin::concat(version / 1000, ".", (version % 1000) / 10);
}

DeviceInfo DeviceInfo::query(int device_index) {
    DeviceInfo info;
    info.index = device_index;
    ZKB_CUDA_CHECK(cudaGetDeviceCount(&info.device_count));
    cudaDeviceProp properties{};
    ZKB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device_index));
    info.name = properties.name;
    info.sm_count = properties.multiProcessorCount;
    info.compute_capability_major = properties.major;
    info.compute_capability_minor = properties.minor;
    info.memory_bytes = properties.totalGlobalMem;

    int version = 0;
    ZKB_CUDA_CHECK(cudaDriverGetVersion(&version));
    info.driver_cuda_version = format_cuda_version(version);
    ZKB_CUDA_CHECK(cudaRuntimeGetVersion(&version));
    info.runtime_version = format_cuda_version(version);

    char bus_id[32] = {};
    ZKB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device_index));
    info.pci_bus_id = sysfs_bus_id(bus_id);

    read_link_from_sysfs(info.pci_bus_id, info.pcie_current, info.pcie_max);
    info.driver_version = driver_version_from_proc();
    if (info.pcie_current.source == "none" || info.pcie_max.source == "none" || info.driver_version.empty()) {
        Nvml nvml;
        read_link_from_nvml(nvml, bus_id, info.pcie_current, info.pcie_max);
        if (info.driver_version.empty() && nvml.initialized && nvml.driver_version != nullptr) {
            char text[96] = {};
            if (nvml.driver_version(text, sizeof text) == 0) info.driver_version = text;
        }
    }
    if (info.driver_version.empty()) info.driver_version = "unknown";
    return info;
}

void DeviceInfo::add_facts(zkb_facts* facts) const {
    using namespace plugin;
    add_fact(facts, fact::device_name, name);
    add_fact(facts, fact::device_sm_count, sm_count);
    add_fact(facts, fact::device_memory_bytes, memory_bytes);
    add_fact(facts, fact::device_count, device_count);
    add_fact(facts, fact::driver_version, driver_version);
    add_fact(facts, fact::cuda_runtime_version, runtime_version);
    add_fact(facts, fact::pcie_gen, pcie_current.generation);
    add_fact(facts, fact::pcie_width, pcie_current.width);
    add_fact(facts, "device.index", index);
    add_fact(facts, "device.pci_bus_id", pci_bus_id);
    add_fact(facts, "device.compute_capability",
             concat(compute_capability_major, ".", compute_capability_minor));
    add_fact(facts, "driver.cuda_version", driver_cuda_version);
    add_fact(facts, "pcie.max_gen", pcie_max.generation);
    add_fact(facts, "pcie.max_width", pcie_max.width);
    add_fact(facts, "pcie.source", pcie_current.source);
}

std::string cuda_unavailable_reason(int device_index) {
    int device_count = 0;
    const cudaError_t status = cudaGetDeviceCount(&device_count);
    if (status != cudaSuccess) {
        return plugin::concat("no usable CUDA device: cudaGetDeviceCount failed: ", cudaGetErrorString(status),
                              " (", cudaGetErrorName(status), ")");
    }
    if (device_count == 0) return "no CUDA device is visible (cudaGetDeviceCount returned 0)";
    if (device_index < 0 || device_index >= device_count) {
        return plugin::concat("CUDA device ", device_index, " was asked for but only ", device_count,
                              " device(s) are visible (indices 0..", device_count - 1, ")");
    }
    return kernel_image_unavailable_reason(device_index);
}

}  // namespace zkbatch::cuda
