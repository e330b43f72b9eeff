// The device's fixed-base multiplication for G2 (fixed_base.cuh).
#include "gpu/key/fixed_base.cuh"

namespace zkbatch::cuda {
template class FixedBaseGenerator<ec::G2Params>;
}  // namespace zkbatch::cuda
