#include "gpu/backend/backend.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/ntt/h_digest.hpp"
#include "gpu/ntt/ntt_kernels.hpp"
#include "gpu/ntt/ntt_steps.hpp"
#include "gpu/util/nvtx.hpp"
#include "core/groth16/key_file.hpp"
#include "core/groth16/proof.hpp"
#include "core/groth16/setup.hpp"
#include "core/msm/pippenger.hpp"
#include "core/plugin/error.hpp"
#include "core/plugin/facts.hpp"
#include "core/plugin/groth16_request.hpp"
#include "core/util/parallel.hpp"
#include "core/util/xxh3_split.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <future>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace zkbatch::cuda {

namespace {

constexpr uint64_t kMaxDevices = 64;

uint64_t steady_now_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

uint64_t vector_bytes(uint32_t log_n) { return (uint64_t{1} << log_n) * sizeof(ff::Fr); }

uint64_t quotient_vectors(QuotientMemory quotient) { return quotient == QuotientMemory::full ? 3 : 2; }

// The domain's roots of a key's H convention: snarkjs's, whose coset is the odd points a
// .zkey's H points are for, or zkbatch's (ntt_steps.hpp).
zkbatch::ntt::Roots roots_of(groth16::HConvention convention) {
    return convention == groth16::HConvention::odd_coset ? zkbatch::ntt::Roots::snarkjs : zkbatch::ntt::Roots::zkbatch;
}

uint64_t domain_tables_bytes(uint32_t log_n, QuotientMemory quotient) {
    // Either field's: both are 32 bytes an element.
    return ntt::DeviceDomainTables<ff::Fr>::device_bytes(log_n, power_tables_of(quotient));
}

// h's digest block sums, which a holds from the end of the quotient until they are copied
// to the host, at a's head: what a lane beside H leaves alone.
uint64_t digest_rows_bytes(uint32_t log_n) {
    return DeviceArena::padded(xxh3::block_sum_count(vector_bytes(log_n)) * sizeof(uint64_t));
}

// The room a lane beside H may take of a (MsmMemoryPlan::beside_h_room_bytes).
uint64_t beside_h_room_bytes(uint32_t max_log_n) { return vector_bytes(max_log_n) - digest_rows_bytes(max_log_n); }

// A worker's block for a, b and c (a and b where the quotient is lean), which holds B2's
// rounds' scratch too where the plan shares it (`lent_bytes`, ProofMsms::lent_bytes),
// and the lane beside H (ProofMsms::beside_h): in a's room, or after the vectors.
uint64_t vectors_block_bytes(uint32_t max_log_n, uint64_t lent_bytes, QuotientMemory quotient,
                             const BesideHLane& beside_h) {
    const uint64_t after_vectors = beside_h.chunk_points != 0 && !beside_h.in_vector_a ? beside_h.bytes : 0;
    return std::max(quotient_vectors(quotient) * vector_bytes(max_log_n) + after_vectors, lent_bytes);
}

// Where in that block the lane beside H starts.
uint64_t beside_h_offset(uint32_t max_log_n, QuotientMemory quotient, const BesideHLane& beside_h) {
    return beside_h.in_vector_a ? digest_rows_bytes(max_log_n) : quotient_vectors(quotient) * vector_bytes(max_log_n);
}

// The quotient's memory plans option quotient_memory allows, the faster first.
std::vector<QuotientMemory> allowed_quotient_memory(QuotientMemoryChoice choice) {
    switch (choice) {
        case QuotientMemoryChoice::full: return {QuotientMemory::full};
        case QuotientMemoryChoice::lean: return {QuotientMemory::lean};
        case QuotientMemoryChoice::automatic: break;
    }
    return {QuotientMemory::full, QuotientMemory::lean};
}

const char* quotient_memory_name(QuotientMemory quotient) { return quotient == QuotientMemory::full ? "full" : "lean"; }

// Device memory left for what is allocated later without being counted (kernels' local
// memory, CUB's and the driver's own): a key that filled the device to the byte would
// fail at the first worker's allocation instead of being refused with the numbers.
constexpr uint64_t kReserveBytes = uint64_t{1} << 30;
// The MSMs' chunks load_key tries to keep, streaming more of the key for them: the
// largest MSM in 8 chunks. Smaller chunks cost more than the copies: at 2^27 on an H100
// (PoRep profile), a proof took 1.80 s with the key on the device in chunks of 2^23 and
// 1.48 s with H streamed in chunks of 2^24 (H's MSM 962 ms against 872); under a 48 GiB
// cap 2.87 s with H streamed in chunks of 2^21 and 1.83 s with B2, L and H streamed in
// chunks of 2^24 (docs/performance.md#the-porep-profile).
constexpr uint64_t kFewestChunks = 8;
// Host memory a streamed key leaves available: the process's own allocations after
// load_key (the witness's buffers, the runner's queues) and the system's.
constexpr uint64_t kHostReserveBytes = uint64_t{8} << 30;

// What option `key` names, one of `choices` (the first is the default); `help` lists them
// for the message that refuses anything else.
template <class T>
T get_choice(plugin::PluginOptions& options, const char* key,
             std::initializer_list<std::pair<const char*, T>> choices, const char* help) {
    const std::string value = options.get_string(key, choices.begin()->first);
    for (const auto& [name, choice] : choices) {
        if (value == name) return choice;
    }
    throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                        plugin::concat("option '", key, "' = '", value, "' is not a choice: use ", help));
}

// The MSMs' chunk sizes to try, largest first: whole, else ever smaller chunks (powers of
// two) while the prove report has room for their intervals; msm_chunk_log (0: none)
// fixes the size, and is refused where its chunks make too many intervals.
template <class Curve>
std::vector<uint64_t> msm_chunk_choices(const groth16::generic::ProvingKey<Curve>& shape, uint64_t b_points,
                                        uint32_t msm_chunk_log) {
    using Msms = ProofMsms<Curve>;
    const uint64_t largest = largest_query(shape);
    std::vector<uint64_t> choices;
    if (msm_chunk_log != 0) {
        choices.push_back(uint64_t{1} << msm_chunk_log);
    } else {
        choices.push_back(largest);
        for (uint64_t chunk = std::bit_floor((largest - 1) | 1); chunk >= 1024; chunk /= 2) {
            if (Msms::chunk_intervals(shape, b_points, chunk) > Msms::kMaxChunkIntervals) break;
            choices.push_back(chunk);
        }
    }
    const uint64_t intervals = Msms::chunk_intervals(shape, b_points, choices.front());
    if (intervals > Msms::kMaxChunkIntervals) {
        throw plugin::Error(
            ZKB_ERR_INVALID_ARGUMENT,
            plugin::concat("option 'msm_chunk_log' = ", msm_chunk_log, " cuts the witness's ", shape.num_variables,
                           " points into chunks that make ", intervals, " MSM intervals, more than the ",
                           Msms::kMaxChunkIntervals, " a prove report has phases for: raise it, or leave it out"));
    }
    return choices;
}

// The key's placements option key_placement allows, fewest queries streamed first; B's
// G2 query stays in host memory throughout where B2 runs on the host (option b2_msm).
std::vector<KeyPlacement> allowed_placements(KeyPlacementChoice choice, B2Msm b2_msm) {
    const bool b2_on_host = b2_msm == B2Msm::host;
    const size_t all = std::size(kStreamOrder) - (b2_on_host ? 1 : 0);
    std::vector<KeyPlacement> placements;
    for (size_t streamed = 0; streamed <= all; ++streamed) {
        if ((choice == KeyPlacementChoice::device && streamed > 0) ||
            (choice == KeyPlacementChoice::host && streamed < all))
            continue;
        placements.push_back(KeyPlacement::streaming_first(streamed, b2_on_host));
    }
    return placements;
}

// Where the key's placement puts the queries it keeps in host memory, for messages:
// "b_g2,h streamed" or "h streamed, B2's points for the host's MSM".
std::string host_queries(const KeyPlacement& placement) {
    const std::string streamed = placement.any_streamed() ? placement.names() + " streamed" : "";
    if (!placement.b2_on_host()) return streamed;
    return streamed + (streamed.empty() ? "" : ", ") + "B2's points for the host's MSM";
}

// visit(value) for the value `variant` holds, unless that is its std::monostate (no key,
// no Groth16 buffers); returns whether it called visit.
template <class Variant, class Visit>
bool visit_held(Variant& variant, Visit&& visit) {
    return std::visit(
        [&](auto& held) {
            if constexpr (std::is_same_v<std::decay_t<decltype(held)>, std::monostate>) {
                return false;
            } else {
                visit(held);
                return true;
            }
        },
        variant);
}

// The curve description of a DeviceProvingKey or Groth16Buffers.
template <class T>
using CurveOf = typename std::decay_t<T>::Curve;

std::optional<Stream> stream_if(bool wanted) {
    std::optional<Stream> stream;
    if (wanted) stream.emplace();
    return stream;
}

}  // namespace

const char* backend_version() { return ZKBATCH_VERSION; }

BackendConfig read_backend_config(plugin::PluginOptions& options, uint32_t max_log_n, uint32_t prove_workers) {
    BackendConfig config;
    config.device = static_cast<int>(options.get_uint("device", 0, 0, kMaxDevices - 1));
    if (max_log_n < 1 || max_log_n > ntt::kMaxLogN) {
        throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                            plugin::concat("max_log_n = ", max_log_n, " is outside [1, ", ntt::kMaxLogN,
                                           "], the domain sizes the CUDA kernels support"));
    }
    if (prove_workers < 1) throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT, "prove_workers must be at least 1");
    config.max_log_n = max_log_n;
    config.prove_workers = prove_workers;
    config.copy_streams = get_choice<CopyStreams>(
        options, "copy_streams", {{"device", CopyStreams::device}, {"worker", CopyStreams::worker}},
        "'device' (one upload and one download stream per device, the default) or 'worker' (one copy stream per "
        "prove worker)");
    // 0, or from 2^10: chunks of fewer points would cost more in plans than they save.
    config.msm_chunk_log = static_cast<uint32_t>(options.get_uint("msm_chunk_log", 0, 0, 31));
    if (config.msm_chunk_log != 0 && config.msm_chunk_log < 10) {
        throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                            plugin::concat("option 'msm_chunk_log' = ", config.msm_chunk_log,
                                           " is below 10: give 10..31, or 0 (the default) for chunks as large as "
                                           "device memory allows"));
    }
    config.msm_tables = get_choice<bool>(options, "msm_tables", {{"off", false}, {"auto", true}},
                                         "'off' (the default) or 'auto' (base tables of the key's queries in the "
                                         "device memory the workers leave, built at load_key)");
    // Up to c = 1's 256 windows; a stride past a table's windows is cut to them.
    config.msm_table_stride = static_cast<uint32_t>(options.get_uint("msm_table_stride", 0, 0, 256));
    config.msm_affine_rounds = get_choice<G2Rounds>(
        options, "msm_affine_rounds",
        {{"auto", G2Rounds::automatic}, {"off", G2Rounds::off}, {"shared", G2Rounds::shared}},
        "'auto' (the default: scratch for B2's batched affine rounds in the device memory the workers leave, in one "
        "block with a, b and c where it fits no other way), 'off', or 'shared' (always in one block with a, b and c)");
    // From 1 GiB: below it not even the reserve fits.
    config.device_memory_bytes = options.get_bytes("device_memory", 0, kReserveBytes, uint64_t{1} << 50);
    config.key_placement = get_choice<KeyPlacementChoice>(
        options, "key_placement",
        {{"auto", KeyPlacementChoice::automatic}, {"device", KeyPlacementChoice::device},
         {"host", KeyPlacementChoice::host}},
        "'auto' (the default: the key on the device, its queries that do not fit streamed from pinned host memory as "
        "the MSMs run), 'device' (every query on the device), or 'host' (every query streamed)");
    config.quotient_memory = get_choice<QuotientMemoryChoice>(
        options, "quotient_memory",
        {{"auto", QuotientMemoryChoice::automatic}, {"full", QuotientMemoryChoice::full},
         {"lean", QuotientMemoryChoice::lean}},
        "'auto' (the default: 'full' where the plan fits, else 'lean'), 'full' (a, b and c on the device, the "
        "domain's power tables expanded) or 'lean' (a and b, the power tables made from their seeds)");
    config.b2_msm = get_choice<B2Msm>(options, "b2_msm", {{"device", B2Msm::device}, {"host", B2Msm::host}},
                                      "'device' (the default: the G2 MSM on the GPU) or 'host' (on the host's "
                                      "cores while the GPU runs the rest of the proof)");
    config.msm_beside_h = get_choice<BesideH>(
        options, "msm_beside_h", {{"auto", BesideH::automatic}, {"off", BesideH::off}, {"on", BesideH::on}},
        "'auto' (the default: a streamed A's and L's MSMs beside H's, on a second stream, where they fit in the a "
        "vector's memory), 'off', or 'on' (beside H in memory of their own where a's is too small)");
    return config;
}

CudaBackend::CudaBackend(const BackendConfig& config, const PolicyFactory& make_policy)
    : config_(config), tables_(config.device, config.device) {
    const std::string unavailable = cuda_unavailable_reason(config.device);
    if (!unavailable.empty()) throw plugin::Error(ZKB_ERR_UNAVAILABLE, unavailable);
    ZKB_CUDA_CHECK(cudaSetDevice(config.device));
    ntt::prepare_device(config.device);
    device_info_ = DeviceInfo::query(config.device);
    if (config.copy_streams == CopyStreams::device) {
        upload_stream_.emplace();
        download_stream_.emplace();
    }

    // Refuse now, not at the n-th create_worker: every worker holds a, b and c (a and b
    // where the quotient is lean). A quotient run keeps the first plan that fits; a
    // Groth16 run's load_key plans again with the key.
    const DeviceMemory memory = device_memory();
    const auto needed_bytes = [&](QuotientMemory quotient) {
        return config.prove_workers * quotient_vectors(quotient) * vector_bytes(config.max_log_n) +
               domain_tables_bytes(config.max_log_n, quotient);
    };
    const std::vector<QuotientMemory> quotients = allowed_quotient_memory(config.quotient_memory);
    const auto fits = std::find_if(quotients.begin(), quotients.end(),
                                   [&](QuotientMemory quotient) { return needed_bytes(quotient) <= memory.free_bytes; });
    if (fits == quotients.end()) {
        const QuotientMemory last = quotients.back();
        throw plugin::Error(
            ZKB_ERR_OUT_OF_MEMORY,
            plugin::concat(config.prove_workers, " prove worker(s) at 2^", config.max_log_n, " need ",
                           format_gib(needed_bytes(last)), " of device memory (", quotient_vectors(last),
                           " vectors of 2^", config.max_log_n, " elements each, plus the domain's tables",
                           last == QuotientMemory::full ? ", 3 x 32 bytes x n" : "", ") but ",
                           describe_memory(memory), "; lower pipeline.prove_workers or circuit.log_n",
                           last == QuotientMemory::full ? ", or let option quotient_memory be 'auto'" : ""));
    }
    quotient_memory_ = *fits;
    policy_ = make_policy();
}

CudaBackend::~CudaBackend() = default;

void CudaBackend::describe(zkb_facts* facts) const {
    device_info_.add_facts(facts);
    policy_->add_facts(facts);
    plugin::add_fact(facts, "cuda.ntt_max_stages_per_pass", ntt::kMaxStagesPerPass);
    plugin::add_fact(facts, "cuda.copy_streams", config_.copy_streams == CopyStreams::device ? "device" : "worker");
    plugin::add_fact(facts, "cuda.quotient_memory", quotient_memory_name(quotient_memory_));
    if (config_.device_memory_bytes != 0) plugin::add_fact(facts, "cuda.device_memory_cap_bytes", config_.device_memory_bytes);
    visit_held(key_, [&](const auto& key) { add_key_facts(key, facts); });
    if (msm_memory_budget_bytes_ != 0) {
        plugin::add_fact(facts, "cuda.msm_memory_budget_bytes", msm_memory_budget_bytes_);
    }
}

template <class Curve>
void CudaBackend::add_key_facts(const DeviceProvingKey<Curve>& key, zkb_facts* facts) const {
    plugin::add_fact(facts, "cuda.msm_chunk_points", key_plan_.chunk_points);
    plugin::add_fact(facts, "cuda.key_streamed", key_plan_.placement.names());
    plugin::add_fact(facts, "cuda.b2_msm", key_plan_.placement.b2_on_host() ? "host" : "device");
    if (key_plan_.placement.b2_on_host()) {
        plugin::add_fact(facts, "cuda.b2_host_arithmetic", zkbatch::msm::best_arithmetic_name());
    }
    if (key.host_bytes() != 0) plugin::add_fact(facts, "cuda.key_host_bytes", key.host_bytes());
    plugin::add_fact(facts, "cuda.msm_tables", config_.msm_tables ? key.tables.names() : "off");
    plugin::add_fact(facts, "cuda.msm_g2_affine_segment",
                     ProofMsms<Curve>::g2_affine_segment(key.header, key_plan_.chunk_points, msm_memory_));
    plugin::add_fact(facts, "cuda.msm_g2_scratch_in_vectors", msm_memory_.g2_scratch_in_vectors ? "yes" : "no");
    const BesideHLane beside_h = ProofMsms<Curve>::beside_h(key.header, key_plan_.chunk_points, msm_memory_);
    plugin::add_fact(facts, "cuda.msm_beside_h",
                     beside_h.chunk_points == 0    ? "none"
                     : key.b_variables.size() != 0 ? "a,l"
                                                   : "l");
    if (beside_h.chunk_points != 0) {
        plugin::add_fact(facts, "cuda.msm_beside_h_chunk_points", beside_h.chunk_points);
        plugin::add_fact(facts, "cuda.msm_beside_h_memory", beside_h.in_vector_a ? "vector_a" : "own");
    }
    plugin::add_fact(facts, "cuda.msm_worker_bytes",
                     worker_bytes(key.header, key_plan_.chunk_points, quotient_memory_, msm_memory_));
    if (!key.tables.empty()) {
        plugin::add_fact(facts, "cuda.msm_table_shapes", key.tables.shapes());
        plugin::add_fact(facts, "cuda.msm_table_bytes", key.tables.device_bytes());
        plugin::add_fact(facts, "cuda.msm_table_build_ms", table_build_ms_);
    }
}

void CudaBackend::check_log_n(uint32_t log_n) const {
    if (log_n < 1 || log_n > config_.max_log_n) {
        throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                            plugin::concat("log_n = ", log_n, " is outside [1, max_log_n = ", config_.max_log_n,
                                           "]: the backend was created for domains up to 2^", config_.max_log_n));
    }
}

zkb_host_buffers CudaBackend::acquire_buffers(uint32_t log_n) {
    check_log_n(log_n);
    return policy_->acquire(log_n);
}

void CudaBackend::release_buffers(const zkb_host_buffers& buffers) noexcept { policy_->release(buffers); }

std::unique_lock<std::mutex> CudaBackend::lock_upload_stream() {
    return upload_stream_ ? std::unique_lock(upload_mutex_) : std::unique_lock<std::mutex>();
}

std::unique_lock<std::mutex> CudaBackend::lock_download_stream() {
    return download_stream_ ? std::unique_lock(download_mutex_) : std::unique_lock<std::mutex>();
}

template <class Curve>
uint64_t CudaBackend::worker_bytes(const groth16::generic::ProvingKey<Curve>& shape, uint64_t chunk_points,
                                   QuotientMemory quotient, const MsmMemoryPlan& memory) const {
    using Msms = ProofMsms<Curve>;
    const MsmMemoryPlan planned = with_beside_h(memory);
    return vectors_block_bytes(config_.max_log_n, Msms::lent_bytes(shape, chunk_points, planned), quotient,
                               Msms::beside_h(shape, chunk_points, planned)) +
           shape.num_variables * sizeof(typename Curve::Fr) + Msms::device_bytes_for(shape, chunk_points, planned);
}

MsmMemoryPlan CudaBackend::with_beside_h(MsmMemoryPlan memory) const {
    memory.beside_h = config_.msm_beside_h;
    memory.beside_h_room_bytes = beside_h_room_bytes(config_.max_log_n);
    return memory;
}

template <class Curve>
CudaBackend::KeyMemoryPlan CudaBackend::plan_key_memory(const groth16::generic::ProvingKey<Curve>& shape,
                                                        uint64_t b_points, uint64_t scratch_bytes) const {
    // The domain's tables, the key's resident part and, per worker, a, b (c), z and the
    // MSMs' buffers (the workers are created after load_key); the scratch for making the
    // key is freed before the workers exist. The streamed part goes in pinned host memory.
    const DeviceMemory memory = device_memory();
    const uint64_t host_available = read_host_memory_info().available_bytes;
    const auto workers_bytes = [&](const KeyMemoryPlan& plan) {
        MsmMemoryPlan streamed;
        streamed.key = plan.placement;
        return uint64_t{config_.prove_workers} * worker_bytes(shape, plan.chunk_points, plan.quotient, streamed);
    };
    const auto needed_bytes = [&](const KeyMemoryPlan& plan) {
        return domain_tables_bytes(config_.max_log_n, plan.quotient) + key_bytes(shape, b_points, plan.placement).device +
               std::max(scratch_bytes, workers_bytes(plan)) + kReserveBytes;
    };
    // Host memory left beside a streamed key for the rest of the process (the pinned pools
    // of a, b, c and z are allocated already, or come with add_witness). B2 on the host
    // takes B's scalars in canonical form per worker too.
    const uint64_t b2_scalar_bytes = config_.b2_msm == B2Msm::host
                                         ? uint64_t{config_.prove_workers} * b_points * sizeof(zkbatch::msm::Scalar)
                                         : 0;
    const auto host_bytes = [&](const KeyMemoryPlan& plan) {
        return key_bytes(shape, b_points, plan.placement).host + b2_scalar_bytes;
    };
    const auto host_fits = [&](const KeyMemoryPlan& plan) {
        const uint64_t host = host_bytes(plan);
        return host == 0 || host_available == 0 || host + kHostReserveBytes <= host_available;
    };

    // MSMs in at most kFewestChunks chunks first: the fewest queries streamed, the full
    // quotient before the lean one, the largest chunks. Then the largest chunks that fit,
    // with the fewest queries streamed for them.
    const std::vector<uint64_t> chunk_choices = msm_chunk_choices(shape, b_points, config_.msm_chunk_log);
    const std::vector<KeyPlacement> placements = allowed_placements(config_.key_placement, config_.b2_msm);
    const std::vector<QuotientMemory> quotients = allowed_quotient_memory(config_.quotient_memory);
    const uint64_t large_chunk = largest_query(shape) / kFewestChunks;
    std::vector<KeyMemoryPlan> candidates;
    for (const KeyPlacement& placement : placements) {
        for (QuotientMemory quotient : quotients) {
            for (uint64_t chunk : chunk_choices) {
                if (chunk >= large_chunk) candidates.push_back({chunk, placement, quotient});
            }
        }
    }
    for (uint64_t chunk : chunk_choices) {
        for (const KeyPlacement& placement : placements) {
            for (QuotientMemory quotient : quotients) {
                if (chunk < large_chunk) candidates.push_back({chunk, placement, quotient});
            }
        }
    }
    for (const KeyMemoryPlan& plan : candidates) {
        if (needed_bytes(plan) <= memory.free_bytes && host_fits(plan)) return plan;
    }
    const KeyMemoryPlan last{chunk_choices.back(), placements.back(), quotients.back()};
    const KeyBytes key = key_bytes(shape, b_points, last.placement);
    const bool in_host = last.placement.any_in_host_memory();
    if (in_host && !host_fits(last) && needed_bytes(last) <= memory.free_bytes) {
        throw plugin::Error(
            ZKB_ERR_OUT_OF_MEMORY,
            plugin::concat("the proving key's queries in host memory (", host_queries(last.placement), ": ",
                           format_gib(host_bytes(last)), ") need pinned host memory, but the host has ",
                           format_gib(host_available), " available and keeps ", format_gib(kHostReserveBytes),
                           " for the rest; free host memory, or use a GPU with more memory",
                           last.placement.b2_on_host() ? ", or let option b2_msm be 'device'" : ""));
    }
    throw plugin::Error(
        ZKB_ERR_OUT_OF_MEMORY,
        plugin::concat("the proving key (", format_gib(key.device), " of points on the device",
                       in_host ? plugin::concat(", ", host_queries(last.placement), " in host memory") : "",
                       scratch_bytes > 0 ? plugin::concat(", ", format_gib(scratch_bytes), " to make it") : "",
                       ", the domain's tables ", format_gib(domain_tables_bytes(config_.max_log_n, last.quotient)),
                       ") and ", config_.prove_workers, " prove worker(s) (",
                       format_gib(workers_bytes(last) / config_.prove_workers), " each: ",
                       last.quotient == QuotientMemory::full ? "a, b, c" : "a, b",
                       ", the witness and the MSMs' buckets",
                       last.chunk_points < largest_query(shape)
                           ? plugin::concat(", the MSMs in chunks of ", last.chunk_points, " points")
                           : "",
                       ") need ", format_gib(needed_bytes(last)), " of device memory, but ", describe_memory(memory),
                       "; lower pipeline.prove_workers or the circuit's size",
                       config_.key_placement == KeyPlacementChoice::device ? ", or let option key_placement stream "
                                                                             "the key ('auto')"
                                                                           : "",
                       config_.quotient_memory == QuotientMemoryChoice::full ? ", or let option quotient_memory be "
                                                                               "'auto'"
                                                                             : ""));
}

void CudaBackend::load_key(curve::CurveId curve, const zkb_key_source& source, zkb_key_report* report) {
    *report = zkb_key_report{};
    report->start_ns = steady_now_ns();
    ZKB_CUDA_CHECK(cudaSetDevice(config_.device));
    const unsigned host_threads = std::max(1u, std::thread::hardware_concurrency());
    curve::with_curve(curve, [&](auto c) {
        using Curve = decltype(c);
        if (std::is_same_v<Curve, curve::Bls12_381> && source.format == ZKB_KEY_FORMAT_SEEDED) {
            generate_key_on_device(source, host_threads, report);
        } else {
            upload_host_key<Curve>(source, host_threads, report);
        }
        DeviceProvingKey<Curve>& key = std::get<DeviceProvingKey<Curve>>(key_);
        // Before spend_free_memory frees the tabled queries.
        report->key_bytes = key.device_bytes() + key.host_bytes();
        report->host_key_bytes = key.host_bytes();
        spend_free_memory(key);
        policy_->add_witness(key.header.num_variables);
        report->num_variables = key.header.num_variables;
    });
    report->end_ns = steady_now_ns();
    plugin::copy_text(report->where,
                      plugin::concat("device", config_.device,
                                     key_plan_.placement.any_in_host_memory() ? "+host" : ""));
}

void CudaBackend::generate_key_on_device(const zkb_key_source& source, unsigned host_threads, zkb_key_report* report) {
    // The scalars on the host, the points on the device (no file to read: a 2^27 key is
    // some 77 GB). Refused before the O(m) scalar pass if even a key with no point in B
    // could not fit; planned once the scalars say what B holds.
    const plugin::SeededKeySource<> seeded = plugin::seeded_key_source(source, config_.max_log_n);
    groth16::ProvingKey shape;
    shape.log_n = seeded.circuit.shape().log_n;
    shape.num_variables = seeded.circuit.variables();
    shape.num_public = seeded.circuit.public_inputs();
    (void)plan_key_memory(shape, 0, key_generation_scratch_bytes());
    {
        const groth16::KeyScalars scalars = groth16::key_scalars(seeded.circuit, seeded.secrets, host_threads);
        // [v_i] G is at infinity exactly where v_i = 0 (G1 and G2 have prime order r).
        const std::vector<uint32_t> b_variables =
            sparse_b_variables(shape.num_variables, host_threads, [&](uint64_t i) { return !scalars.b[i].is_zero(); });
        key_plan_ = plan_key_memory(shape, b_points_of(shape, b_variables.size()), key_generation_scratch_bytes());
        build_largest_tables<curve::Bls12_381>(groth16::HConvention::coefficients);
        groth16::ProvingKey header = groth16::key_header(seeded.circuit, seeded.secrets, scalars.ic, host_threads);
        key_ = generate_proving_key(std::move(header), scalars, b_variables, host_threads, key_plan_.placement);
    }
    plugin::copy_text(report->points_digest,
                      device_key_points_digest(std::get<DeviceProvingKey<curve::Bls12_381>>(key_)));
    plugin::copy_text(report->how, "generated");
}

template <class Curve>
void CudaBackend::upload_host_key(const zkb_key_source& source, unsigned host_threads, zkb_key_report* report) {
    const groth16::generic::ProvingKey<Curve> host_key =
        plugin::load_host_key<Curve>(source, config_.max_log_n, host_threads);
    const std::vector<uint32_t> b_variables = sparse_b_variables(host_key.num_variables, host_threads, [&](uint64_t i) {
        return !host_key.b_g1_query[i].is_infinity() || !host_key.b_g2_query[i].is_infinity();
    });
    key_plan_ = plan_key_memory(host_key, b_points_of(host_key, b_variables.size()), 0);
    build_largest_tables<Curve>(host_key.h_convention);
    key_ = upload_proving_key(host_key, b_variables, host_threads, key_plan_.placement);
    // A seeded key made here (BN254's) is checked by its points digest, as one made on
    // the device is.
    const bool seeded = source.format == ZKB_KEY_FORMAT_SEEDED;
    if (seeded) plugin::copy_text(report->points_digest, groth16::key_points_digest(host_key));
    plugin::copy_text(report->how, seeded ? "generated" : "uploaded");
}

template <class Curve>
void CudaBackend::build_largest_tables(groth16::HConvention convention) {
    // Before the key, as the plan counted them: the free memory the key and the workers'
    // buffers were planned in is then what is left.
    quotient_memory_ = key_plan_.quotient;
    (void)tables<typename Curve::Fr>(config_.max_log_n, roots_of(convention));
}

zkbatch::ntt::Roots CudaBackend::key_roots() const {
    zkbatch::ntt::Roots roots = zkbatch::ntt::Roots::zkbatch;
    visit_held(key_, [&](const auto& key) { roots = roots_of(key.header.h_convention); });
    return roots;
}

curve::CurveId CudaBackend::key_curve() const {
    curve::CurveId curve = curve::CurveId::bls12_381;
    visit_held(key_, [&](const auto& key) { curve = CurveOf<decltype(key)>::kId; });
    return curve;
}

CudaBackend::DeviceMemory CudaBackend::device_memory() const {
    size_t free_bytes = 0, total_bytes = 0;
    ZKB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const uint64_t cap = config_.device_memory_bytes;
    if (cap == 0 || cap >= total_bytes) return {free_bytes, total_bytes};
    const uint64_t used_bytes = total_bytes - free_bytes;
    return {cap > used_bytes ? cap - used_bytes : 0, cap};
}

std::string CudaBackend::describe_memory(const DeviceMemory& memory) const {
    const bool capped = config_.device_memory_bytes != 0 && memory.total_bytes == config_.device_memory_bytes;
    return plugin::concat(device_info_.name, " (device ", config_.device, ") has ", format_gib(memory.free_bytes),
                          " free of ", format_gib(memory.total_bytes),
                          capped ? " (option device_memory caps it)" : "");
}

template <class Curve>
void CudaBackend::spend_free_memory(DeviceProvingKey<Curve>& key) {
    const uint64_t free_bytes = device_memory().free_bytes;
    msm_memory_budget_bytes_ = free_bytes > kReserveBytes ? free_bytes - kReserveBytes : 0;
    const uint64_t start_ns = steady_now_ns();
    // Tables are for whole MSMs; MSMs in chunks (2^27) may still get B2's rounds.
    const bool whole = key_plan_.chunk_points == largest_query(key.header);
    msm_memory_ = with_beside_h(plan_msm_memory(
        key.header, key.b_points(), key_plan_.placement, msm_memory_budget_bytes_, config_.msm_tables && whole,
        config_.msm_affine_rounds,
        [&](const MsmMemoryPlan& memory) {
            return config_.prove_workers * worker_bytes(key.header, key_plan_.chunk_points, quotient_memory_, memory);
        },
        config_.msm_table_stride));
    build_key_tables(key, msm_memory_);
    table_build_ms_ = (steady_now_ns() - start_ns) / 1000000;
}

std::unique_ptr<CudaWorker> CudaBackend::create_worker(uint32_t worker_index) {
    ZKB_CUDA_CHECK(cudaSetDevice(config_.device));
    return std::make_unique<CudaWorker>(*this, worker_index);
}

template <class CurveDescription>
CudaWorker::Groth16Buffers<CurveDescription>::Groth16Buffers(const DeviceProvingKey<Curve>& key,
                                                             const CudaBackend& backend, void* lent,
                                                             void* beside_h_memory)
    : z(key.header.num_variables),
      msms(key.header, key.b_points(), backend.msm_chunk_points(), backend.msm_memory(), lent, beside_h_memory) {}

CudaWorker::CudaWorker(CudaBackend& backend, uint32_t worker_index)
    : backend_(backend),
      copy_lane_(plugin::concat("gpu", backend.config().device, ".w", worker_index, ".copy")),
      compute_lane_(plugin::concat("gpu", backend.config().device, ".w", worker_index, ".compute")),
      beside_h_lane_(plugin::concat("gpu", backend.config().device, ".w", worker_index, ".beside_h")),
      host_lane_(plugin::concat("gpu", backend.config().device, ".w", worker_index, ".host")),
      own_copy_stream_(stream_if(backend.config().copy_streams == CopyStreams::worker)),
      upload_stream_(own_copy_stream_ ? *own_copy_stream_ : *backend.upload_stream()),
      download_stream_(own_copy_stream_ ? *own_copy_stream_ : *backend.download_stream()),
      phases_(backend.config().device) {
    // Build the tables of the largest domain now rather than in the first prove.
    const uint32_t max_log_n = backend.config().max_log_n;
    curve::with_curve(backend.key_curve(),
                      [&](auto c) { (void)backend_.tables<typename decltype(c)::Fr>(max_log_n, backend.key_roots()); });
    uint64_t lent_bytes = 0;
    BesideHLane beside_h;
    visit_held(backend.key(), [&](const auto& key) {
        using Msms = ProofMsms<CurveOf<decltype(key)>>;
        lent_bytes = Msms::lent_bytes(key.header, backend.msm_chunk_points(), backend.msm_memory());
        beside_h = Msms::beside_h(key.header, backend.msm_chunk_points(), backend.msm_memory());
    });
    const QuotientMemory quotient = backend.quotient_memory();
    vectors_ = DeviceBuffer<uint8_t>(vectors_block_bytes(max_log_n, lent_bytes, quotient, beside_h));
    a_ = vectors_.data();
    b_ = a_ + vector_bytes(max_log_n);
    c_ = quotient == QuotientMemory::full ? b_ + vector_bytes(max_log_n) : nullptr;
    uint8_t* const beside_h_memory =
        beside_h.chunk_points != 0 ? vectors_.data() + beside_h_offset(max_log_n, quotient, beside_h) : nullptr;
    visit_held(backend.key(), [&](const auto& key) {
        auto& buffers =
            groth16_.emplace<Groth16Buffers<CurveOf<decltype(key)>>>(key, backend, vectors_.data(), beside_h_memory);
        z_chunk_up_.resize(buffers.msms.z_chunks(key.header));
        host_threads_ = std::max(1u, std::thread::hardware_concurrency() / backend.config().prove_workers);
        if (key.placement.b2_on_host()) b2_scalars_.resize(key.b_points());
    });
}

struct CudaWorker::Partition {
    const zkb_prove_request& request;
    const zkb_host_buffers& buffers;
    bool groth16;  // else the quotient workload
    // The domain's roots, which pick the H convention of the quotient (ntt_steps.hpp):
    // snarkjs's for a .zkey's key, zkbatch's for every other.
    zkbatch::ntt::Roots roots;
    uint32_t log_n;
    uint64_t n;
    uint64_t bytes;  // of a, b, c and h each
    std::string nvtx_prefix;  // "partition 12: "
    // h's digest is made on the device (from block sums, 1/16 of h: all that leaves the
    // device without h_to_host) if h splits into blocks, and h goes back to the host if
    // the request asks for it or the digest is not made there.
    bool digest_on_device;
    bool h_to_host;
};

void CudaWorker::prove(const zkb_prove_request& request, zkb_prove_report* report) {
    report->phase_count = 0;
    report->has_h_digest = 0;
    report->has_proof = 0;
    const Partition partition = open_partition(request);
    const NvtxRange whole_range(partition.nvtx_prefix + "prove on " + compute_lane_);
    const uint64_t anchor_ns = record_anchor();
    phases_.clear();
    if (!partition.groth16) {
        run_to_completion([&] { run_quotient_schedule(partition); });
    } else {
        visit_held(groth16_, [&](auto& buffers) {
            using Curve = CurveOf<decltype(buffers)>;
            prove_groth16(partition, std::get<DeviceProvingKey<Curve>>(backend_.key()), buffers, report);
        });
    }
    phases_.write(report, anchor_, anchor_ns);
}

template <class Schedule>
void CudaWorker::run_to_completion(Schedule&& schedule) {
    try {
        schedule();
        compute_stream_.synchronize();  // done already; reports a fault of its kernels
    } catch (...) {
        // Never return while queued work may still read or write this partition's host
        // buffers: the runner reuses them as soon as prove returns.
        synchronize_streams();
        throw;
    }
}

template <class Curve>
void CudaWorker::prove_groth16(const Partition& partition, const DeviceProvingKey<Curve>& key,
                               Groth16Buffers<Curve>& buffers, zkb_prove_report* report) {
    // Checked before anything is enqueued.
    const groth16::generic::ProofRandomness<Curve> blinding = plugin::request_blinding<Curve>(partition.request);
    groth16::generic::MsmSums<Curve> sums;
    // B2 on the host's cores runs beside the whole schedule on the GPU.
    std::future<curve::G2<Curve>> host_b2;
    if (key.placement.b2_on_host()) {
        host_b2 = std::async(std::launch::async, [&] { return sum_b2_on_host(partition, key); });
    }
    try {
        run_to_completion([&] { sums = run_groth16_schedule(partition, key, buffers); });
    } catch (...) {
        if (host_b2.valid()) host_b2.wait();  // it reads the partition's host buffers too
        throw;
    }
    if (host_b2.valid()) {
        sums.b_g2 = host_b2.get();
        phases_.add_host(PhaseLog::Section::msms, groth16::phase_name(groth16::ProofMsm::b_g2), host_lane_,
                         b2_start_ns_, b2_end_ns_);
    }
    combine_proof(key, sums, blinding, report);
}

CudaWorker::Partition CudaWorker::open_partition(const zkb_prove_request& request) {
    backend_.check_log_n(request.log_n);
    const zkb_host_buffers* buffers = request.buffers;
    const uint64_t n = uint64_t{1} << request.log_n;
    if (buffers == nullptr || buffers->a == nullptr || buffers->b == nullptr || buffers->c == nullptr ||
        buffers->h == nullptr || buffers->n != n) {
        throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                            plugin::concat("prove of partition ", request.partition_index,
                                           ": the host buffers are missing or not for 2^", request.log_n,
                                           " elements (use buffers from acquire_buffers with the same log_n)"));
    }
    bool groth16 = false;
    zkbatch::ntt::Roots roots = zkbatch::ntt::Roots::zkbatch;  // the quotient workload's
    const bool keyed = visit_held(backend_.key(), [&](const auto& key) {
        groth16 = plugin::check_workload(request, &key.header);
        if (groth16) roots = roots_of(key.header.h_convention);
    });
    if (!keyed) groth16 = plugin::check_workload<curve::Bls12_381>(request, nullptr);
    if (groth16 && std::holds_alternative<std::monostate>(groth16_)) {
        throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT,
                            "a Groth16 partition on a worker created before load_key: create workers after the key");
    }
    ZKB_CUDA_CHECK(cudaSetDevice(backend_.config().device));
    const uint64_t bytes = n * sizeof(ff::Fr);
    const bool digest_on_device = xxh3::splits(bytes);
    return Partition{
        .request = request,
        .buffers = *buffers,
        .groth16 = groth16,
        .roots = roots,
        .log_n = request.log_n,
        .n = n,
        .bytes = bytes,
        .nvtx_prefix = plugin::concat("partition ", request.partition_index, ": "),
        .digest_on_device = digest_on_device,
        .h_to_host = request.h_to_host != 0 || !digest_on_device,
    };
}

uint64_t CudaWorker::record_anchor() {
    // The compute stream is this worker's alone and idle here (the previous prove ended
    // synchronized), so the anchor completes at once and now() is its time on the
    // runner's clock (CLOCK_MONOTONIC). The copy streams may be shared with other workers.
    anchor_.record(compute_stream_);
    anchor_.synchronize();
    return steady_now_ns();
}

void CudaWorker::synchronize_streams() noexcept {
    // Errors here repeat the one being thrown.
    const std::initializer_list<const Stream*> streams = {&upload_stream_, &compute_stream_, &download_stream_};
    for (const Stream* stream : streams) (void)cudaStreamSynchronize(stream->handle());
    visit_held(groth16_, [](auto& buffers) { buffers.msms.synchronize_lane_beside_h(); });
}

void CudaWorker::run_quotient_schedule(const Partition& partition) {
    // The quotient workload's kernel groups are its "compute" (the name ABI versions before
    // 5 used for both); a Groth16 proof's are its "quotient".
    const ntt::DomainTablesView<ff::Fr>& tables = backend_.tables<ff::Fr>(partition.log_n, partition.roots);
    start_quotient_on_device(partition, tables, "compute");
    finish_quotient_on_device(partition, tables, "compute");
    // The block sums count as the quotient workload's compute, as they always have.
    if (partition.digest_on_device) enqueue_digest_block_sums(partition, "compute");
    bring_h_back(partition);
}

template <class Curve>
groth16::generic::MsmSums<Curve> CudaWorker::run_groth16_schedule(const Partition& partition,
                                                                  const DeviceProvingKey<Curve>& key,
                                                                  Groth16Buffers<Curve>& buffers) {
    const Event& z_msms_done = upload_z_and_run_its_msms(partition, key, buffers);
    // Where B2's rounds wrote their scratch in a, b and c's block, a, b and c go up only
    // once z's MSMs are done: under L, and the quotient follows L. Where they did not run
    // (too few full-size values), the block is free at once. A lean quotient's c goes up
    // once a holds A*B: under L, where L is still to run. A streamed L runs beside H
    // instead, where the plan has a lane there (ProofMsms::beside_h).
    const bool vectors_after_l = buffers.msms.lent_scratch_written();
    enum class LSlot { before_quotient, under_c, after_quotient, beside_h };
    const LSlot l_slot = buffers.msms.has_lane_beside_h() ? LSlot::beside_h
                         : vectors_after_l                ? LSlot::before_quotient
                         : c_ == nullptr                  ? LSlot::under_c
                                                          : LSlot::after_quotient;
    if (l_slot == LSlot::before_quotient) run_l(partition, key, buffers);
    if (vectors_after_l) z_msms_done.synchronize();  // done already, unless L had no points to count
    const auto& tables = backend_.tables<typename Curve::Fr>(partition.log_n, partition.roots);
    start_quotient_on_device(partition, tables, "quotient");
    if (l_slot == LSlot::under_c) run_l(partition, key, buffers);
    finish_quotient_on_device(partition, tables, "quotient");
    if (partition.digest_on_device) enqueue_digest_block_sums(partition, "h_digest_blocks");
    if (l_slot == LSlot::after_quotient) run_l(partition, key, buffers);
    // h is made in b on the compute stream, after a's upload: the event H waits for.
    run_h(partition, key, buffers, quotient_inputs_[0].upload.end);
    bring_h_back(partition);  // under H's MSM
    return collect_msm_sums(key, buffers);
}

template <class Curve>
const Event& CudaWorker::upload_z_and_run_its_msms(const Partition& partition, const DeviceProvingKey<Curve>& key,
                                                   Groth16Buffers<Curve>& buffers) {
    // z first: A, B1 and B2 need nothing else, so the GPU starts on them while a, b and c
    // go up behind z (or the host makes the quotient) instead of waiting for the
    // quotient's uploads (docs/msm.md#a-proofs-five-msms). z goes up in the MSMs' chunks, so the
    // first chunk's MSMs start once its part is up.
    using Fr = typename Curve::Fr;
    upload(partition, PhaseLog::Section::z_upload, "z", buffers.z.data(), partition.buffers.z,
           key.header.num_variables * sizeof(Fr), z_upload_, buffers.msms.chunk_points() * sizeof(Fr),
           z_chunk_up_.data());
    const NvtxRange range(partition.nvtx_prefix + "msms of z");
    return buffers.msms.run_z(key, buffers.z.data(), compute_stream_, std::span<const Event>(z_chunk_up_));
}

template <class Curve>
curve::G2<Curve> CudaWorker::sum_b2_on_host(const Partition& partition, const DeviceProvingKey<Curve>& key) {
    const NvtxRange range(partition.nvtx_prefix + "msm b_g2 on the host");
    b2_start_ns_ = steady_now_ns();
    const auto* z = static_cast<const typename Curve::Fr*>(partition.buffers.z);
    const std::vector<uint32_t>& variables = key.host_b_variables;  // empty: every variable
    util::parallel_for(0, b2_scalars_.size(), host_threads_, [&](size_t first, size_t last) {
        for (size_t j = first; j < last; ++j) {
            b2_scalars_[j] = zkbatch::msm::to_scalar(z[variables.empty() ? j : variables[j]]);
        }
    });
    const curve::G2<Curve> sum = zkbatch::msm::pippenger<typename Curve::G2Params>(
        key.b_g2_query.host_points(), b2_scalars_.data(), b2_scalars_.size(), host_threads_);
    b2_end_ns_ = steady_now_ns();
    return sum;
}

template <class Fr>
void CudaWorker::start_quotient_on_device(const Partition& partition, const ntt::DomainTablesView<Fr>& tables,
                                          const char* kernel_phase) {
    const zkb_host_buffers& buffers = partition.buffers;
    // Enqueued in this order so that each upload is followed at once by the work that
    // waits for it: from pageable memory cudaMemcpyAsync returns only when its data is
    // staged, and a's NTTs must already be queued by then.
    const auto up_and_transform = [&](size_t index, uint8_t* device, const void* host, const char* name) {
        upload_quotient_input(partition, index, device, host, name);
        transform_quotient_input(partition, tables, kernel_phase, index, as<Fr>(device), name);
    };
    up_and_transform(0, a_, buffers.a, "a");
    up_and_transform(1, b_, buffers.b, "b");
    if (c_ != nullptr) {
        up_and_transform(2, c_, buffers.c, "c");
        return;
    }
    {
        const NvtxRange range(partition.nvtx_prefix + "a * b");
        enqueue_kernels(ntt::pointwise_product_steps(tables, as<Fr>(a_), as<Fr>(b_)), kernel_phase, product_);
    }
    // c goes up into b, free once a holds A*B, enqueued now so that it runs under what the
    // caller enqueues next (L, in a proof). A copy stream this worker has alone (its own,
    // or the device's with one prove worker) waits for A*B on the device; a shared one is
    // not made to (every other worker's uploads would wait behind it): the host waits.
    if (own_copy_stream_ || backend_.config().prove_workers == 1) {
        upload_stream_.wait(product_.end);
    } else {
        product_.end.synchronize();
    }
    upload_quotient_input(partition, 2, b_, partition.buffers.c, "c");
}

template <class Fr>
void CudaWorker::finish_quotient_on_device(const Partition& partition, const ntt::DomainTablesView<Fr>& tables,
                                           const char* kernel_phase) {
    Fr* const a = as<Fr>(a_);
    Fr* const b = as<Fr>(b_);
    const bool lean = c_ == nullptr;
    if (lean) {  // c, up in b since start_quotient_on_device
        transform_quotient_input(partition, tables, kernel_phase, 2, b, "c");
        const NvtxRange range(partition.nvtx_prefix + "a * b - c");
        enqueue_kernels(ntt::pointwise_difference_steps(tables, a, b), kernel_phase, difference_);
    }
    const NvtxRange range(partition.nvtx_prefix + "h from A*B - C");
    // h into b: lean, from a alone (A*B - C already).
    enqueue_kernels(lean ? ntt::quotient_output_steps<Fr>(tables, a, nullptr, nullptr, b)
                         : ntt::quotient_output_steps(tables, a, b, as<Fr>(c_), b),
                    kernel_phase, quotient_output_);
}

template <class Fr>
void CudaWorker::enqueue_kernels(const ntt::LaunchSequence<Fr>& steps, const char* kernel_phase,
                                 const TimedSpan& span) {
    span.start.record(compute_stream_);
    ntt::enqueue(steps, compute_stream_);
    span.end.record(compute_stream_);
    phases_.add(PhaseLog::Section::kernels, kernel_phase, compute_lane_, span);
}

void CudaWorker::upload_quotient_input(const Partition& partition, size_t index, uint8_t* device, const void* host,
                                       const char* name) {
    upload(partition, PhaseLog::Section::quotient_uploads, name, device, host, partition.bytes,
           quotient_inputs_[index].upload);
}

template <class Fr>
void CudaWorker::transform_quotient_input(const Partition& partition, const ntt::DomainTablesView<Fr>& tables,
                                          const char* kernel_phase, size_t index, Fr* device, const char* name) {
    const QuotientInput& events = quotient_inputs_[index];
    const NvtxRange range(partition.nvtx_prefix + "ntt " + name);
    compute_stream_.wait(events.upload.end);
    enqueue_kernels(ntt::quotient_input_steps(tables, device), kernel_phase, events.transform);
}

void CudaWorker::enqueue_digest_block_sums(const Partition& partition, const char* phase) {
    // a, no longer needed once the quotient is in b, holds the block sums.
    const NvtxRange range(partition.nvtx_prefix + "h digest block sums");
    digest_blocks_.start.record(compute_stream_);
    enqueue_xxh3_block_sums(b_, partition.bytes, reinterpret_cast<uint64_t*>(a_), compute_stream_);
    digest_blocks_.end.record(compute_stream_);
    phases_.add(PhaseLog::Section::kernels, phase, compute_lane_, digest_blocks_);
}

template <class Curve>
void CudaWorker::run_l(const Partition& partition, const DeviceProvingKey<Curve>& key, Groth16Buffers<Curve>& buffers) {
    const NvtxRange range(partition.nvtx_prefix + "msm l");
    buffers.msms.run_l(key, buffers.z.data(), compute_stream_);
}

template <class Curve>
void CudaWorker::run_h(const Partition& partition, const DeviceProvingKey<Curve>& key, Groth16Buffers<Curve>& buffers,
                       const Event& h_ready) {
    const NvtxRange range(partition.nvtx_prefix + "msm h");
    // h in b, made there by the device's quotient or uploaded as the key's curve's Fr.
    buffers.msms.run_h(key, buffers.z.data(), as<typename Curve::Fr>(b_), compute_stream_, h_ready);
}

void CudaWorker::bring_h_back(const Partition& partition) {
    if (partition.digest_on_device) download_digest(partition);
    if (partition.h_to_host) download_h(partition);
}

void CudaWorker::download_digest(const Partition& partition) {
    const uint64_t rows_bytes = xxh3::block_sum_count(partition.bytes) * sizeof(uint64_t);
    download(partition.buffers.h, a_, rows_bytes, digest_blocks_.end, digest_download_);
    const NvtxRange chain_range(partition.nvtx_prefix + "h digest chain");
    const uint64_t chain_start_ns = steady_now_ns();
    const std::array<uint8_t, 16> digest =
        xxh3::digest_from_block_sums(static_cast<const uint64_t*>(partition.buffers.h), partition.bytes);
    const uint64_t chain_end_ns = steady_now_ns();
    phases_.set_h_digest(digest);
    phases_.add_host(PhaseLog::Section::results, "h_digest", host_lane_, chain_start_ns, chain_end_ns);
}

void CudaWorker::download_h(const Partition& partition) {
    const NvtxRange range(partition.nvtx_prefix + "d2h h");
    download(partition.buffers.h, b_, partition.bytes, quotient_output_.end, h_download_);
}

template <class Curve>
groth16::generic::MsmSums<Curve> CudaWorker::collect_msm_sums(const DeviceProvingKey<Curve>& key,
                                                              Groth16Buffers<Curve>& buffers) {
    groth16::generic::MsmSums<Curve> sums = buffers.msms.sums(key, compute_stream_);
    for (const auto& interval : buffers.msms.intervals()) {
        phases_.add(PhaseLog::Section::msms, groth16::phase_name(interval.msm),
                    interval.beside_h ? beside_h_lane_ : compute_lane_, *interval.start, *interval.end);
    }
    // The streamed queries' copies, on their own stream (the lane beside H's on another):
    // one interval from the first to the last, with every chunk's bytes (they run under
    // the MSMs they feed).
    const auto add_key_copies = [&](const QueryStager& key_copies) {
        if (key_copies.bytes() == 0) return;
        phases_.add(PhaseLog::Section::msms, "key_h2d", copy_lane_, key_copies.first_start(), key_copies.last_end(),
                    key_copies.bytes());
    };
    add_key_copies(buffers.msms.key_copies());
    if (const QueryStager* beside_h = buffers.msms.beside_h_key_copies()) add_key_copies(*beside_h);
    return sums;
}

template <class Curve>
void CudaWorker::combine_proof(const DeviceProvingKey<Curve>& key, const groth16::generic::MsmSums<Curve>& sums,
                               const groth16::generic::ProofRandomness<Curve>& blinding, zkb_prove_report* report) {
    const uint64_t combine_start_ns = steady_now_ns();
    groth16::encode_proof(groth16::combine(key.header, sums, blinding), report->proof);
    report->proof_bytes = groth16::kProofBytesOf<Curve>;
    report->has_proof = 1;
    phases_.add_host(PhaseLog::Section::proof, "combine", host_lane_, combine_start_ns, steady_now_ns());
}

// Enqueues an upload of `size` bytes on the upload stream between `span`'s events, in
// pieces of `piece_bytes` (0: one piece) with piece_up[i] recorded once piece i is up,
// and logs it in `section`.
void CudaWorker::upload(const Partition& partition, PhaseLog::Section section, const char* what,
                        void* device_destination, const void* host_source, uint64_t size, const TimedSpan& span,
                        uint64_t piece_bytes, const Event* piece_up) {
    {
        const NvtxRange range(partition.nvtx_prefix + "h2d " + what);
        const auto lock = backend_.lock_upload_stream();
        span.start.record(upload_stream_);
        const uint64_t piece = piece_bytes != 0 ? piece_bytes : size;
        for (uint64_t first = 0, i = 0; first < size; first += piece, ++i) {
            upload_stream_.copy_to_device(static_cast<unsigned char*>(device_destination) + first,
                                          static_cast<const unsigned char*>(host_source) + first,
                                          std::min(piece, size - first));
            if (piece_up != nullptr) piece_up[i].record(upload_stream_);
        }
        span.end.record(upload_stream_);
    }
    phases_.add(section, "h2d", copy_lane_, span, size);
}

// Copies `size` bytes to the host between `span`'s events once `ready` (on the compute
// stream) has completed, waits for them, and logs the copy: once a download is done, so
// is every upload of this partition (a shared stream may already hold other workers'
// next copies, which this must not wait for).
void CudaWorker::download(void* host_destination, const void* device_source, uint64_t size, const Event& ready,
                          const TimedSpan& span) {
    if (own_copy_stream_) {
        download_stream_.wait(ready);
    } else {
        // A wait on the device would stop the shared stream, and every other worker's
        // download behind it, until this worker's kernels end.
        ready.synchronize();
    }
    {
        const auto lock = backend_.lock_download_stream();
        span.start.record(download_stream_);
        download_stream_.copy_to_host(host_destination, device_source, size);
        span.end.record(download_stream_);
    }
    span.end.synchronize();
    phases_.add(PhaseLog::Section::results, "d2h", copy_lane_, span, size);
}

}  // namespace zkbatch::cuda
