// Host-memory limits: what a run will need, checked against what this machine has
// before the backend allocates anything, so an oversized manifest is refused with a
// message instead of ending in the kernel's out-of-memory killer half-way through.
//
// The estimate (docs/manifest.md, "Hostile input and limits"), with V = 2^log_n × 32 bytes, one
// field vector:
//   buffer sets   (synthesis_workers + queue_depth + devices × prove_workers a, b, c, h;
//                  + 2 × finalize_workers) × 4V, or pool_sets × devices × 4V z too for
//                  when the backend options set a smaller pool (cuda-pinned)  Groth16 (5V)
//   witness       synthesis_workers × V                                    one per synthesizer
//   replay        replay_inputs × 3V (4V for Groth16)                      a, b, c (z) per set
//   scratch       prove_workers × 2V                                       cpu-ref only
//   NTT tables    V                                                        twiddles of the domain
//   key           4V (cpu-ref 22V) with setup.key = "backend"              scalars (and points)
// Once the backend holds the key, what it reports holding in host memory (a key streamed
// to a GPU too small for it: pinned points; a key cpu-ref made) takes the key line's place
// (with_key_held), checked against what was available before anything was allocated.
// A set is alive from synthesis to the end of finalize: one per synthesizer, per queue
// slot, per prove worker, and per finalize worker and finalize-queue slot (as many as
// finalize workers). A backend that hands out buffer sets from its own pool
// (backend.options pool_sets, per device) bounds them all. Devices: the length of a
// pipeline.devices list; "all" counts as one (the number is known only once the
// backend is loaded).
#pragma once

#include "manifest/manifest.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkbatch {

// One run's host memory, by what it is for. All in bytes.
struct HostMemoryEstimate {
    uint64_t vector_bytes = 0;      // V: one vector of 2^log_n field elements
    uint64_t devices = 1;           // devices proving at once
    uint64_t buffer_sets = 0;       // a/b/c/h sets alive at once
    uint64_t set_vectors = 4;       // vectors of a set: a, b, c, h, and z for Groth16
    uint64_t buffer_bytes = 0;
    uint64_t witness_bytes = 0;
    uint64_t replay_bytes = 0;
    uint64_t scratch_bytes = 0;
    uint64_t ntt_table_bytes = 0;
    uint64_t key_bytes = 0;         // the seeded key a backend makes (setup.key = "backend")
    uint64_t held_key_bytes = 0;    // the key's points the backends hold in host memory (with_key_held)
    uint64_t total_bytes = 0;       // the sum, saturating at UINT64_MAX
};

// The estimate for `manifest` run on `backend_name` (a plugin name or a plugin file's
// path; "auto" counts as cpu-ref, the larger of the two).
HostMemoryEstimate estimate_host_memory(const Manifest& manifest, std::string_view backend_name);

// The estimate once the backends hold the proving key: their `host_key_bytes` (the key
// reports' sum) in place of the key line, whose scalars are freed once the key is made.
HostMemoryEstimate with_key_held(HostMemoryEstimate estimate, uint64_t host_key_bytes);

// Bytes this process may still allocate: MemAvailable from /proc/meminfo, lowered to
// the headroom of its memory cgroup (v1 or v2) when one is set. nullopt when unknown.
struct AvailableMemory {
    uint64_t bytes = 0;
    std::string source;  // "MemAvailable in /proc/meminfo" or the cgroup file that set it
};
std::optional<AvailableMemory> available_host_memory();

// MemAvailable of a /proc/meminfo text, in bytes; nullopt when absent or malformed.
std::optional<uint64_t> parse_mem_available_bytes(std::string_view meminfo);

// The message refusing the run when `estimate` exceeds `available` (both numbers,
// what each part is, what to lower); nullopt when it fits.
std::optional<std::string> host_memory_shortfall(const Manifest& manifest, const HostMemoryEstimate& estimate,
                                                 const AvailableMemory& available);

// For `zkbatch run`: throws ManifestError (exit code 2) with the shortfall message
// when the run (its estimate: estimate_host_memory, or with_key_held's) cannot fit in
// `available`, what this machine had before the run allocated anything (nullopt when
// unknown: nothing is checked).
void require_host_memory(const Manifest& manifest, const HostMemoryEstimate& estimate,
                         const std::optional<AvailableMemory>& available);

// Making a seeded key on the host (`zkbatch setup`, or a run whose key the cache lacks)
// holds all of its points (`key_file_bytes`, what its file takes) and, while they are
// made, its scalars (about 4V). Throws ManifestError (exit code 2) with the numbers when
// that exceeds this machine's memory, before the setup starts; does nothing when the
// available memory cannot be read.
void require_host_memory_for_setup(const Manifest& manifest, uint64_t key_file_bytes);

}  // namespace zkbatch
