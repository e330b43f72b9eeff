// snarkjs's verification_key.json, proof.json and public.json read back (curve
// "bls12381"), for `zkbatch verify`: decimal coordinates below the field's modulus, points
// given as affine (z = 1) or as the point at infinity, on their curve and in their
// subgroup, public signals below r. Anything else is refused, naming the file and the
// field (snarkjs_files.hpp writes what these read).
#pragma once

#include "core/ff/fr.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"

#include <filesystem>
#include <vector>

namespace zkbatch {

// Each throws UsageError ("FILE: FIELD: what is wrong") for a file that cannot be read,
// is not JSON, or holds what is described above not.
groth16::VerifyingKey read_snarkjs_verification_key(const std::filesystem::path& path);
groth16::Proof read_snarkjs_proof(const std::filesystem::path& path);
// In Montgomery form, as groth16::verify takes them.
std::vector<ff::Fr> read_snarkjs_public(const std::filesystem::path& path);

}  // namespace zkbatch
