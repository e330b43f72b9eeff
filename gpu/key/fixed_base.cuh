// FixedBaseGenerator<C> (fixed_base.hpp): the kernel of fixed_base_steps.hpp. Included
// by fixed_base_g1.cu and fixed_base_g2.cu, one curve each, so the two compile in
// parallel.
#pragma once

#include "gpu/msm/affine_groups.cuh"

#include "gpu/util/cuda_check.hpp"
#include "gpu/key/fixed_base.hpp"

#include <vector>

namespace zkbatch::cuda {

namespace detail {

inline constexpr uint32_t kFixedBaseThreads = 128;

// Thread i makes point i.
template <class C>
__global__ void __launch_bounds__(kFixedBaseThreads)
    fixed_base_kernel(const fixed_base::TableView<C> table, const ff::Fr* scalars, uint64_t count,
                      ec::Affine<C>* out) {
    const uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    const bool active = i < count;
    const ec::Xyzz<C> sum = active ? fixed_base::fixed_base_sum<C>(table, scalars[i]) : ec::Xyzz<C>::infinity();
    store_affine_in_groups<C, kFixedBaseThreads>(sum, active, out + i);
}

}  // namespace detail

template <class C>
FixedBaseGenerator<C>::FixedBaseGenerator(const ec::Affine<C>& base, unsigned threads) {
    const std::vector<ec::Affine<C>> table = ec::fixed_base_table(base, fixed_base::kTableBits, threads);
    table_ = DeviceBuffer<ec::Affine<C>>(table.size());
    table_.copy_from_host(table.data(), table.size());
}

template <class C>
uint64_t FixedBaseGenerator<C>::table_bytes() {
    return (uint64_t{ec::fixed_base_windows(fixed_base::kTableBits)} << fixed_base::kTableBits) * sizeof(ec::Affine<C>);
}

template <class C>
void FixedBaseGenerator<C>::multiply(const ff::Fr* scalars, uint64_t count, ec::Affine<C>* out,
                                     const Stream& stream) const {
    if (count == 0) return;
    const fixed_base::TableView<C> view{table_.data(), fixed_base::kTableBits,
                                        ec::fixed_base_windows(fixed_base::kTableBits)};
    const uint64_t blocks = (count + detail::kFixedBaseThreads - 1) / detail::kFixedBaseThreads;
    detail::fixed_base_kernel<C><<<static_cast<uint32_t>(blocks), detail::kFixedBaseThreads, 0, stream.handle()>>>(
        view, scalars, count, out);
    ZKB_CUDA_CHECK_LAUNCH("fixed_base_kernel");
}

}  // namespace zkbatch::cuda
