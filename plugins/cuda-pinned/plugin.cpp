// cuda-pinned: the CUDA backend (gpu/) with host buffers from a pinned pool.
//
// Options ([backend.options] in a manifest):
//   device     CUDA device index (default 0)
//   pool_sets  buffer sets in the pinned pool (default prove workers + 1)
#include "pinned_pool.hpp"

#include "gpu/backend/plugin_api.hpp"
#include "core/plugin/export.hpp"

ZKB_PLUGIN_EXPORT const zkb_plugin_api* zkbatch_plugin_api(void) {
    return zkbatch::cuda::CudaPlugin<zkbatch::cuda_pinned::PinnedPool>::api();
}
