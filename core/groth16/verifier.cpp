// The Groth16 verifier (core/groth16/verifier.hpp).
#include "core/groth16/verifier.hpp"

#include <string>

namespace zkbatch::groth16 {

template <class Curve>
VerifyResult verify(const generic::VerifyingKey<Curve>& key, const generic::Proof<Curve>& proof,
                    const typename Curve::Fr* public_inputs, size_t count) {
    using G1 = curve::G1<Curve>;
    if (count != key.num_public())
        return {false, std::to_string(count) + " public inputs given, the verifying key has " +
                           std::to_string(key.num_public())};
    G1 inputs = G1::from_affine(key.ic[0]);
    for (size_t i = 0; i < count; ++i)
        inputs = ec::add(inputs, ec::scalar_mul(G1::from_affine(key.ic[i + 1]), public_inputs[i]));
    // e(-A, B) e(alpha, beta) e(inputs, gamma) e(C, delta) = 1
    const curve::G1Affine<Curve> g1[4] = {-proof.a, key.alpha_g1, inputs.to_affine(), proof.c};
    const curve::G2Affine<Curve> g2[4] = {proof.b, key.beta_g2, key.gamma_g2, key.delta_g2};
    if (Curve::pairing_product_is_one(g1, g2, 4)) return {true, ""};
    return {false, "the pairing equation e(A, B) = e(alpha, beta) e(IC(x), gamma) e(C, delta) does not hold"};
}

template <class Curve>
VerifyResult verify_encoded(const generic::VerifyingKey<Curve>& key, const uint8_t* proof_bytes,
                            const typename Curve::Fr* public_inputs, size_t count) {
    generic::Proof<Curve> proof;
    std::string why;
    if (!decode_proof(proof_bytes, proof, &why)) return {false, why};
    return verify(key, proof, public_inputs, count);
}

#define ZKB_VERIFIER_INSTANTIATE(Curve)                                                                    \
    template VerifyResult verify(const generic::VerifyingKey<Curve>&, const generic::Proof<Curve>&,       \
                                 const typename Curve::Fr*, size_t);                                      \
    template VerifyResult verify_encoded(const generic::VerifyingKey<Curve>&, const uint8_t*,             \
                                         const typename Curve::Fr*, size_t);
ZKB_VERIFIER_INSTANTIATE(curve::Bls12_381)
ZKB_VERIFIER_INSTANTIATE(curve::Bn254)
#undef ZKB_VERIFIER_INSTANTIATE

}  // namespace zkbatch::groth16
