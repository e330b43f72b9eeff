// The Groth16 verifier: e(A, B) = e([alpha]1, [beta]2) e(sum_i x_i IC_i, [gamma]2) e(C, [delta]2),
// checked as one product of four Miller loops and one final exponentiation. Written over
// a curve description (its pairing-product check), instantiated in verifier.cpp for
// BLS12-381 and BN254.
#pragma once

#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"

#include <cstddef>
#include <string>

namespace zkbatch::groth16 {

struct VerifyResult {
    bool ok = false;
    std::string detail;  // why not, when !ok
};

// public_inputs: z_1..z_l (Montgomery form, as synthesis writes them); their count must
// be the key's num_public().
template <class Curve>
VerifyResult verify(const generic::VerifyingKey<Curve>& key, const generic::Proof<Curve>& proof,
                    const typename Curve::Fr* public_inputs, size_t count);

// The same, from a proof's kProofBytesOf<Curve> bytes (decoding and checking its points
// first).
template <class Curve>
VerifyResult verify_encoded(const generic::VerifyingKey<Curve>& key, const uint8_t* proof_bytes,
                            const typename Curve::Fr* public_inputs, size_t count);

}  // namespace zkbatch::groth16
