// Which curve a key, a proof or a job is over, as a value: what files, manifests and
// messages name, and what run-time code dispatches on (curves.hpp's with_curve). The
// types that do the arithmetic are the descriptions (description.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zkbatch::curve {

enum class CurveId : uint8_t {
    bls12_381 = 1,
    bn254 = 2,
};
inline constexpr CurveId kCurveIds[] = {CurveId::bls12_381, CurveId::bn254};

// zkbatch's stable name: "bls12-381", "bn254" (manifests, databases, messages).
constexpr std::string_view name(CurveId id) {
    switch (id) {
        case CurveId::bls12_381: return "bls12-381";
        case CurveId::bn254: return "bn254";
    }
    return "unknown";
}

// snarkjs's name for it, the "curve" of its JSON files: "bls12381", "bn128".
constexpr std::string_view snarkjs_name(CurveId id) {
    switch (id) {
        case CurveId::bls12_381: return "bls12381";
        case CurveId::bn254: return "bn128";
    }
    return "unknown";
}

// The curve that either of its names names; nullopt for any other text.
constexpr std::optional<CurveId> curve_from_name(std::string_view text) {
    for (const CurveId id : kCurveIds) {
        if (text == name(id) || text == snarkjs_name(id)) return id;
    }
    return std::nullopt;
}

// The curve whose CurveId value is `value` (a key file's header, the plugin ABI's
// ZKB_CURVE_*); nullopt for any other number.
constexpr std::optional<CurveId> curve_from_id(uint32_t value) {
    for (const CurveId id : kCurveIds) {
        if (value == static_cast<uint32_t>(id)) return id;
    }
    return std::nullopt;
}

}  // namespace zkbatch::curve
