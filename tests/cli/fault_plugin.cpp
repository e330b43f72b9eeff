// fault-inject: a test-only backend that proves for real (Groth16 proofs or quotients,
// with cpu-ref's code on one thread) but fails on request, so tests can watch the runner
// handle failures:
//   fail_prove_partition = P     prove of partition P returns ZKB_ERR_DEVICE
//   corrupt_h_partition  = P     partition P gets a wrong h, and so a wrong proof
//                                (verification must catch it)
//   fail_acquire_call    = K     the K-th acquire_buffers call (1-based) fails
//   outstanding_report   = PATH  at destroy, write how many buffer sets were never released
//   slow_partition_ms    = MS    prove sleeps MS ms first (a slow partition) ...
//   slow_partition       = P     ... for partition P only (default: every partition)
//   slow_device          = D     ... only on the backend created with device = D
//   device               = D     the device this backend stands for (a label, default 0)
//   device_count         = N     what pipeline.devices = "all" means (default 1)
//   report_device_time   = 1     report each prove's compute as device time (on_device,
//                                device_index = device), as a GPU backend would
//   digest_h             = 1     report h's digest, as a GPU backend does (ABI v4), and
//                                when the request says h_to_host = 0, leave 0xff bytes
//                                in the h buffer instead of h
//   wrong_digest_partition = P   ... with a wrong digest for partition P
//   wrong_key_device     = D     a seeded key this backend makes (setup.key = "backend",
//                                ABI v6) is reported with a wrong points digest on device D
//   host_key_bytes       = N     the key report says N bytes of the key are held in host
//                                memory (ABI v9), as a GPU backend streaming a key too
//                                large for its device does (default: as cpu-ref)
// h is returned in canonical form (ABI v3).
// Built into a test-only folder, never into build/plugins.
#include "core/groth16/cpu_partition.hpp"
#include "core/plugin/export.hpp"
#include "core/plugin/groth16_request.hpp"
#include "core/plugin/heap_buffers.hpp"
#include "core/plugin/options.hpp"

#include <xxhash.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using zkbatch::plugin::guarded;

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr const char* kName = "fault-inject";

}  // namespace

struct zkb_backend {
    uint32_t max_log_n = 0;
    uint64_t fail_prove_partition = kNever;
    uint64_t corrupt_h_partition = kNever;
    uint64_t fail_acquire_call = kNever;
    std::optional<uint64_t> host_key_bytes;
    std::string outstanding_report;
    uint64_t slow_partition_ms = 0;
    uint64_t slow_partition = kNever;  // kNever: every partition
    uint64_t slow_device = kNever;     // kNever: every device
    uint64_t device = 0;
    bool report_device_time = false;
    bool digest_h = false;
    uint64_t wrong_digest_partition = kNever;
    uint64_t wrong_key_device = kNever;
    std::atomic<uint64_t> acquire_calls{0};
    std::atomic<int64_t> outstanding{0};
    std::optional<zkbatch::groth16::ProvingKey> key;  // after load_key
};

struct zkb_worker {
    zkb_backend* backend;
    std::vector<zkbatch::ff::Fr> scratch;
    std::vector<zkbatch::msm::Scalar> witness;  // z in canonical form, for a Groth16 proof
};

namespace {

int probe(zkb_error*) { return 1; }

int create(const char* options_text, uint32_t max_log_n, uint32_t, zkb_backend** out, zkb_error* err) {
    return guarded(err, kName, [&] {
        zkbatch::plugin::PluginOptions options(options_text ? options_text : "");
        auto backend = std::make_unique<zkb_backend>();
        backend->max_log_n = max_log_n;
        backend->fail_prove_partition = options.get_uint("fail_prove_partition", kNever, 0, kNever);
        backend->corrupt_h_partition = options.get_uint("corrupt_h_partition", kNever, 0, kNever);
        backend->fail_acquire_call = options.get_uint("fail_acquire_call", kNever, 1, kNever);
        backend->outstanding_report = options.get_string("outstanding_report", "");
        backend->slow_partition_ms = options.get_uint("slow_partition_ms", 0, 0, 600'000);
        backend->slow_partition = options.get_uint("slow_partition", kNever, 0, kNever);
        backend->slow_device = options.get_uint("slow_device", kNever, 0, kNever);
        backend->device = options.get_uint("device", 0, 0, 1023);
        backend->report_device_time = options.get_uint("report_device_time", 0, 0, 1) == 1;
        backend->digest_h = options.get_uint("digest_h", 0, 0, 1) == 1;
        backend->wrong_digest_partition = options.get_uint("wrong_digest_partition", kNever, 0, kNever);
        backend->wrong_key_device = options.get_uint("wrong_key_device", kNever, 0, kNever);
        if (options.contains("host_key_bytes"))
            backend->host_key_bytes = options.get_bytes("host_key_bytes", 0, 0, kNever);
        options.get_uint("device_count", 1, 1, 1024);  // read by device_count only
        options.check_all_used();
        *out = backend.release();
    });
}

void destroy(zkb_backend* backend) {
    if (!backend->outstanding_report.empty()) {
        if (FILE* f = std::fopen(backend->outstanding_report.c_str(), "w")) {
            std::fprintf(f, "%lld\n", static_cast<long long>(backend->outstanding.load()));
            std::fclose(f);
        }
    }
    delete backend;
}

int describe(zkb_backend*, zkb_facts* out, zkb_error*) {
    out->count = 0;
    return ZKB_OK;
}

int acquire_buffers(zkb_backend* backend, uint32_t log_n, zkb_host_buffers* out, zkb_error* err) {
    return guarded(err, kName, [&] {
        if (++backend->acquire_calls == backend->fail_acquire_call)
            throw zkbatch::plugin::Error(ZKB_ERR_OUT_OF_MEMORY, "injected buffer allocation failure");
        zkbatch::plugin::acquire_heap_buffers(log_n, out, backend->key ? backend->key->num_variables : 0);
        ++backend->outstanding;
    });
}

void release_buffers(zkb_backend* backend, zkb_host_buffers* buffers) {
    zkbatch::plugin::release_heap_buffers(buffers);
    --backend->outstanding;
}

int create_worker(zkb_backend* backend, uint32_t, zkb_worker** out, zkb_error* err) {
    return guarded(err, kName, [&] {
        *out = new zkb_worker{backend, std::vector<zkbatch::ff::Fr>(2 * (uint64_t{1} << backend->max_log_n)),
                              std::vector<zkbatch::msm::Scalar>(backend->key ? backend->key->num_variables : 0)};
    });
}

void destroy_worker(zkb_worker* worker) { delete worker; }

int prove(zkb_worker* worker, const zkb_prove_request* request, zkb_prove_report* report, zkb_error* err) {
    return guarded(err, kName, [&] {
        report->phase_count = 0;
        if (request->partition_index == worker->backend->fail_prove_partition)
            throw zkbatch::plugin::Error(ZKB_ERR_DEVICE, "injected prove failure");
        const zkb_backend& backend = *worker->backend;
        if (backend.slow_partition_ms > 0 &&
            (backend.slow_partition == kNever || request->partition_index == backend.slow_partition) &&
            (backend.slow_device == kNever || backend.device == backend.slow_device))
            std::this_thread::sleep_for(std::chrono::milliseconds(backend.slow_partition_ms));
        const auto& buffers = *request->buffers;
        auto* h = static_cast<zkbatch::ff::Fr*>(buffers.h);
        const auto now_ns = [] {
            return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::steady_clock::now().time_since_epoch())
                                             .count());
        };
        const uint64_t compute_start_ns = now_ns();
        const bool groth16 = zkbatch::plugin::check_workload(*request, backend.key ? &*backend.key : nullptr);
        const auto convention = groth16 ? backend.key->h_convention : zkbatch::groth16::HConvention::coefficients;
        zkbatch::groth16::quotient_on_cpu(request->log_n, convention, static_cast<const zkbatch::ff::Fr*>(buffers.a),
                                          static_cast<const zkbatch::ff::Fr*>(buffers.b),
                                          static_cast<const zkbatch::ff::Fr*>(buffers.c), h, worker->scratch.data(), 1);
        // The canonical bytes of h[0], one bit changed: still below r, now wrong.
        if (request->partition_index == worker->backend->corrupt_h_partition) reinterpret_cast<uint8_t*>(h)[0] ^= 1;
        report->has_proof = 0;
        if (groth16) {
            const zkbatch::groth16::Proof proof = zkbatch::groth16::prove_from_quotient_on_cpu(
                *backend.key, static_cast<const zkbatch::ff::Fr*>(buffers.z), h, worker->witness.data(),
                zkbatch::plugin::request_blinding(*request), 1);
            zkbatch::groth16::encode_proof(proof, report->proof);
            report->proof_bytes = zkbatch::groth16::kProofBytes;
            report->has_proof = 1;
        }
        report->has_h_digest = backend.digest_h ? 1 : 0;
        if (backend.digest_h) {
            XXH128_canonical_t canonical;
            XXH128_canonicalFromHash(&canonical, XXH3_128bits(h, buffers.n * sizeof(zkbatch::ff::Fr)));
            std::memcpy(report->h_digest, canonical.digest, sizeof report->h_digest);
            if (request->partition_index == backend.wrong_digest_partition) report->h_digest[0] ^= 1;
            if (!request->h_to_host) std::memset(h, 0xff, buffers.n * sizeof(zkbatch::ff::Fr));
        }
        if (backend.report_device_time) {
            zkb_phase& phase = report->phases[report->phase_count++];
            phase = zkb_phase{};
            zkbatch::plugin::copy_text(phase.name, "compute");
            zkbatch::plugin::copy_text(phase.lane, zkbatch::plugin::concat("fault", backend.device, ".compute"));
            phase.start_ns = compute_start_ns;
            phase.end_ns = now_ns();
            phase.on_device = 1;
            phase.device_index = static_cast<int32_t>(backend.device);
        }
    });
}

int load_key(zkb_backend* backend, const zkb_key_source* source, zkb_key_report* report, zkb_error* err) {
    return guarded(err, kName, [&] {
        *report = zkb_key_report{};
        zkbatch::plugin::key_curve(*source, 1u << ZKB_CURVE_BLS12_381, kName);
        backend->key = zkbatch::plugin::load_host_key(*source, backend->max_log_n, 1);
        if (source->format == ZKB_KEY_FORMAT_SEEDED) {
            std::string digest = zkbatch::groth16::key_points_digest(*backend->key);
            if (backend->device == backend->wrong_key_device) digest[0] = digest[0] == '0' ? '1' : '0';
            zkbatch::plugin::copy_text(report->points_digest, digest);
        }
        report->key_bytes = backend->key->point_bytes();
        report->host_key_bytes =
            backend->host_key_bytes.value_or(zkbatch::plugin::allocated_key_bytes(*source, *backend->key));
        report->num_variables = backend->key->num_variables;
        zkbatch::plugin::copy_text(report->where, "host");
    });
}

int device_count(const char* options_text, uint32_t* count, zkb_error* err) {
    return guarded(err, kName, [&] {
        zkbatch::plugin::PluginOptions options(options_text ? options_text : "");
        *count = static_cast<uint32_t>(options.get_uint("device_count", 1, 1, 1024));
    });
}

const zkb_plugin_api kApi = {
    ZKB_ABI_VERSION, 1u << ZKB_CURVE_BLS12_381, kName, "0.1.0", "test-only backend that injects failures",
    probe, create, destroy, describe, acquire_buffers, release_buffers,
    create_worker, destroy_worker, prove, device_count, load_key,
};

}  // namespace

ZKB_PLUGIN_EXPORT const zkb_plugin_api* zkbatch_plugin_api(void) { return &kApi; }
