// The Zcash serialization of BLS12-381 points (also blst's, bellman's, arkworks', the
// IETF pairing-friendly-curves draft's and noble's):
//
//   G1 compressed 48 bytes: x big-endian;  uncompressed 96: x then y.
//   G2 compressed 96 bytes: x.c1 then x.c0; uncompressed 192: x.c1, x.c0, y.c1, y.c0.
//
// The three top bits of the first byte are flags: 0x80 compressed, 0x40 point at
// infinity (every other bit zero), 0x20 (compressed only) y is the lexicographically
// larger root (Fp::/Fp2::is_lexicographically_largest). Decoders accept exactly the
// bytes the encoders produce: anything else is refused with a reason, and a decoded
// point is on the curve and (unless the caller opts out, e.g. for a trusted key it
// checks in bulk later) in the order-r subgroup.
#pragma once

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
