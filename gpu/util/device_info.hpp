// DeviceInfo: what a run records about the GPU it used (the "device facts" of a run):
// name, SM count, memory, driver and runtime versions, and the PCIe link, which
// decides the host-to-device copy rate. Also the reason, if any, that no GPU is usable.
#pragma once

#include "core/plugin/abi.h"

#include <cstdint>
#include <string>

namespace zkbatch::cuda {

struct PcieLink {
    std::string generation = "unknown";  // "5" (from the link speed: 32 GT/s is Gen5)
    std::string width = "unknown";       // lanes, "16"
    std::string source = "none";         // "sysfs", "nvml" or "none"
};

struct DeviceInfo {
    int index = 0;
    int device_count = 0;
    std::string name;
    std::string pci_bus_id;  // "0000:3b:00.0"
    int sm_count = 0;
    int compute_capability_major = 0;
    int compute_capability_minor = 0;
    uint64_t memory_bytes = 0;
    std::string driver_version;       // kernel module version "580.159.04", else "unknown"
    std::string driver_cuda_version;  // CUDA version the driver supports, "13.0"
    std::string runtime_version;      // CUDA runtime linked into the plugin, "13.0"
    // The current link can run slower than the maximum while the GPU idles (power
    // saving), so both are kept.
    PcieLink pcie_current;
    PcieLink pcie_max;

    // Throws CudaError when the device cannot be queried.
    static DeviceInfo query(int device_index);

    // Appends the well-known facts (core/plugin/facts.hpp) and a few of our own.
    void add_facts(zkb_facts* facts) const;
};

// Empty when CUDA device `device_index` can run this build's kernels; otherwise the
// reason, in a sentence ("no CUDA device: cudaGetDeviceCount failed: no CUDA-capable
// device is detected (cudaErrorNoDevice)"). Allocates nothing that outlives the call.
std::string cuda_unavailable_reason(int device_index);

// "13.0" from CUDA's integer version 13000.
std::string format_cuda_version(int version);

}  // namespace zkbatch::cuda
