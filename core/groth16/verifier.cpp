// The Groth16 verifier (core/groth16/verifier.hpp).
#include "core/groth16/verifier.hpp"

#include "core/pairing/pairing.hpp"

#include <string>

namespace zkbatch::groth16 {

VerifyResult verify(const VerifyingKey& key, const Proof& proof, const ff::Fr* public_inputs, size_t count) {
    if (count != key.num_public())
        return {false, std::to_string(count) + " public inputs given, the verifying key has " +
                           std::to_string(key.num_public())};
    ec::G1 inputs = ec::G1::from_affine(key.ic[0]);
    for (size_t i = 0; i < count; ++i)
        inputs = ec::add(inputs, ec::scalar_mul(ec::G1::from_affine(key.ic[i + 1]), public_inputs[i]));
    // e(-A, B) e(alpha, beta) e(inputs, gamma) e(C, delta) = 1
    const ec::G1Affine g1[4] = {-proof.a, key.alpha_g1, inputs.to_affine(), proof.c};
    const ec::G2Affine g2[4] = {proof.b, key.beta_g2, key.gamma_g2, key.delta_g2};
    if (pairing::pairing_product_is_one(g1, g2, 4)) return {true, ""};
    return {false, "the pairing equation e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta) does not hold"};
}

VerifyResult verify_encoded(const VerifyingKey& key, const uint8_t* proof_bytes, const ff::Fr* public_inputs,
                            size_t count) {
    Proof proof;
    std::string why;
    if (!decode_proof(proof_bytes, proof, &why)) return {false, why};
    return verify(key, proof, public_inputs, count);
}

}  // namespace zkbatch::groth16
