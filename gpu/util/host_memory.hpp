// HostMemoryPolicy: where a CUDA backend's host buffers for a, b, c, h and the witness z
// come from.
// It is the only thing cuda-pinned (a bounded pool of cudaHostAlloc memory) and
// cuda-pageable (the ordinary heap) do differently, so an A/B between them measures
// host memory and nothing else.
#pragma once

#include "core/plugin/abi.h"

#include <cstdint>
#include <string>

namespace zkbatch::cuda {

// What a policy is created for (from the backend's options and create() arguments).
// Which streams carry the prove workers' copies (option `copy_streams`).
enum class CopyStreams {
    device,  // one upload and one download stream per device, shared by its workers
    worker,  // one stream per worker for both directions (docs/ntt.md#copies-and-streams)
};

// Whether load_key's plan (plan_msm_memory) gives B2's batched affine rounds scratch, and
// where (option `msm_affine_rounds`).
enum class G2Rounds {
    off,
    automatic,  // on its own where it fits, else sharing a, b and c's block
    shared,     // always sharing a, b and c's block (tests and measurements)
};

// Whether the MSMs of a streamed A or L run on a second stream beside H's, in the memory of
// the worker's a vector (option `msm_beside_h`; ProofMsms::beside_h).
enum class BesideH {
    off,
    automatic,  // where the key streams A or L and the lane fits in the a vector's memory
    on,         // where the key streams A or L, in memory of its own where a's is too small (tests)
};

// Where load_key may put the key's queries (option `key_placement`, KeyPlacement).
enum class KeyPlacementChoice {
    automatic,  // on the device, streaming from host memory the fewest queries that must
    device,     // every query on the device
    host,       // every query streamed (tests and measurements)
};

// The device memory the quotient takes (option `quotient_memory`; ntt_steps.hpp).
enum class QuotientMemory {
    full,  // a, b and c on the device per worker, the domain's power tables expanded (3 x n entries)
    lean,  // a and b per worker, c up into b once a holds A*B, the power tables seeded
};
enum class QuotientMemoryChoice {
    automatic,  // full where the plan fits, else lean
    full,
    lean,
};

// Where a proof's G2 MSM (B2) runs (option `b2_msm`).
enum class B2Msm {
    device,  // on the GPU, after B1
    host,    // on the host's cores, under the GPU's work of the same proof; B2's points in host memory
};

struct BackendConfig {
    int device = 0;
    uint32_t max_log_n = 0;
    uint32_t prove_workers = 1;
    CopyStreams copy_streams = CopyStreams::device;
    uint32_t msm_chunk_log = 0;  // the proof's MSMs in chunks of 2^this points; 0: as large as fits
    bool msm_tables = false;     // base tables of the key's queries in the memory left (KeyTables)
    uint32_t msm_table_stride = 0;  // H's and L's tables' stride; 0: whole where they fit, else strided
    G2Rounds msm_affine_rounds = G2Rounds::automatic;  // scratch for B2's rounds in the memory left
    uint64_t device_memory_bytes = 0;  // the card size to plan for (option device_memory); 0: the device's
    KeyPlacementChoice key_placement = KeyPlacementChoice::automatic;
    QuotientMemoryChoice quotient_memory = QuotientMemoryChoice::automatic;
    B2Msm b2_msm = B2Msm::device;
    BesideH msm_beside_h = BesideH::automatic;
};

class HostMemoryPolicy {
public:
    virtual ~HostMemoryPolicy() = default;
    // Four vectors of 2^log_n elements (log_n <= max_log_n, checked by the backend),
    // 64-byte aligned. May block while a bounded pool is exhausted; never falls back to
    // another kind of memory. Thread-safe.
    virtual zkb_host_buffers acquire(uint32_t log_n) = 0;
    virtual void release(const zkb_host_buffers& buffers) noexcept = 0;
    // From now on every buffer set also carries a witness z of m elements (load_key of a
    // Groth16 run, before any acquire). Throws plugin::Error(ZKB_ERR_OUT_OF_MEMORY) with
    // the numbers when the memory cannot be had.
    virtual void add_witness(uint64_t m) = 0;
    // pool.pinned_bytes, pool.setup_ms and the policy's own facts.
    virtual void add_facts(zkb_facts* facts) const = 0;
};

// Host memory as /proc/meminfo reports it (0 when it cannot be read).
struct HostMemoryInfo {
    uint64_t total_bytes = 0;      // MemTotal
    uint64_t available_bytes = 0;  // MemAvailable: what can be allocated without swapping
};
HostMemoryInfo read_host_memory_info();

// "12.5 GiB"
std::string format_gib(uint64_t bytes);

}  // namespace zkbatch::cuda
