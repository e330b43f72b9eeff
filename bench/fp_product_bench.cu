// fp_product_bench: Fp products a second on the GPU, on the integer pipe (field32.hpp's
// IMAD.WIDE carry chains) against the double-precision FMA pipe (fp_f64.hpp), alone and
// interleaved in one thread (docs/msm.md#what-bounds-the-product). Each thread runs a few
// independent chains x <- x y (partly reduced products, operands below 2p), some on
// each pipe; a kernel's rate says what an MSM's additions could get from splitting their
// products between the pipes before any curve code is written. Every chain's end value
// of the first threads is checked against the host (the same algorithms, HostChain and
// std::fma).
//
// --inversions measures Fp inversions instead (docs/msm.md#inversion-by-divsteps): each
// thread a chain x <- 1/x + c, once by Fp::inverse (safegcd.hpp's divsteps) and once by
// Fermat (x^(p-2), Fp::pow), the first threads' end values checked against the host's.
//
//   fp_product_bench [--iterations 512] [--waves 4] [--repetitions 5]
//   fp_product_bench --inversions [--iterations 64] [--waves 4] [--repetitions 5]
#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/device_info.hpp"
#include "gpu/util/event.hpp"
#include "gpu/util/stream.hpp"
#include "core/ff/fp.hpp"
#include "bench/fp_f64.hpp"

#include "event_timing.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using Fp32 = ff::Field32<ff::bls12_381::FpDescription>;
constexpr int kWords = Fp32::kLimbs;
constexpr int kThreads = 128;

// A chain's state and multiplier, one after the other, for each chain of each thread.
struct Element {
    uint32_t words[kWords];
};

template <bool Float>
__host__ __device__ __forceinline__ void product(const uint32_t a[kWords], const uint32_t b[kWords],
                                                 uint32_t out[kWords]) {
    if constexpr (Float) {
        ff::fp_f64::mont_mul_partial(a, b, out);
    } else {
#if defined(__CUDA_ARCH__)
        Fp32::mont_mul_partial<ff::PtxChain>(a, b, out);
#else
        Fp32::mont_mul_partial<ff::HostChain>(a, b, out);
#endif
    }
}

// 1/x by Fp::inverse (divsteps) or by Fermat, x^(p-2).
template <bool Fermat>
__host__ __device__ __forceinline__ ff::Fp invert(const ff::Fp& x) {
    if constexpr (Fermat) {
        uint64_t p_minus_2[6];
        for (int i = 0; i < 6; ++i) p_minus_2[i] = ff::Fp::modulus_limb(i);
        p_minus_2[0] -= 2;  // p's low limb ends in ...aaab: no borrow
        return x.pow(p_minus_2, 6);
    } else {
        return x.inverse();
    }
}

// Chains 0..IntChains-1 on the integer pipe, the rest on the FP64 pipe.
template <int IntChains, int FloatChains, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) chains_kernel(Element* state, int iterations) {
    constexpr int kChains = IntChains + FloatChains;
    const uint64_t thread = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    Element* const mine = state + thread * 2 * kChains;
    uint32_t x[kChains][kWords], y[kChains][kWords];
    for (int c = 0; c < kChains; ++c) {
        for (int w = 0; w < kWords; ++w) {
            x[c][w] = mine[2 * c].words[w];
            y[c][w] = mine[2 * c + 1].words[w];
        }
    }
#pragma unroll 1
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < kChains; ++c) {  // unrolled: each branch resolves at compile time
            if (c < IntChains) {
                product<false>(x[c], y[c], x[c]);
            } else {
                product<true>(x[c], y[c], x[c]);
            }
        }
    }
    for (int c = 0; c < kChains; ++c) {
        for (int w = 0; w < kWords; ++w) mine[2 * c].words[w] = x[c][w];
    }
}

// The pipes alone: 8 independent accumulators a thread, each iteration one DFMA (on the
// FP64 pipe) and/or one IMAD.WIDE.U32 (PTX mad.wide.u32) per accumulator. Warp
// instructions a cycle an SM, alone and together, say whether the two share a resource.
template <bool Dfma, bool ImadWide>
__global__ void __launch_bounds__(kThreads) pipes_kernel(double* sink, int iterations) {
    constexpr int kAccumulators = 8;
    const uint64_t thread = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    double d[kAccumulators];
    uint64_t w[kAccumulators];
    const double x = 1.0 + 1e-9 * static_cast<double>(threadIdx.x), y = 1e-12;
    const uint32_t a = static_cast<uint32_t>(thread) | 1u;
    for (int k = 0; k < kAccumulators; ++k) {
        d[k] = static_cast<double>(k);
        w[k] = k;
    }
#pragma unroll 1
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int k = 0; k < kAccumulators; ++k) {
            if constexpr (Dfma) d[k] = __fma_rn(d[k], x, y);
            if constexpr (ImadWide) {
                asm volatile("mad.wide.u32 %0, %1, %2, %0;" : "+l"(w[k]) : "r"(a), "r"(static_cast<uint32_t>(w[k])));
            }
        }
    }
    double total = 0;
    for (int k = 0; k < kAccumulators; ++k) total += d[k] + static_cast<double>(w[k]);
    sink[thread] = total;
}

// x <- 1/x + c, `iterations` times, per thread: state holds each thread's x and c.
template <bool Fermat>
__global__ void __launch_bounds__(kThreads) inversions_kernel(ff::Fp* state, int iterations) {
    const uint64_t thread = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    ff::Fp x = state[2 * thread];
    const ff::Fp c = state[2 * thread + 1];
#pragma unroll 1
    for (int i = 0; i < iterations; ++i) x = invert<Fermat>(x) + c;
    state[2 * thread] = x;
}

struct Options {
    int iterations = 0;  // 0: the mode's default, 512 products or 64 inversions
    int waves = 4;
    int repetitions = 5;
    bool inversions = false;
};

struct Variant {
    const char* name;
    int int_chains, float_chains, min_blocks;
    void (*kernel)(Element*, int);
};

template <int I, int F, int B>
Variant variant(const char* name) {
    return {name, I, F, B, chains_kernel<I, F, B>};
}

// Random values below p: the top word below p's.
Element random_element(std::mt19937_64& rng) {
    Element e{};
    for (int w = 0; w < kWords; ++w) e.words[w] = static_cast<uint32_t>(rng());
    e.words[kWords - 1] %= Fp32::modulus_limb(kWords - 1);
    return e;
}

// A kernel's registers and local bytes, its blocks of kThreads an SM at full occupancy,
// and the blocks of `waves` such waves over the device.
struct LaunchShape {
    cudaFuncAttributes attributes{};
    int blocks_per_sm = 0;
    uint64_t blocks = 0;
};
template <class Kernel>
LaunchShape launch_shape(Kernel* kernel, const cuda::DeviceInfo& device, int waves) {
    LaunchShape shape;
    ZKB_CUDA_CHECK(cudaFuncGetAttributes(&shape.attributes, kernel));
    ZKB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&shape.blocks_per_sm, kernel, kThreads, 0));
    shape.blocks = uint64_t(device.sm_count) * shape.blocks_per_sm * waves;
    return shape;
}

void pipe_rates(const cuda::DeviceInfo& device, const Options& options, int chain_iterations) {
    int clock_khz = 0;
    ZKB_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    std::printf("\n## The pipes alone (8 independent accumulators a thread, %d iterations; cycles at the "
                "%.2f GHz boost clock)\n\n| instructions | DFMA / cycle / SM | IMAD.WIDE / cycle / SM |\n|---|---|---|\n",
                chain_iterations * 8, clock_khz / 1e6);
    const struct {
        const char* name;
        void (*kernel)(double*, int);
        bool dfma, imad;
    } kernels[] = {{"DFMA", pipes_kernel<true, false>, true, false},
                   {"IMAD.WIDE", pipes_kernel<false, true>, false, true},
                   {"both", pipes_kernel<true, true>, true, true}};
    const int iterations = chain_iterations * 8;
    for (const auto& k : kernels) {
        const uint64_t blocks = launch_shape(k.kernel, device, options.waves).blocks;
        cuda::DeviceBuffer<double> sink(blocks * kThreads);
        const cuda::Stream stream;
        const double ms = bench::median_event_ms(stream, 1, options.repetitions, [&] {
            k.kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream.handle()>>>(sink.data(), iterations);
            ZKB_CUDA_CHECK_LAUNCH("pipes_kernel");
        });
        const double cycles = ms * 1e-3 * clock_khz * 1e3;
        const double warp_instructions = double(blocks) * (kThreads / 32) * iterations * 8 / device.sm_count;
        char rate[32];
        std::snprintf(rate, sizeof rate, "%.2f", warp_instructions / cycles);
        std::printf("| %s | %s | %s |\n", k.name, k.dfma ? rate : "-", k.imad ? rate : "-");
    }
}

// The inversion chains, divsteps and Fermat; returns the number of kernels whose first
// threads differ from the host.
int inversion_rates(const cuda::DeviceInfo& device, const Options& options) {
    const int iterations = options.iterations != 0 ? options.iterations : 64;
    std::printf("# %s, %d SMs; Fp inversions, a chain x <- 1/x + c of %d a thread, median of %d after a "
                "warm-up, CUDA events\n\n",
                device.name.c_str(), device.sm_count, iterations, options.repetitions);
    std::printf("| inversion | blocks of %d an SM | registers, spill bytes | inversions | ms | inversions / s | "
                "ns an inversion a thread | ns an inversion a GPU | against Fermat |\n|---|---|---|---|---|---|---|---|---|\n",
                kThreads);
    const struct {
        const char* name;
        void (*kernel)(ff::Fp*, int);
        bool fermat;
    } kernels[] = {{"Fermat (x^(p-2))", inversions_kernel<true>, true},
                   {"Fp::inverse (divsteps)", inversions_kernel<false>, false}};
    int failures = 0;
    double fermat_ns = 0;
    for (const auto& k : kernels) {
        const auto [attributes, blocks_per_sm, blocks] = launch_shape(k.kernel, device, options.waves);
        const uint64_t threads = blocks * kThreads;
        std::vector<ff::Fp> host(threads * 2);
        std::mt19937_64 rng(2027);
        for (ff::Fp& x : host) {  // Montgomery forms below p: the top limb below p's
            for (uint64_t& limb : x.limbs) limb = rng();
            x.limbs[5] %= ff::Fp::modulus_limb(5);
        }
        cuda::DeviceBuffer<ff::Fp> state(host.size());
        const cuda::Stream stream;
        const double ms = bench::median_event_ms(
            stream, 1, options.repetitions,
            [&] {
                k.kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream.handle()>>>(state.data(), iterations);
                ZKB_CUDA_CHECK_LAUNCH("inversions_kernel");
            },
            [&] { state.copy_from_host(host.data(), host.size()); });
        // The first 32 threads' chains against the host, from their starting values.
        std::vector<ff::Fp> device_result(32 * 2);
        state.copy_to_host(device_result.data(), device_result.size());
        bool equal = true;
        for (int t = 0; t < 32 && equal; ++t) {
            ff::Fp x = host[2 * t];
            for (int i = 0; i < iterations; ++i) x = (k.fermat ? invert<true>(x) : invert<false>(x)) + host[2 * t + 1];
            equal = x == device_result[2 * t];
        }
        if (!equal) failures++;
        const double inversions = double(threads) * iterations;
        const double ns_a_thread = ms * 1e6 / iterations;
        const double ns_a_gpu = ms * 1e6 / inversions;
        if (k.fermat) fermat_ns = ns_a_gpu;
        std::printf("| %s | %d | %d, %zu | %.3g | %.3f | %.3g | %.0f | %.3f | %.2fx%s |\n", k.name, blocks_per_sm,
                    attributes.numRegs, attributes.localSizeBytes, inversions, ms, inversions / (ms * 1e-3),
                    ns_a_thread, ns_a_gpu, fermat_ns / ns_a_gpu, equal ? "" : " DIFFERENT FROM THE HOST");
        std::fflush(stdout);
    }
    if (failures != 0) std::printf("\n%d kernels differ from the host\n", failures);
    return failures;
}

int run(const Options& options) {
    ZKB_CUDA_CHECK(cudaSetDevice(0));
    const cuda::DeviceInfo device = cuda::DeviceInfo::query(0);
    if (options.inversions) return inversion_rates(device, options) == 0 ? 0 : 1;
    const int iterations = options.iterations != 0 ? options.iterations : 512;
    const std::vector<Variant> variants = {
        variant<2, 0, 3>("integer x2"),     variant<0, 2, 3>("FP64 x2"),         variant<1, 1, 3>("integer + FP64"),
        variant<2, 1, 3>("2 integer + 1 FP64"), variant<3, 2, 2>("3 integer + 2 FP64"), variant<2, 0, 2>("integer x2"),
        variant<0, 2, 2>("FP64 x2"),        variant<1, 1, 2>("integer + FP64"),  variant<4, 0, 2>("integer x4"),
        variant<2, 2, 2>("2 integer + 2 FP64"),
    };
    std::printf("# %s, %d SMs; %d iterations a thread, median of %d after a warm-up, CUDA events\n\n",
                device.name.c_str(), device.sm_count, iterations, options.repetitions);
    std::printf("| chains a thread | blocks of %d an SM (asked) | registers, spill bytes | products | ms | "
                "products / s | ns an SM a product | against integer x2 |\n|---|---|---|---|---|---|---|---|\n",
                kThreads);
    int failures = 0;
    double baseline_rate = 0;
    for (const Variant& v : variants) {
        const auto [attributes, blocks_per_sm, blocks] = launch_shape(v.kernel, device, options.waves);
        const int chains = v.int_chains + v.float_chains;
        const uint64_t threads = blocks * kThreads;
        std::vector<Element> host(threads * 2 * chains);
        std::mt19937_64 rng(2026 + chains);
        for (Element& e : host) e = random_element(rng);
        cuda::DeviceBuffer<Element> state(host.size());
        const cuda::Stream stream;
        const double ms = bench::median_event_ms(
            stream, 1, options.repetitions,
            [&] {
                v.kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream.handle()>>>(state.data(),
                                                                                       iterations);
                ZKB_CUDA_CHECK_LAUNCH("chains_kernel");
            },
            [&] { state.copy_from_host(host.data(), host.size()); });
        // The first 32 threads' chains against the host, from their starting values.
        std::vector<Element> device_result(32 * 2 * chains);
        state.copy_to_host(device_result.data(), device_result.size());
        bool equal = true;
        for (int t = 0; t < 32 && equal; ++t) {
            for (int c = 0; c < chains && equal; ++c) {
                Element x = host[(t * chains + c) * 2];
                const Element& y = host[(t * chains + c) * 2 + 1];
                for (int i = 0; i < iterations; ++i) {
                    if (c >= v.int_chains) {
                        product<true>(x.words, y.words, x.words);
                    } else {
                        product<false>(x.words, y.words, x.words);
                    }
                }
                equal = std::memcmp(&x, &device_result[(t * chains + c) * 2], sizeof(Element)) == 0;
            }
        }
        if (!equal) failures++;
        const double products = double(threads) * chains * iterations;
        const double rate = products / (ms * 1e-3);
        if (baseline_rate == 0) baseline_rate = rate;
        std::printf("| %s | %d (%d) | %d, %zu | %.3g | %.3f | %.3g | %.2f | %.2fx%s |\n", v.name, blocks_per_sm,
                    v.min_blocks, attributes.numRegs, attributes.localSizeBytes, products, ms, rate,
                    device.sm_count / rate * 1e9, rate / baseline_rate, equal ? "" : " DIFFERENT FROM THE HOST");
        std::fflush(stdout);
    }
    pipe_rates(device, options, iterations);
    if (failures != 0) std::printf("\n%d variants differ from the host\n", failures);
    return failures == 0 ? 0 : 1;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--inversions") {
            options.inversions = true;
            continue;
        }
        if (i + 1 >= argc) throw std::invalid_argument("fp_product_bench: " + flag + " needs a value");
        const int value = std::stoi(argv[++i]);
        if (flag == "--iterations") {
            options.iterations = value;
        } else if (flag == "--waves") {
            options.waves = value;
        } else if (flag == "--repetitions") {
            options.repetitions = value;
        } else {
            throw std::invalid_argument("fp_product_bench: unknown flag " + flag +
                                        " (known: --inversions, --iterations, --waves, --repetitions)");
        }
    }
    return options;
}

}  // namespace
}  // namespace zkbatch

int main(int argc, char** argv) {
    try {
        return zkbatch::run(zkbatch::parse(argc, argv));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
}
