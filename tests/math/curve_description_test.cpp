// The curve descriptions (core/curve/): names both ways, run-time dispatch to the right
// description, and that each gathers its own curve's fields, groups and pairing.
#include "core/curve/curves.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace zkbatch {
namespace {

using curve::CurveId;

TEST(CurveDescription, NamesRoundTrip) {
    EXPECT_EQ(curve::name(CurveId::bls12_381), "bls12-381");
    EXPECT_EQ(curve::name(CurveId::bn254), "bn254");
    EXPECT_EQ(curve::snarkjs_name(CurveId::bls12_381), "bls12381");
    EXPECT_EQ(curve::snarkjs_name(CurveId::bn254), "bn128");
    for (const CurveId id : {CurveId::bls12_381, CurveId::bn254}) {
        EXPECT_EQ(curve::curve_from_name(curve::name(id)), id);
        EXPECT_EQ(curve::curve_from_name(curve::snarkjs_name(id)), id);
    }
    for (const char* text : {"", "BN254", "bls12_381", "bn256", "alt_bn128 "}) {
        EXPECT_FALSE(curve::curve_from_name(text).has_value()) << text;
    }
    // The numbers key files and the plugin ABI carry: 1 and 2, nothing else.
    EXPECT_EQ(curve::curve_from_id(1), CurveId::bls12_381);
    EXPECT_EQ(curve::curve_from_id(2), CurveId::bn254);
    for (const uint32_t value : {0u, 3u, 255u, 257u}) EXPECT_FALSE(curve::curve_from_id(value).has_value()) << value;
}

TEST(CurveDescription, DispatchReachesTheDescriptionOfTheId) {
    for (const CurveId id : {CurveId::bls12_381, CurveId::bn254}) {
        const CurveId reached = curve::with_curve(id, [](auto description) { return decltype(description)::kId; });
        EXPECT_EQ(reached, id);
    }
    const size_t scalar_bits = curve::with_curve(CurveId::bn254, [](auto description) {
        return size_t{decltype(description)::Fr::kModulusBits};
    });
    EXPECT_EQ(scalar_bits, 254u);
    EXPECT_THROW(curve::with_curve(static_cast<CurveId>(0), [](auto) { return 0; }), std::invalid_argument);
}

TEST(CurveDescription, EachGathersItsOwnCurve) {
    static_assert(std::is_same_v<curve::Bls12_381::Fr, ff::Fr>);
    static_assert(std::is_same_v<curve::Bls12_381::G1Params, ec::G1Params>);
    static_assert(std::is_same_v<curve::Bn254::Fq, ff::bn254::Fq>);
    static_assert(std::is_same_v<curve::Bn254::G2Params, ec::bn254::G2Params>);
    // e(P, Q) e(-P, Q) = 1 through each description's own pairing; e(P, Q) alone is not 1.
    auto check = [](auto description) {
        using C = decltype(description);
        const curve::G1Affine<C> p[2] = {ec::generator<typename C::G1Params>(), -ec::generator<typename C::G1Params>()};
        const curve::G2Affine<C> q[2] = {ec::generator<typename C::G2Params>(), ec::generator<typename C::G2Params>()};
        EXPECT_TRUE(C::pairing_product_is_one(p, q, 2)) << curve::name(C::kId);
        EXPECT_FALSE(C::pairing_product_is_one(p, q, 1)) << curve::name(C::kId);
        EXPECT_TRUE(C::is_in_subgroup(p[0]) && C::is_in_subgroup(q[0])) << curve::name(C::kId);
    };
    check(curve::Bls12_381{});
    check(curve::Bn254{});
}

}  // namespace
}  // namespace zkbatch
