// BLS12-381 as a curve description (description.hpp): Fr and Fp (ff/fr.hpp, ff/fp.hpp),
// G1 and G2 with their subgroup checks (ec/curve.hpp), the optimal ate pairing
// (pairing/pairing.hpp). zkbatch's first curve: what every prover name without a curve
// (groth16::ProvingKey, ntt::Domain, ...) means.
#pragma once

#include "core/curve/description.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/fp.hpp"
#include "core/ff/fr.hpp"
#include "core/pairing/pairing.hpp"

#include <cstddef>

namespace zkbatch::curve {

struct Bls12_381 {
    static constexpr CurveId kId = CurveId::bls12_381;
    using Fr = ff::bls12_381::Fr;
    using Fq = ff::bls12_381::Fp;
    using G1Params = ec::G1Params;
    using G2Params = ec::G2Params;

    static bool is_in_subgroup(const ec::G1Affine& p) { return ec::is_in_subgroup(p); }
    static bool is_in_subgroup(const ec::G2Affine& q) { return ec::is_in_subgroup(q); }
    static bool pairing_product_is_one(const ec::G1Affine* p, const ec::G2Affine* q, size_t count) {
        return pairing::pairing_product_is_one(p, q, count);
    }
};

static_assert(Description<Bls12_381>);

}  // namespace zkbatch::curve
