// The circuit a Groth16 job proves, and each partition's witness: a synthetic R1CS
// (circuit.kind = "synthetic": matrices from the circuit's seed, witnesses from the job
// seed) or a circom circuit's .zkey with one .wtns per partition (circuit.kind = "zkey"),
// over the curve the .zkey's header names. Synthesis of a partition writes z, a, b, c
// straight into the backend's buffers, as elements of the curve's Fr (32 bytes each on
// both curves, Montgomery form).
#pragma once

#include "proof/checked_zkeys.hpp"

#include "core/circuit/synthetic_r1cs.hpp"
#include "core/curve/curve_id.hpp"
#include "core/groth16/any_curve.hpp"
#include "core/groth16/keys.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace zkbatch {

// What a circuit read from a .zkey knows of the file.
struct ZkeyFile {
    std::filesystem::path path;
    uint64_t bytes = 0;
    std::string digest;             // bytes_digest of the file: what a resumed run compares
    bool checked_before = false;    // its points went unchecked: a run had checked these bytes (CheckedZkeys)
    groth16::AnyVerifyingKey vk;
};

class JobCircuit {
public:
    virtual ~JobCircuit() = default;

    virtual curve::CurveId curve() const = 0;

    virtual uint32_t log_n() const = 0;
    virtual uint64_t variables() const = 0;      // m: the witness length
    virtual uint64_t public_inputs() const = 0;  // l: z_1..z_l
    // What identifies the circuit (key files record it; a key for another is refused).
    virtual std::string description() const = 0;
    virtual groth16::HConvention h_convention() const = 0;
    // The partitions the circuit itself fixes (one per witness file), or 0 when any
    // number will do (a synthetic circuit draws witnesses from the job seed).
    virtual uint64_t fixed_partitions() const { return 0; }
    // What a partition proves, for the record ("" for a synthetic one; the witness file).
    virtual std::string partition_source(uint64_t /*partition_index*/) const { return ""; }

    // A synthetic circuit, whose key a seeded setup makes (proving_key.hpp); else null.
    virtual const circuit::SyntheticR1cs* synthetic_r1cs() const { return nullptr; }
    // A circuit that comes with its key (a .zkey from a ceremony); else null.
    virtual const ZkeyFile* zkey_file() const { return nullptr; }
    // Each witness file's digest (groth16::bytes_digest) as checked when the circuit was
    // made, in partition order; empty for a synthetic circuit. Synthesis refuses a file
    // that no longer has it, so what the run records is what it proved.
    virtual std::vector<std::string> witness_digests() const { return {}; }

    // z (variables() elements), a, b, c (2^log_n each): curve()'s Fr, Montgomery form.
    // Throws std::runtime_error (a groth16::ZkeyError for a bad witness file) naming the
    // cause.
    virtual void synthesize(uint64_t partition_index, void* z, void* a, void* b, void* c, unsigned threads) const = 0;
};

// circuit.kind = "synthetic".
std::unique_ptr<JobCircuit> synthetic_job_circuit(const circuit::R1csShape& shape, uint64_t job_seed);

// circuit.kind = "zkey": the .zkey (its curve from its header; read and checked here,
// every point on its curve and in its subgroup, on `threads` threads, unless `checked`
// has its bytes; a file checked here is added to it) and the witness files in partition
// order, each checked (groth16::check_wtns: over the key's Fr). Throws
// groth16::ZkeyError for a bad .zkey or witness file and std::invalid_argument for no
// witnesses.
std::unique_ptr<JobCircuit> zkey_job_circuit(const std::filesystem::path& zkey,
                                             std::vector<std::filesystem::path> witnesses, unsigned threads,
                                             const CheckedZkeys& checked);

}  // namespace zkbatch
