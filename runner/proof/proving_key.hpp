// A Groth16 job's proving key, made ready before any backend loads it: a seeded key
// from the key cache (made and written there the first time, `zkbatch setup` or the
// first run), a seeded key each backend makes itself (setup.key = "backend": no file),
// or the .zkey a ceremony made. The runner keeps the verifying key for finalize's
// checks and hands each backend where to load the rest (plugin ABI v6).
#pragma once

#include "job_circuit.hpp"

#include "core/groth16/any_curve.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace zkbatch {

// The [setup] table.
struct SetupOptions {
    uint64_t seed = 1;                                 // tau, alpha, beta, gamma, delta come from it
    std::filesystem::path cache_dir = "cache/keys";    // where seeded keys are kept
    bool backend_makes_key = false;                    // setup.key = "backend": nothing is written
};

struct PreparedKey {
    std::filesystem::path path;           // empty when the backend makes the key
    uint32_t format = 0;                  // ZKB_KEY_FORMAT_*
    std::string circuit_description;      // the circuit the key is for
    std::string setup_description;        // "setup=seeded..." for a seeded key, "" for a ceremony's
    groth16::AnyVerifyingKey vk;         // of the circuit's curve
    uint64_t file_bytes = 0;
    std::string digest;                   // names the key: its points' digest, or a .zkey's header's; for a
                                          // key the backend makes, the cached file's if one exists, else ""
    std::optional<double> setup_ms;       // the seeded setup this call ran; empty when the key existed
};

// Where the cache keeps the seeded key of this circuit and setup.
std::filesystem::path seeded_key_path(const JobCircuit& circuit, const SetupOptions& setup);

// Makes the seeded key if the cache lacks it (on `threads` threads; the time is
// recorded), then reads its verifying key; for a .zkey, takes what the circuit read.
// When the backend makes the key, writes nothing: computes the verifying key (O(n) time,
// O(l) memory) and takes the digest of a cached file of the same key, if any, for the
// backend's key to be checked against.
// Throws groth16::KeyFileError: a cached file that is damaged or for another circuit,
// or too little room to write one.
PreparedKey prepare_key(const JobCircuit& circuit, const SetupOptions& setup, unsigned threads);

// Reads every point of a seeded key file against its digest, as a backend's load_key
// does: throws groth16::KeyFileError for a damaged file. For `zkbatch setup`, and for a
// backend's refusal of the key, so that a damaged file is reported as the file's fault
// (exit 4), not the backend's. A .zkey's points were checked when it was read.
void check_key_points(const PreparedKey& key);

}  // namespace zkbatch
