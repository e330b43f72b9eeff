// The device's fixed-base multiplication for G1 (fixed_base.cuh).
#include "gpu/key/fixed_base.cuh"

namespace zkbatch::cuda {
template class FixedBaseGenerator<ec::G1Params>;
}  // namespace zkbatch::cuda
