// BN254 (snarkjs's "bn128") as a curve description (description.hpp): Fr and Fq
// (ff/bn254.hpp), G1 and G2 with their subgroup checks (ec/bn254.hpp), the optimal ate
// pairing (pairing/bn254.hpp).
#pragma once

#include "core/curve/description.hpp"
#include "core/ec/bn254.hpp"
#include "core/ff/bn254.hpp"
#include "core/pairing/bn254.hpp"

#include <cstddef>

namespace zkbatch::curve {

struct Bn254 {
    static constexpr CurveId kId = CurveId::bn254;
    using Fr = ff::bn254::Fr;
    using Fq = ff::bn254::Fq;
    using G1Params = ec::bn254::G1Params;
    using G2Params = ec::bn254::G2Params;

    static bool is_in_subgroup(const ec::bn254::G1Affine& p) { return ec::bn254::is_in_subgroup(p); }
    static bool is_in_subgroup(const ec::bn254::G2Affine& q) { return ec::bn254::is_in_subgroup(q); }
    static bool pairing_product_is_one(const ec::bn254::G1Affine* p, const ec::bn254::G2Affine* q, size_t count) {
        return pairing::pairing_product_is_one(p, q, count);
    }
};

static_assert(Description<Bn254>);

}  // namespace zkbatch::curve
