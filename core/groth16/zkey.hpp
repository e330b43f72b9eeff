// snarkjs's Groth16 proving key (.zkey) and witness (.wtns) files, for BLS12-381 and
// BN254 (docs/formats.md#snarkjs-files-zkey-and-wtns, read from snarkjs's
// src/zkey_utils.js, zkey_new.js and wtns_utils.js): a 4-byte magic, a version, sections
// of (u32 id, u64 length, payload). The curve is the one whose primes the header holds
// (read_zkey_header); the readers are templates over its description, BLS12-381's by
// default.
//
// A .zkey is mapped into memory, and its point sections become the proving key's
// queries as they lie: snarkjs stores affine points exactly as ec::Affine holds them
// (little-endian Montgomery coordinates of 48 bytes for BLS12-381, 32 for BN254; zero
// bytes for infinity).
// Its coefficient section (A and B of every row; C = A * B) is what synthesis needs,
// and its H-query follows snarkjs's convention (HConvention::odd_coset, on snarkjs's
// roots of unity, ntt::Roots::snarkjs).
//
// Both readers refuse, before anything runs, whatever is not such a file: they name the
// file, the section and what is wrong (truncated, another curve, a point off the curve
// or outside the subgroup, a witness of another length or field, w[0] != 1, ...).
#pragma once

#include "core/curve/curves.hpp"
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

namespace generic {

// A term of the circuit's A or B matrix: row, signal, coefficient (Montgomery form).
template <class Fr>
struct ZkeyTerm {
    uint32_t row;
    uint32_t signal;
    Fr coefficient;
};

// The R1CS as the .zkey keeps it, for synthesis: a_j = sum A_j w, b_j = sum B_j w,
// c_j = a_j b_j (snarkjs stores no C). Terms are sorted by row.
template <class Curve>
struct ZkeyCircuit {
    using Fr = typename Curve::Fr;
    uint32_t log_n = 0;          // domainSize = 2^log_n rows
    uint64_t num_variables = 0;  // nVars: the witness length
    uint64_t num_public = 0;     // nPublic: outputs and inputs, w_1..w_nPublic
    std::vector<ZkeyTerm<Fr>> a_terms, b_terms;

    // Writes a, b, c (2^log_n elements each, Montgomery form) for witness w (Montgomery,
    // num_variables elements). The same bits for every thread count.
    void synthesize(const Fr* witness, Fr* a, Fr* b, Fr* c, unsigned threads) const;
    // What identifies the circuit: its shape and a digest of its coefficient section
    // (and, for a curve other than BLS12-381, the curve).
    std::string description() const { return description_; }
    std::string description_;
};

// What a .zkey holds.
template <class Curve>
struct Zkey {
    ProvingKey<Curve> key;   // spans over the mapped file; HConvention::odd_coset
    ZkeyCircuit<Curve> circuit;
    uint64_t file_bytes = 0;
    std::string file_digest;  // XXH3-128 of the file's bytes (bytes_digest): what a resumed run compares
};

}  // namespace generic

using ZkeyTerm = generic::ZkeyTerm<ff::Fr>;
using ZkeyCircuit = generic::ZkeyCircuit<curve::Bls12_381>;
using Zkey = generic::Zkey<curve::Bls12_381>;

// What a .zkey's header says, read without its points (a run's plan needs the domain).
struct ZkeyHeader {
    curve::CurveId curve = curve::CurveId::bls12_381;  // from its primes q and r
    uint32_t log_n = 0;
    uint64_t num_variables = 0, num_public = 0;
};
// Throws ZkeyError for what is not a Groth16 .zkey of either curve.
ZkeyHeader read_zkey_header(const std::filesystem::path& path);
ZkeyHeader parse_zkey_header(std::span<const uint8_t> bytes, const std::string& name);

// Reads and checks a .zkey of Curve: every section's presence and size, the curve, and
// (unless told the file was checked already) every point on its curve and in its
// subgroup, on `threads` threads. Throws ZkeyError (a file of the other curve too).
template <class Curve = curve::Bls12_381>
generic::Zkey<Curve> read_zkey(const std::filesystem::path& path, unsigned threads, bool check_points = true);
// The same, asking `check_points` with the file's bytes whether to check its points (a
// caller that keeps a record of the files it checked before).
template <class Curve = curve::Bls12_381>
generic::Zkey<Curve> read_zkey(const std::filesystem::path& path, unsigned threads,
                               const std::function<bool(std::span<const uint8_t> file)>& check_points);
// The same from bytes in memory; `name` is what messages call them, and `storage`
// keeps the bytes alive as long as the key's spans point into them.
template <class Curve = curve::Bls12_381>
generic::Zkey<Curve> parse_zkey(std::span<const uint8_t> bytes, const std::string& name, unsigned threads,
                                std::shared_ptr<const void> storage, bool check_points = true);

// A .wtns's values over Fr (a curve's scalar field) for a circuit of `num_variables`
// variables, in Montgomery form, and in `digest` (when not null) the file's
// bytes_digest. Throws ZkeyError (naming the witness file; a witness over another
// field too).
template <class Fr = ff::Fr>
std::vector<Fr> read_wtns(const std::filesystem::path& path, uint64_t num_variables, std::string* digest = nullptr);
template <class Fr = ff::Fr>
std::vector<Fr> parse_wtns(std::span<const uint8_t> bytes, const std::string& name, uint64_t num_variables);
// Everything read_wtns checks (the header, the sizes, w[0] = 1, every value below r),
// keeping none of the values: a job checks all its witness files this way before it
// runs, so a bad one is refused (exit 2) before any partition proves. Returns the
// file's bytes_digest, which the run records.
template <class Fr = ff::Fr>
std::string check_wtns(const std::filesystem::path& path, uint64_t num_variables);

}  // namespace zkbatch::groth16
