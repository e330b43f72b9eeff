// Benchmarks of the BLS12-381 layers: Fp, Fp2 and Fp12 products, mixed additions, the
// pairing, MSMs (full scalars and a 90%-boolean witness) and fixed-base multiplication;
// and BN254's beside them (names BM_Bn254...): Fq and Fq12 products, mixed additions, the
// pairing, MSMs; and the host's combination of a chunked device MSM's window sums.
// Thread counts are an argument where the code is threaded, so single-core cost and
// scaling are separate numbers; those report wall time and the CPU time of all threads.
//   ./bench_curve --benchmark_out=curve.json --benchmark_out_format=json
#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/bn254_tower.hpp"
#include "core/ff/fp12.hpp"
#include "core/ff/random.hpp"
#include "core/msm/pippenger.hpp"
#include "core/pairing/bn254.hpp"
#include "core/pairing/pairing.hpp"
#include "core/util/splitmix64.hpp"
#include "gpu/msm/msm_steps.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

using namespace zkbatch;
using ff::Fp;
using ff::Fp2;
using ff::Fr;

unsigned all_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// n uniform elements of the field F.
template <class F>
std::vector<F> random_elements(size_t n, uint64_t seed) {
    util::SplitMix64 generator(seed);
    std::vector<F> values(n);
    for (F& v : values) v = ff::uniform_element<F>(generator);
    return values;
}

// 2^18 random bases per group, made once (fixed_base_mul), shared by every benchmark.
constexpr size_t kMaxPoints = size_t{1} << 18;
template <class C>
const std::vector<ec::Affine<C>>& random_bases() {
    static const std::vector<ec::Affine<C>> bases = [] {
        const std::vector<Fr> k = random_elements<Fr>(kMaxPoints, 7);
        std::vector<ec::Affine<C>> points(kMaxPoints);
        ec::fixed_base_mul(ec::generator<C>(), k.data(), kMaxPoints, points.data(), all_threads());
        return points;
    }();
    return bases;
}

// BN254's 2^18 points per group: P_i = [k]G + i [l]G for random k and l (distinct
// points, which is all an MSM's timing needs), one batch conversion.
template <class C>
const std::vector<ec::Affine<C>>& bn254_random_bases() {
    static const std::vector<ec::Affine<C>> bases = [] {
        util::SplitMix64 generator(7);
        const auto generator_point = ec::Jacobian<C>::from_affine(ec::generator<C>());
        const auto start = ec::scalar_mul(generator_point, ff::uniform_element<ff::bn254::Fr>(generator));
        const ec::Affine<C> step =
            ec::scalar_mul(generator_point, ff::uniform_element<ff::bn254::Fr>(generator)).to_affine();
        std::vector<ec::Jacobian<C>> points(kMaxPoints);
        points[0] = start;
        for (size_t i = 1; i < kMaxPoints; ++i) points[i] = ec::add_mixed(points[i - 1], step);
        std::vector<ec::Affine<C>> affine(kMaxPoints);
        ec::batch_to_affine(points.data(), affine.data(), kMaxPoints);
        return affine;
    }();
    return bases;
}

// The random bases of C's curve, whichever it is.
template <class C>
const std::vector<ec::Affine<C>>& bases_of() {
    if constexpr (std::is_same_v<C, ec::bn254::G1Params> || std::is_same_v<C, ec::bn254::G2Params>) {
        return bn254_random_bases<C>();
    } else {
        return random_bases<C>();
    }
}

// Independent products (throughput, as in the curve formulas' independent terms).
template <class F>
void BM_FieldMul(benchmark::State& state) {
    auto a = random_elements<F>(1024, 1);
    const auto b = random_elements<F>(1024, 2);
    for (auto _ : state) {
        for (size_t i = 0; i < a.size(); ++i) a[i] *= b[i];
        benchmark::DoNotOptimize(a.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * a.size()));
}
BENCHMARK(BM_FieldMul<Fp>)->Name("BM_FpMul");
BENCHMARK(BM_FieldMul<ff::bn254::Fq>)->Name("BM_Bn254FqMul");

// Independent squares: the doubling formulas' main cost (dbl-2009-l: 2M + 5S).
void BM_FpSqr(benchmark::State& state) {
    auto a = random_elements<Fp>(1024, 1);
    for (auto _ : state) {
        for (size_t i = 0; i < a.size(); ++i) a[i] = a[i].sqr();
        benchmark::DoNotOptimize(a.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * a.size()));
}
BENCHMARK(BM_FpSqr);

// Doublings of a G1 point, one after another: a subgroup check's 126.
void BM_G1Double(benchmark::State& state) {
    ec::G1 p = ec::G1::from_affine(ec::g1_generator());
    for (auto _ : state) {
        for (int i = 0; i < 128; ++i) p = ec::dbl(p);
        benchmark::DoNotOptimize(p);
    }
    state.SetItemsProcessed(state.iterations() * 128);
}
BENCHMARK(BM_G1Double);

// A dependent chain of products (latency).
void BM_FpMulLatency(benchmark::State& state) {
    Fp x = random_elements<Fp>(1, 3)[0];
    const Fp y = random_elements<Fp>(1, 4)[0];
    for (auto _ : state) {
        for (int i = 0; i < 1024; ++i) x *= y;
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_FpMulLatency);

void BM_FpInverse(benchmark::State& state) {
    Fp x = random_elements<Fp>(1, 5)[0];
    for (auto _ : state) {
        x = x.inverse() + Fp::one();
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FpInverse);

void BM_Fp2Mul(benchmark::State& state) {
    const auto c0 = random_elements<Fp>(2048, 6);
    std::vector<Fp2> a(1024), b(1024);
    for (size_t i = 0; i < 1024; ++i) {
        a[i] = Fp2{c0[i], c0[i + 1024]};
        b[i] = Fp2{c0[2047 - i], c0[i]};
    }
    for (auto _ : state) {
        for (size_t i = 0; i < a.size(); ++i) a[i] *= b[i];
        benchmark::DoNotOptimize(a.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * a.size()));
}
BENCHMARK(BM_Fp2Mul);

// Independent Fp12 products (the Miller loop's and the final exponentiation's), of
// Frobenius images of one random element.
template <class Fp12>
void BM_Fp12Mul(benchmark::State& state) {
    Fp12 seed{};  // zero; the loop below sets each coefficient's low limb
    util::SplitMix64 generator(12);
    for (auto* c6 : {&seed.c0, &seed.c1}) {
        for (auto* c2 : {&c6->c0, &c6->c1, &c6->c2}) {
            for (auto* c : {&c2->c0, &c2->c1}) c->limbs[0] = generator.next() >> 8;  // below p
        }
    }
    std::vector<Fp12> a(64), b(64);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = seed.frobenius_map(static_cast<unsigned>(i % 12));
        b[i] = seed.frobenius_map(static_cast<unsigned>((i + 5) % 12)) + a[i];
    }
    for (auto _ : state) {
        for (size_t i = 0; i < a.size(); ++i) a[i] *= b[i];
        benchmark::DoNotOptimize(a.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * a.size()));
}
BENCHMARK(BM_Fp12Mul<ff::Fp12>)->Name("BM_Fp12Mul");
BENCHMARK(BM_Fp12Mul<ff::bn254::Fq12>)->Name("BM_Bn254Fq12Mul");

// A running sum of distinct affine points: Jacobian madd-2007-bl, or XYZZ madd-2008-s
// (the MSM buckets' addition).
template <class C, bool kXyzz>
void BM_AddMixed(benchmark::State& state) {
    const auto& bases = bases_of<C>();
    ec::Jacobian<C> jacobian = ec::Jacobian<C>::from_affine(bases[0]);
    ec::Xyzz<C> xyzz = ec::Xyzz<C>::from_affine(bases[0]);
    size_t i = 1;
    for (auto _ : state) {
        if constexpr (kXyzz) {
            xyzz = ec::xyzz_add_mixed(xyzz, bases[i]);
        } else {
            jacobian = ec::add_mixed(jacobian, bases[i]);
        }
        i = (i + 1) % 4096;
    }
    benchmark::DoNotOptimize(jacobian);
    benchmark::DoNotOptimize(xyzz);
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AddMixed<ec::G1Params, false>)->Name("BM_G1AddMixed");
BENCHMARK(BM_AddMixed<ec::G2Params, false>)->Name("BM_G2AddMixed");
BENCHMARK(BM_AddMixed<ec::G1Params, true>)->Name("BM_G1XyzzAddMixed");
BENCHMARK(BM_AddMixed<ec::G2Params, true>)->Name("BM_G2XyzzAddMixed");
BENCHMARK(BM_AddMixed<ec::bn254::G1Params, false>)->Name("BM_Bn254G1AddMixed");
BENCHMARK(BM_AddMixed<ec::bn254::G2Params, false>)->Name("BM_Bn254G2AddMixed");
BENCHMARK(BM_AddMixed<ec::bn254::G1Params, true>)->Name("BM_Bn254G1XyzzAddMixed");
BENCHMARK(BM_AddMixed<ec::bn254::G2Params, true>)->Name("BM_Bn254G2XyzzAddMixed");

template <class G1Params, class G2Params>
void BM_Pairing(benchmark::State& state) {
    const ec::Affine<G1Params> p = bases_of<G1Params>()[1];
    const ec::Affine<G2Params> q = bases_of<G2Params>()[1];
    for (auto _ : state) benchmark::DoNotOptimize(pairing::pairing(p, q));
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Pairing<ec::G1Params, ec::G2Params>)->Name("BM_Pairing")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pairing<ec::bn254::G1Params, ec::bn254::G2Params>)
    ->Name("BM_Bn254Pairing")
    ->Unit(benchmark::kMillisecond);

// A Groth16 verification's pairing work: four Miller loops, one final exponentiation.
template <class G1Params, class G2Params>
void BM_PairingProductOf4(benchmark::State& state) {
    const auto& g1 = bases_of<G1Params>();
    const auto& g2 = bases_of<G2Params>();
    for (auto _ : state) benchmark::DoNotOptimize(pairing::pairing_product_is_one(g1.data(), g2.data(), 4));
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PairingProductOf4<ec::G1Params, ec::G2Params>)
    ->Name("BM_PairingProductOf4")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PairingProductOf4<ec::bn254::G1Params, ec::bn254::G2Params>)
    ->Name("BM_Bn254PairingProductOf4")
    ->Unit(benchmark::kMillisecond);

// args: log_n, threads, percent of the scalars that are 0 or 1 (the rest full-size), and
// lanes: 1 for the best arithmetic this CPU has (AVX-512 IFMA lanes where it has them), 0
// for the portable one.
template <class C>
void BM_Msm(benchmark::State& state) {
    const size_t n = size_t{1} << state.range(0);
    const auto threads = static_cast<unsigned>(state.range(1));
    const auto boolean_percent = static_cast<uint64_t>(state.range(2));
    const auto arithmetic = state.range(3) != 0 ? msm::Arithmetic::best_available : msm::Arithmetic::portable;
    const auto& bases = bases_of<C>();
    const auto values = random_elements<typename C::Scalar>(n, 9);
    std::vector<msm::Scalar> scalars(n);
    util::SplitMix64 coin(10);
    for (size_t i = 0; i < n; ++i) {
        if (coin.next() % 100 < boolean_percent) {
            scalars[i] = msm::Scalar{{coin.next() & 1, 0, 0, 0}};
        } else {
            scalars[i] = msm::to_scalar(values[i]);
        }
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(msm::pippenger(bases.data(), scalars.data(), n, threads, arithmetic));
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
void msm_arguments(benchmark::internal::Benchmark* benchmark) {
    benchmark
        ->ArgsProduct(
            {benchmark::CreateDenseRange(10, 18, 2), {1, static_cast<int64_t>(all_threads())}, {0, 90}, {0, 1}})
        ->ArgNames({"log_n", "threads", "boolean_pct", "lanes"})
        ->MeasureProcessCPUTime()
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Msm<ec::G1Params>)->Name("BM_G1Msm")->Apply(msm_arguments);
BENCHMARK(BM_Msm<ec::G2Params>)->Name("BM_G2Msm")->Apply(msm_arguments);
BENCHMARK(BM_Msm<ec::bn254::G1Params>)->Name("BM_Bn254G1Msm")->Apply(msm_arguments);
BENCHMARK(BM_Msm<ec::bn254::G2Params>)->Name("BM_Bn254G2Msm")->Apply(msm_arguments);

// args: log_n, threads. Items are points, so items/s inverts to time per point.
template <class C>
void BM_FixedBaseMul(benchmark::State& state) {
    const size_t n = size_t{1} << state.range(0);
    const auto threads = static_cast<unsigned>(state.range(1));
    const std::vector<Fr> scalars = random_elements<Fr>(n, 11);
    std::vector<ec::Affine<C>> out(n);
    for (auto _ : state) {
        ec::fixed_base_mul(ec::generator<C>(), scalars.data(), n, out.data(), threads);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_FixedBaseMul<ec::G1Params>)
    ->Name("BM_G1FixedBaseMul")
    ->ArgsProduct({{12, 16}, {1, static_cast<int64_t>(all_threads())}})
    ->ArgNames({"log_n", "threads"})
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FixedBaseMul<ec::G2Params>)
    ->Name("BM_G2FixedBaseMul")
    ->ArgsProduct({{12, 16}, {1, static_cast<int64_t>(all_threads())}})
    ->ArgNames({"log_n", "threads"})
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The host's combination of an MSM's chunks' window sums (gpu/msm/msm_steps.hpp,
// combine_window_sets), which a proof's MSMs leave to the host: `chunks` chunks of one
// layout of c-bit windows, summed window by window, then one Horner. On the device each
// chunk's one-thread Horner took about 2 ms in G1 and 5 in G2 (docs/msm.md).
template <class C>
void BM_CombineWindowSets(benchmark::State& state) {
    const auto chunks = static_cast<size_t>(state.range(0));
    const auto bits = static_cast<uint32_t>(state.range(1));
    const cuda::msm::WindowLayout layout{bits, cuda::msm::WindowLayout::windows_for(bits), 0};
    const auto& bases = random_bases<C>();
    std::vector<ec::Xyzz<C>> sums(chunks * layout.windows);
    // Doubled, so that ZZ is not 1, as a bucket sum's is not.
    for (size_t i = 0; i < sums.size(); ++i) sums[i] = ec::xyzz_dbl(ec::Xyzz<C>::from_affine(bases[i]));
    const std::vector<cuda::msm::WindowLayout> layouts(chunks, layout);
    for (auto _ : state) {
        benchmark::DoNotOptimize(cuda::msm::combine_window_sets<C>(sums.data(), layout.windows, layouts));
    }
}
BENCHMARK(BM_CombineWindowSets<ec::G1Params>)
    ->Name("BM_G1CombineWindowSets")
    ->Args({1, 20})
    ->Args({64, 16})
    ->ArgNames({"chunks", "bits"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CombineWindowSets<ec::G2Params>)
    ->Name("BM_G2CombineWindowSets")
    ->Args({1, 20})
    ->Args({16, 16})
    ->ArgNames({"chunks", "bits"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
