// snarkjs's Groth16 proving key (.zkey) and witness (.wtns) files for BLS12-381
// (docs/formats.md#snarkjs-files-zkey-and-wtns, read from snarkjs's src/zkey_utils.js,
// zkey_new.js and wtns_utils.js): a 4-byte magic, a version, sections of (u32 id, u64
// length, payload).
//
// A .zkey is mapped into memory, and its point sections become the proving key's
// queries as they lie: snarkjs stores affine points exactly as ec::Affine holds them
// (48-byte little-endian Montgomery coordinates, R = 2^384; zero bytes for infinity).
// Its coefficient section (A and B of every row; C = A * B) is what synthesis needs,
// and its H-query follows snarkjs's convention (HConvention::odd_coset, on snarkjs's
// roots of unity, ntt::Roots::snarkjs).
//
// Both readers refuse, before anything runs, whatever is not such a file: they name the
// file, the section and what is wrong (truncated, another curve, a point off the curve
// or outside the subgroup, a witness of another length or field, w[0] != 1, ...).
#pragma once

#include "core/ff/fr.hpp"
#include "core/groth16/keys.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch::groth16 {

struct ZkeyError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A term of the circuit's A or B matrix: row, signal, coefficient (Montgomery form).
struct ZkeyTerm {
    uint32_t row;
    uint32_t signal;
    ff::Fr coefficient;
};

// The R1CS as the .zkey keeps it, for synthesis: a_j = sum A_j w, b_j = sum B_j w,
// c_j = a_j b_j (snarkjs stores no C). Terms are sorted by row.
struct ZkeyCircuit {
    uint32_t log_n = 0;          // domainSize = 2^log_n rows
    uint64_t num_variables = 0;  // nVars: the witness length
    uint64_t num_public = 0;     // nPublic: outputs and inputs, w_1..w_nPublic
    std::vector<ZkeyTerm> a_terms, b_terms;

    // Writes a, b, c (2^log_n elements each, Montgomery form) for witness w (Montgomery,
    // num_variables elements). The same bits for every thread count.
    void synthesize(const ff::Fr* witness, ff::Fr* a, ff::Fr* b, ff::Fr* c, unsigned threads) const;
    // What identifies the circuit: its shape and a digest of its coefficient section.
    std::string description() const { return description_; }
    std::string description_;
};

// What a .zkey holds.
struct Zkey {
    ProvingKey key;        // spans over the mapped file; HConvention::odd_coset
    ZkeyCircuit circuit;
    uint64_t file_bytes = 0;
    std::string file_digest;  // XXH3-128 of the file's bytes (bytes_digest): what a resumed run compares
};

// What a .zkey's header says, read without its points (a run's plan needs the domain).
struct ZkeyHeader {
    uint32_t log_n = 0;
    uint64_t num_variables = 0, num_public = 0;
};
ZkeyHeader read_zkey_header(const std::filesystem::path& path);

// Reads and checks a .zkey: every section's presence and size, the curve, and (unless
// told the file was checked already) every point on its curve and in its subgroup, on
// `threads` threads. Throws ZkeyError.
Zkey read_zkey(const std::filesystem::path& path, unsigned threads, bool check_points = true);
// The same, asking `check_points` with the file's bytes whether to check its points (a
// caller that keeps a record of the files it checked before).
Zkey read_zkey(const std::filesystem::path& path, unsigned threads,
               const std::function<bool(std::span<const uint8_t> file)>& check_points);
// The same from bytes in memory; `name` is what messages call them, and `storage`
// keeps the bytes alive as long as the key's spans point into them.
Zkey parse_zkey(std::span<const uint8_t> bytes, const std::string& name, unsigned threads,
                std::shared_ptr<const void> storage, bool check_points = true);

// A .wtns's values for a circuit of `num_variables` variables, in Montgomery form, and
// in `digest` (when not null) the file's bytes_digest. Throws ZkeyError (naming the
// witness file).
std::vector<ff::Fr> read_wtns(const std::filesystem::path& path, uint64_t num_variables,
                              std::string* digest = nullptr);
std::vector<ff::Fr> parse_wtns(std::span<const uint8_t> bytes, const std::string& name, uint64_t num_variables);
// Everything read_wtns checks (the header, the sizes, w[0] = 1, every value below r),
// keeping none of the values: a job checks all its witness files this way before it
// runs, so a bad one is refused (exit 2) before any partition proves. Returns the
// file's bytes_digest, which the run records.
std::string check_wtns(const std::filesystem::path& path, uint64_t num_variables);

}  // namespace zkbatch::groth16
