// cuda-pageable: the CUDA backend (gpu/) with host buffers from the ordinary heap.
//
// Options ([backend.options] in a manifest):
//   device     CUDA device index (default 0)
#include "heap_memory.hpp"

#include "gpu/backend/plugin_api.hpp"
#include "core/plugin/export.hpp"

ZKB_PLUGIN_EXPORT const zkb_plugin_api* zkbatch_plugin_api(void) {
    return zkbatch::cuda::CudaPlugin<zkbatch::cuda_pageable::HeapMemory>::api();
}
