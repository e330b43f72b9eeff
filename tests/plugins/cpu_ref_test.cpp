// cpu-ref through the plugin host, end to end: buffers, synthesis into them, prove,
// and the backend-independent identity check.
#include "plugin_host/plugin_host.hpp"

#include "core/circuit/synthetic.hpp"
#include "core/ff/fr.hpp"
#include "core/msm/lane_buckets.hpp"
#include "core/plugin/request.hpp"
#include "core/quotient/quotient.hpp"
#include "core/quotient/identity.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using zkbatch::Backend;
using zkbatch::PluginError;
using zkbatch::ff::Fr;

std::shared_ptr<zkbatch::Plugin> cpu_ref() { return zkbatch::load_plugin(CPU_REF_PLUGIN_FILE); }

std::string create_error(const std::string& options) {
    try {
        Backend backend(cpu_ref(), options, 8, 1);
    } catch (const PluginError& e) {
        EXPECT_EQ(e.kind, PluginError::Kind::create_failed);
        return e.what();
    }
    ADD_FAILURE() << "cpu-ref accepted options '" << options << "'";
    return {};
}

struct Proved {
    std::vector<Fr> h;
    zkb_prove_report report{};
};

// Synthesizes partition `partition` of a job into backend buffers, proves it with
// `threads` threads, checks the identity and returns h.
Proved prove_partition(const std::string& options, uint32_t log_n, uint64_t partition) {
    Backend backend(cpu_ref(), options, log_n, 1);
    zkb_host_buffers buffers = backend.acquire_buffers(log_n);
    const uint64_t n = uint64_t{1} << log_n;
    EXPECT_EQ(buffers.n, n);
    auto* a = static_cast<Fr*>(buffers.a);
    auto* b = static_cast<Fr*>(buffers.b);
    auto* c = static_cast<Fr*>(buffers.c);
    auto* h = static_cast<Fr*>(buffers.h);
    zkbatch::circuit::synthesize({log_n, 3}, /*job_seed=*/0x5eed, partition, a, b, c);
    std::memset(h, 0xff, n * sizeof(Fr));  // so a prove that writes nothing cannot pass

    Proved proved;
    const auto worker = backend.create_worker(0);
    // Asked for the digest only, cpu-ref still writes h (ABI v4: it forms no digest).
    const zkb_prove_request request = zkbatch::plugin::quotient_request(partition, log_n, false, &buffers);
    std::string error;
    EXPECT_EQ(worker->prove(request, &proved.report, &error), ZKB_OK) << error;
    EXPECT_EQ(proved.report.has_h_digest, 0);

    // h comes back canonical (ABI v3): the quotient computed here, in Montgomery form,
    // converted to canonical bytes, must be exactly what the plugin wrote.
    std::vector<Fr> expected(n), scratch(2 * n);
    zkbatch::prove::compute_quotient_cpu(log_n, a, b, c, expected.data(), scratch.data(), 1);
    std::vector<uint8_t> expected_bytes(n * 32);
    zkbatch::ff::to_canonical_le(expected.data(), n, expected_bytes.data());
    EXPECT_EQ(std::memcmp(h, expected_bytes.data(), n * 32), 0);
    const auto check = zkbatch::verify::check_quotient_canonical_h(log_n, a, b, c, reinterpret_cast<const uint8_t*>(h),
                                                                   /*x_seed=*/partition + 1);
    EXPECT_TRUE(check.ok) << check.detail;
    proved.h.assign(h, h + n);
    backend.release_buffers(buffers);
    EXPECT_EQ(buffers.a, nullptr);
    return proved;
}

TEST(CpuRef, DescribesItself) {
    const auto plugin = cpu_ref();
    EXPECT_STREQ(plugin->api().name, "cpu-ref");
    EXPECT_STREQ(plugin->api().version, "0.1.0");
    EXPECT_NO_THROW(plugin->require_usable());
    Backend backend(plugin, "threads=3", 8, 2);
    const auto facts = backend.facts();
    ASSERT_EQ(facts.size(), 3u);
    EXPECT_EQ(facts[0].first, "backend.threads");
    EXPECT_EQ(facts[0].second, "3");
    EXPECT_EQ(facts[1].first, "backend.device");
    EXPECT_EQ(facts[1].second, "0");
    // What its MSMs add on: this CPU's AVX-512 IFMA lanes, or the portable arithmetic.
    EXPECT_EQ(facts[2].first, "backend.msm_arithmetic");
    EXPECT_EQ(facts[2].second, zkbatch::msm::lane_arithmetic_enabled() ? "avx512-ifma" : "portable");
}

// cpu-ref has no hardware devices: `device` labels the backend, device_count says what
// pipeline.devices = "all" means.
TEST(CpuRef, DeviceOptionLabelsTheBackendAndDeviceCountComesFromAnOption) {
    const auto plugin = cpu_ref();
    ASSERT_NE(plugin->api().device_count, nullptr);
    zkb_error error{};
    uint32_t count = 0;
    EXPECT_EQ(plugin->api().device_count("threads=2", &count, &error), ZKB_OK);
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(plugin->api().device_count("device_count=3\nthreads=2", &count, &error), ZKB_OK);
    EXPECT_EQ(count, 3u);
    EXPECT_NE(plugin->api().device_count("device_count=0", &count, &error), ZKB_OK);
    EXPECT_NE(std::string(error.message).find("device_count"), std::string::npos);

    zkbatch::DeviceChoice all;
    all.all = true;
    Backend backend(plugin, "device_count=3\nthreads=1", 8, 1, all);
    ASSERT_EQ(backend.device_count(), 3u);
    for (size_t slot = 0; slot < 3; ++slot) {
        EXPECT_EQ(backend.device_index(slot), static_cast<int32_t>(slot));
        const auto facts = backend.facts(slot);
        EXPECT_EQ(facts[1], (std::pair<std::string, std::string>{"backend.device", std::to_string(slot)}));
    }
    zkbatch::DeviceChoice listed;
    listed.indices = {5, 2};
    Backend two(plugin, "threads=1", 8, 1, listed);
    ASSERT_EQ(two.device_count(), 2u);
    EXPECT_EQ(two.device_index(0), 5);
    EXPECT_EQ(two.device_index(1), 2);
    // Not given: one backend, its device from the options.
    Backend own(plugin, "device=4\nthreads=1", 8, 1);
    ASSERT_EQ(own.device_count(), 1u);
    EXPECT_EQ(own.device_index(0), 4);
}

TEST(CpuRef, ProvesASatisfiedCircuitAndReportsComputeAndCanonicalPhases) {
    const Proved proved = prove_partition("threads=2", 10, 4);
    ASSERT_EQ(proved.report.phase_count, 2u);
    const zkb_phase& phase = proved.report.phases[0];
    EXPECT_STREQ(phase.name, "compute");
    EXPECT_STREQ(phase.lane, "cpu0.worker0");
    EXPECT_STREQ(proved.report.phases[1].name, "canonical_h");
    EXPECT_EQ(proved.report.phases[1].start_ns, phase.end_ns);
    EXPECT_EQ(phase.on_device, 0);
    EXPECT_EQ(phase.bytes, 0u);
    EXPECT_LE(phase.start_ns, phase.end_ns);
    EXPECT_GT(phase.start_ns, 0u);
    EXPECT_TRUE(proved.h.back() == Fr::zero());  // h[n-1] = 0 for a satisfied circuit
}

TEST(CpuRef, ResultDoesNotDependOnThreads) {
    const Proved one = prove_partition("threads=1", 9, 7);
    const Proved two = prove_partition("threads=2", 9, 7);
    ASSERT_EQ(one.h.size(), two.h.size());
    EXPECT_EQ(std::memcmp(one.h.data(), two.h.data(), one.h.size() * sizeof(Fr)), 0);
    // And a different partition gives a different h, so the comparison means something.
    const Proved other = prove_partition("threads=2", 9, 8);
    EXPECT_NE(std::memcmp(one.h.data(), other.h.data(), one.h.size() * sizeof(Fr)), 0);
}

TEST(CpuRef, DefaultThreadsIsAtLeastOne) {
    Backend backend(cpu_ref(), "", 8, 1000);  // more workers than hardware threads
    EXPECT_EQ(backend.facts().at(0).second, "1");
}

TEST(CpuRef, RefusesUnknownAndOutOfRangeOptions) {
    EXPECT_EQ(create_error("thredas=4"), "cpu-ref: option 'thredas' is unknown (known: threads, device, device_count)");
    EXPECT_EQ(create_error("threads=0"), "cpu-ref: option 'threads' = 0 is out of range: it must be in [1, 1024]");
    EXPECT_EQ(create_error("threads"), "cpu-ref: options line 1 ('threads') has no '=': write each option as key=value");
}

TEST(CpuRef, RefusesDomainsLargerThanCreatedFor) {
    Backend backend(cpu_ref(), "threads=1", 4, 1);
    try {
        backend.acquire_buffers(5);
        ADD_FAILURE() << "acquire_buffers(5) succeeded on a backend created for max_log_n = 4";
    } catch (const PluginError& e) {
        EXPECT_EQ(e.kind, PluginError::Kind::call_failed);
        EXPECT_NE(std::string(e.what()).find("log_n = 5 is outside [1, max_log_n = 4]"), std::string::npos)
            << e.what();
    }

    zkb_host_buffers buffers = backend.acquire_buffers(4);
    const auto worker = backend.create_worker(0);
    const zkb_prove_request request = zkbatch::plugin::quotient_request(0, 5, true, &buffers);
    zkb_prove_report report{};
    std::string error;
    EXPECT_EQ(worker->prove(request, &report, &error), ZKB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(error, "cpu-ref: log_n = 5 is outside [1, max_log_n = 4]: the backend was created for domains up to 2^4");
    backend.release_buffers(buffers);
}

TEST(CpuRef, BuffersAreDistinctAndAligned) {
    Backend backend(cpu_ref(), "threads=1", 6, 1);
    zkb_host_buffers first = backend.acquire_buffers(6);
    zkb_host_buffers second = backend.acquire_buffers(6);
    const uint64_t bytes = first.n * sizeof(Fr);
    const auto* a = static_cast<const unsigned char*>(first.a);
    EXPECT_GE(static_cast<const unsigned char*>(first.b), a + bytes);
    EXPECT_GE(static_cast<const unsigned char*>(first.c), static_cast<const unsigned char*>(first.b) + bytes);
    EXPECT_GE(static_cast<const unsigned char*>(first.h), static_cast<const unsigned char*>(first.c) + bytes);
    EXPECT_NE(first.a, second.a);
    backend.release_buffers(first);
    backend.release_buffers(second);
}

TEST(CpuRef, WorkerMayOutliveItsBackendAndPlugin) {
    std::unique_ptr<zkbatch::Worker> worker;
    {
        Backend backend(cpu_ref(), "threads=1", 4, 1);
        worker = backend.create_worker(3);
    }
    // The plugin and the zkb_backend are still alive: the worker holds them.
    zkb_host_buffers no_buffers{};
    const zkb_prove_request request = zkbatch::plugin::quotient_request(0, 4, true, &no_buffers);
    zkb_prove_report report{};
    std::string error;
    EXPECT_EQ(worker->prove(request, &report, &error), ZKB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(error.find("do not hold 2^4 elements"), std::string::npos) << error;
}

}  // namespace
