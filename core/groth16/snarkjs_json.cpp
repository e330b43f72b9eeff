// snarkjs's JSON layout (core/groth16/snarkjs_json.hpp).
#include "core/groth16/snarkjs_json.hpp"

#include "core/pairing/pairing.hpp"

#include <algorithm>
#include <vector>

namespace zkbatch::groth16 {

namespace {

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

std::string fp(const ff::Fp& value) {
    uint64_t limbs[6];
    value.to_canonical(limbs);
    return quoted(decimal(limbs, 6));
}

std::string fp2(const ff::Fp2& value) { return "[" + fp(value.c0) + ", " + fp(value.c1) + "]"; }

// snarkjs writes infinity as the projective (0, 1, 0).
std::string g1(const ec::G1Affine& point) {
    if (point.is_infinity()) return R"(["0", "1", "0"])";
    return "[" + fp(point.x) + ", " + fp(point.y) + ", \"1\"]";
}

std::string g2(const ec::G2Affine& point) {
    if (point.is_infinity()) return R"([["0", "0"], ["1", "0"], ["0", "0"]])";
    return "[" + fp2(point.x) + ", " + fp2(point.y) + R"(, ["1", "0"]])";
}

}  // namespace

std::string decimal(const uint64_t* limbs, size_t count) {
    std::vector<uint64_t> value(limbs, limbs + count);
    std::string digits;
    constexpr uint64_t kChunk = 10'000'000'000'000'000'000ULL;  // 10^19, the largest power of 10 in 64 bits
    auto is_zero = [&value] { return std::all_of(value.begin(), value.end(), [](uint64_t limb) { return limb == 0; }); };
    __extension__ typedef unsigned __int128 uint128;
    do {
        uint128 remainder = 0;
        for (size_t i = value.size(); i-- > 0;) {
            const uint128 current = (remainder << 64) | value[i];
            value[i] = static_cast<uint64_t>(current / kChunk);
            remainder = current % kChunk;
        }
        auto chunk = static_cast<uint64_t>(remainder);
        for (int i = 0; i < 19; ++i) {
            digits.push_back(static_cast<char>('0' + chunk % 10));
            chunk /= 10;
        }
    } while (!is_zero());
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    std::reverse(digits.begin(), digits.end());
    return digits;
}

std::string proof_json(const Proof& proof) {
    return "{\n \"pi_a\": " + g1(proof.a) + ",\n \"pi_b\": " + g2(proof.b) + ",\n \"pi_c\": " + g1(proof.c) +
           ",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}\n";
}

std::string public_json(const ff::Fr* public_inputs, size_t count) {
    std::string json = "[";
    for (size_t i = 0; i < count; ++i) {
        uint64_t limbs[4];
        public_inputs[i].to_canonical(limbs);
        json += (i ? ",\n " : "\n ") + quoted(decimal(limbs, 4));
    }
    return json + (count ? "\n]\n" : "]\n");
}

std::string verification_key_json(const VerifyingKey& key) {
    const ff::Fp12 alpha_beta = pairing::pairing(key.alpha_g1, key.beta_g2);
    auto fp6 = [](const ff::Fp6& value) {
        return "[" + fp2(value.c0) + ", " + fp2(value.c1) + ", " + fp2(value.c2) + "]";
    };
    std::string ic;
    for (size_t i = 0; i < key.ic.size(); ++i) ic += (i ? ",\n  " : "\n  ") + g1(key.ic[i]);
    return "{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": " +
           std::to_string(key.num_public()) + ",\n \"vk_alpha_1\": " + g1(key.alpha_g1) +
           ",\n \"vk_beta_2\": " + g2(key.beta_g2) + ",\n \"vk_gamma_2\": " + g2(key.gamma_g2) +
           ",\n \"vk_delta_2\": " + g2(key.delta_g2) + ",\n \"vk_alphabeta_12\": [" + fp6(alpha_beta.c0) + ", " +
           fp6(alpha_beta.c1) + "],\n \"IC\": [" + ic + "\n ]\n}\n";
}

}  // namespace zkbatch::groth16
