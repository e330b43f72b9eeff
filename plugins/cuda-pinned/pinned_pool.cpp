#include "pinned_pool.hpp"

#include "gpu/util/cuda_check.hpp"
#include "core/ff/fr.hpp"
#include "core/plugin/error.hpp"
#include "core/plugin/facts.hpp"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>

namespace zkbatch::cuda_pinned {

namespace {

constexpr uint64_t kMaxPoolSets = 1024;
constexpr int kVectorsPerSet = 4;  // a, b, c, h

// Refuses (plugin::Error, ZKB_ERR_OUT_OF_MEMORY) to pin `bytes` more than this machine
// can spare: pinned pages cannot be swapped or reclaimed, so a tenth of the machine is
// left for everything else (the runner, synthesis, the page cache). `what` names the
// memory, `remedy` says what to lower.
void check_pinnable(uint64_t bytes, const std::string& what, const char* remedy) {
    const cuda::HostMemoryInfo memory = cuda::read_host_memory_info();
    const uint64_t headroom_bytes = memory.total_bytes / 10;
    const uint64_t usable_bytes = memory.available_bytes > headroom_bytes ? memory.available_bytes - headroom_bytes : 0;
    if (memory.total_bytes != 0 && bytes > usable_bytes) {
        throw plugin::Error(ZKB_ERR_OUT_OF_MEMORY,
                            plugin::concat(what, " needs ", cuda::format_gib(bytes),
                                           " of pinned host memory, but this machine has ",
                                           cuda::format_gib(memory.available_bytes), " available of ",
                                           cuda::format_gib(memory.total_bytes),
                                           " (/proc/meminfo) and a tenth is kept free; lower ", remedy));
    }
}

}  // namespace

PinnedPool::Settings PinnedPool::read_settings(plugin::PluginOptions& options, const cuda::BackendConfig& config) {
    Settings settings;
    settings.pool_sets =
        static_cast<uint32_t>(options.get_uint("pool_sets", uint64_t{config.prove_workers} + 1, 1, kMaxPoolSets));
    const uint64_t vector_bytes = (uint64_t{1} << config.max_log_n) * sizeof(ff::Fr);
    settings.pinned_bytes = uint64_t{settings.pool_sets} * kVectorsPerSet * vector_bytes;
    check_pinnable(settings.pinned_bytes,
                   plugin::concat("a pool of ", settings.pool_sets, " buffer set(s) of 4 x 2^", config.max_log_n,
                                  " elements"),
                   "backend.options.pool_sets or circuit.log_n");
    return settings;
}

PinnedPool::PinnedPool(const Settings& settings, const cuda::BackendConfig& config)
    : vector_capacity_bytes_((uint64_t{1} << config.max_log_n) * sizeof(ff::Fr)), pinned_bytes_(settings.pinned_bytes) {
    const auto start = std::chrono::steady_clock::now();
    sets_.reserve(settings.pool_sets);
    for (uint32_t i = 0; i < settings.pool_sets; ++i) {
        try {
            sets_.emplace_back(kVectorsPerSet * vector_capacity_bytes_);
        } catch (const cuda::CudaError& e) {
            throw plugin::Error(e.code(), plugin::concat("could not pin buffer set ", i + 1, " of ", settings.pool_sets,
                                                         " (", cuda::format_gib(kVectorsPerSet * vector_capacity_bytes_),
                                                         " each); lower backend.options.pool_sets or circuit.log_n. ",
                                                         e.what()));
        }
        // Touch every page now so the first partitions' synthesis does not pay for it.
        std::memset(sets_.back().data(), 0, sets_.back().bytes());
        free_sets_.push_back(i);
    }
    set_out_.assign(settings.pool_sets, false);
    setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

zkb_host_buffers PinnedPool::acquire(uint32_t log_n) {
    std::unique_lock<std::mutex> lock(mutex_);
    set_released_.wait(lock, [&] { return !free_sets_.empty(); });
    const uint32_t set = free_sets_.back();
    free_sets_.pop_back();
    set_out_[set] = true;
    lock.unlock();

    auto* base = static_cast<unsigned char*>(sets_[set].data());  // page-aligned
    zkb_host_buffers buffers{};
    buffers.n = uint64_t{1} << log_n;
    buffers.a = base;
    buffers.b = base + vector_capacity_bytes_;
    buffers.c = base + 2 * vector_capacity_bytes_;
    buffers.h = base + 3 * vector_capacity_bytes_;
    buffers.m = witness_elements_;
    buffers.z = witness_elements_ > 0 ? witnesses_[set].data() : nullptr;
    buffers.token = reinterpret_cast<void*>(static_cast<uintptr_t>(set) + 1);  // never null
    buffers.keeps_contents = 1;  // allocated once; nothing touches a/b/c between partitions
    return buffers;
}

void PinnedPool::add_witness(uint64_t m) {
    const uint64_t bytes = m * sizeof(ff::Fr);
    check_pinnable(bytes * sets_.size(),
                   plugin::concat("the witness of ", m, " variables in each of the pool's ", sets_.size(),
                                  " buffer set(s), beside the ", cuda::format_gib(pinned_bytes_), " pinned already,"),
                   "backend.options.pool_sets or the circuit's size");
    const auto start = std::chrono::steady_clock::now();
    std::vector<cuda::PinnedBuffer> witnesses;
    witnesses.reserve(sets_.size());
    for (size_t i = 0; i < sets_.size(); ++i) {
        witnesses.emplace_back(bytes);
        std::memset(witnesses.back().data(), 0, bytes);  // first touch now, as for the sets
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    witnesses_ = std::move(witnesses);
    witness_elements_ = m;
    pinned_bytes_ += bytes * sets_.size();
    setup_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void PinnedPool::release(const zkb_host_buffers& buffers) noexcept {
    const uintptr_t token = reinterpret_cast<uintptr_t>(buffers.token);
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (token >= 1 && token <= sets_.size() && set_out_[token - 1]) {
            set_out_[token - 1] = false;
            free_sets_.push_back(static_cast<uint32_t>(token - 1));
            set_released_.notify_one();
            return;
        }
    }
    // Returning a set twice would hand one buffer to two partitions: refuse, loudly.
    std::fprintf(stderr, "cuda-pinned: release_buffers got a buffer set that is not out (token %" PRIuPTR
                         "); ignored\n", token);
}

void PinnedPool::add_facts(zkb_facts* facts) const {
    plugin::add_fact(facts, plugin::fact::pool_pinned_bytes, pinned_bytes_);
    plugin::add_fact(facts, plugin::fact::pool_setup_ms, static_cast<uint64_t>(setup_ms_ + 0.5));
    plugin::add_fact(facts, "cuda-pinned.pool_sets", sets_.size());
    plugin::add_fact(facts, "backend.host_memory", std::string_view("pinned pool (cudaHostAlloc)"));
}

}  // namespace zkbatch::cuda_pinned
