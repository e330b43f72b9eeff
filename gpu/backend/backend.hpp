// CudaBackend and CudaWorker: the CUDA proving backend behind the plugin ABI, written
// once and parameterized by a HostMemoryPolicy (plugin_api.hpp wires a policy to the
// C ABI). One CudaBackend per run and device; one CudaWorker per prove worker.
#pragma once

#include "gpu/backend/phase_log.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/device_info.hpp"
#include "gpu/key/device_key.hpp"
#include "gpu/ntt/domain_tables.hpp"
#include "gpu/ntt/ntt_steps.hpp"
#include "gpu/util/event.hpp"
#include "gpu/util/host_memory.hpp"
#include "gpu/msm/proof_msms.hpp"
#include "gpu/util/stream.hpp"
#include "core/curve/curves.hpp"
#include "core/ff/fr.hpp"
#include "core/msm/pippenger.hpp"
#include "core/plugin/abi.h"
#include "core/plugin/options.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace zkbatch::cuda {

// The backend's own options ("device", "copy_streams", "msm_chunk_log", "msm_tables",
// "msm_table_stride", "msm_affine_rounds", "device_memory", "key_placement",
// "quotient_memory", "b2_msm", "msm_beside_h"); a policy reads its own from the same object.
BackendConfig read_backend_config(plugin::PluginOptions& options, uint32_t max_log_n, uint32_t prove_workers);

// The domain tables a quotient of that memory plan reads.
inline ntt::PowerTables power_tables_of(QuotientMemory quotient) {
    return quotient == QuotientMemory::full ? ntt::PowerTables::expanded : ntt::PowerTables::seeded;
}

// zkbatch's version, which is the CUDA backends' version.
const char* backend_version();

class CudaWorker;

class CudaBackend {
public:
    using PolicyFactory = std::function<std::unique_ptr<HostMemoryPolicy>()>;

    // Checks the device (usable, runs this build's kernels, has device memory for
    // prove_workers workers at 2^max_log_n), then creates the policy. Throws
    // plugin::Error: ZKB_ERR_UNAVAILABLE without a usable device, ZKB_ERR_OUT_OF_MEMORY
    // when the workers' buffers cannot fit, CudaError for CUDA failures.
    CudaBackend(const BackendConfig& config, const PolicyFactory& make_policy);
    ~CudaBackend();
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    void describe(zkb_facts* facts) const;
    zkb_host_buffers acquire_buffers(uint32_t log_n);
    void release_buffers(const zkb_host_buffers& buffers) noexcept;
    std::unique_ptr<CudaWorker> create_worker(uint32_t worker_index);

    // A Groth16 run's proving key over `curve` (plugin ABI v6, before any buffers or
    // workers): read from `source`'s file on the host and uploaded, or for
    // ZKB_KEY_FORMAT_SEEDED made on the device (BLS12-381: generate_proving_key) or on
    // the host's cores and uploaded (BN254), the report carrying its points digest;
    // refused with the numbers unless it fits in device memory beside every worker's
    // buffers and MSM scratch. Every buffer set from now on carries the witness z. Throws
    // plugin::Error (ZKB_ERR_INVALID_ARGUMENT for the file or descriptions,
    // ZKB_ERR_OUT_OF_MEMORY for the memory) or CudaError.
    void load_key(curve::CurveId curve, const zkb_key_source& source, zkb_key_report* report);
    // The key on the device, of either curve; none before load_key (a quotient run).
    const AnyDeviceKey& key() const { return key_; }
    // The most points each worker's MSMs take at once (ProofMsms), chosen by load_key.
    uint64_t msm_chunk_points() const { return key_plan_.chunk_points; }
    // The key's tables and B2's rounds (whole MSMs only), planned by load_key: what each
    // worker's ProofMsms is sized for.
    const MsmMemoryPlan& msm_memory() const { return msm_memory_; }

    const BackendConfig& config() const { return config_; }
    // Throws plugin::Error(ZKB_ERR_INVALID_ARGUMENT) unless 1 <= log_n <= max_log_n.
    void check_log_n(uint32_t log_n) const;
    // The domain's tables over Fr (either curve's) of one family of roots, expanded or
    // seeded as the quotient's memory plan says.
    template <class Fr>
    const ntt::DomainTablesView<Fr>& tables(uint32_t log_n, zkbatch::ntt::Roots roots) {
        return std::get<ntt::DomainTablesCache<Fr>>(tables_).get(log_n, power_tables_of(quotient_memory_), roots);
    }
    // The key's curve; BLS12-381 before load_key (the quotient workload's).
    curve::CurveId key_curve() const;
    // The roots the key's H convention needs: snarkjs's for a .zkey's; zkbatch's for every
    // other key, and before load_key (the quotient workload's).
    zkbatch::ntt::Roots key_roots() const;
    // How the workers make the quotient: with a, b and c on the device or with a and b
    // (ntt_steps.hpp), planned by the constructor and again by load_key.
    QuotientMemory quotient_memory() const { return quotient_memory_; }
    // The device's shared copy streams (CopyStreams::device); empty otherwise.
    const std::optional<Stream>& upload_stream() const { return upload_stream_; }
    const std::optional<Stream>& download_stream() const { return download_stream_; }
    // Held while a worker enqueues (start event, copy, end event) on a shared stream, so
    // each interval times that worker's copy alone; an empty lock with per-worker streams.
    std::unique_lock<std::mutex> lock_upload_stream();
    std::unique_lock<std::mutex> lock_download_stream();

private:
    // What load_key plans before it makes the key: the MSMs' chunks and which queries
    // stream from host memory.
    struct KeyMemoryPlan {
        uint64_t chunk_points = 0;
        KeyPlacement placement;
        QuotientMemory quotient = QuotientMemory::full;
    };
    // The plan with which the domain's tables, a key of `shape`'s sizes and `b_points`
    // points in each of B's queries (key_bytes), the `scratch_bytes` that making it takes,
    // and every worker's buffers fit in free device memory, and its streamed queries in
    // available host memory. With the MSMs in at most 8 chunks (kFewestChunks): the
    // fewest queries streamed (in kStreamOrder, as option key_placement allows), then the
    // full quotient before the lean one (as option quotient_memory allows), then the
    // largest chunks (whole MSMs first). Else the largest chunks that fit, with the fewest
    // queries streamed and the full quotient where they can. Throws
    // plugin::Error(ZKB_ERR_OUT_OF_MEMORY) with the numbers when none does.
    template <class Curve>
    KeyMemoryPlan plan_key_memory(const groth16::generic::ProvingKey<Curve>& shape, uint64_t b_points,
                                  uint64_t scratch_bytes) const;
    // Adopts key_plan_'s quotient and builds the largest domain's tables of Curve's Fr, in
    // the roots `convention` needs.
    template <class Curve>
    void build_largest_tables(groth16::HConvention convention);
    // One worker's device buffers for a key of `shape`'s sizes: a, b (c), z and ProofMsms
    // (with `memory`'s placement, tables and rounds; plan_key_memory sizes workers
    // without tables or rounds).
    template <class Curve>
    uint64_t worker_bytes(const groth16::generic::ProvingKey<Curve>& shape, uint64_t chunk_points,
                          QuotientMemory quotient, const MsmMemoryPlan& memory = {}) const;
    // `memory` with the lane beside H that option msm_beside_h and a's room allow.
    MsmMemoryPlan with_beside_h(MsmMemoryPlan memory) const;
    // load_key's two ways: a BLS12-381 seeded key made on the device, any other key read
    // or made on the host and uploaded. Each plans, builds the largest domain's tables and
    // sets key_.
    void generate_key_on_device(const zkb_key_source& source, unsigned host_threads, zkb_key_report* report);
    template <class Curve>
    void upload_host_key(const zkb_key_source& source, unsigned host_threads, zkb_key_report* report);
    // The facts of the key and what its plan spent (describe).
    template <class Curve>
    void add_key_facts(const DeviceProvingKey<Curve>& key, zkb_facts* facts) const;

    // Plans what the free memory the workers (created after load_key) will leave buys
    // (plan_msm_memory: the key's tables under msm_tables = auto when the MSMs run whole,
    // B2's rounds under msm_affine_rounds = auto, in chunks too), then builds the tables.
    template <class Curve>
    void spend_free_memory(DeviceProvingKey<Curve>& key);
    // The device's free and total memory, or, under option device_memory, a card of that
    // size's: what the device already uses comes off the cap.
    struct DeviceMemory {
        uint64_t free_bytes = 0, total_bytes = 0;
    };
    DeviceMemory device_memory() const;
    // "NVIDIA H100 80GB HBM3 (device 0) has 70.1 GiB free of 79.2 GiB" (capped: "... of
    // the 16.0 GiB option device_memory allows"), for the messages that refuse a plan.
    std::string describe_memory(const DeviceMemory& memory) const;

    BackendConfig config_;
    DeviceInfo device_info_;
    std::tuple<ntt::DomainTablesCache<ff::Fr>, ntt::DomainTablesCache<ff::bn254::Fr>> tables_;
    // Created before any worker's stream, one after the other: the arrangement in which
    // the H200 uploads and downloads at once (docs/ntt.md#copies-and-streams).
    std::optional<Stream> upload_stream_, download_stream_;
    std::mutex upload_mutex_, download_mutex_;
    std::unique_ptr<HostMemoryPolicy> policy_;
    AnyDeviceKey key_;
    KeyMemoryPlan key_plan_;
    QuotientMemory quotient_memory_ = QuotientMemory::full;
    MsmMemoryPlan msm_memory_;
    uint64_t msm_memory_budget_bytes_ = 0;  // the free memory spend_free_memory planned in
    uint64_t table_build_ms_ = 0;
};

// One prove worker: its own compute stream and device buffers for a, b and c (h ends in
// b: ntt_steps.hpp), and, for a Groth16 key, for z and the proof's MSMs (ProofMsms),
// allocated once for 2^max_log_n and reused, so the steady state has no
// cudaMalloc/cudaFree. Used from one thread at a time. Its copies go on the device's
// shared upload and download streams, or on a copy stream of its own (copy_streams =
// worker), behind which a worker's first upload can wait for other workers' downloads
// (docs/ntt.md#copies-and-streams).
class CudaWorker {
public:
    CudaWorker(CudaBackend& backend, uint32_t worker_index);

    // One partition, synchronously. The quotient: uploads a, b, c while the compute
    // stream transforms what has arrived, then h's digest and, when the request asks
    // for it (or h is too short to digest in blocks), h back to the host. A Groth16
    // partition uploads z first and starts the MSMs of z (A, B1, B2) before any of that,
    // so the quotient's uploads go up under them (or, where B2's rounds wrote their
    // scratch in a, b and c's block, under L, which then comes before the quotient); then L, and H
    // over the h still on the device, under which the digest and h come back. Only the
    // MSMs' sums come back, and the host combines them into the proof (groth16::combine,
    // as cpu-ref). The device makes the quotient in the key's H convention, over either
    // curve's Fr: the standard one's coefficients, or A*B - C on snarkjs's odd coset for a
    // .zkey's key (ntt_steps.hpp). Under option b2_msm = host, B2 runs on the host's
    // cores from the start, beside all of that.
    // Fills `report` with one interval per copy, kernel group and MSM, from device
    // events mapped onto the runner's clock, and the host's steps.
    void prove(const zkb_prove_request& request, zkb_prove_report* report);

private:
    // One request, checked, and what follows from it (backend.cpp).
    struct Partition;
    // A Groth16 key's buffers in this worker, of the key's curve: z on the device and the
    // proof's MSMs.
    template <class CurveDescription>
    struct Groth16Buffers {
        using Curve = CurveDescription;
        Groth16Buffers(const DeviceProvingKey<Curve>& key, const CudaBackend& backend, void* lent,
                       void* beside_h_memory);
        DeviceBuffer<typename Curve::Fr> z;
        ProofMsms<Curve> msms;
    };

    // Checks `request` and makes the backend's device current; throws plugin::Error
    // before anything is enqueued.
    Partition open_partition(const zkb_prove_request& request);
    // Records the anchor on the idle compute stream; returns its time on the runner's clock.
    uint64_t record_anchor();
    // Runs `schedule`; after a failure, waits for every stream this worker enqueued on
    // before it rethrows (the runner reuses the host buffers as soon as prove returns).
    template <class Schedule>
    void run_to_completion(Schedule&& schedule);
    // Waits for every stream this worker enqueues on, ignoring their errors: after a
    // failure, before prove rethrows it.
    void synchronize_streams() noexcept;

    // The schedules, one per workload: each runs its steps in order, and each step
    // enqueues its work and logs the phases it reports. A Groth16 one returns the MSMs'
    // sums; prove_groth16 runs it (beside B2 on the host where the key says so) and
    // combines the proof.
    void run_quotient_schedule(const Partition& partition);
    template <class Curve>
    void prove_groth16(const Partition& partition, const DeviceProvingKey<Curve>& key, Groth16Buffers<Curve>& buffers,
                       zkb_prove_report* report);
    template <class Curve>
    groth16::generic::MsmSums<Curve> run_groth16_schedule(const Partition& partition,
                                                          const DeviceProvingKey<Curve>& key,
                                                          Groth16Buffers<Curve>& buffers);

    // The steps, in the order the schedules take them.
    template <class Curve>
    const Event& upload_z_and_run_its_msms(const Partition& partition, const DeviceProvingKey<Curve>& key,
                                           Groth16Buffers<Curve>& buffers);
    // B2 = sum z_i [v_i]2 on the host's cores (KeyPlacement::b2_on_host), over z in the
    // partition's host buffers and B's points in pinned host memory: prove runs it on a
    // thread of its own beside the GPU's schedule, and logs its interval.
    template <class Curve>
    curve::G2<Curve> sum_b2_on_host(const Partition& partition, const DeviceProvingKey<Curve>& key);
    // a, b and c up and to the coset (lean: a and b, then a *= b, and c's upload into b
    // enqueued), then c (lean: to the coset) and h's transform, into b, over the domain's
    // `tables` of Fr (the key's curve's; BLS12-381's for the quotient workload). Their
    // kernels are `kernel_phase`.
    template <class Fr>
    void start_quotient_on_device(const Partition& partition, const ntt::DomainTablesView<Fr>& tables,
                                  const char* kernel_phase);
    template <class Fr>
    void finish_quotient_on_device(const Partition& partition, const ntt::DomainTablesView<Fr>& tables,
                                   const char* kernel_phase);
    // Input `index` (a, b, c) from `host` up into `device`; then, once it is up, through
    // quotient_input_steps.
    void upload_quotient_input(const Partition& partition, size_t index, uint8_t* device, const void* host,
                               const char* name);
    template <class Fr>
    void transform_quotient_input(const Partition& partition, const ntt::DomainTablesView<Fr>& tables,
                                  const char* kernel_phase, size_t index, Fr* device, const char* name);
    // `steps` on the compute stream between `span`'s events, logged as `kernel_phase`.
    template <class Fr>
    void enqueue_kernels(const ntt::LaunchSequence<Fr>& steps, const char* kernel_phase, const TimedSpan& span);
    void enqueue_digest_block_sums(const Partition& partition, const char* phase);
    template <class Curve>
    void run_l(const Partition& partition, const DeviceProvingKey<Curve>& key, Groth16Buffers<Curve>& buffers);
    template <class Curve>
    void run_h(const Partition& partition, const DeviceProvingKey<Curve>& key, Groth16Buffers<Curve>& buffers,
               const Event& h_ready);
    void bring_h_back(const Partition& partition);
    void download_digest(const Partition& partition);
    void download_h(const Partition& partition);
    template <class Curve>
    groth16::generic::MsmSums<Curve> collect_msm_sums(const DeviceProvingKey<Curve>& key,
                                                      Groth16Buffers<Curve>& buffers);
    template <class Curve>
    void combine_proof(const DeviceProvingKey<Curve>& key, const groth16::generic::MsmSums<Curve>& sums,
                       const groth16::generic::ProofRandomness<Curve>& blinding, zkb_prove_report* report);

    // One copy each way, timed by `span` and logged as a phase (see backend.cpp).
    void upload(const Partition& partition, PhaseLog::Section section, const char* what, void* device_destination,
                const void* host_source, uint64_t size, const TimedSpan& span, uint64_t piece_bytes = 0,
                const Event* piece_up = nullptr);
    void download(void* host_destination, const void* device_source, uint64_t size, const Event& ready,
                  const TimedSpan& span);

    CudaBackend& backend_;
    std::string copy_lane_;
    std::string compute_lane_;
    std::string beside_h_lane_;  // the MSMs beside H (ProofMsms::beside_h)
    std::string host_lane_;
    Stream compute_stream_;
    std::optional<Stream> own_copy_stream_;  // CopyStreams::worker
    const Stream& upload_stream_;
    const Stream& download_stream_;
    // a, b and c, one after the other in one block, which also holds B2's rounds' scratch
    // where the plan shares it (MsmMemoryPlan::g2_scratch_in_vectors). c_ is null where
    // the quotient is lean (QuotientMemory): c goes up into b. Elements of the key's
    // curve's Fr (as<Fr>), 32 bytes on either curve.
    DeviceBuffer<uint8_t> vectors_;
    uint8_t* a_ = nullptr;
    uint8_t* b_ = nullptr;
    uint8_t* c_ = nullptr;
    template <class Fr>
    static Fr* as(uint8_t* vector) {
        return reinterpret_cast<Fr*>(vector);
    }
    // Groth16 only, of the key's curve (none for the quotient workload).
    std::variant<std::monostate, Groth16Buffers<curve::Bls12_381>, Groth16Buffers<curve::Bn254>> groth16_;
    unsigned host_threads_ = 1;
    // B2 on the host: its scalars (B's of z, canonical), and its last interval.
    std::vector<zkbatch::msm::Scalar> b2_scalars_;
    uint64_t b2_start_ns_ = 0, b2_end_ns_ = 0;

    // The timed steps' events, made once and recorded again by every prove.
    Event anchor_;
    TimedSpan z_upload_;
    std::vector<Event> z_chunk_up_;  // each of z's chunks up (ProofMsms::z_chunks)
    struct QuotientInput {
        TimedSpan upload, transform;  // the input's copy up, and quotient_input_steps
    };
    QuotientInput quotient_inputs_[3];  // a, b, c
    TimedSpan product_, difference_;    // a lean quotient's a *= b and a -= c
    TimedSpan quotient_output_;         // quotient_output_steps: h in b
    TimedSpan digest_blocks_;           // h's digest block sums, into a
    TimedSpan digest_download_;         // the block sums to the host
    TimedSpan h_download_;
    PhaseLog phases_;
};

}  // namespace zkbatch::cuda
