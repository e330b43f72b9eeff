// A Groth16 proof (A in G1, B in G2, C in G1) and its 192 bytes: the compressed Zcash
// encodings of A, B and C, one after another, as a backend returns it (plugin ABI v5)
// and the store keeps it.
#pragma once

#include "core/ec/curve.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace zkbatch::groth16 {

struct Proof {
    ec::G1Affine a;
    ec::G2Affine b;
    ec::G1Affine c;
};

inline constexpr size_t kProofBytes = 48 + 96 + 48;

void encode_proof(const Proof& proof, uint8_t* out192);

// False, with the reason in *why (which point, what is wrong), when the bytes are not
// three valid compressed points of the prime-order subgroups.
bool decode_proof(const uint8_t* bytes192, Proof& proof, std::string* why);

}  // namespace zkbatch::groth16
