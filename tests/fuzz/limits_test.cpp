// runner/manifest/limits: the host-memory estimate (known answers from the formula in
// docs/manifest.md), /proc/meminfo parsing, and the refusal message.
#include "manifest/limits.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace {

using zkbatch::AvailableMemory;
using zkbatch::estimate_host_memory;
using zkbatch::host_memory_shortfall;
using zkbatch::Manifest;
using zkbatch::parse_mem_available_bytes;

constexpr uint64_t kMiB = uint64_t{1} << 20;

// A quotient run: four vectors a set (Groth16's z: HostMemoryEstimate.Groth16...).
Manifest shape(uint32_t log_n, uint32_t synthesis, uint32_t queue, uint32_t prove, uint32_t replay,
               uint32_t finalize = 1) {
    Manifest m;
    m.job.name = "limits";
    m.proof.system = zkbatch::ProofSystem::quotient;
    m.circuit.log_n = log_n;
    m.pipeline.synthesis_workers = synthesis;
    m.pipeline.queue_depth = queue;
    m.pipeline.prove_workers = prove;
    m.pipeline.finalize_workers = finalize;
    m.pipeline.replay_inputs = replay;
    return m;
}

TEST(HostMemoryEstimate, KnownAnswerForCpuRef) {
    // V = 2^20 × 32 B = 32 MiB. Sets: 2 + 2 + 2 + 2 × 1 = 8 → 8 × 4 × 32 = 1024 MiB;
    // witnesses 2 × 32 = 64; replay 1 × 3 × 32 = 96; scratch 2 × 2 × 32 = 128; NTT tables 32.
    const auto e = estimate_host_memory(shape(20, 2, 2, 2, 1), "cpu-ref");
    EXPECT_EQ(e.vector_bytes, 32 * kMiB);
    EXPECT_EQ(e.buffer_sets, 8u);
    EXPECT_EQ(e.buffer_bytes, 1024 * kMiB);
    EXPECT_EQ(e.witness_bytes, 64 * kMiB);
    EXPECT_EQ(e.replay_bytes, 96 * kMiB);
    EXPECT_EQ(e.scratch_bytes, 128 * kMiB);
    EXPECT_EQ(e.ntt_table_bytes, 32 * kMiB);
    EXPECT_EQ(e.total_bytes, 1344 * kMiB);
    // Each finalize worker holds a set and has a queue slot for one more.
    EXPECT_EQ(estimate_host_memory(shape(20, 2, 2, 2, 1, 4), "cpu-ref").buffer_sets, 14u);
}

TEST(HostMemoryEstimate, Groth16SetsCarryTheWitnessAndBackendKeysCount) {
    // V = 32 MiB. Sets 8 × 5 × 32 = 1280 MiB (a, b, c, h and z); witnesses 64; replay
    // 1 × 4 × 32 = 128 (a, b, c and z); scratch 128; tables 32: 1632 MiB.
    Manifest m = shape(20, 2, 2, 2, 1);
    m.proof.system = zkbatch::ProofSystem::groth16;
    const auto e = estimate_host_memory(m, "cpu-ref");
    EXPECT_EQ(e.set_vectors, 5u);
    EXPECT_EQ(e.buffer_bytes, 1280 * kMiB);
    EXPECT_EQ(e.replay_bytes, 128 * kMiB);
    EXPECT_EQ(e.key_bytes, 0u);  // a cached key file is mapped: the page cache, not this run's
    EXPECT_EQ(e.total_bytes, 1632 * kMiB);
    // setup.key = "backend": the key's scalars (4V) while a GPU backend makes it; cpu-ref
    // (or "auto", which may be it) also keeps the key's 18V of points.
    m.setup.key = zkbatch::KeySource::backend;
    EXPECT_EQ(estimate_host_memory(m, "cuda-pinned").key_bytes, 4 * 32 * kMiB);
    EXPECT_EQ(estimate_host_memory(m, "cpu-ref").key_bytes, 22 * 32 * kMiB);
    EXPECT_EQ(estimate_host_memory(m, "auto").key_bytes, 22 * 32 * kMiB);
    const auto message = host_memory_shortfall(m, estimate_host_memory(m, "cpu-ref"), AvailableMemory{kMiB, "test"});
    ASSERT_TRUE(message);
    EXPECT_NE(message->find("8 buffer sets of a/b/c/h/z"), std::string::npos) << *message;
    EXPECT_NE(message->find("the proving key the backend makes 0.69 GiB"), std::string::npos) << *message;
}

TEST(HostMemoryEstimate, DevicesAndABackendPoolBoundTheBufferSets) {
    // 1 + 2 + 2 devices × 3 prove workers + 2 × 4 finalizers = 17 sets.
    Manifest m = shape(20, 1, 2, 3, 0, 4);
    m.pipeline.devices.indices = {0, 1};
    EXPECT_EQ(estimate_host_memory(m, "cuda-pinned").buffer_sets, 17u);
    // A pool of 5 sets per device: at most 10 out at once, whatever the pipeline holds.
    m.backend.options_by_backend["cuda-pinned"] = "pool_sets=5";
    EXPECT_EQ(estimate_host_memory(m, "cuda-pinned").buffer_sets, 10u);
    EXPECT_EQ(estimate_host_memory(m, "cuda-pinned").buffer_bytes, 10 * 4 * 32 * kMiB);
    // The option is that backend's only: cuda-pageable keeps the pipeline's count.
    EXPECT_EQ(estimate_host_memory(m, "cuda-pageable").buffer_sets, 17u);
    // A pool larger than what the pipeline can hold changes nothing.
    m.backend.options_by_backend["cuda-pinned"] = "pool_sets=64";
    EXPECT_EQ(estimate_host_memory(m, "cuda-pinned").buffer_sets, 17u);
}

TEST(HostMemoryEstimate, ScratchOnlyForCpuRef) {
    const Manifest m = shape(20, 1, 2, 3, 0);
    EXPECT_EQ(estimate_host_memory(m, "cuda-pinned").scratch_bytes, 0u);
    EXPECT_EQ(estimate_host_memory(m, "cpu-ref").scratch_bytes, 6 * 32 * kMiB);
    EXPECT_EQ(estimate_host_memory(m, "/opt/zkbatch/plugins/libzkbatch-cpu-ref.so").scratch_bytes, 6 * 32 * kMiB);
    // "auto" may pick cpu-ref: counted, so the estimate errs on the large side.
    EXPECT_EQ(estimate_host_memory(m, "auto").scratch_bytes, 6 * 32 * kMiB);
}

TEST(HostMemoryEstimate, LargestManifestDoesNotOverflow) {
    // Every key at its maximum: (256 + 1024 + 64 + 2 × 64) × 4 × 8 GiB + ... is about 23 PiB.
    const auto e = estimate_host_memory(shape(28, 256, 1024, 64, 1'000'000, 64), "cpu-ref");
    EXPECT_EQ(e.buffer_bytes, 1472ull * 4 * (8ull << 30));
    EXPECT_EQ(e.replay_bytes, 3'000'000ull * (8ull << 30));
    EXPECT_GT(e.total_bytes, e.replay_bytes);
    EXPECT_LT(e.total_bytes, std::numeric_limits<uint64_t>::max());
    // Beyond any manifest's range the sum saturates instead of wrapping to something small.
    EXPECT_EQ(estimate_host_memory(shape(63, 256, 1024, 64, 1'000'000), "cpu-ref").total_bytes,
              std::numeric_limits<uint64_t>::max());
}

// Once a backend holds the key, what it reports holding in host memory replaces the key
// line (the scalars it was made from are freed), and the refusal names it.
TEST(HostMemoryEstimate, KeyHeldInHostMemoryReplacesTheKeyLine) {
    Manifest m = shape(20, 2, 2, 2, 1);
    m.proof.system = zkbatch::ProofSystem::groth16;
    m.circuit.kind = zkbatch::CircuitKind::synthetic;
    m.setup.key = zkbatch::KeySource::backend;
    const auto made = estimate_host_memory(m, "cuda-pinned");
    EXPECT_EQ(made.key_bytes, 4 * 32 * kMiB);  // the scalars, 4V
    const auto held = zkbatch::with_key_held(made, 3000 * kMiB);
    EXPECT_EQ(held.key_bytes, 0u);
    EXPECT_EQ(held.held_key_bytes, 3000 * kMiB);
    EXPECT_EQ(held.total_bytes, made.total_bytes - 128 * kMiB + 3000 * kMiB);
    EXPECT_EQ(host_memory_shortfall(m, held, AvailableMemory{held.total_bytes, "test"}), std::nullopt);
    const auto message = host_memory_shortfall(m, held, AvailableMemory{held.total_bytes - 1, "test"});
    ASSERT_TRUE(message);
    EXPECT_NE(message->find("the proving key's points the backend holds in host memory 2.93 GiB"), std::string::npos)
        << *message;
    EXPECT_NE(message->find("was available before the key was loaded (test)"), std::string::npos) << *message;
    EXPECT_EQ(message->find("the proving key the backend makes"), std::string::npos) << *message;
}

TEST(MemAvailable, ParsesTheKernelsFormat) {
    const char* meminfo =
        "MemTotal:       24542036 kB\n"
        "MemFree:        21870408 kB\n"
        "MemAvailable:   22905488 kB\n"
        "Buffers:          113704 kB\n";
    EXPECT_EQ(parse_mem_available_bytes(meminfo), 22905488ull * 1024);
}

TEST(MemAvailable, MissingOrMalformedIsUnknown) {
    EXPECT_EQ(parse_mem_available_bytes(""), std::nullopt);
    EXPECT_EQ(parse_mem_available_bytes("MemTotal: 1000 kB\n"), std::nullopt);  // kernels before 3.14
    EXPECT_EQ(parse_mem_available_bytes("MemAvailable: lots kB\n"), std::nullopt);
    EXPECT_EQ(parse_mem_available_bytes("MemAvailable: 1000 MB\n"), std::nullopt);
    EXPECT_EQ(parse_mem_available_bytes("MemAvailable: 99999999999999999999 kB\n"), std::nullopt);
}

TEST(HostMemoryShortfall, FitsOrSaysBothNumbersAndWhatToLower) {
    const Manifest m = shape(20, 2, 2, 2, 1);  // 1344 MiB with cpu-ref
    const auto e = estimate_host_memory(m, "cpu-ref");
    EXPECT_EQ(host_memory_shortfall(m, e, AvailableMemory{1344 * kMiB, "test"}), std::nullopt);
    const auto message = host_memory_shortfall(m, e, AvailableMemory{1024 * kMiB, "MemAvailable in /proc/meminfo"});
    ASSERT_TRUE(message);
    EXPECT_NE(message->find("needs about 1.31 GiB"), std::string::npos) << *message;
    EXPECT_NE(message->find("only 1.00 GiB is available (MemAvailable in /proc/meminfo)"), std::string::npos)
        << *message;
    EXPECT_NE(message->find("8 buffer sets"), std::string::npos) << *message;
    EXPECT_NE(message->find("Lower circuit.log_n"), std::string::npos) << *message;
    // What no machine has reads in TiB or PiB, not millions of GiB.
    const Manifest huge = shape(28, 256, 1024, 64, 1'000'000, 64);
    const auto huge_message =
        host_memory_shortfall(huge, estimate_host_memory(huge, "cpu-ref"), AvailableMemory{16ull << 30, "test"});
    ASSERT_TRUE(huge_message);
    EXPECT_NE(huge_message->find("needs about 22.9 PiB"), std::string::npos) << *huge_message;
    EXPECT_NE(huge_message->find("Lower circuit.log_n"), std::string::npos) << *huge_message;
}

}  // namespace
