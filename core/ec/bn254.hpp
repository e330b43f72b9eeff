// BN254's two groups (snarkjs's and circom's bn128, Ethereum's alt_bn128): G1 on
// E(Fq): y^2 = x^3 + 3 and G2 on the D-type twist E'(Fq2): y^2 = x^3 + 3/xi, xi = 9 + u,
// both of prime order r (bn254::Fr), with the generators of EIP-197 (noble's, arkworks',
// snarkjs's): (1, 2) and a G2 point (bn254.cpp; ec::generator<C>() names either). The group
// law, scalar multiplication and batch conversion are point.hpp's, as for BLS12-381's
// curves (curve.hpp).
//
// E(Fq) has prime order r: every point on the curve is in G1. E'(Fq2) has order r h with
// h = 2p - r (254 bits), so a G2 point read from outside must be checked for the subgroup
// (is_in_subgroup), here through the twist's Frobenius endomorphism.
#pragma once

#include "core/ec/point.hpp"
#include "core/ec/twist.hpp"
#include "core/ff/bn254.hpp"
#include "core/ff/bn254_tower.hpp"

#include <cstdint>
#include <type_traits>

namespace zkbatch::ec::bn254 {

// A canonical constant in Montgomery form, at compile time.
template <class F>
ZKB_HOST_DEVICE constexpr F montgomery_constant(const ff::Limbs<F::kLimbs>& canonical) {
    return F::from_representation(ff::detail::times_power_of_two(canonical, 64 * F::kLimbs, F::modulus()));
}

struct G1Params {
    using Field = ff::bn254::Fq;
    using Scalar = ff::bn254::Fr;  // the group order's field
    ZKB_HOST_DEVICE static constexpr Field b() {
        constexpr Field kB = montgomery_constant<Field>({{3}});
        return kB;
    }
    static const Affine<G1Params>& generator();  // host only
};

struct G2Params {
    using Field = ff::bn254::Fq2;
    using Scalar = ff::bn254::Fr;
    static constexpr Twist kTwist = Twist::divisive;
    // 3 / (9 + u) = (27 - 3u) / 82.
    ZKB_HOST_DEVICE static constexpr Field b() {
        constexpr Field kB{
            montgomery_constant<ff::bn254::Fq>(
                {{0x3267e6dc24a138e5ULL, 0xb5b4c5e559dbefa3ULL, 0x81be18991be06ac3ULL, 0x2b149d40ceb8aaaeULL}}),
            montgomery_constant<ff::bn254::Fq>(
                {{0xe4a2bd0685c315d2ULL, 0xa74fa084e52d1852ULL, 0xcd2cafadeed8fdf4ULL, 0x009713b03af0fed4ULL}})};
        return kB;
    }
    static const Affine<G2Params>& generator();
};

using G1Affine = Affine<G1Params>;
using G2Affine = Affine<G2Params>;
using G1 = Jacobian<G1Params>;
using G2 = Jacobian<G2Params>;
using G1Xyzz = Xyzz<G1Params>;
using G2Xyzz = Xyzz<G2Params>;

static_assert(sizeof(G1Affine) == 64 && sizeof(G2Affine) == 128, "x then y, as a BN254 .zkey stores them");
static_assert(std::is_trivially_copyable_v<G1Affine> && std::is_trivially_copyable_v<G2Affine>);

// The BN parameter x (positive): p = 36x^4 + 36x^3 + 24x^2 + 6x + 1,
// r = 36x^4 + 36x^3 + 18x^2 + 6x + 1, trace t = 6x^2 + 1.
inline constexpr uint64_t kBnX = 4965661367192848881ULL;  // 0x44e992b44a6909f1

// ---- host only -----------------------------------------------------------------------

// psi = untwist^-1 o pi_p o untwist on E'(Fq2) (twist.hpp): on G2 multiplication by
// p = 6x^2 mod r.
G2Affine g2_endomorphism(const G2Affine& q);

// Whether a point on the curve is in the order-r subgroup. For G1 that is every point of
// the curve (cofactor 1); for G2, psi(Q) == [6x^2]Q (bn254.cpp says why that suffices).
// The point must be on the curve (is_on_curve); infinity is in the subgroup.
bool is_in_subgroup(const G1Affine& p);
bool is_in_subgroup(const G2Affine& q);

}  // namespace zkbatch::ec::bn254
