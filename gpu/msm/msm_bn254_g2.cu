// The device MSM's bucket accumulation for BN254's G2 (msm_accumulate.cuh).
#include "gpu/msm/msm_accumulate.cuh"

namespace zkbatch::cuda::msm {
template class BucketAccumulator<ec::bn254::G2Params>;
}  // namespace zkbatch::cuda::msm
