#include "gpu/ntt/ntt_kernels.hpp"

#include "gpu/util/cuda_check.hpp"
#include "core/plugin/error.hpp"

namespace zkbatch::cuda::ntt {

namespace {

// One block = one tile of 2^tile_log elements: the steps of run_pass (ntt_pass.hpp), with
// a barrier where a step asks for one.
template <PassKind kKind, bool kSeeded, class Fr>
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm) ntt_pass_kernel(const PassParams<Fr> params) {
    extern __shared__ uint64_t shared_words[];
    const Tile<Fr> tile{shared_words, 1u << params.tile_log()};
    run_pass<kKind, kSeeded>(params, blockIdx.x, tile, [](auto&& step, bool barrier) {
        step(threadIdx.x, blockDim.x);
        if (barrier) __syncthreads();
    });
}

template <class Fr>
__global__ void bit_reverse_kernel(const PassParams<Fr> params) {
    const uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < (1u << params.log_n)) bit_reverse(params, index);
}

template <class Fr>
__global__ void pointwise_product_kernel(const PassParams<Fr> params) {
    const uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < (1u << params.log_n)) pointwise_product(params, index);
}

template <class Fr>
__global__ void pointwise_difference_kernel(const PassParams<Fr> params) {
    const uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < (1u << params.log_n)) pointwise_difference(params, index);
}

template <class Fr>
__global__ void odd_coset_output_kernel(const PassParams<Fr> params) {
    const uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < (1u << params.log_n)) odd_coset_output(params, index);
}

template <class Fr>
__global__ void expand_power_table_kernel(const Fr* lo, const Fr* hi, uint32_t lo_bits, Fr* out, uint32_t size) {
    const uint32_t exponent = blockIdx.x * blockDim.x + threadIdx.x;
    if (exponent < size) store_element(out + exponent, power_from_seeds(lo, hi, lo_bits, exponent));
}

constexpr uint32_t kElementwiseThreads = 256;  // bit reversal, products, table expansion
// Both fields' elements are 32 bytes.
constexpr uint32_t kMaxSharedBytes = (1u << kTileLog) * sizeof(ff::Fr);
static_assert(sizeof(ff::bn254::Fr) == sizeof(ff::Fr));

template <class Fr>
uint32_t elementwise_blocks(const PassParams<Fr>& params) {
    return ((1u << params.log_n) + kElementwiseThreads - 1) / kElementwiseThreads;
}

template <PassKind kKind, bool kSeeded, class Fr>
void launch_pass(const PassParams<Fr>& params, const Stream& stream) {
    ntt_pass_kernel<kKind, kSeeded>
        <<<params.block_count(), params.threads_per_block(), params.shared_bytes(), stream.handle()>>>(params);
    ZKB_CUDA_CHECK_LAUNCH("ntt_pass_kernel");
}

template <PassKind kKind, class Fr>
void launch_pass(const PassParams<Fr>& params, const Stream& stream) {
    if (params.twist.seeded) {
        launch_pass<kKind, true>(params, stream);
    } else {
        launch_pass<kKind, false>(params, stream);
    }
}

// Lets the pass kernels of Fr use tiles up to kMaxSharedBytes on the current device.
template <class Fr>
void allow_large_tiles() {
    // The attribute is per kernel and per device; setting it again is harmless.
    for (const void* kernel : {reinterpret_cast<const void*>(ntt_pass_kernel<PassKind::dit, false, Fr>),
                               reinterpret_cast<const void*>(ntt_pass_kernel<PassKind::dit, true, Fr>),
                               reinterpret_cast<const void*>(ntt_pass_kernel<PassKind::dif, false, Fr>),
                               reinterpret_cast<const void*>(ntt_pass_kernel<PassKind::dif, true, Fr>)}) {
        ZKB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxSharedBytes));
    }
}

}  // namespace

template <class Fr>
void enqueue(const LaunchSequence<Fr>& sequence, const Stream& stream) {
    using Kind = typename Launch<Fr>::Kind;
    for (const Launch<Fr>& launch : sequence) {
        const PassParams<Fr>& params = launch.pass;
        switch (launch.kind) {
            case Kind::dit_pass:
                launch_pass<PassKind::dit>(params, stream);
                break;
            case Kind::dif_pass:
                launch_pass<PassKind::dif>(params, stream);
                break;
            case Kind::bit_reverse:
                bit_reverse_kernel<<<elementwise_blocks(params), kElementwiseThreads, 0, stream.handle()>>>(params);
                ZKB_CUDA_CHECK_LAUNCH("bit_reverse_kernel");
                break;
            case Kind::pointwise_product:
                pointwise_product_kernel<<<elementwise_blocks(params), kElementwiseThreads, 0, stream.handle()>>>(
                    params);
                ZKB_CUDA_CHECK_LAUNCH("pointwise_product_kernel");
                break;
            case Kind::pointwise_difference:
                pointwise_difference_kernel<<<elementwise_blocks(params), kElementwiseThreads, 0,
                                              stream.handle()>>>(params);
                ZKB_CUDA_CHECK_LAUNCH("pointwise_difference_kernel");
                break;
            case Kind::odd_coset_output:
                odd_coset_output_kernel<<<elementwise_blocks(params), kElementwiseThreads, 0, stream.handle()>>>(
                    params);
                ZKB_CUDA_CHECK_LAUNCH("odd_coset_output_kernel");
                break;
        }
    }
}

template <class Fr>
void expand_power_table(const Fr* lo, const Fr* hi, uint32_t lo_bits, Fr* out, uint32_t log_size) {
    const uint32_t size = 1u << log_size;
    expand_power_table_kernel<<<(size + kElementwiseThreads - 1) / kElementwiseThreads, kElementwiseThreads>>>(
        lo, hi, lo_bits, out, size);
    ZKB_CUDA_CHECK_LAUNCH("expand_power_table_kernel");
}

#define ZKB_NTT_KERNELS_INSTANTIATE(Fr)                              \
    template void enqueue(const LaunchSequence<Fr>&, const Stream&); \
    template void expand_power_table(const Fr*, const Fr*, uint32_t, Fr*, uint32_t);
ZKB_NTT_KERNELS_INSTANTIATE(ff::Fr)
ZKB_NTT_KERNELS_INSTANTIATE(ff::bn254::Fr)
#undef ZKB_NTT_KERNELS_INSTANTIATE

void prepare_device(int device) {
    ZKB_CUDA_CHECK(cudaSetDevice(device));
    allow_large_tiles<ff::Fr>();
    allow_large_tiles<ff::bn254::Fr>();
}

}  // namespace zkbatch::cuda::ntt

namespace zkbatch::cuda {

std::string kernel_image_unavailable_reason(int device_index) {
    // __CUDA_ARCH_LIST__ (nvcc) lists the architectures this file was compiled for, e.g.
    // 900,900 for sm_90 code plus compute_90 PTX; the PTX runs on any later GPU.
    constexpr int kArchitectures[] = {__CUDA_ARCH_LIST__};
    int lowest = kArchitectures[0];
    for (int architecture : kArchitectures) lowest = architecture < lowest ? architecture : lowest;

    cudaDeviceProp properties{};
    const cudaError_t status = cudaGetDeviceProperties(&properties, device_index);
    if (status != cudaSuccess) {
        return plugin::concat("cannot read the properties of CUDA device ", device_index, ": ",
                              cudaGetErrorString(status), " (", cudaGetErrorName(status), ")");
    }
    const int capability = properties.major * 100 + properties.minor * 10;
    if (capability < lowest) {
        return plugin::concat("CUDA device ", device_index, " (", properties.name, ") has compute capability ",
                              properties.major, ".", properties.minor, " but this build has code for ",
                              lowest / 100, ".", (lowest % 100) / 10,
                              " and later only; rebuild with CMAKE_CUDA_ARCHITECTURES including ",
                              properties.major, properties.minor);
    }
    return {};
}

}  // namespace zkbatch::cuda
