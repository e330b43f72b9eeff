// The point encodings (encoding.hpp), written once for the four groups of both curves.
#include "core/ec/encoding.hpp"

#include <algorithm>
#include <cstring>

namespace zkbatch::ec {

namespace {

// The flag bits of a format (encoding.hpp), in the first byte.
struct Flags {
    uint8_t mask;                  // every flag bit
    uint8_t compressed_infinity;   // the first byte of compressed infinity
    uint8_t compressed_smaller;    // of a compressed point with the smaller y
    uint8_t compressed_larger;     // with the larger y
    uint8_t uncompressed_infinity;
};
constexpr Flags kZcash{0xe0, 0xc0, 0x80, 0xa0, 0x40};
constexpr Flags kGnark{0xc0, 0x40, 0x80, 0xc0, 0x40};

// A group's base prime field: G1's coordinate field, or the field G2's is over.
template <class F>
struct PrimeField {
    using type = F;
};
template <class F>
    requires requires { typename F::Fp; }
struct PrimeField<F> {
    using type = typename F::Fp;
};

// Zcash's where the prime leaves three spare bits (BLS12-381), gnark's where it leaves two.
template <class G>
constexpr const Flags& flags_of() {
    using Fp = typename PrimeField<typename G::Field>::type;
    constexpr int spare_bits = 8 * static_cast<int>(Fp::kBytes) - Fp::kModulusBits;
    static_assert(spare_bits >= 2, "a point format needs two spare bits for its flags");
    if constexpr (spare_bits >= 3) return kZcash;
    else return kGnark;
}

// Coordinates of each field, big-endian, as the formats write them.
template <class F>
void write_coordinate(const F& x, uint8_t* out) {
    if constexpr (requires { typename F::Fp; }) {
        x.c1.to_be_bytes(out);
        x.c0.to_be_bytes(out + F::Fp::kBytes);
    } else {
        x.to_be_bytes(out);
    }
}
template <class F>
bool read_coordinate(const uint8_t* bytes, F& x) {
    if constexpr (requires { typename F::Fp; }) {
        return F::Fp::try_from_be_bytes(bytes, x.c1) && F::Fp::try_from_be_bytes(bytes + F::Fp::kBytes, x.c0);
    } else {
        return F::try_from_be_bytes(bytes, x);
    }
}

// Infinity must be its first byte and zeros.
bool is_infinity_bytes(const uint8_t* bytes, size_t length, uint8_t first) {
    return bytes[0] == first && std::all_of(bytes + 1, bytes + length, [](uint8_t b) { return b == 0; });
}

template <class G>
DecodeError finish(const Affine<G>& point, bool check_subgroup, Affine<G>& out) {
    if (check_subgroup && !is_in_subgroup(point)) return DecodeError::not_in_subgroup;
    out = point;
    return DecodeError::ok;
}

}  // namespace

template <class G>
void to_compressed(const Affine<G>& p, uint8_t* out) {
    constexpr Flags flags = flags_of<G>();
    constexpr size_t size = kCompressedBytes<G>;
    if (p.is_infinity()) {
        std::memset(out, 0, size);
        out[0] = flags.compressed_infinity;
        return;
    }
    write_coordinate(p.x, out);
    out[0] |= p.y.is_lexicographically_largest() ? flags.compressed_larger : flags.compressed_smaller;
}

template <class G>
void to_uncompressed(const Affine<G>& p, uint8_t* out) {
    constexpr size_t size = kCompressedBytes<G>;
    if (p.is_infinity()) {
        std::memset(out, 0, 2 * size);
        out[0] = flags_of<G>().uncompressed_infinity;
        return;
    }
    write_coordinate(p.x, out);
    write_coordinate(p.y, out + size);
}

template <class G>
DecodeError from_compressed(const uint8_t* bytes, size_t length, Affine<G>& out, bool check_subgroup) {
    constexpr Flags flags = flags_of<G>();
    constexpr size_t size = kCompressedBytes<G>;
    if (length != size) return DecodeError::wrong_length;
    const uint8_t first = bytes[0] & flags.mask;
    if (first != flags.compressed_smaller && first != flags.compressed_larger) {
        if ((first & flags.compressed_infinity) != flags.compressed_infinity) return DecodeError::bad_flags;
        if (!is_infinity_bytes(bytes, length, flags.compressed_infinity)) return DecodeError::bad_infinity;
        out = Affine<G>::infinity();
        return DecodeError::ok;
    }
    uint8_t x_bytes[size];
    std::memcpy(x_bytes, bytes, size);
    x_bytes[0] &= static_cast<uint8_t>(~flags.mask);
    Affine<G> point;
    if (!read_coordinate(x_bytes, point.x)) return DecodeError::not_canonical;
    if (!(point.x.sqr() * point.x + G::b()).sqrt(point.y)) return DecodeError::not_on_curve;
    // y != 0 (neither curve has a point of order 2), so exactly one of y, -y is larger.
    if (point.y.is_lexicographically_largest() != (first == flags.compressed_larger)) point.y = -point.y;
    return finish(point, check_subgroup, out);
}

template <class G>
DecodeError from_uncompressed(const uint8_t* bytes, size_t length, Affine<G>& out, bool check_subgroup) {
    constexpr Flags flags = flags_of<G>();
    constexpr size_t size = kCompressedBytes<G>;
    if (length != 2 * size) return DecodeError::wrong_length;
    const uint8_t first = bytes[0] & flags.mask;
    if (first & 0x80) return DecodeError::bad_flags;  // compressed, in both formats
    if (first & flags.uncompressed_infinity) {
        if (!is_infinity_bytes(bytes, length, flags.uncompressed_infinity)) return DecodeError::bad_infinity;
        out = Affine<G>::infinity();
        return DecodeError::ok;
    }
    if (first != 0) return DecodeError::bad_flags;
    Affine<G> point;
    if (!read_coordinate(bytes, point.x) || !read_coordinate(bytes + size, point.y)) {
        return DecodeError::not_canonical;
    }
    // (0, 0) is our infinity, and is off both curves: it fails here like any other.
    if (point.is_infinity() || !point.is_on_curve()) return DecodeError::not_on_curve;
    return finish(point, check_subgroup, out);
}

#define ZKB_ENCODING_INSTANTIATE(G)                                                                   \
    template void to_compressed(const Affine<G>&, uint8_t*);                                          \
    template void to_uncompressed(const Affine<G>&, uint8_t*);                                        \
    template DecodeError from_compressed(const uint8_t*, size_t, Affine<G>&, bool);                   \
    template DecodeError from_uncompressed(const uint8_t*, size_t, Affine<G>&, bool);
ZKB_ENCODING_INSTANTIATE(G1Params)
ZKB_ENCODING_INSTANTIATE(G2Params)
ZKB_ENCODING_INSTANTIATE(bn254::G1Params)
ZKB_ENCODING_INSTANTIATE(bn254::G2Params)
#undef ZKB_ENCODING_INSTANTIATE

const char* describe(DecodeError error) {
    switch (error) {
    case DecodeError::ok:
        return "ok";
    case DecodeError::wrong_length:
        return "wrong length: a BLS12-381 point is 48 (G1 compressed), 96 (G1 uncompressed or G2 compressed) or "
               "192 (G2 uncompressed) bytes, a BN254 one 32, 64 or 128; check which curve, group and form the data "
               "holds";
    case DecodeError::bad_flags:
        return "bad flags: the compression flag (0x80 of the first byte) must be set on compressed points and clear "
               "on uncompressed ones, which carry no sign flag; the bytes are in another form or damaged";
    case DecodeError::bad_infinity:
        return "bad point at infinity: with the infinity flag (0x40) set, every bit but the format's infinity flags "
               "must be zero; the bytes are damaged";
    case DecodeError::not_canonical:
        return "coordinate not canonical: a coordinate is not below the field modulus p; the bytes are damaged or "
               "not a big-endian point of this curve (little-endian or Montgomery-form data?)";
    case DecodeError::not_on_curve:
        return "not on the curve: no point of the curve has these coordinates; the bytes are damaged or belong to "
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
