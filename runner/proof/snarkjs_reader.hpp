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
#include <string>
#include <string_view>
#include <vector>

namespace zkbatch {

// Each throws UsageError ("NAME: FIELD: what is wrong") for text that is not JSON, nests
// deeper than snarkjs's files do, or holds what is described above not. NAME is the file's
// name in messages.
groth16::VerifyingKey parse_snarkjs_verification_key(std::string_view text, const std::string& name);
groth16::Proof parse_snarkjs_proof(std::string_view text, const std::string& name);
// In Montgomery form, as groth16::verify takes them.
std::vector<ff::Fr> parse_snarkjs_public(std::string_view text, const std::string& name);

// The text of one of those files, at most 64 MiB; UsageError naming it when it cannot be
// read (or is not a regular file).
std::string read_snarkjs_file(const std::filesystem::path& path);

}  // namespace zkbatch
