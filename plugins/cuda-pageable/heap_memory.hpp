// HeapMemory: cuda-pageable's host memory, the ordinary heap, one allocation per
// acquire (core/plugin/heap_buffers.hpp, as cpu-ref). CUDA stages copies from such
// memory through a small pinned bounce buffer: the slow path the pinned pool exists to
// avoid, kept so the two can be compared with everything else equal.
#pragma once

#include "gpu/util/host_memory.hpp"
#include "core/plugin/options.hpp"

namespace zkbatch::cuda_pageable {

class HeapMemory final : public cuda::HostMemoryPolicy {
public:
    static constexpr const char* kName = "cuda-pageable";
    static constexpr const char* kDescription =
        "CUDA backend; a/b/c/h in ordinary (pageable) heap memory, allocated per partition";

    struct Settings {};  // no options of its own
    static Settings read_settings(plugin::PluginOptions&, const cuda::BackendConfig&) { return {}; }
    HeapMemory(const Settings&, const cuda::BackendConfig&) {}

    zkb_host_buffers acquire(uint32_t log_n) override;
    void release(const zkb_host_buffers& buffers) noexcept override;
    void add_witness(uint64_t m) override { witness_elements_ = m; }
    void add_facts(zkb_facts* facts) const override;

private:
    uint64_t witness_elements_ = 0;
};

}  // namespace zkbatch::cuda_pageable
