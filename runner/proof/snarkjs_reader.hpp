// snarkjs's verification_key.json, proof.json and public.json read back (curve "bn128" or
// "bls12381"; templates over the curve, BLS12-381's by default), for `zkbatch verify`: decimal coordinates below the field's modulus, points
// given as affine (z = 1) or as the point at infinity, on their curve and in their
// subgroup, public signals below r. Anything else is refused, naming the file and the
// field (snarkjs_files.hpp writes what these read).
#pragma once

#include "core/curve/curves.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkbatch {

// Each throws UsageError ("NAME: FIELD: what is wrong") for text that is not JSON, nests
// deeper than snarkjs's files do, or holds what is described above not. NAME is the file's
// name in messages.
// The curve the file's "curve" names; nullopt when it names none (refused when it names
// another).
std::optional<curve::CurveId> snarkjs_curve(std::string_view text, const std::string& name);
template <class Curve = curve::Bls12_381>
groth16::generic::VerifyingKey<Curve> parse_snarkjs_verification_key(std::string_view text, const std::string& name);
template <class Curve = curve::Bls12_381>
groth16::generic::Proof<Curve> parse_snarkjs_proof(std::string_view text, const std::string& name);
// In Montgomery form, as groth16::verify takes them.
template <class Fr = ff::Fr>
std::vector<Fr> parse_snarkjs_public(std::string_view text, const std::string& name);

// The text of one of those files, at most 64 MiB; UsageError naming it when it cannot be
// read (or is not a regular file).
std::string read_snarkjs_file(const std::filesystem::path& path);

}  // namespace zkbatch
