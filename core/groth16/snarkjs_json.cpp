// snarkjs's JSON layout (core/groth16/snarkjs_json.hpp).
#include "core/groth16/snarkjs_json.hpp"

#include "core/pairing/bn254.hpp"
#include "core/pairing/pairing.hpp"

#include <algorithm>
#include <vector>

namespace zkbatch::groth16 {

namespace {

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

template <class Fq>
std::string fp(const Fq& value) {
    uint64_t limbs[Fq::kLimbs];
    value.to_canonical(limbs);
    return quoted(decimal(limbs, Fq::kLimbs));
}

template <class Fq2>
std::string fp2(const Fq2& value) {
    return "[" + fp(value.c0) + ", " + fp(value.c1) + "]";
}

// snarkjs writes infinity as the projective (0, 1, 0).
template <class G>
std::string g1(const ec::Affine<G>& point) {
    if (point.is_infinity()) return R"(["0", "1", "0"])";
    return "[" + fp(point.x) + ", " + fp(point.y) + ", \"1\"]";
}

template <class G>
std::string g2(const ec::Affine<G>& point) {
    if (point.is_infinity()) return R"([["0", "0"], ["1", "0"], ["0", "0"]])";
    return "[" + fp2(point.x) + ", " + fp2(point.y) + R"(, ["1", "0"]])";
}

template <class Curve>
std::string curve_name() {
    return std::string(curve::snarkjs_name(Curve::kId));
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

template <class Curve>
std::string proof_json(const generic::Proof<Curve>& proof) {
    return "{\n \"pi_a\": " + g1(proof.a) + ",\n \"pi_b\": " + g2(proof.b) + ",\n \"pi_c\": " + g1(proof.c) +
           ",\n \"protocol\": \"groth16\",\n \"curve\": \"" + curve_name<Curve>() + "\"\n}\n";
}

template <class Fr>
std::string public_json(const Fr* public_inputs, size_t count) {
    std::string json = "[";
    for (size_t i = 0; i < count; ++i) json += (i ? ",\n " : "\n ") + fp(public_inputs[i]);
    return json + (count ? "\n]\n" : "]\n");
}

template <class Curve>
std::string verification_key_json(const generic::VerifyingKey<Curve>& key) {
    const auto alpha_beta = pairing::pairing(key.alpha_g1, key.beta_g2);
    auto fp6 = [](const auto& value) {
        return "[" + fp2(value.c0) + ", " + fp2(value.c1) + ", " + fp2(value.c2) + "]";
    };
    std::string ic;
    for (size_t i = 0; i < key.ic.size(); ++i) ic += (i ? ",\n  " : "\n  ") + g1(key.ic[i]);
    return "{\n \"protocol\": \"groth16\",\n \"curve\": \"" + curve_name<Curve>() + "\",\n \"nPublic\": " +
           std::to_string(key.num_public()) + ",\n \"vk_alpha_1\": " + g1(key.alpha_g1) +
           ",\n \"vk_beta_2\": " + g2(key.beta_g2) + ",\n \"vk_gamma_2\": " + g2(key.gamma_g2) +
           ",\n \"vk_delta_2\": " + g2(key.delta_g2) + ",\n \"vk_alphabeta_12\": [" + fp6(alpha_beta.c0) + ", " +
           fp6(alpha_beta.c1) + "],\n \"IC\": [" + ic + "\n ]\n}\n";
}

#define ZKB_SNARKJS_JSON_INSTANTIATE(Curve)                                           \
    template std::string proof_json(const generic::Proof<Curve>&);                   \
    template std::string public_json(const typename Curve::Fr*, size_t);             \
    template std::string verification_key_json(const generic::VerifyingKey<Curve>&);
ZKB_SNARKJS_JSON_INSTANTIATE(curve::Bls12_381)
ZKB_SNARKJS_JSON_INSTANTIATE(curve::Bn254)
#undef ZKB_SNARKJS_JSON_INSTANTIATE

}  // namespace zkbatch::groth16
