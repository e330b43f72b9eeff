// cpu-ref: the reference backend. Plain C++ on the CPU, obviously correct, the
// baseline every other backend is compared with bit for bit. Host buffers come from
// the ordinary heap (zkbatch/plugin/heap_buffers.hpp, shared with cuda-pageable), one
// allocation per acquire: the runner's bounded queue already limits how many exist.
//
// A Groth16 partition (ABI v5) is the quotient h, then the prover of
// zkbatch/groth16/prover.hpp over the key that load_key mapped into memory: five
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
#include <zkbatch/ff/fr.hpp>
#include <zkbatch/groth16/key_file.hpp>
#include <zkbatch/groth16/prover.hpp>
#include <zkbatch/plugin/abi.h>
#include <zkbatch/plugin/export.hpp>
#include <zkbatch/plugin/facts.hpp>
#include <zkbatch/plugin/heap_buffers.hpp>
#include <zkbatch/plugin/options.hpp>
#include <zkbatch/prove/quotient.hpp>
#include <zkbatch/util/parallel.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char* kName = "cpu-ref";
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

struct zkb_backend {
    uint32_t max_log_n = 0;
    uint32_t threads = 1;  // per prove call
    uint32_t device = 0;   // a label: lanes and facts
    std::optional<zkbatch::groth16::ProvingKey> key;  // after load_key
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

        if (max_log_n < 1 || max_log_n > zkbatch::ff::kTwoAdicity) {
            throw zkbatch::plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                                         zkbatch::plugin::concat("max_log_n = ", max_log_n, " is outside [1, ",
                                                                 zkbatch::ff::kTwoAdicity,
                                                                 "]: Fr has power-of-two domains up to 2^",
                                                                 zkbatch::ff::kTwoAdicity));
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
    });
}

int acquire_buffers(zkb_backend* backend, uint32_t log_n, zkb_host_buffers* out, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        check_log_n(log_n, backend->max_log_n);
        zkbatch::plugin::acquire_heap_buffers(log_n, out, backend->key ? backend->key->num_variables : 0);
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
        if (backend->key) worker->witness.resize(backend->key->num_variables);
        *out = worker.release();
    });
}

void destroy_worker(zkb_worker* worker) { delete worker; }

// Appends one CPU interval to the report.
void add_phase(zkb_prove_report* report, const std::string& lane, const char* name, uint64_t start_ns,
               uint64_t end_ns) {
    if (report->phase_count >= ZKB_MAX_PHASES) return;
    zkb_phase& phase = report->phases[report->phase_count++];
    phase = zkb_phase{};
    zkbatch::plugin::copy_text(phase.name, name);
    zkbatch::plugin::copy_text(phase.lane, lane);
    phase.start_ns = start_ns;
    phase.end_ns = end_ns;
    phase.on_device = 0;  // the work ran on the CPU: no device time
    phase.device_index = -1;
}

int prove(zkb_worker* worker, const zkb_prove_request* request, zkb_prove_report* report, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        using zkbatch::plugin::Error;
        const zkb_host_buffers* buffers = request->buffers;
        const zkb_backend& backend = *worker->backend;
        check_log_n(request->log_n, backend.max_log_n);
        if (buffers == nullptr || buffers->n != (uint64_t{1} << request->log_n)) {
            throw Error(ZKB_ERR_INVALID_ARGUMENT,
                        zkbatch::plugin::concat("partition ", request->partition_index, ": the buffers do not hold 2^",
                                                request->log_n, " elements"));
        }
        const bool groth16 = request->workload == ZKB_WORKLOAD_GROTH16;
        if (!groth16 && request->workload != ZKB_WORKLOAD_QUOTIENT)
            throw Error(ZKB_ERR_INVALID_ARGUMENT, zkbatch::plugin::concat("unknown workload ", request->workload));
        if (groth16) {
            if (!backend.key)
                throw Error(ZKB_ERR_INVALID_ARGUMENT, "a Groth16 partition before load_key: the runner gave no key");
            if (backend.key->log_n != request->log_n || buffers->z == nullptr ||
                buffers->m != backend.key->num_variables)
                throw Error(ZKB_ERR_INVALID_ARGUMENT,
                            zkbatch::plugin::concat("partition ", request->partition_index,
                                                    ": the buffers do not fit the key (2^", backend.key->log_n, " rows, ",
                                                    backend.key->num_variables, " variables)"));
        }
        using zkbatch::ff::Fr;
        const std::string lane = zkbatch::plugin::concat("cpu", backend.device, ".worker", worker->index);
        report->phase_count = 0;
        report->has_h_digest = 0;  // h is in host memory already: the runner digests it
        report->has_proof = 0;

        const uint64_t start_ns = now_ns();
        zkbatch::prove::compute_quotient_cpu(request->log_n, static_cast<const Fr*>(buffers->a),
                                             static_cast<const Fr*>(buffers->b), static_cast<const Fr*>(buffers->c),
                                             static_cast<Fr*>(buffers->h), worker->scratch.get(), backend.threads);
        const uint64_t quotient_end_ns = now_ns();
        // In place: each element is read whole before its 32 bytes are written.
        auto* h = static_cast<Fr*>(buffers->h);
        zkbatch::util::parallel_for(0, buffers->n, backend.threads, [h](size_t begin, size_t end) {
            zkbatch::ff::to_canonical_le(h + begin, end - begin, reinterpret_cast<uint8_t*>(h + begin));
        });
        const uint64_t canonical_end_ns = now_ns();
        add_phase(report, lane, groth16 ? "quotient" : "compute", start_ns, quotient_end_ns);
        add_phase(report, lane, "canonical_h", quotient_end_ns, canonical_end_ns);
        if (!groth16) return;

        const auto* z = static_cast<const Fr*>(buffers->z);
        zkbatch::msm::Scalar* witness = worker->witness.data();
        zkbatch::util::parallel_for(0, buffers->m, backend.threads, [z, witness](size_t begin, size_t end) {
            for (size_t i = begin; i < end; ++i) z[i].to_canonical(witness[i].limbs);
        });
        add_phase(report, lane, "witness", canonical_end_ns, now_ns());
        zkbatch::groth16::ProofRandomness blinding;
        if (!Fr::try_from_canonical_le_bytes(request->r, blinding.r) ||
            !Fr::try_from_canonical_le_bytes(request->s, blinding.s))
            throw Error(ZKB_ERR_INVALID_ARGUMENT, "the request's r or s is not a canonical scalar (>= r)");
        // h's canonical little-endian limbs are the H-MSM's scalars as they lie.
        const auto* h_scalars = reinterpret_cast<const zkbatch::msm::Scalar*>(buffers->h);
        const zkbatch::groth16::Proof proof = zkbatch::groth16::prove(
            *backend.key, witness, h_scalars, blinding, backend.threads,
            [&](zkbatch::groth16::ProofMsm msm, int64_t msm_start_ns, int64_t msm_end_ns) {
                add_phase(report, lane, zkbatch::groth16::phase_name(msm), static_cast<uint64_t>(msm_start_ns),
                          static_cast<uint64_t>(msm_end_ns));
            });
        zkbatch::groth16::encode_proof(proof, report->proof);
        report->has_proof = 1;
    });
}

int load_key(zkb_backend* backend, const zkb_key_source* source, zkb_key_report* report, zkb_error* err) {
    return zkbatch::plugin::guarded(err, kName, [&] {
        using zkbatch::plugin::Error;
        if (source == nullptr || source->path == nullptr)
            throw Error(ZKB_ERR_INVALID_ARGUMENT, "load_key needs a key file");
        if (source->format != ZKB_KEY_FORMAT_ZKBATCH)
            throw Error(ZKB_ERR_INVALID_ARGUMENT,
                        zkbatch::plugin::concat("key format ", source->format, " is not one cpu-ref reads"));
        *report = zkb_key_report{};
        report->start_ns = now_ns();
        try {
            backend->key = zkbatch::groth16::load_key_file(source->path, source->circuit ? source->circuit : "");
        } catch (const zkbatch::groth16::KeyFileError& e) {
            throw Error(ZKB_ERR_INVALID_ARGUMENT, e.what());
        }
        if (backend->key->log_n > backend->max_log_n)
            throw Error(ZKB_ERR_INVALID_ARGUMENT,
                        zkbatch::plugin::concat("the key is for 2^", backend->key->log_n,
                                                " rows, the backend was created for 2^", backend->max_log_n));
        report->end_ns = now_ns();
        report->key_bytes = backend->key->point_bytes();
        report->num_variables = backend->key->num_variables;
        zkbatch::plugin::copy_text(report->where, "host");
        zkbatch::plugin::copy_text(report->how, "mapped");
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
