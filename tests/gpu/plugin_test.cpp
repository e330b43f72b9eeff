// cuda-pinned and cuda-pageable loaded through the plugin host, as the runner loads
// them: h bit-identical to the CPU reference, h's digest formed on the device equal to
// libxxhash's, the reported phases, the pinned pool's back-pressure, and the refusals
// (bad options, oversized pool, oversized requests, no GPU).
#include "test_support.hpp"

#include "plugin_host/plugin_host.hpp"

#include "gpu/util/cuda_check.hpp"
#include "core/circuit/synthetic.hpp"
#include "core/ff/fr.hpp"
#include "core/plugin/request.hpp"
#include "core/quotient/quotient.hpp"
#include "core/util/xxh3_split.hpp"
#include "core/quotient/identity.hpp"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;

const char* const kBackends[] = {"cuda-pinned", "cuda-pageable"};

std::shared_ptr<Plugin> load(const std::string& name) { return load_plugin(name, test::plugin_folder()); }

// The message of a create() that must fail, or a test failure if it succeeds.
std::string create_error(const std::string& name, const std::string& options, uint32_t max_log_n) {
    try {
        Backend backend(load(name), options, max_log_n, 1);
    } catch (const PluginError& e) {
        EXPECT_EQ(e.kind, PluginError::Kind::create_failed);
        return e.what();
    }
    ADD_FAILURE() << name << " accepted options '" << options << "' at max_log_n " << max_log_n;
    return {};
}

// h as a backend returns it (canonical form, plugin ABI v3).
std::vector<Fr> cpu_quotient(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c) {
    const size_t n = size_t{1} << log_n;
    std::vector<Fr> h(n), scratch(2 * n);
    prove::compute_quotient_cpu(log_n, a, b, c, h.data(), scratch.data(),
                                std::max(1u, std::thread::hardware_concurrency()));
    return test::canonical_form(std::move(h));
}

uint64_t steady_now_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

// ---- without a GPU (these run everywhere) ---------------------------------------------

TEST(CudaPlugins, LoadAndDescribeThemselves) {
    for (const char* name : kBackends) {
        const auto plugin = load(name);
        EXPECT_STREQ(plugin->api().name, name);
        EXPECT_EQ(plugin->api().abi_version, ZKB_ABI_VERSION);
        zkb_error why{};
        const int usable = plugin->api().probe(&why);
        if (test::gpu_unavailable_reason().empty()) {
            EXPECT_EQ(usable, 1) << why.message;
        } else {
            EXPECT_EQ(usable, 0);
            EXPECT_NE(std::string(why.message).find("CUDA"), std::string::npos) << why.message;
        }
    }
}

TEST(CudaPlugins, RefuseUnknownOptionsBeforeTouchingTheDevice) {
    EXPECT_NE(create_error("cuda-pinned", "pool_sizes=2", 10).find("pool_sizes"), std::string::npos);
    // pool_sets belongs to cuda-pinned only.
    EXPECT_NE(create_error("cuda-pageable", "pool_sets=2", 10).find("pool_sets"), std::string::npos);
    EXPECT_NE(create_error("cuda-pageable", "device=x", 10).find("device"), std::string::npos);
    const std::string streams = create_error("cuda-pinned", "copy_streams=engine", 10);
    EXPECT_NE(streams.find("'copy_streams' = 'engine' is not a choice"), std::string::npos) << streams;
    const std::string tables = create_error("cuda-pageable", "msm_tables=yes", 10);
    EXPECT_NE(tables.find("'msm_tables' = 'yes' is not a choice"), std::string::npos) << tables;
    const std::string rounds = create_error("cuda-pinned", "msm_affine_rounds=on", 10);
    EXPECT_NE(rounds.find("'msm_affine_rounds' = 'on' is not a choice: use 'auto'"), std::string::npos) << rounds;
    const std::string placement = create_error("cuda-pageable", "key_placement=disk", 10);
    EXPECT_NE(placement.find("'key_placement' = 'disk' is not a choice: use 'auto'"), std::string::npos) << placement;
    const std::string quotient = create_error("cuda-pinned", "quotient_memory=small", 10);
    EXPECT_NE(quotient.find("'quotient_memory' = 'small' is not a choice: use 'auto'"), std::string::npos) << quotient;
    const std::string b2 = create_error("cuda-pageable", "b2_msm=cpu", 10);
    EXPECT_NE(b2.find("'b2_msm' = 'cpu' is not a choice: use 'device'"), std::string::npos) << b2;
    const std::string beside_h = create_error("cuda-pinned", "msm_beside_h=yes", 10);
    EXPECT_NE(beside_h.find("'msm_beside_h' = 'yes' is not a choice: use 'auto'"), std::string::npos) << beside_h;
    const std::string cap = create_error("cuda-pageable", "device_memory=16GB", 10);
    EXPECT_NE(cap.find("'device_memory' = '16GB' is not a size"), std::string::npos) << cap;
    const std::string tiny = create_error("cuda-pinned", "device_memory=512MiB", 10);
    EXPECT_NE(tiny.find("'device_memory' = '512MiB' is out of range"), std::string::npos) << tiny;
    const std::string stride = create_error("cuda-pinned", "msm_table_stride=257", 10);
    EXPECT_NE(stride.find("'msm_table_stride' = 257 is out of range: it must be in [0, 256]"), std::string::npos)
        << stride;
}

TEST(CudaPlugins, PinnedRefusesAPoolLargerThanTheMachine) {
    // 1024 sets x 4 vectors x 2^28 elements x 32 bytes = 32 TiB.
    const std::string message = create_error("cuda-pinned", "pool_sets=1024", 28);
    EXPECT_NE(message.find("pinned host memory"), std::string::npos) << message;
    EXPECT_NE(message.find("pool_sets"), std::string::npos) << message;
}

TEST(CudaPlugins, WithoutAGpuCreateSaysWhy) {
    if (test::gpu_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is usable here";
    for (const char* name : kBackends) {
        const std::string message = create_error(name, "", 10);
        EXPECT_NE(message.find(test::gpu_unavailable_reason()), std::string::npos) << message;
    }
}

// ---- on a GPU ---------------------------------------------------------------------------

// XXH3-128 of `bytes`, canonical: the digest the runner forms from h (libxxhash).
std::array<uint8_t, 16> libxxhash_digest(const void* bytes, size_t size) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(bytes, size));
    return std::to_array(canonical.digest);
}

// One partition through the plugin: synthesize into its buffers, prove with h asked
// for and with the digest alone (plugin ABI v4), compare h and the digest with the CPU's.
void prove_and_compare(const Backend& backend, const Worker& worker, uint32_t log_n, uint64_t seed,
                       uint64_t partition, const char* name) {
    zkb_host_buffers buffers = backend.acquire_buffers(log_n);
    const size_t n = size_t{1} << log_n;
    const uint64_t bytes = n * sizeof(Fr);
    auto* a = static_cast<Fr*>(buffers.a);
    auto* b = static_cast<Fr*>(buffers.b);
    auto* c = static_cast<Fr*>(buffers.c);
    auto* h = static_cast<Fr*>(buffers.h);
    circuit::synthesize({log_n, 2}, seed, partition, a, b, c);
    const std::vector<Fr> expected = cpu_quotient(log_n, a, b, c);
    const auto expected_digest = libxxhash_digest(expected.data(), bytes);
    // From 2^3 elements h is digested on the device; shorter h is always downloaded.
    const bool digested = log_n >= 3;
    const uint64_t rows_bytes = digested ? xxh3::block_sum_count(bytes) * sizeof(uint64_t) : 0;

    for (const int32_t h_to_host : {1, 0}) {
        SCOPED_TRACE(testing::Message() << name << ", log_n " << log_n << ", seed " << seed << ", h_to_host "
                                        << h_to_host);
        std::memset(h, 0xff, bytes);  // a prove that writes nothing cannot pass
        zkb_prove_report report{};
        std::string error;
        const uint64_t before_ns = steady_now_ns();
        ASSERT_EQ(worker.prove(plugin::quotient_request(partition, log_n, h_to_host, &buffers), &report, &error), ZKB_OK) << error;
        const uint64_t after_ns = steady_now_ns();
        const bool h_downloaded = h_to_host == 1 || !digested;
        if (h_downloaded) {
            EXPECT_EQ(std::vector<Fr>(h, h + n), expected) << "h differs from cpu-ref";
        }
        EXPECT_EQ(report.has_h_digest, digested ? 1 : 0);
        if (digested) {
            EXPECT_EQ(std::to_array(report.h_digest), expected_digest) << "the device's digest of h";
        }

        // Phases: three uploads, four kernel groups and the digest's block sums, their
        // download and h's, inside `prove`, on the runner's clock (1 ms allowed
        // for the float milliseconds of CUDA events); the digest's chain on the host.
        std::map<std::string, int> counts;
        std::multiset<uint64_t> download_bytes;
        for (uint32_t i = 0; i < report.phase_count; ++i) {
            const zkb_phase& phase = report.phases[i];
            const std::string phase_name = phase.name;
            ++counts[phase_name];
            EXPECT_LE(phase.start_ns, phase.end_ns) << phase_name;
            EXPECT_GE(phase.start_ns, before_ns) << phase_name;
            EXPECT_LE(phase.end_ns, after_ns + 1'000'000) << phase_name;
            const std::string lane = phase.lane;
            if (phase_name == "h_digest") {
                EXPECT_EQ(phase.on_device, 0);
                EXPECT_EQ(phase.device_index, -1);
                EXPECT_EQ(lane, "gpu0.w0.host");
                continue;
            }
            EXPECT_EQ(phase.on_device, 1);
            EXPECT_EQ(lane, phase_name == "compute" ? "gpu0.w0.compute" : "gpu0.w0.copy");
            if (phase_name == "d2h") {
                download_bytes.insert(phase.bytes);
            } else {
                EXPECT_EQ(phase.bytes, phase_name == "h2d" ? bytes : 0u) << phase_name;
            }
        }
        EXPECT_EQ(counts["h2d"], 3);
        EXPECT_EQ(counts["compute"], digested ? 5 : 4);
        EXPECT_EQ(counts["h_digest"], digested ? 1 : 0);
        std::multiset<uint64_t> expected_downloads;
        if (digested) expected_downloads.insert(rows_bytes);
        if (h_downloaded) expected_downloads.insert(bytes);
        EXPECT_EQ(download_bytes, expected_downloads);
    }
    backend.release_buffers(buffers);
}

TEST(CudaPlugins, QuotientIsBitIdenticalToCpuRefForEveryLogNUpTo22) {
    ZKB_REQUIRE_GPU();
    for (const char* name : kBackends) {
        const Backend backend(load(name), "", 22, 1);
        const auto worker = backend.create_worker(0);
        for (uint32_t log_n = 1; log_n <= 22; ++log_n) {
            for (uint64_t seed : {1u, 2u, 3u}) prove_and_compare(backend, *worker, log_n, seed, log_n * 10 + seed, name);
        }
    }
}

TEST(CudaPlugins, ReportDeviceAndPoolFacts) {
    ZKB_REQUIRE_GPU();
    for (const char* name : kBackends) {
        const Backend backend(load(name), std::string(name) == "cuda-pinned" ? "pool_sets=2" : "", 12, 1);
        std::map<std::string, std::string> facts;
        for (const auto& [key, value] : backend.facts()) facts[key] = value;
        EXPECT_FALSE(facts["device.name"].empty());
        EXPECT_GT(std::stoll(facts["device.sm_count"]), 0);
        EXPECT_GT(std::stoll(facts["device.memory_bytes"]), 0);
        EXPECT_FALSE(facts["cuda.runtime_version"].empty());
        EXPECT_TRUE(facts.count("pcie.gen") && facts.count("pcie.width") && facts.count("driver.version"));
        const uint64_t expected_pinned = std::string(name) == "cuda-pinned" ? 2 * 4 * (uint64_t{1} << 12) * 32 : 0;
        EXPECT_EQ(facts["pool.pinned_bytes"], std::to_string(expected_pinned)) << name;
        EXPECT_TRUE(facts.count("pool.setup_ms")) << name;
        EXPECT_EQ(facts["cuda.copy_streams"], "device") << name;
    }
}

// Option device_memory: the backend plans as if the card had that much memory. Twelve
// workers at 2^22 need 4.9 GiB with the full quotient (a, b and c of 128 MiB each, and
// the domain's expanded tables), 3 GiB with the lean one (a and b, seeded tables): under
// a 4 GiB cap `auto` plans the lean one and `full` is refused; sixteen lean workers (4
// GiB) are refused too. What the process already holds on the device comes off a cap (a
// context's half GiB; in the whole suite also the local memory earlier tests' kernels
// made the context reserve), so the caps are set that far above 3.5 and 7.5 GiB.
TEST(CudaPlugins, PlanWithinTheDeviceMemoryCap) {
    ZKB_REQUIRE_GPU();
    size_t free_bytes = 0, total_bytes = 0;
    ZKB_CUDA_CHECK(cudaFree(nullptr));
    ZKB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const uint64_t held = total_bytes - free_bytes;
    const std::string cap = "device_memory=" + std::to_string(held + (uint64_t{7} << 29));  // 3.5 GiB free
    const uint64_t roomy_cap = held + (uint64_t{15} << 29);                                    // 7.5 GiB free
    const auto quotient_memory = [](const Backend& backend) {
        for (const auto& [key, value] : backend.facts()) {
            if (key == "cuda.quotient_memory") return value;
        }
        return std::string("(no fact)");
    };
    const auto refusal = [](const char* name, const std::string& options, uint32_t workers) {
        try {
            Backend capped(load(name), options, 22, workers);
            ADD_FAILURE() << name << " planned " << workers << " workers with " << options;
        } catch (const PluginError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    for (const char* name : kBackends) {
        EXPECT_EQ(quotient_memory(Backend(load(name), "", 22, 12)), "full") << name;
        EXPECT_EQ(quotient_memory(Backend(load(name), cap, 22, 12)), "lean") << name;
        const std::string full = refusal(name, cap + "\nquotient_memory=full", 12);
        EXPECT_NE(full.find("(option device_memory caps it)"), std::string::npos) << full;
        EXPECT_NE(full.find("let option quotient_memory be 'auto'"), std::string::npos) << full;
        const std::string lean = refusal(name, cap, 16);
        EXPECT_NE(lean.find("2 vectors of 2^22 elements each"), std::string::npos) << lean;
        const Backend roomy(load(name), "device_memory=" + std::to_string(roomy_cap), 20, 1);
        std::map<std::string, std::string> facts;
        for (const auto& [key, value] : roomy.facts()) facts[key] = value;
        EXPECT_EQ(facts["cuda.device_memory_cap_bytes"], std::to_string(roomy_cap)) << name;
    }
}

TEST(CudaPlugins, RefuseRequestsLargerThanCreatedFor) {
    ZKB_REQUIRE_GPU();
    for (const char* name : kBackends) {
        const Backend backend(load(name), "", 8, 1);
        try {
            (void)backend.acquire_buffers(9);
            ADD_FAILURE() << name << " handed out buffers for 2^9 with max_log_n 8";
        } catch (const PluginError& e) {
            EXPECT_NE(std::string(e.what()).find("max_log_n = 8"), std::string::npos) << e.what();
        }
        zkb_host_buffers buffers = backend.acquire_buffers(8);
        const auto worker = backend.create_worker(0);
        zkb_prove_report report{};
        std::string error;
        buffers.n = uint64_t{1} << 9;
        EXPECT_EQ(worker->prove(plugin::quotient_request(0, 9, true, &buffers), &report, &error), ZKB_ERR_INVALID_ARGUMENT) << name;
        EXPECT_NE(error.find("max_log_n = 8"), std::string::npos) << error;
        buffers.n = uint64_t{1} << 8;
        backend.release_buffers(buffers);
    }
}

// The CUDA backends prove both curves (zkb_plugin_api.curves); a key source naming a
// curve zkbatch does not know is refused in load_key, before its file is opened.
TEST(CudaPlugins, ProveBothCurvesAndRefuseAnUnknownOne) {
    ZKB_REQUIRE_GPU();
    for (const char* name : kBackends) {
        const std::shared_ptr<Plugin> plugin = load(name);
        EXPECT_TRUE(plugin->proves(curve::CurveId::bls12_381)) << name;
        EXPECT_TRUE(plugin->proves(curve::CurveId::bn254)) << name;
        Backend backend(plugin, "", 8, 1);
        const zkb_key_source source{"never-opened.zkey", ZKB_KEY_FORMAT_ZKEY, 1, "circuit=zkey\n", "", 7, 0};
        try {
            (void)backend.load_key(source);
            ADD_FAILURE() << name << " took a key of curve 7";
        } catch (const PluginError& e) {
            EXPECT_NE(std::string(e.what()).find("unknown curve 7"), std::string::npos) << e.what();
        }
    }
}

// pool_sets = 1: a second acquire blocks until the first set is released. A thread
// and flags, no timing thresholds: the only wait is for the other thread to be inside
// (or about to enter) acquire, and a pool that did not block fails the check after it.
TEST(CudaPlugins, PinnedPoolBlocksWhenExhaustedUntilARelease) {
    ZKB_REQUIRE_GPU();
    const Backend backend(load("cuda-pinned"), "pool_sets=1", 10, 1);
    zkb_host_buffers first = backend.acquire_buffers(10);
    std::atomic<bool> about_to_acquire{false};
    std::atomic<bool> acquired{false};
    zkb_host_buffers second{};
    std::thread waiter([&] {
        about_to_acquire = true;
        second = backend.acquire_buffers(10);
        acquired = true;
    });
    while (!about_to_acquire) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(acquired) << "a second set was handed out of a pool of one";
    void* const first_a = first.a;
    backend.release_buffers(first);
    waiter.join();
    EXPECT_TRUE(acquired);
    EXPECT_EQ(second.a, first_a) << "the pool has one set, so the same memory comes back";
    backend.release_buffers(second);
}

// Two workers on one GPU, proving concurrently from two threads: each has its own
// compute stream, events and device buffers, and the copy streams are the device's
// (shared) or each worker's own.
TEST(CudaPlugins, TwoWorkersProveConcurrently) {
    ZKB_REQUIRE_GPU();
    for (const auto& [name, options] : std::vector<std::pair<std::string, std::string>>{
             {"cuda-pinned", ""}, {"cuda-pageable", ""}, {"cuda-pinned", "copy_streams=worker"},
             {"cuda-pageable", "copy_streams=worker"}}) {
        const Backend backend(load(name), options, 16, 2);
        std::vector<std::thread> threads;
        for (uint32_t w = 0; w < 2; ++w) {
            threads.emplace_back([&, w] {
                const auto worker = backend.create_worker(w);
                for (uint64_t partition = 0; partition < 4; ++partition) {
                    zkb_host_buffers buffers = backend.acquire_buffers(16);
                    auto* a = static_cast<Fr*>(buffers.a);
                    auto* b = static_cast<Fr*>(buffers.b);
                    auto* c = static_cast<Fr*>(buffers.c);
                    circuit::synthesize({16, 1}, 99, w * 100 + partition, a, b, c);
                    zkb_prove_report report{};
                    std::string error;
                    EXPECT_EQ(worker->prove(plugin::quotient_request(partition, 16, true, &buffers), &report, &error), ZKB_OK) << error;
                    const auto check = verify::check_quotient_canonical_h(16, a, b, c,
                                                                          static_cast<const uint8_t*>(buffers.h), partition);
                    EXPECT_TRUE(check.ok) << name << " worker " << w << ": " << check.detail;
                    backend.release_buffers(buffers);
                }
            });
        }
        for (std::thread& thread : threads) thread.join();
    }
}

}  // namespace
}  // namespace zkbatch
