// A Groth16 proof (A in G1, B in G2, C in G1) over a curve; groth16::Proof is
// BLS12-381's. Its 192 bytes are BLS12-381's alone: the compressed Zcash encodings of
// A, B and C, one after another, as a backend returns it (plugin ABI v5) and the store
// keeps it. BN254 has no standard compressed encoding (snarkjs writes decimal JSON).
#pragma once

#include "core/curve/bls12_381.hpp"
#include "core/curve/bn254.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace zkbatch::groth16 {

namespace generic {

template <class Curve>
struct Proof {
    curve::G1Affine<Curve> a;
    curve::G2Affine<Curve> b;
    curve::G1Affine<Curve> c;
};

}  // namespace generic

using Proof = generic::Proof<curve::Bls12_381>;

inline constexpr size_t kProofBytes = 48 + 96 + 48;

void encode_proof(const Proof& proof, uint8_t* out192);

// False, with the reason in *why (which point, what is wrong), when the bytes are not
// three valid compressed points of the prime-order subgroups.
bool decode_proof(const uint8_t* bytes192, Proof& proof, std::string* why);

}  // namespace zkbatch::groth16
