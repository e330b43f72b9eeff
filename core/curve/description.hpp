// What a curve description is: the one parameter of every proving layer above the
// pairing (msm, groth16; ntt and quotient take its scalar field alone), as arkworks'
// `Pairing` trait is for its proof systems. bls12_381.hpp and bn254.hpp are the two
// instances; docs/architecture.md#the-curve-description says what a third one costs.
//
//   struct Curve {
//       static constexpr CurveId kId;       // its name, run-time dispatch (curve_id.hpp)
//       using Fr = ...;                     // the scalar field: an FFT field (ff/)
//       using Fq = ...;                     // the base field of G1's coordinates
//       using G1Params = ...;               // ec/ parameter structs of the two groups,
//       using G2Params = ...;               // both of order |Fr|
//       static bool is_in_subgroup(const ec::Affine<G1Params>&);    // and for G2: the check
//       static bool pairing_product_is_one(const ec::Affine<G1Params>*,
//                                          const ec::Affine<G2Params>*, size_t count);
//   };
//
// The description gathers what ff/, ec/ and pairing/ define; it adds no arithmetic.
#pragma once

#include "core/curve/curve_id.hpp"
#include "core/ec/point.hpp"

#include <concepts>
#include <cstddef>

namespace zkbatch::curve {

template <class C>
concept Description = requires(const ec::Affine<typename C::G1Params>& p, const ec::Affine<typename C::G2Params>& q) {
    { C::kId } -> std::convertible_to<CurveId>;
    requires C::Fr::kHasDomains;
    requires std::same_as<typename C::G1Params::Field, typename C::Fq>;
    requires std::same_as<typename C::G1Params::Scalar, typename C::Fr>;
    requires std::same_as<typename C::G2Params::Scalar, typename C::Fr>;
    { C::is_in_subgroup(p) } -> std::same_as<bool>;
    { C::is_in_subgroup(q) } -> std::same_as<bool>;
    { C::pairing_product_is_one(&p, &q, size_t{1}) } -> std::same_as<bool>;
};

// A curve's points by group: affine for storage, Jacobian for arithmetic (ec/point.hpp).
template <class C>
using G1Affine = ec::Affine<typename C::G1Params>;
template <class C>
using G2Affine = ec::Affine<typename C::G2Params>;
template <class C>
using G1 = ec::Jacobian<typename C::G1Params>;
template <class C>
using G2 = ec::Jacobian<typename C::G2Params>;

}  // namespace zkbatch::curve
