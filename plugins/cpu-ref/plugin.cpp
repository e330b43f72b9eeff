// cpu-ref: the reference backend. Plain C++ on the CPU, obviously correct, the
// baseline every other backend is compared with bit for bit. Host buffers come from
// the ordinary heap (core/plugin/heap_buffers.hpp, shared with cuda-pageable), one
// allocation per acquire: the runner's bounded queue already limits how many exist.
//
// A Groth16 partition (ABI v5) is the quotient h, then the prover of
// core/groth16/prover.hpp over the key that load_key mapped into memory (or, for a
// seeded key the runner asks the backend to make, ABI v6, made in memory), of either
// curve (ABI v8: BLS12-381 or BN254, whichever the key is over): five
// multi-threaded Pippenger MSMs and the combination. h is returned in canonical form
// (ABI v3), converted on the prove call's threads; its canonical limbs are also the
// H-MSM's scalars.
//
// Options ([backend.options] in a manifest):
//   threads       CPU threads per prove (default: hardware threads / prove workers, >= 1)
//   device        a label only (default 0): which "device" of pipeline.devices this
//                 backend stands for; it names lanes and facts, no hardware is involved,
//                 so a multi-device run can be tested without GPUs
//   device_count  how many devices pipeline.devices = "all" means (default 1)
#include "core/ff/fr.hpp"
#include "core/groth16/cpu_partition.hpp"
#include "core/groth16/key_file.hpp"
#include "core/msm/pippenger.hpp"
#include "core/plugin/abi.h"
#include "core/plugin/export.hpp"
#include "core/plugin/facts.hpp"
#include "core/plugin/heap_buffers.hpp"
#include "core/plugin/groth16_request.hpp"
#include "core/plugin/options.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

namespace {

constexpr const char* kName = "cpu-ref";
constexpr uint32_t kCurves = (1u << ZKB_CURVE_BLS12_381) | (1u << ZKB_CURVE_BN254);
constexpr std::align_val_t kScratchAlignment{64};
constexpr uint32_t kMaxThreads = 1024;
constexpr uint32_t kMaxDevices = 1024;

uint64_t now_ns() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

void check_log_n(uint32_t log_n, uint32_t max_log_n) {
    if (log_n < 1 || log_n > max_log_n) {
        throw zkbatch::plugin::Error(
            ZKB_ERR_INVALID_ARGUMENT,
            zkbatch::plugin::concat("log_n = ", log_n, " is outside [1, max_log_n = ", max_log_n,
                                    "]: the backend was created for domains up to 2^", max_log_n));
    }
}

// Worker scratch: 64-byte-aligned heap memory for `count` field elements.
struct AlignedDelete {
    void operator()(zkbatch::ff::Fr* p) const { ::operator delete(p, kScratchAlignment); }
};
using AlignedElements = std::unique_ptr<zkbatch::ff::Fr, AlignedDelete>;

AlignedElements allocate_elements(uint64_t count, const char* purpose) {
    const uint64_t bytes = count * sizeof(zkbatch::ff::Fr);
    try {
        return AlignedElements(static_cast<zkbatch::ff::Fr*>(::operator new(bytes, kScratchAlignment)));
    } catch (const std::bad_alloc&) {
        throw zkbatch::plugin::Error(ZKB_ERR_OUT_OF_MEMORY,
                                     zkbatch::plugin::concat("could not allocate ", bytes, " bytes for ", purpose,
                                                             ": lower circuit.log_n or pipeline.prove_workers"));
    }
}

}  // namespace

// The proving key load_key took, of its curve; none before (the quotient workload).
using HostKey = std::variant<std::monostate, zkbatch::groth16::generic::ProvingKey<zkbatch::curve::Bls12_381>,
                             zkbatch::groth16::generic::ProvingKey<zkbatch::curve::Bn254>>;

uint64_t key_variables(const HostKey& key) {
    return std::visit([](const auto& k) -> uint64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(k)>, std::monostate>) return 0;
        else return k.num_variables;
    }, key);
}

struct zkb_backend {
    uint32_t max_log_n = 0;
    uint32_t threads = 1;  // per prove call
    uint32_t device = 0;   // a label: lanes and facts
    HostKey key;           // after load_key
};

struct zkb_worker {
    const zkb_backend* backend = nullptr;
    uint32_t index = 0;
    AlignedElements scratch;  // 2 * 2^max_log_n elements, as compute_quotient_cpu needs
    std::vector<zkbatch::msm::Scalar> witness;  // z in canonical form: the MSMs' scalars
};

namespace {

int probe(zkb_error* why) {
    return zkbatch::plugin::guarded_probe(why, [] { return std::string(); });
}

int create(const char* options_text, uint32_t max_log_n, uint32_t prove_workers, zkb_backend** out,
           zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        zkbatch::plugin::PluginOptions options(options_text != nullptr ? options_text : "");
        const uint32_t hardware_threads = std::max(1u, std::thread::hardware_concurrency());
        const uint32_t default_threads = std::max(1u, hardware_threads / std::max(1u, prove_workers));
        const auto threads = static_cast<uint32_t>(options.get_uint("threads", default_threads, 1, kMaxThreads));
        const auto device = static_cast<uint32_t>(options.get_uint("device", 0, 0, kMaxDevices - 1));
        options.get_uint("device_count", 1, 1, kMaxDevices);  // read by device_count only
        options.check_all_used();

        if (max_log_n < 1 || max_log_n > zkbatch::ff::Fr::kTwoAdicity) {
            throw zkbatch::plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                                         zkbatch::plugin::concat("max_log_n = ", max_log_n, " is outside [1, ",
                                                                 zkbatch::ff::Fr::kTwoAdicity,
                                                                 "]: Fr has power-of-two domains up to 2^",
                                                                 zkbatch::ff::Fr::kTwoAdicity));
        }
        if (prove_workers < 1) {
            throw zkbatch::plugin::Error(ZKB_ERR_INVALID_ARGUMENT, "prove_workers must be at least 1");
        }
        auto backend = std::make_unique<zkb_backend>();
        backend->max_log_n = max_log_n;
        backend->threads = threads;
        backend->device = device;
        *out = backend.release();
    });
}

void destroy(zkb_backend* backend) { delete backend; }

int describe(zkb_backend* backend, zkb_facts* out, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        out->count = 0;
        zkbatch::plugin::add_fact(out, zkbatch::plugin::fact::backend_threads, backend->threads);
        zkbatch::plugin::add_fact(out, "backend.device", backend->device);
        zkbatch::plugin::add_fact(out, "backend.msm_arithmetic", zkbatch::msm::best_arithmetic_name());
    });
}

int acquire_buffers(zkb_backend* backend, uint32_t log_n, zkb_host_buffers* out, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        check_log_n(log_n, backend->max_log_n);
        zkbatch::plugin::acquire_heap_buffers(log_n, out, key_variables(backend->key));
    });
}

void release_buffers(zkb_backend* /*backend*/, zkb_host_buffers* buffers) {
    zkbatch::plugin::release_heap_buffers(buffers);
}

int create_worker(zkb_backend* backend, uint32_t worker_index, zkb_worker** out, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        auto worker = std::make_unique<zkb_worker>();
        worker->backend = backend;
        worker->index = worker_index;
        worker->scratch = allocate_elements(2 * (uint64_t{1} << backend->max_log_n), "the worker's scratch");
        worker->witness.resize(key_variables(backend->key));
        *out = worker.release();
    });
}

void destroy_worker(zkb_worker* worker) { delete worker; }

// One Groth16 partition over the key's curve: the proof's bytes into the report.
template <class Curve>
void prove_groth16(zkb_worker& worker, const zkbatch::groth16::generic::ProvingKey<Curve>& key,
                   const zkb_prove_request& request, zkb_prove_report& report,
                   const zkbatch::groth16::StepTimer& on_step) {
    using Fr = typename Curve::Fr;
    static_assert(sizeof(Fr) == ZKB_SCALAR_BYTES && sizeof(Fr) == sizeof(zkbatch::ff::Fr));
    const zkb_host_buffers& buffers = *request.buffers;
    const auto proof = zkbatch::groth16::prove_partition_on_cpu(
        key, static_cast<const Fr*>(buffers.z), static_cast<const Fr*>(buffers.a), static_cast<const Fr*>(buffers.b),
        static_cast<const Fr*>(buffers.c), static_cast<Fr*>(buffers.h), reinterpret_cast<Fr*>(worker.scratch.get()),
        worker.witness.data(), zkbatch::plugin::request_blinding<Curve>(request), worker.backend->threads, on_step);
    zkbatch::groth16::encode_proof(proof, report.proof);
    report.proof_bytes = zkbatch::groth16::kProofBytesOf<Curve>;
    report.has_proof = 1;
}

int prove(zkb_worker* worker, const zkb_prove_request* request, zkb_prove_report* report, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        using zkbatch::ff::Fr;
        using zkbatch::plugin::Error;
        const zkb_host_buffers* buffers = request->buffers;
        const zkb_backend& backend = *worker->backend;
        check_log_n(request->log_n, backend.max_log_n);
        if (buffers == nullptr || buffers->n != (uint64_t{1} << request->log_n)) {
            throw Error(ZKB_ERR_INVALID_ARGUMENT,
                        zkbatch::plugin::concat("partition ", request->partition_index, ": the buffers do not hold 2^",
                                                request->log_n, " elements"));
        }
        const bool groth16 = std::visit(
            [&](const auto& key) {
                if constexpr (std::is_same_v<std::decay_t<decltype(key)>, std::monostate>)
                    return zkbatch::plugin::check_workload<zkbatch::curve::Bls12_381>(*request, nullptr);
                else
                    return zkbatch::plugin::check_workload(*request, &key);
            },
            backend.key);
        const std::string lane = zkbatch::plugin::concat("cpu", backend.device, ".worker", worker->index);
        report->phase_count = 0;
        report->has_h_digest = 0;  // h is in host memory already: the runner digests it
        report->has_proof = 0;
        const auto on_step = [&](const char* step, int64_t start_ns, int64_t end_ns) {
            // The quotient workload's kernels are its "compute", as before ABI v5.
            const char* name = !groth16 && std::string_view(step) == "quotient" ? "compute" : step;
            zkbatch::plugin::add_cpu_phase(report, lane, name, start_ns, end_ns);
        };
        if (!groth16) {
            zkbatch::groth16::quotient_on_cpu(request->log_n, zkbatch::groth16::HConvention::coefficients,
                                              static_cast<const Fr*>(buffers->a), static_cast<const Fr*>(buffers->b),
                                              static_cast<const Fr*>(buffers->c), static_cast<Fr*>(buffers->h),
                                              worker->scratch.get(), backend.threads, on_step);
            return;
        }
        std::visit(
            [&](const auto& key) {
                if constexpr (!std::is_same_v<std::decay_t<decltype(key)>, std::monostate>)
                    prove_groth16(*worker, key, *request, *report, on_step);
            },
            backend.key);
    });
}

int load_key(zkb_backend* backend, const zkb_key_source* source, zkb_key_report* report, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        if (source == nullptr) throw zkbatch::plugin::Error(ZKB_ERR_INVALID_ARGUMENT, "load_key needs a key source");
        *report = zkb_key_report{};
        report->start_ns = now_ns();
        const zkbatch::curve::CurveId curve = zkbatch::plugin::key_curve(*source, kCurves, kName);
        zkbatch::curve::with_curve(curve, [&](auto c) {
            using Curve = decltype(c);
            const auto& key = backend->key.emplace<zkbatch::groth16::generic::ProvingKey<Curve>>(
                zkbatch::plugin::load_host_key<Curve>(*source, backend->max_log_n, backend->threads));
            if (source->format == ZKB_KEY_FORMAT_SEEDED)
                zkbatch::plugin::copy_text(report->points_digest, zkbatch::groth16::key_points_digest(key));
            report->key_bytes = key.point_bytes();
            report->host_key_bytes = zkbatch::plugin::allocated_key_bytes(*source, key);
            report->num_variables = key.num_variables;
        });
        report->end_ns = now_ns();
        zkbatch::plugin::copy_text(report->where, "host");
        zkbatch::plugin::copy_text(report->how, source->format == ZKB_KEY_FORMAT_SEEDED   ? "generated"
                                                : source->format == ZKB_KEY_FORMAT_ZKBATCH ? "mapped"
                                                                                           : "read");
    });
}

int device_count(const char* options_text, uint32_t* count, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        zkbatch::plugin::PluginOptions options(options_text != nullptr ? options_text : "");
        *count = static_cast<uint32_t>(options.get_uint("device_count", 1, 1, kMaxDevices));
    });
}

constexpr zkb_plugin_api kApi = {
    ZKB_ABI_VERSION,
    kCurves,
    kName,
    "0.1.0",
    "reference backend: Groth16 proofs (or the 7-NTT quotient alone) on the CPU, multi-threaded; host buffers "
    "from the heap",
    probe,
    create,
    destroy,
    describe,
    acquire_buffers,
    release_buffers,
    create_worker,
    destroy_worker,
    prove,
    device_count,
    load_key,
};

}  // namespace

ZKB_PLUGIN_EXPORT const zkb_plugin_api* zkbatch_plugin_api(void) { return &kApi; }
