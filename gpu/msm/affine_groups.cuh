// The end of the kernels that make affine points one per thread (the fixed-base
// multiplication, the base tables): each thread's XYZZ point stored affine, with one field
// inversion per group of fixed_base::kGroupSize threads (fixed_base_steps.hpp).
#pragma once

#include "gpu/key/fixed_base_steps.hpp"
#include "gpu/msm/msm_steps.hpp"

#include <cstdint>

namespace zkbatch::cuda::detail {

// Every thread of the block runs it (the group's lane 0 inverts for the others, so a
// thread past the end takes part, inactive, with infinity); active ones store *out.
template <class C, uint32_t kBlockThreads>
__device__ void store_affine_in_groups(const ec::Xyzz<C>& sum, bool active, ec::Affine<C>* out) {
    static_assert(kBlockThreads % fixed_base::kGroupSize == 0, "whole groups per block");
    using Field = typename C::Field;
    __shared__ Field denominators[kBlockThreads], prefix[kBlockThreads];
    denominators[threadIdx.x] = fixed_base::inversion_input<C>(sum);
    __syncwarp();
    const uint32_t group = threadIdx.x / fixed_base::kGroupSize * fixed_base::kGroupSize;
    if (threadIdx.x == group) fixed_base::invert_group(denominators + group, prefix + group, fixed_base::kGroupSize);
    __syncwarp();
    if (active) msm::store_point(out, fixed_base::to_affine<C>(sum, denominators[threadIdx.x]));
}

}  // namespace zkbatch::cuda::detail
