// PinnedPool: cuda-pinned's host memory. A bounded pool of buffer sets (a, b, c and h
// of 2^max_log_n elements each) allocated once with cudaHostAlloc when the backend is
// created, and each set's witness z of the key's m elements when the key is loaded;
// synthesis writes straight into a set, so uploads run at PCIe line rate.
// An exhausted pool blocks acquire (the runner records the wait as pool wait); it
// never falls back to pageable memory and never allocates per partition.
//
// Options: pool_sets = number of buffer sets (default prove_workers + 1: one set being
// synthesized while every worker proves).
#pragma once

#include "gpu/util/host_memory.hpp"
#include "gpu/util/pinned_buffer.hpp"
#include "core/plugin/options.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace zkbatch::cuda_pinned {

class PinnedPool final : public cuda::HostMemoryPolicy {
public:
    static constexpr const char* kName = "cuda-pinned";
    static constexpr const char* kDescription =
        "CUDA backend; a/b/c/h in a bounded pool of pinned (cudaHostAlloc) host memory, allocated once";

    struct Settings {
        uint32_t pool_sets = 0;
        uint64_t pinned_bytes = 0;  // pool_sets * 4 vectors * 2^max_log_n * 32 bytes
    };
    // Reads pool_sets and refuses (plugin::Error, ZKB_ERR_OUT_OF_MEMORY) a pool larger
    // than the machine's available memory, before anything is allocated.
    static Settings read_settings(plugin::PluginOptions& options, const cuda::BackendConfig& config);

    // Allocates and first-touches every set; throws CudaError when the driver cannot pin it.
    PinnedPool(const Settings& settings, const cuda::BackendConfig& config);

    zkb_host_buffers acquire(uint32_t log_n) override;
    void release(const zkb_host_buffers& buffers) noexcept override;
    // Pins one witness buffer per set, refused like the pool when it would not fit.
    void add_witness(uint64_t m) override;
    void add_facts(zkb_facts* facts) const override;

private:
    uint64_t vector_capacity_bytes_;
    std::vector<cuda::PinnedBuffer> sets_;
    uint64_t witness_elements_ = 0;
    std::vector<cuda::PinnedBuffer> witnesses_;  // one per set, after add_witness
    uint64_t pinned_bytes_ = 0;
    double setup_ms_ = 0.0;

    std::mutex mutex_;
    std::condition_variable set_released_;
    std::vector<uint32_t> free_sets_;  // indices into sets_
    std::vector<bool> set_out_;        // guards against a set released twice
};

}  // namespace zkbatch::cuda_pinned
