// BaseTable<C> (msm.hpp): a table of the bases' window multiples, made on the device.
// Included by base_table_g1.cu and base_table_g2.cu, one curve each.
#pragma once

#include "gpu/msm/affine_groups.cuh"

#include "gpu/util/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "core/plugin/error.hpp"

#include <stdexcept>

namespace zkbatch::cuda::msm {

namespace detail {

inline constexpr uint32_t kTableThreads = 128;

// next[i] = 2^bits previous[i], affine: the next multiple, bits = c s.
template <class C>
__global__ void __launch_bounds__(kTableThreads)
    next_window_kernel(const ec::Affine<C>* previous, ec::Affine<C>* next, uint64_t count, uint32_t bits) {
    const uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    const bool active = i < count;
    const ec::Xyzz<C> sum = active ? next_window_sum<C>(load_point(previous + i), bits) : ec::Xyzz<C>::infinity();
    cuda::detail::store_affine_in_groups<C, kTableThreads>(sum, active, next + i);
}

inline uint64_t table_points(uint64_t max_points, TableShape shape) {
    if (shape.window_bits < 1 || shape.window_bits > kMaxWindowBits) {
        throw std::invalid_argument(plugin::concat("a base table of ", shape.window_bits,
                                                   "-bit windows: the width is 1 to ", kMaxWindowBits));
    }
    const uint32_t windows = WindowLayout::windows_for(shape.window_bits);
    if (shape.stride < 1 || shape.stride > windows) {
        throw std::invalid_argument(plugin::concat("a base table of stride ", shape.stride, " at ", shape.window_bits,
                                                   " bits: the stride is 1 to its ", windows, " windows"));
    }
    const uint64_t points = uint64_t{shape.multiples()} * max_points;
    if (points > kMaxPoints) {
        throw std::invalid_argument(plugin::concat("a base table of ", max_points, " points at ", shape.window_bits,
                                                   " bits, stride ", shape.stride, ", holds ", points,
                                                   " points; its indices are 31-bit"));
    }
    return points;
}

}  // namespace detail

template <class C>
BaseTable<C>::BaseTable(uint64_t max_points, TableShape shape)
    : shape_(shape), max_points_(max_points), points_(detail::table_points(max_points, shape)) {}

template <class C>
uint64_t BaseTable<C>::device_bytes_for(uint64_t max_points, TableShape shape) {
    return detail::table_points(max_points, shape) * sizeof(ec::Affine<C>);
}

template <class C>
void BaseTable<C>::build(const ec::Affine<C>* bases, uint64_t n, const Stream& stream) {
    if (n > max_points_) {
        throw std::invalid_argument(plugin::concat("a base table for ", max_points_, " points given ", n));
    }
    point_count_ = n;
    if (n == 0) return;
    const cudaStream_t handle = stream.handle();
    ZKB_CUDA_CHECK(cudaMemcpyAsync(points_.data(), bases, n * sizeof(ec::Affine<C>), cudaMemcpyDeviceToDevice, handle));
    const auto blocks = static_cast<uint32_t>((n + detail::kTableThreads - 1) / detail::kTableThreads);
    for (uint32_t k = 1; k < shape_.multiples(); ++k) {
        detail::next_window_kernel<C><<<blocks, detail::kTableThreads, 0, handle>>>(
            points_.data() + (k - 1) * n, points_.data() + k * n, n, shape_.window_bits * shape_.stride);
        ZKB_CUDA_CHECK_LAUNCH("next_window_kernel");
    }
}

}  // namespace zkbatch::cuda::msm
