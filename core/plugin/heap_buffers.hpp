// Host buffers from the ordinary heap: what cpu-ref and cuda-pageable hand to
// synthesis. One allocation per acquire (a, b, c, h and the witness z in one
// 64-byte-aligned block), freed on release; the runner's bounded queue limits how
// many are alive.
#pragma once

#include "core/ff/fr.hpp"
#include "core/plugin/abi.h"
#include "core/plugin/error.hpp"

#include <cstdint>
#include <new>

namespace zkbatch::plugin {

inline constexpr std::size_t kHostBufferAlignment = 64;

// Fills *out with four n-element vectors and an m-element witness (none for m = 0)
// carved from one heap block. Throws std::bad_alloc when the heap cannot supply it
// (guarded() reports that).
inline void acquire_heap_buffers(uint32_t log_n, zkb_host_buffers* out, uint64_t m = 0) {
    auto aligned = [](uint64_t elements) {
        const uint64_t bytes = elements * sizeof(ff::Fr);
        return (bytes + kHostBufferAlignment - 1) / kHostBufferAlignment * kHostBufferAlignment;
    };
    const uint64_t n = uint64_t{1} << log_n;
    const std::size_t stride = aligned(n);
    auto* block = static_cast<unsigned char*>(
        ::operator new(4 * stride + aligned(m), std::align_val_t{kHostBufferAlignment}));
    out->n = n;
    out->a = block;
    out->b = block + stride;
    out->c = block + 2 * stride;
    out->h = block + 3 * stride;
    out->m = m;
    out->z = m > 0 ? block + 4 * stride : nullptr;
    out->token = block;
    out->keeps_contents = 0;  // fresh memory every time
    out->reserved = 0;
}

inline void release_heap_buffers(zkb_host_buffers* buffers) {
    ::operator delete(buffers->token, std::align_val_t{kHostBufferAlignment});
    *buffers = zkb_host_buffers{};
}

}  // namespace zkbatch::plugin
