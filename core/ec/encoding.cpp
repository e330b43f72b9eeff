// The Zcash point encodings (encoding.hpp), written once for both groups: a coordinate
// is one big-endian Fp (G1) or two, c1 first (G2).
#include "core/ec/encoding.hpp"

#include <algorithm>
#include <cstring>

namespace zkbatch::ec {

namespace {

constexpr uint8_t kCompressedFlag = 0x80;
constexpr uint8_t kInfinityFlag = 0x40;
constexpr uint8_t kSignFlag = 0x20;
constexpr uint8_t kFlagMask = kCompressedFlag | kInfinityFlag | kSignFlag;
constexpr size_t kFpBytes = 48;

// Coordinates of each field, big-endian, as the format writes them.
void write_coordinate(const ff::Fp& x, uint8_t* out) { x.to_be_bytes(out); }
void write_coordinate(const ff::Fp2& x, uint8_t* out) {
    x.c1.to_be_bytes(out);
    x.c0.to_be_bytes(out + kFpBytes);
}
bool read_coordinate(const uint8_t* bytes, ff::Fp& x) { return ff::Fp::try_from_be_bytes(bytes, x); }
bool read_coordinate(const uint8_t* bytes, ff::Fp2& x) {
    return ff::Fp::try_from_be_bytes(bytes, x.c1) && ff::Fp::try_from_be_bytes(bytes + kFpBytes, x.c0);
}

template <class C>
constexpr size_t coordinate_bytes() {
    return sizeof(typename C::Field);  // 48 for Fp, 96 for Fp2
}

template <class C>
void to_compressed(const Affine<C>& p, uint8_t* out) {
    constexpr size_t size = coordinate_bytes<C>();
    if (p.is_infinity()) {
        std::memset(out, 0, size);
        out[0] = kCompressedFlag | kInfinityFlag;
        return;
    }
    write_coordinate(p.x, out);
    out[0] |= kCompressedFlag | (p.y.is_lexicographically_largest() ? kSignFlag : 0);
}

template <class C>
void to_uncompressed(const Affine<C>& p, uint8_t* out) {
    constexpr size_t size = coordinate_bytes<C>();
    if (p.is_infinity()) {
        std::memset(out, 0, 2 * size);
        out[0] = kInfinityFlag;
        return;
    }
    write_coordinate(p.x, out);
    write_coordinate(p.y, out + size);
}

// Infinity must be the flag(s) and zeros: 0xc0 00.. compressed, 0x40 00.. uncompressed.
bool only_flags_set(const uint8_t* bytes, size_t length) {
    return (bytes[0] & ~kFlagMask) == 0 && (bytes[0] & kSignFlag) == 0 &&
           std::all_of(bytes + 1, bytes + length, [](uint8_t b) { return b == 0; });
}

template <class C>
DecodeError finish(const Affine<C>& point, bool check_subgroup, Affine<C>& out) {
    if (check_subgroup && !is_in_subgroup(point)) return DecodeError::not_in_subgroup;
    out = point;
    return DecodeError::ok;
}

template <class C>
DecodeError from_compressed(const uint8_t* bytes, size_t length, Affine<C>& out, bool check_subgroup) {
    constexpr size_t size = coordinate_bytes<C>();
    if (length != size) return DecodeError::wrong_length;
    const uint8_t flags = bytes[0] & kFlagMask;
    if (!(flags & kCompressedFlag)) return DecodeError::bad_flags;
    if (flags & kInfinityFlag) {
        if (!only_flags_set(bytes, length)) return DecodeError::bad_infinity;
        out = Affine<C>::infinity();
        return DecodeError::ok;
    }
    uint8_t x_bytes[size];
    std::memcpy(x_bytes, bytes, size);
    x_bytes[0] &= static_cast<uint8_t>(~kFlagMask);
    Affine<C> point;
    if (!read_coordinate(x_bytes, point.x)) return DecodeError::not_canonical;
    if (!(point.x.sqr() * point.x + C::b()).sqrt(point.y)) return DecodeError::not_on_curve;
    // y != 0 (neither curve has a point of order 2), so exactly one of y, -y is larger.
    if (point.y.is_lexicographically_largest() != ((flags & kSignFlag) != 0)) point.y = -point.y;
    return finish(point, check_subgroup, out);
}

template <class C>
DecodeError from_uncompressed(const uint8_t* bytes, size_t length, Affine<C>& out, bool check_subgroup) {
    constexpr size_t size = coordinate_bytes<C>();
    if (length != 2 * size) return DecodeError::wrong_length;
    const uint8_t flags = bytes[0] & kFlagMask;
    if (flags & kCompressedFlag) return DecodeError::bad_flags;
    if (flags & kInfinityFlag) {
        if (!only_flags_set(bytes, length)) return DecodeError::bad_infinity;
        out = Affine<C>::infinity();
        return DecodeError::ok;
    }
    if (flags & kSignFlag) return DecodeError::bad_flags;
    Affine<C> point;
    if (!read_coordinate(bytes, point.x) || !read_coordinate(bytes + size, point.y)) {
        return DecodeError::not_canonical;
    }
    // (0, 0) is our infinity, and is off both curves: it fails here like any other.
    if (point.is_infinity() || !point.is_on_curve()) return DecodeError::not_on_curve;
    return finish(point, check_subgroup, out);
}

}  // namespace

const char* describe(DecodeError error) {
    switch (error) {
    case DecodeError::ok:
        return "ok";
    case DecodeError::wrong_length:
        return "wrong length: a BLS12-381 point is 48 (G1 compressed), 96 (G1 uncompressed or G2 compressed) or "
               "192 (G2 uncompressed) bytes; check which group and form the data holds";
    case DecodeError::bad_flags:
        return "bad flags: the compression flag (0x80 of the first byte) must be set on compressed points and clear "
               "on uncompressed ones, whose sign flag (0x20) must be clear; the bytes are in another form or damaged";
    case DecodeError::bad_infinity:
        return "bad point at infinity: with the infinity flag (0x40) set, the sign flag and every other bit must be "
               "zero; the bytes are damaged";
    case DecodeError::not_canonical:
        return "coordinate not canonical: a coordinate is not below the field modulus p; the bytes are damaged or "
               "not a Zcash-format BLS12-381 point (little-endian or Montgomery-form data?)";
    case DecodeError::not_on_curve:
        return "not on the curve: no BLS12-381 point has these coordinates; the bytes are damaged or belong to "
               "another curve or group";
    case DecodeError::not_in_subgroup:
        return "not in the prime-order subgroup: the point is on the curve but outside G1/G2, which a pairing-based "
               "proof must never accept; the data is damaged or malicious";
    }
    return "unknown decode error";
}

void g1_to_compressed(const G1Affine& p, uint8_t* out48) { to_compressed(p, out48); }
void g1_to_uncompressed(const G1Affine& p, uint8_t* out96) { to_uncompressed(p, out96); }
void g2_to_compressed(const G2Affine& p, uint8_t* out96) { to_compressed(p, out96); }
void g2_to_uncompressed(const G2Affine& p, uint8_t* out192) { to_uncompressed(p, out192); }

DecodeError g1_from_compressed(const uint8_t* bytes, size_t length, G1Affine& out, bool check_subgroup) {
    return from_compressed(bytes, length, out, check_subgroup);
}
DecodeError g1_from_uncompressed(const uint8_t* bytes, size_t length, G1Affine& out, bool check_subgroup) {
    return from_uncompressed(bytes, length, out, check_subgroup);
}
DecodeError g2_from_compressed(const uint8_t* bytes, size_t length, G2Affine& out, bool check_subgroup) {
    return from_compressed(bytes, length, out, check_subgroup);
}
DecodeError g2_from_uncompressed(const uint8_t* bytes, size_t length, G2Affine& out, bool check_subgroup) {
    return from_uncompressed(bytes, length, out, check_subgroup);
}

}  // namespace zkbatch::ec
