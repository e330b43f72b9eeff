// The device MSM's base tables for BN254's G1 (base_table.cuh).
#include "gpu/msm/base_table.cuh"

namespace zkbatch::cuda::msm {
template class BaseTable<ec::bn254::G1Params>;
}  // namespace zkbatch::cuda::msm
