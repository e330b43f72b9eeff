// Point encodings, written once for both curves' groups. A coordinate is big-endian: one
// base-field element (G1) or two, c1 first (G2); compressed is x alone, uncompressed x
// then y. The spare top bits of the first byte carry flags, in one of two formats:
//
//   BLS12-381 (381-bit p, three spare bits): Zcash's serialization (also blst's,
//   bellman's, arkworks', the IETF pairing-friendly-curves draft's and noble's).
//   0x80 compressed, 0x40 point at infinity (every other bit zero), 0x20 (compressed
//   only) y is the lexicographically larger root. G1 48/96 bytes, G2 96/192.
//
//   BN254 (254-bit p, two spare bits): gnark-crypto's. Compressed: 0x80 y is the
//   smaller root, 0xc0 the larger, 0x40 infinity (every other bit zero); uncompressed:
//   0x00, or 0x40 for infinity. G1 32/64 bytes, G2 64/128. BN254 has no Zcash-like
//   standard (snarkjs writes decimal JSON); gnark's is the one its Go and Solidity
//   tooling reads.
//
// "Larger" is Fp::/Fp2::is_lexicographically_largest in both. Decoders accept exactly
// the bytes the encoders produce: anything else is refused with a reason, and a decoded
// point is on the curve and (unless the caller opts out, e.g. for a trusted key it
// checks in bulk later) in the order-r subgroup.
#pragma once

#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"

#include <cstddef>
#include <cstdint>

namespace zkbatch::ec {

inline constexpr size_t kG1CompressedBytes = 48;
inline constexpr size_t kG1UncompressedBytes = 96;
inline constexpr size_t kG2CompressedBytes = 96;
inline constexpr size_t kG2UncompressedBytes = 192;

enum class DecodeError {
    ok,
    wrong_length,     // not 48/96/192 bytes as the format requires
    bad_flags,        // compression flag wrong for this format, or a sign flag on uncompressed bytes
    bad_infinity,     // infinity flag with the sign flag or any other bit set
    not_canonical,    // a coordinate (either half of an Fp2 one) is >= p
    not_on_curve,     // x^3 + b has no square root, or (x, y) is off the curve
    not_in_subgroup,  // on the curve but not in the order-r subgroup
};

// One sentence a user can act on.
const char* describe(DecodeError error);

// The encodings of any group of either curve (G = its parameters: ec::G1Params,
// ec::bn254::G2Params, ...), instantiated in encoding.cpp for the four groups.
template <class G>
inline constexpr size_t kCompressedBytes = sizeof(typename G::Field);
template <class G>
void to_compressed(const Affine<G>& p, uint8_t* out);
template <class G>
void to_uncompressed(const Affine<G>& p, uint8_t* out);
template <class G>
DecodeError from_compressed(const uint8_t* bytes, size_t length, Affine<G>& out, bool check_subgroup = true);
template <class G>
DecodeError from_uncompressed(const uint8_t* bytes, size_t length, Affine<G>& out, bool check_subgroup = true);

// BLS12-381's, by name.

void g1_to_compressed(const G1Affine& p, uint8_t* out48);
void g1_to_uncompressed(const G1Affine& p, uint8_t* out96);
void g2_to_compressed(const G2Affine& p, uint8_t* out96);
void g2_to_uncompressed(const G2Affine& p, uint8_t* out192);

// `out` is written only when the result is ok.
DecodeError g1_from_compressed(const uint8_t* bytes, size_t length, G1Affine& out, bool check_subgroup = true);
DecodeError g1_from_uncompressed(const uint8_t* bytes, size_t length, G1Affine& out, bool check_subgroup = true);
DecodeError g2_from_compressed(const uint8_t* bytes, size_t length, G2Affine& out, bool check_subgroup = true);
DecodeError g2_from_uncompressed(const uint8_t* bytes, size_t length, G2Affine& out, bool check_subgroup = true);

}  // namespace zkbatch::ec
