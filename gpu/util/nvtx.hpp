// NvtxRange: an NVTX range for the lifetime of the object, so an Nsight Systems capture
// shows zkbatch's phases by name ("partition 12: h2d a") next to the CUDA calls and
// kernels they enqueue. Costs a few nanoseconds when no profiler is attached.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace zkbatch::cuda {

class NvtxRange {
public:
    explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
    ~NvtxRange() { nvtxRangePop(); }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace zkbatch::cuda
