// Groth16 keys over a curve (docs/architecture.md#the-groth16-key), written once over its
// description (core/curve/description.hpp); groth16::ProvingKey and VerifyingKey are
// BLS12-381's.
//
// The proving key's queries are spans over storage the key owns (a key file mapped
// into memory, a .zkey, or vectors a setup just filled): a 2^27 key is some 77 GB, so
// the points are never copied after they are read. Points are affine in the layout of
// snarkjs's .zkey files (ec::Affine: x then y, little-endian Montgomery coordinates of
// 48 bytes for BLS12-381, 32 for BN254, (0, 0) for infinity), which is also how
// zkbatch's key files store them.
#pragma once

#include "core/curve/bls12_381.hpp"
#include "core/curve/bn254.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace zkbatch::groth16 {

// Which polynomial the H-query is the basis for; fixed by whoever made the key.
enum class HConvention : uint32_t {
    // bellman's: H_j = [tau^j Z(tau) / delta]1 for j = 0..n-2, against the n-1 low
    // coefficients of h = (A B - C) / Z (the 7-NTT quotient).
    coefficients = 1,
    // snarkjs's: H_j = [L^(2n)_(2j+1)(tau) / delta]1 for j = 0..n-1, against a B - C
    // evaluated on the odd points of the size-2n domain (no final inverse NTT).
    odd_coset = 2,
};
const char* to_string(HConvention convention);  // "coefficients", "odd_coset"

namespace generic {

// What a verifier needs: [alpha]1, [beta]2, [gamma]2, [delta]2 and one IC point per
// public input and the constant (IC_i = [(beta u_i + alpha v_i + w_i)(tau) / gamma]1).
template <class CurveDescription>
struct VerifyingKey {
    using Curve = CurveDescription;
    curve::G1Affine<Curve> alpha_g1;
    curve::G2Affine<Curve> beta_g2;
    curve::G2Affine<Curve> gamma_g2;
    curve::G2Affine<Curve> delta_g2;
    std::vector<curve::G1Affine<Curve>> ic;  // num_public + 1 points
    uint64_t num_public() const { return ic.empty() ? 0 : ic.size() - 1; }
};

// Everything a prover needs, for a circuit of num_variables variables (z_0 = 1, the
// public inputs z_1..z_l, then the private ones) and a domain of 2^log_n rows.
template <class Curve>
struct ProvingKey {
    using G1Affine = curve::G1Affine<Curve>;
    using G2Affine = curve::G2Affine<Curve>;

    uint32_t log_n = 0;
    uint64_t num_variables = 0;  // m
    uint64_t num_public = 0;     // l
    HConvention h_convention = HConvention::coefficients;
    VerifyingKey<Curve> vk;                // alpha_g1, beta_g2 and delta_g2 serve the prover too
    G1Affine beta_g1, delta_g1;
    std::span<const G1Affine> a_query;     // [u_i(tau)]1, m points
    std::span<const G1Affine> b_g1_query;  // [v_i(tau)]1, m points
    std::span<const G2Affine> b_g2_query;  // [v_i(tau)]2, m points
    std::span<const G1Affine> l_query;     // private i: [(beta u_i + alpha v_i + w_i)(tau) / delta]1
    std::span<const G1Affine> h_query;     // n - 1 or n points (h_convention)
    std::shared_ptr<const void> storage;   // keeps the spans' memory alive

    uint64_t private_variables() const { return num_variables - num_public - 1; }
    // The number of H-query points the convention calls for.
    uint64_t h_points() const {
        const uint64_t n = uint64_t{1} << log_n;
        return h_convention == HConvention::coefficients ? n - 1 : n;
    }
    // Bytes of point data the spans cover (what "key bytes" reports).
    uint64_t point_bytes() const;
    // Throws std::invalid_argument when the spans' sizes do not match m, l and n, or
    // log_n is outside the domains of the curve's Fr for the key's H convention.
    void check_sizes() const;
};

}  // namespace generic

// BLS12-381's keys: the prover's until it takes a curve.
using VerifyingKey = generic::VerifyingKey<curve::Bls12_381>;
using ProvingKey = generic::ProvingKey<curve::Bls12_381>;

// A verifying key as bytes: [alpha]1 [beta]2 [gamma]2 [delta]2, then IC, each point as
// ec::Affine lays it out (what the store keeps with a run, so an export needs no key).
template <class Curve>
std::vector<uint8_t> verifying_key_bytes(const generic::VerifyingKey<Curve>& key);
// The inverse; false, with the reason in *why, for bytes of the wrong length, points
// off their curves or outside the subgroup, or a fixed point at infinity.
template <class Curve>
bool verifying_key_from_bytes(const uint8_t* bytes, size_t size, generic::VerifyingKey<Curve>& key, std::string* why);

// The name of the first of the key's fixed points ("[alpha]1", "[beta]2", "[gamma]2",
// "[delta]2"; a proving key's "[beta]1" and "[delta]1" too) that is the point at
// infinity, or nullptr. No ceremony makes one (each is a generator times a secret that
// is not zero), and with one of them at infinity the pairing equation accepts forged
// proofs or none, so every reader of a key refuses it.
template <class Curve>
const char* fixed_point_at_infinity(const generic::VerifyingKey<Curve>& key);
template <class Curve>
const char* fixed_point_at_infinity(const generic::ProvingKey<Curve>& key);

extern template struct generic::ProvingKey<curve::Bls12_381>;
extern template struct generic::ProvingKey<curve::Bn254>;

}  // namespace zkbatch::groth16
