// ScalarPlan (msm.hpp): steps 1-3 of msm_steps.hpp on the device.
#include "gpu/util/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "core/plugin/error.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <stdexcept>

namespace zkbatch::cuda::msm {

namespace {

constexpr uint32_t kThreads = 256;

uint32_t blocks_for(uint64_t threads) { return static_cast<uint32_t>((threads + kThreads - 1) / kThreads); }

__global__ void classify_kernel(const ClassifyParams params) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < params.count) classify_scalar(params, i);
}

__global__ void entries_kernel(const EntryParams params) {
    const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < params.full_count + params.one_count) write_entries(params, j);
}

// CUB's scratch for a selection of n flags and a sort of `entries` pairs.
size_t cub_scratch_bytes_for(uint64_t n, uint64_t entries) {
    size_t select_bytes = 0, sort_bytes = 0;
    const thrust::counting_iterator<uint32_t> indices(0);
    ZKB_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, indices, static_cast<const uint8_t*>(nullptr),
                                              static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                              static_cast<uint32_t>(n)));
    cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr), values(nullptr, nullptr);
    ZKB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, values, static_cast<uint32_t>(entries),
                                                   0, 32));
    return std::max<size_t>({select_bytes, sort_bytes, 16});
}

// The element counts of a plan's buffers: what the constructor allocates and
// device_bytes_for adds up, so the two cannot differ.
struct PlanSizes {
    uint64_t scalars = 0;  // canonical copies, flags and indices: one each per scalar
    uint64_t entries = 0;  // each of the two key and two value buffers
    uint64_t cub_scratch_bytes = 0;

    explicit PlanSizes(const MsmCapacity& capacity) {
        if (capacity.max_points >= kMaxPoints) {
            throw std::invalid_argument(plugin::concat("an MSM of ", capacity.max_points,
                                                       " points is too large: point indices are 31-bit"));
        }
        entries = capacity.max_entries();
        if (entries >= (uint64_t{1} << 32)) {
            throw std::invalid_argument(plugin::concat("an MSM of ", capacity.max_points, " points needs ", entries,
                                                       " bucket entries; the sort counts them in 32 bits"));
        }
        scalars = std::max<uint64_t>(capacity.max_points, 1);
        cub_scratch_bytes = cub_scratch_bytes_for(scalars, entries);
    }
    uint64_t device_bytes() const {
        return scalars * (sizeof(Scalar) + 2 * sizeof(uint8_t) + 2 * sizeof(uint32_t)) + 2 * sizeof(uint32_t) +
               4 * entries * sizeof(uint32_t) + cub_scratch_bytes;
    }
};

}  // namespace

ScalarPlan::ScalarPlan(const MsmCapacity& capacity, DeviceArena* arena) : capacity_(capacity) {
    const PlanSizes sizes(capacity);
    max_entries_ = sizes.entries;
    const size_t n = sizes.scalars;
    canonical_ = DeviceBuffer<Scalar>(n, arena);
    full_flags_ = DeviceBuffer<uint8_t>(n, arena);
    one_flags_ = DeviceBuffer<uint8_t>(n, arena);
    full_indices_ = DeviceBuffer<uint32_t>(n, arena);
    one_indices_ = DeviceBuffer<uint32_t>(n, arena);
    counts_ = DeviceBuffer<uint32_t>(2, arena);
    for (int i = 0; i < 2; ++i) {
        key_buffers_[i] = DeviceBuffer<uint32_t>(max_entries_, arena);
        value_buffers_[i] = DeviceBuffer<uint32_t>(max_entries_, arena);
    }
    cub_scratch_ = DeviceBuffer<uint8_t>(sizes.cub_scratch_bytes, arena);
    host_counts_ = PinnedBuffer(2 * sizeof(uint32_t));
}

uint64_t ScalarPlan::device_bytes() const {
    return canonical_.bytes() + full_flags_.bytes() + one_flags_.bytes() + full_indices_.bytes() +
           one_indices_.bytes() + counts_.bytes() + 2 * key_buffers_[0].bytes() + 2 * value_buffers_[0].bytes() +
           cub_scratch_.bytes();
}

uint64_t ScalarPlan::device_bytes_for(const MsmCapacity& capacity) { return PlanSizes(capacity).device_bytes(); }

void ScalarPlan::prepare(const void* scalars, ScalarForm form, uint64_t n, const Stream& stream, uint32_t window_bits,
                         PlanEvents* events, const uint32_t* gather) {
    if (!capacity_.plain) {
        throw std::invalid_argument("a plan sized for tables alone (MsmCapacity::plain = false) runs over tables");
    }
    if (window_bits != 0 && std::find(capacity_.forced_window_bits.begin(), capacity_.forced_window_bits.end(),
                                      window_bits) == capacity_.forced_window_bits.end()) {
        throw std::invalid_argument(plugin::concat("window width ", window_bits,
                                                   " was not among the plan's forced_window_bits"));
    }
    prepare_layout(scalars, form, n, stream, window_bits, 0, events, gather);
}

void ScalarPlan::prepare_shared(const void* scalars, ScalarForm form, uint64_t n, const Stream& stream,
                                TableShape table, PlanEvents* events, const uint32_t* gather) {
    if (table.stride < 1 || std::find(capacity_.shared_tables.begin(), capacity_.shared_tables.end(), table) ==
                                capacity_.shared_tables.end()) {
        throw std::invalid_argument(plugin::concat("a table of ", table.window_bits, "-bit windows, stride ",
                                                   table.stride, ", was not among the plan's shared_tables"));
    }
    if (uint64_t{table.multiples()} * n > kMaxPoints) {
        throw std::invalid_argument(plugin::concat("a table of ", n, " points at ", table.window_bits, " bits, stride ",
                                                   table.stride, ", is too large: its point indices are 31-bit"));
    }
    prepare_layout(scalars, form, n, stream, table.window_bits, table.stride, events, gather);
}

void ScalarPlan::prepare_layout(const void* scalars, ScalarForm form, uint64_t n, const Stream& stream,
                                uint32_t window_bits, uint32_t table_stride, PlanEvents* events,
                                const uint32_t* gather) {
    if (n > capacity_.max_points) {
        throw std::invalid_argument(plugin::concat("an MSM of ", n, " points on a plan made for ",
                                                   capacity_.max_points));
    }
    const cudaStream_t handle = stream.handle();
    if (events) events->start.record(stream);
    point_count_ = n;
    full_count_ = one_count_ = entry_count_ = 0;
    if (n > 0) {
        const ClassifyParams classify{scalars, form, static_cast<uint32_t>(n), canonical_.data(), full_flags_.data(),
                                      one_flags_.data(), gather};
        classify_kernel<<<blocks_for(n), kThreads, 0, handle>>>(classify);
        ZKB_CUDA_CHECK_LAUNCH("classify_kernel");
        if (events) events->classified.record(stream);
        size_t scratch_bytes = cub_scratch_.bytes();
        const thrust::counting_iterator<uint32_t> indices(0);
        ZKB_CUDA_CHECK(cub::DeviceSelect::Flagged(cub_scratch_.data(), scratch_bytes, indices, full_flags_.data(),
                                                  full_indices_.data(), counts_.data(), static_cast<uint32_t>(n),
                                                  handle));
        scratch_bytes = cub_scratch_.bytes();
        ZKB_CUDA_CHECK(cub::DeviceSelect::Flagged(cub_scratch_.data(), scratch_bytes, indices, one_flags_.data(),
                                                  one_indices_.data(), counts_.data() + 1, static_cast<uint32_t>(n),
                                                  handle));
        stream.copy_to_host(host_counts_.data(), counts_.data(), 2 * sizeof(uint32_t));
        if (events) events->counted.record(stream);
        stream.synchronize();  // the one host wait: the counts size the sort and pick c
        const auto* counts = static_cast<const uint32_t*>(host_counts_.data());
        full_count_ = counts[0];
        one_count_ = counts[1];
    } else if (events) {
        events->classified.record(stream);
        events->counted.record(stream);
    }

    const uint32_t bits = window_bits != 0 ? window_bits : choose_window_bits(full_count_, capacity_.max_window_bits);
    layout_ = WindowLayout{bits, full_count_ > 0 ? WindowLayout::windows_for(bits) : 1u, table_stride};
    entry_count_ = full_count_ * layout_.windows + one_count_;
    if (entry_count_ > max_entries_) {  // the capacity's bound is a logic error if it fails
        throw std::logic_error(plugin::concat("ScalarPlan: ", entry_count_, " entries exceed the capacity of ",
                                              max_entries_));
    }
    keys_ = key_buffers_[0].data();
    values_ = value_buffers_[0].data();
    if (entry_count_ > 0) {
        const EntryParams entries{canonical_.data(), full_indices_.data(), one_indices_.data(),
                                  static_cast<uint32_t>(full_count_), static_cast<uint32_t>(one_count_), layout_,
                                  static_cast<uint32_t>(n), key_buffers_[0].data(), value_buffers_[0].data()};
        entries_kernel<<<blocks_for(full_count_ + one_count_), kThreads, 0, handle>>>(entries);
        ZKB_CUDA_CHECK_LAUNCH("entries_kernel");
        if (events) events->entries_written.record(stream);
        cub::DoubleBuffer<uint32_t> keys(key_buffers_[0].data(), key_buffers_[1].data());
        cub::DoubleBuffer<uint32_t> values(value_buffers_[0].data(), value_buffers_[1].data());
        size_t scratch_bytes = cub_scratch_.bytes();
        ZKB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_scratch_.data(), scratch_bytes, keys, values,
                                                       static_cast<uint32_t>(entry_count_), 0,
                                                       static_cast<int>(layout_.key_bits()), handle));
        keys_ = keys.Current();
        values_ = values.Current();
    } else if (events) {
        events->entries_written.record(stream);
    }
    if (events) events->sorted.record(stream);
    ready_.record(stream);
}

}  // namespace zkbatch::cuda::msm
