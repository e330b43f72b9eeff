// Benchmarks of the shared math: Fr multiplication and inversion, the forward NTT,
// the whole CPU quotient, and synthesis throughput. Thread counts are an argument so
// single-core cost and scaling are separate numbers.
#include "core/circuit/porep_profile.hpp"
#include "core/circuit/synthetic.hpp"
#include "core/circuit/synthetic_r1cs.hpp"
#include "core/ff/fr.hpp"
#include "core/ff/random.hpp"
#include "core/ntt/ntt.hpp"
#include "core/quotient/quotient.hpp"
#include "core/util/splitmix64.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace {

using zkbatch::ff::Fr;

std::vector<Fr> random_elements(size_t n, uint64_t seed) {
    zkbatch::util::SplitMix64 generator(seed);
    std::vector<Fr> values(n);
    for (Fr& v : values) v = zkbatch::ff::uniform_fr(generator);
    return values;
}

unsigned all_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Independent multiplications (throughput, as in NTT butterflies and pointwise steps).
void BM_FrMul(benchmark::State& state) {
    auto a = random_elements(1024, 1);
    const auto b = random_elements(1024, 2);
    for (auto _ : state) {
        for (size_t i = 0; i < a.size(); ++i) a[i] *= b[i];
        benchmark::DoNotOptimize(a.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * a.size()));
}
BENCHMARK(BM_FrMul);

// A dependent chain of multiplications (latency).
void BM_FrMulLatency(benchmark::State& state) {
    Fr x = random_elements(1, 3)[0];
    const Fr y = random_elements(1, 4)[0];
    for (auto _ : state) {
        for (int i = 0; i < 1024; ++i) x *= y;
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_FrMulLatency);

void BM_FrInverse(benchmark::State& state) {
    Fr x = random_elements(1, 5)[0];
    for (auto _ : state) {
        x = x.inverse() + Fr::one();
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FrInverse);

// args: log_n, threads
void BM_NttForward(benchmark::State& state) {
    const auto log_n = static_cast<uint32_t>(state.range(0));
    const auto threads = static_cast<unsigned>(state.range(1));
    const auto& domain = zkbatch::ntt::Domain::get(log_n);
    auto values = random_elements(domain.size(), 6);
    for (auto _ : state) {
        zkbatch::ntt::forward_ntt_bitrev_to_natural(domain, values.data(), threads);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * domain.size()));
}
BENCHMARK(BM_NttForward)
    ->ArgsProduct({benchmark::CreateDenseRange(12, 20, 2), {1, static_cast<int64_t>(all_threads())}})
    ->ArgNames({"log_n", "threads"})
    ->Unit(benchmark::kMillisecond);

// args: log_n, threads
void BM_Quotient(benchmark::State& state) {
    const auto log_n = static_cast<uint32_t>(state.range(0));
    const auto threads = static_cast<unsigned>(state.range(1));
    const size_t n = size_t{1} << log_n;
    std::vector<Fr> a(n), b(n), c(n), h(n), scratch(2 * n);
    zkbatch::circuit::synthesize({log_n, 1}, 1, 0, a.data(), b.data(), c.data());
    zkbatch::ntt::Domain::get(log_n);  // build the tables outside the timed loop
    for (auto _ : state) {
        zkbatch::prove::compute_quotient_cpu(log_n, a.data(), b.data(), c.data(), h.data(), scratch.data(), threads);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_Quotient)
    ->ArgsProduct({benchmark::CreateDenseRange(16, 20, 2), {1, static_cast<int64_t>(all_threads())}})
    ->ArgNames({"log_n", "threads"})
    ->Unit(benchmark::kMillisecond);

// args: log_n, terms_per_row; items = rows (constraints).
void BM_Synthesis(benchmark::State& state) {
    const auto log_n = static_cast<uint32_t>(state.range(0));
    const auto terms_per_row = static_cast<uint32_t>(state.range(1));
    const size_t n = size_t{1} << log_n;
    std::vector<Fr> a(n), b(n), c(n);
    uint64_t partition = 0;
    for (auto _ : state) {
        zkbatch::circuit::synthesize({log_n, terms_per_row}, 1, partition++, a.data(), b.data(), c.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}
BENCHMARK(BM_Synthesis)
    ->ArgsProduct({{16}, {4, 16}})
    ->ArgNames({"log_n", "terms_per_row"})
    ->Unit(benchmark::kMillisecond);

// The PoRep profile's synthesis of one partition, z and a, b, c (docs/porep.md); args:
// log_n, threads; items = rows.
void BM_PorepSynthesis(benchmark::State& state) {
    zkbatch::circuit::R1csShape shape;
    shape.log_n = static_cast<uint32_t>(state.range(0));
    shape.profile = zkbatch::circuit::R1csProfile::porep;
    shape.public_inputs = zkbatch::circuit::kPorepPublicInputs;
    shape.boolean_share = zkbatch::circuit::kPorepBitShare;
    const zkbatch::circuit::SyntheticR1cs circuit(shape);
    const auto threads = static_cast<unsigned>(state.range(1));
    std::vector<Fr> z(circuit.variables()), a(circuit.rows()), b(circuit.rows()), c(circuit.rows());
    uint64_t partition = 0;
    for (auto _ : state) {
        circuit.synthesize(1, partition++, z.data(), a.data(), b.data(), c.data(), threads);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * circuit.rows()));
}
BENCHMARK(BM_PorepSynthesis)
    ->ArgsProduct({{20, 24}, {1, static_cast<int64_t>(all_threads())}})
    ->ArgNames({"log_n", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
