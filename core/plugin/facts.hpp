// Well-known keys of zkb_facts (what describe() reports about a backend and its
// device) and add_fact(), the one way a plugin fills zkb_facts. The runner copies the
// well-known keys into the run's environment; a plugin may add keys of its own,
// namespaced by its name ("cuda-pinned.pool_buffers").
#pragma once

#include "core/plugin/abi.h"
#include "core/plugin/error.hpp"

#include <concepts>
#include <string>
#include <string_view>

namespace zkbatch::plugin::fact {

inline constexpr std::string_view device_name = "device.name";                    // "NVIDIA H200"
inline constexpr std::string_view device_sm_count = "device.sm_count";            // 132
inline constexpr std::string_view device_memory_bytes = "device.memory_bytes";    // total, bytes
inline constexpr std::string_view device_count = "device.count";                  // devices visible
inline constexpr std::string_view driver_version = "driver.version";              // "570.124.06" or CUDA's number
inline constexpr std::string_view cuda_runtime_version = "cuda.runtime_version";  // "13.0"
inline constexpr std::string_view pcie_gen = "pcie.gen";                          // current link generation
inline constexpr std::string_view pcie_width = "pcie.width";                      // current link width (lanes)
inline constexpr std::string_view pool_pinned_bytes = "pool.pinned_bytes";        // host memory pinned up front
inline constexpr std::string_view pool_setup_ms = "pool.setup_ms";                // time to allocate it
inline constexpr std::string_view backend_threads = "backend.threads";            // CPU threads per prove

}  // namespace zkbatch::plugin::fact

namespace zkbatch::plugin {

// Appends key = value to *facts. A value longer than ZKB_FACT_VALUE_BYTES - 1 is
// truncated; a key that does not fit, or a full table, is a bug in the plugin and
// throws plugin::Error(ZKB_ERR_INTERNAL) rather than silently dropping a fact.
inline void add_fact(zkb_facts* facts, std::string_view key, std::string_view value) {
    if (facts->count >= ZKB_MAX_FACTS) {
        throw Error(ZKB_ERR_INTERNAL, concat("more than ", ZKB_MAX_FACTS, " facts (dropping '", key, "')"));
    }
    zkb_fact& item = facts->items[facts->count];
    if (!copy_text(item.key, key)) {
        throw Error(ZKB_ERR_INTERNAL,
                    concat("fact key '", key, "' is longer than ", ZKB_FACT_KEY_BYTES - 1, " bytes"));
    }
    copy_text(item.value, value);
    ++facts->count;
}

template <std::integral Number>
void add_fact(zkb_facts* facts, std::string_view key, Number value) {
    add_fact(facts, key, std::string_view(std::to_string(value)));
}

}  // namespace zkbatch::plugin
