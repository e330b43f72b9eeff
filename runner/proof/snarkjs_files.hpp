// Proofs and verifying keys as files in snarkjs's JSON layout (groth16/snarkjs_json.hpp):
// what `zkbatch proofs --format snarkjs` exports and `--dump` writes beside h, so that
// `snarkjs groth16 verify verification_key.json pP.public.json pP.proof.json` checks them.
#pragma once

#include "core/curve/curve_id.hpp"
#include "core/groth16/any_curve.hpp"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace zkbatch {

// Writes PROOF_PATH and PUBLIC_PATH (snarkjs's proof.json and public.json) from the bytes
// of a proof over `curve` (groth16::proof_bytes) and its public inputs (32 canonical
// little-endian bytes each), each file whole or not at all. Throws std::runtime_error
// naming the file (and for bytes that are not a valid proof of the curve).
void write_snarkjs_proof_files(const std::filesystem::path& proof_path, const std::filesystem::path& public_path,
                               curve::CurveId curve, std::span<const uint8_t> proof,
                               std::span<const uint8_t> public_inputs);
// The same as DIR/STEM.proof.json and DIR/STEM.public.json.
void write_snarkjs_proof(const std::filesystem::path& dir, const std::string& stem, curve::CurveId curve,
                         std::span<const uint8_t> proof, std::span<const uint8_t> public_inputs);

// Writes DIR/verification_key.json.
void write_snarkjs_verification_key(const std::filesystem::path& dir, const groth16::AnyVerifyingKey& key);

}  // namespace zkbatch
