// A Groth16 proof (A in G1, B in G2, C in G1) over a curve; groth16::Proof is
// BLS12-381's. As bytes (what a backend returns, plugin ABI v5, and the store keeps) it
// is the compressed encodings of A, B and C one after another (ec/encoding.hpp): 192
// bytes in Zcash's format for BLS12-381, 128 in gnark-crypto's for BN254
// (docs/formats.md#proof-bytes).
#pragma once

#include "core/curve/curves.hpp"
#include "core/ec/encoding.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace zkbatch::groth16 {

namespace generic {

template <class Curve>
struct Proof {
    curve::G1Affine<Curve> a;
    curve::G2Affine<Curve> b;
    curve::G1Affine<Curve> c;
};

}  // namespace generic

using Proof = generic::Proof<curve::Bls12_381>;

template <class Curve>
inline constexpr size_t kProofBytesOf =
    2 * ec::kCompressedBytes<typename Curve::G1Params> + ec::kCompressedBytes<typename Curve::G2Params>;
inline constexpr size_t kProofBytes = kProofBytesOf<curve::Bls12_381>;  // 192
// The longest of any curve: what a buffer for either holds.
inline constexpr size_t kMaxProofBytes = kProofBytes;
static_assert(kProofBytesOf<curve::Bn254> <= kMaxProofBytes);
constexpr size_t proof_bytes(curve::CurveId id) {
    return id == curve::CurveId::bn254 ? kProofBytesOf<curve::Bn254> : kProofBytesOf<curve::Bls12_381>;
}

// Writes kProofBytesOf<Curve> bytes.
template <class Curve>
void encode_proof(const generic::Proof<Curve>& proof, uint8_t* out);

// False, with the reason in *why (which point, what is wrong), when the kProofBytesOf<Curve>
// bytes are not three valid compressed points of the prime-order subgroups.
template <class Curve>
bool decode_proof(const uint8_t* bytes, generic::Proof<Curve>& proof, std::string* why);

}  // namespace zkbatch::groth16
