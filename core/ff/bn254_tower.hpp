// BN254's tower over its base field Fq (bn254.hpp), fp2.hpp's templates over this
// description: Fq2 = Fq[u]/(u^2 + 1), Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v)
// with xi = 9 + u, the tower of EIP-197, snarkjs's ffjavascript, arkworks and noble, so
// GT values compare with theirs coefficient by coefficient (fp12.hpp gives the order).
// On a device Fq2's lazy product is field32.hpp's, as BLS12-381's.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fp12.hpp"

#include <cstdint>
#include <type_traits>

namespace zkbatch::ff::bn254 {

struct TowerDescription {
    using BaseField = Fq;
    static constexpr uint64_t kXiReal = 9;
    using DeviceFp2Product = DeviceFp2Product32<FqDescription>;
};

using Fq2 = tower::Fp2<TowerDescription>;
using Fq6 = tower::Fp6<TowerDescription>;
using Fq12 = tower::Fp12<TowerDescription>;

static_assert(sizeof(Fq2) == 64, "Fq2 is two Fq, c0 first (snarkjs's layout of G2 coordinates)");
static_assert(std::is_trivially_copyable_v<Fq2> && std::is_standard_layout_v<Fq2>);

}  // namespace zkbatch::ff::bn254
