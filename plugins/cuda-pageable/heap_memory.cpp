#include "heap_memory.hpp"

#include "core/plugin/facts.hpp"
#include "core/plugin/heap_buffers.hpp"

#include <string_view>

namespace zkbatch::cuda_pageable {

zkb_host_buffers HeapMemory::acquire(uint32_t log_n) {
    zkb_host_buffers buffers{};
    plugin::acquire_heap_buffers(log_n, &buffers, witness_elements_);
    return buffers;
}

void HeapMemory::release(const zkb_host_buffers& buffers) noexcept {
    zkb_host_buffers copy = buffers;
    plugin::release_heap_buffers(&copy);
}

void HeapMemory::add_facts(zkb_facts* facts) const {
    // Present and zero, so an A/B against cuda-pinned compares like with like.
    plugin::add_fact(facts, plugin::fact::pool_pinned_bytes, 0);
    plugin::add_fact(facts, plugin::fact::pool_setup_ms, 0);
    plugin::add_fact(facts, "backend.host_memory", std::string_view("pageable heap (operator new)"));
}

}  // namespace zkbatch::cuda_pageable
