// bench_groth16: Google Benchmark of whole cpu-ref Groth16 proofs and of verification
// (the MSMs and curve operations alone are in bench_curve).
//   build/bench_groth16 --benchmark_filter=Prove --benchmark_repetitions=3
// A proof here is what cpu-ref's prove call does: the quotient (7 NTTs), h and z to
// canonical form, the five MSMs, the combination. Synthesis and the key's setup are
// outside the timed loop. Arguments: log_n, boolean share in percent, threads.
#include "core/circuit/synthetic_r1cs.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"
#include "core/quotient/quotient.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <thread>
#include <vector>

namespace {

using zkbatch::ff::Fr;

// One circuit, key and partition per (log_n, boolean share), made once per process.
struct Fixture {
    std::unique_ptr<zkbatch::circuit::SyntheticR1cs> circuit;
    zkbatch::groth16::ProvingKey key;
    std::vector<Fr> z, a, b, c;
};

const Fixture& fixture(uint32_t log_n, int boolean_percent) {
    static std::map<std::pair<uint32_t, int>, std::unique_ptr<Fixture>> fixtures;
    auto& slot = fixtures[{log_n, boolean_percent}];
    if (!slot) {
        slot = std::make_unique<Fixture>();
        slot->circuit = std::make_unique<zkbatch::circuit::SyntheticR1cs>(
            zkbatch::circuit::R1csShape{log_n, 4, 1, boolean_percent / 100.0, 1});
        slot->key = zkbatch::groth16::generate_key(*slot->circuit, zkbatch::groth16::toxic_waste_from_seed(1, log_n),
                                                   std::max(1u, std::thread::hardware_concurrency()));
        const uint64_t n = slot->circuit->rows();
        slot->z.resize(slot->circuit->variables()), slot->a.resize(n), slot->b.resize(n), slot->c.resize(n);
        slot->circuit->synthesize(1, 0, slot->z.data(), slot->a.data(), slot->b.data(), slot->c.data(), 2);
    }
    return *slot;
}

void BM_Groth16Prove(benchmark::State& state) {
    const auto log_n = static_cast<uint32_t>(state.range(0));
    const auto threads = static_cast<unsigned>(state.range(2));
    const Fixture& f = fixture(log_n, static_cast<int>(state.range(1)));
    const uint64_t n = f.circuit->rows();
    std::vector<Fr> h(n), scratch(2 * n);
    std::vector<zkbatch::msm::Scalar> z(f.z.size()), h_scalars(n);
    const auto blinding = zkbatch::groth16::derived_randomness(1, 0);
    for (auto _ : state) {
        zkbatch::prove::compute_quotient_cpu(log_n, f.a.data(), f.b.data(), f.c.data(), h.data(), scratch.data(), threads);
        for (uint64_t i = 0; i < n; ++i) h[i].to_canonical(h_scalars[i].limbs);
        for (uint64_t i = 0; i < z.size(); ++i) f.z[i].to_canonical(z[i].limbs);
        benchmark::DoNotOptimize(zkbatch::groth16::prove(f.key, z.data(), h_scalars.data(), blinding, threads));
    }
    state.counters["constraints"] = static_cast<double>(n);
}
BENCHMARK(BM_Groth16Prove)
    ->ArgNames({"log_n", "boolean_pct", "threads"})
    ->ArgsProduct({{12, 16, 18}, {0, 90}, {2}})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Iterations(3);

void BM_Groth16Verify(benchmark::State& state) {
    const Fixture& f = fixture(12, 90);
    const uint64_t n = f.circuit->rows();
    std::vector<Fr> h(n), scratch(2 * n);
    zkbatch::prove::compute_quotient_cpu(12, f.a.data(), f.b.data(), f.c.data(), h.data(), scratch.data(), 2);
    std::vector<zkbatch::msm::Scalar> z(f.z.size()), h_scalars(n);
    for (uint64_t i = 0; i < n; ++i) h[i].to_canonical(h_scalars[i].limbs);
    for (uint64_t i = 0; i < z.size(); ++i) f.z[i].to_canonical(z[i].limbs);
    const auto proof = zkbatch::groth16::prove(f.key, z.data(), h_scalars.data(), zkbatch::groth16::derived_randomness(1, 0), 2);
    for (auto _ : state) {
        const auto result = zkbatch::groth16::verify(f.key.vk, proof, f.z.data() + 1, f.key.num_public);
        if (!result.ok) state.SkipWithError("the proof did not verify");
    }
}
BENCHMARK(BM_Groth16Verify)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
