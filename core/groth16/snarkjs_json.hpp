// Proofs, public inputs and verifying keys in snarkjs's JSON layout, for curve
// "bls12381" or "bn128" (docs/formats.md#proof-exports), so `snarkjs groth16 verify` and every snarkjs-based
// verifier accept what zkbatch proves. Coordinates are decimal strings of the plain
// (canonical) values; affine points are written as projective ones with z = 1.
#pragma once

#include "core/ff/fr.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"

#include <cstddef>
#include <string>

namespace zkbatch::groth16 {

template <class Curve>
std::string proof_json(const generic::Proof<Curve>& proof);
// public_inputs: z_1..z_l in Montgomery form (either curve's Fr).
template <class Fr>
std::string public_json(const Fr* public_inputs, size_t count);
// Includes vk_alphabeta_12 = e(alpha, beta) (computed here: one pairing).
template <class Curve>
std::string verification_key_json(const generic::VerifyingKey<Curve>& key);

// A canonical little-endian integer of `count` 64-bit limbs in decimal.
std::string decimal(const uint64_t* limbs, size_t count);

}  // namespace zkbatch::groth16
