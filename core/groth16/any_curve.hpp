// Values of either curve, for code that learns the curve at run time: the runner and the
// CLI read it from a .zkey's header, a run's record or a snarkjs JSON file, then visit
// the value to reach the templates of its curve.
#pragma once

#include "core/curve/curves.hpp"
#include "core/groth16/keys.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace zkbatch::groth16 {

using AnyVerifyingKey =
    std::variant<generic::VerifyingKey<curve::Bls12_381>, generic::VerifyingKey<curve::Bn254>>;

inline curve::CurveId curve_of(const AnyVerifyingKey& key) {
    return std::visit([](const auto& k) { return std::decay_t<decltype(k)>::Curve::kId; }, key);
}

inline uint64_t num_public(const AnyVerifyingKey& key) {
    return std::visit([](const auto& k) { return k.num_public(); }, key);
}

inline std::vector<uint8_t> verifying_key_bytes(const AnyVerifyingKey& key) {
    return std::visit([](const auto& k) { return verifying_key_bytes(k); }, key);
}

// verifying_key_from_bytes for a key of `curve`.
inline bool verifying_key_from_bytes(curve::CurveId curve, const uint8_t* bytes, size_t size, AnyVerifyingKey& key,
                                     std::string* why) {
    return curve::with_curve(curve, [&](auto c) {
        generic::VerifyingKey<decltype(c)> typed;
        if (!verifying_key_from_bytes(bytes, size, typed, why)) return false;
        key = std::move(typed);
        return true;
    });
}

}  // namespace zkbatch::groth16
