// The device MSM's base tables for BN254's G2 (base_table.cuh).
#include "gpu/msm/base_table.cuh"

namespace zkbatch::cuda::msm {
template class BaseTable<ec::bn254::G2Params>;
}  // namespace zkbatch::cuda::msm
