// The point encodings. BLS12-381's (Zcash's): the published generators and their
// encodings as known answers, round trips, and one crafted input for every refusal of
// every decoder. BN254's (gnark-crypto's flags): EIP-197's generators written out by
// GMP per the format, round trips, and the refusals its flags allow.
#include "fp_oracle.hpp"

#include "core/ec/encoding.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using ec::DecodeError;
using Bytes = std::vector<uint8_t>;

Bytes from_hex(const std::string& hex) {
    Bytes bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return bytes;
}

// The generators as the Zcash BLS12-381 specification prints them (decimal; its
// "Fixed Generators" note), independent of the hex in core/ec/curve.cpp.
const char* const kG1X =
    "3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507";
const char* const kG1Y =
    "1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569";
const char* const kG2X0 =
    "352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160";
const char* const kG2X1 =
    "3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758";
const char* const kG2Y0 =
    "1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905";
const char* const kG2Y1 =
    "927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582";

// Their compressed encodings, as published (the IETF pairing-friendly-curves draft's
// generators with Zcash's flags; e.g. CosmWasm's BLS12_381_G1_GENERATOR constant).
const char* const kG1Compressed =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
const char* const kG2Compressed =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
const char* const kG1YHex =
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
const char* const kG2Y1Hex =
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be";
const char* const kG2Y0Hex =
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801";

Bytes g1_compressed(const ec::G1Affine& p) {
    Bytes out(48);
    ec::g1_to_compressed(p, out.data());
    return out;
}
Bytes g1_uncompressed(const ec::G1Affine& p) {
    Bytes out(96);
    ec::g1_to_uncompressed(p, out.data());
    return out;
}
Bytes g2_compressed(const ec::G2Affine& p) {
    Bytes out(96);
    ec::g2_to_compressed(p, out.data());
    return out;
}
Bytes g2_uncompressed(const ec::G2Affine& p) {
    Bytes out(192);
    ec::g2_to_uncompressed(p, out.data());
    return out;
}

TEST(Encoding, GeneratorsAreThePublishedOnes) {
    EXPECT_EQ(test::canonical_of(ec::g1_generator().x), mpz_class(kG1X));
    EXPECT_EQ(test::canonical_of(ec::g1_generator().y), mpz_class(kG1Y));
    EXPECT_EQ(test::canonical_of(ec::g2_generator().x.c0), mpz_class(kG2X0));
    EXPECT_EQ(test::canonical_of(ec::g2_generator().x.c1), mpz_class(kG2X1));
    EXPECT_EQ(test::canonical_of(ec::g2_generator().y.c0), mpz_class(kG2Y0));
    EXPECT_EQ(test::canonical_of(ec::g2_generator().y.c1), mpz_class(kG2Y1));
}

TEST(Encoding, GeneratorEncodingsAreThePublishedOnes) {
    EXPECT_EQ(g1_compressed(ec::g1_generator()), from_hex(kG1Compressed));
    Bytes g1_plain = from_hex(kG1Compressed);
    g1_plain[0] &= 0x1f;  // no flags
    const Bytes g1_y = from_hex(kG1YHex);
    g1_plain.insert(g1_plain.end(), g1_y.begin(), g1_y.end());
    EXPECT_EQ(g1_uncompressed(ec::g1_generator()), g1_plain);

    EXPECT_EQ(g2_compressed(ec::g2_generator()), from_hex(kG2Compressed));
    Bytes g2_plain = from_hex(kG2Compressed);
    g2_plain[0] &= 0x1f;
    const Bytes y1 = from_hex(kG2Y1Hex);
    const Bytes y0 = from_hex(kG2Y0Hex);
    g2_plain.insert(g2_plain.end(), y1.begin(), y1.end());
    g2_plain.insert(g2_plain.end(), y0.begin(), y0.end());
    EXPECT_EQ(g2_uncompressed(ec::g2_generator()), g2_plain);

    // And they decode back.
    ec::G1Affine g1;
    ASSERT_EQ(ec::g1_from_compressed(from_hex(kG1Compressed).data(), 48, g1), DecodeError::ok);
    EXPECT_EQ(g1, ec::g1_generator());
    ASSERT_EQ(ec::g1_from_uncompressed(g1_plain.data(), 96, g1), DecodeError::ok);
    EXPECT_EQ(g1, ec::g1_generator());
    ec::G2Affine g2;
    ASSERT_EQ(ec::g2_from_compressed(from_hex(kG2Compressed).data(), 96, g2), DecodeError::ok);
    EXPECT_EQ(g2, ec::g2_generator());
    ASSERT_EQ(ec::g2_from_uncompressed(g2_plain.data(), 192, g2), DecodeError::ok);
    EXPECT_EQ(g2, ec::g2_generator());
}

TEST(Encoding, InfinityIsAFlagAndZeros) {
    Bytes expected(48, 0);
    expected[0] = 0xc0;
    EXPECT_EQ(g1_compressed(ec::G1Affine::infinity()), expected);
    expected.assign(96, 0);
    expected[0] = 0x40;
    EXPECT_EQ(g1_uncompressed(ec::G1Affine::infinity()), expected);
    expected[0] = 0xc0;
    EXPECT_EQ(g2_compressed(ec::G2Affine::infinity()), expected);
    expected.assign(192, 0);
    expected[0] = 0x40;
    EXPECT_EQ(g2_uncompressed(ec::G2Affine::infinity()), expected);

    ec::G1Affine g1 = ec::g1_generator();
    ASSERT_EQ(ec::g1_from_compressed(g1_compressed(ec::G1Affine::infinity()).data(), 48, g1), DecodeError::ok);
    EXPECT_TRUE(g1.is_infinity());
    g1 = ec::g1_generator();
    ASSERT_EQ(ec::g1_from_uncompressed(g1_uncompressed(ec::G1Affine::infinity()).data(), 96, g1), DecodeError::ok);
    EXPECT_TRUE(g1.is_infinity());
    ec::G2Affine g2 = ec::g2_generator();
    ASSERT_EQ(ec::g2_from_compressed(g2_compressed(ec::G2Affine::infinity()).data(), 96, g2), DecodeError::ok);
    EXPECT_TRUE(g2.is_infinity());
    g2 = ec::g2_generator();
    ASSERT_EQ(ec::g2_from_uncompressed(g2_uncompressed(ec::G2Affine::infinity()).data(), 192, g2), DecodeError::ok);
    EXPECT_TRUE(g2.is_infinity());
}

TEST(Encoding, RandomPointsRoundTripWithBothSigns) {
    std::mt19937_64 rng(20);
    std::set<bool> g1_signs, g2_signs;
    for (int i = 0; i < 20; ++i) {
        const ec::G1Affine p = test::random_point<ec::G1Params>(rng).to_affine();
        for (const ec::G1Affine& q : {p, -p}) {
            const Bytes compressed = g1_compressed(q);
            g1_signs.insert((compressed[0] & 0x20) != 0);
            ASSERT_EQ((compressed[0] & 0x20) != 0, q.y.is_lexicographically_largest());
            ec::G1Affine back;
            ASSERT_EQ(ec::g1_from_compressed(compressed.data(), 48, back), DecodeError::ok);
            ASSERT_EQ(back, q);
            ASSERT_EQ(ec::g1_from_uncompressed(g1_uncompressed(q).data(), 96, back), DecodeError::ok);
            ASSERT_EQ(back, q);
        }
        const ec::G2Affine p2 = test::random_point<ec::G2Params>(rng).to_affine();
        for (const ec::G2Affine& q : {p2, -p2}) {
            const Bytes compressed = g2_compressed(q);
            g2_signs.insert((compressed[0] & 0x20) != 0);
            ec::G2Affine back;
            ASSERT_EQ(ec::g2_from_compressed(compressed.data(), 96, back), DecodeError::ok);
            ASSERT_EQ(back, q);
            ASSERT_EQ(ec::g2_from_uncompressed(g2_uncompressed(q).data(), 192, back), DecodeError::ok);
            ASSERT_EQ(back, q);
        }
    }
    EXPECT_EQ(g1_signs.size(), 2u);
    EXPECT_EQ(g2_signs.size(), 2u);
}

// The four decoders behind one signature, for the refusal table below.
struct Format {
    const char* name;
    size_t length;
    bool compressed;
    bool g2;
};
const Format kFormats[] = {{"G1 compressed", 48, true, false},
                           {"G1 uncompressed", 96, false, false},
                           {"G2 compressed", 96, true, true},
                           {"G2 uncompressed", 192, false, true}};

DecodeError decode(const Format& f, const Bytes& bytes, bool check_subgroup = true) {
    ec::G1Affine g1 = ec::g1_generator();
    ec::G2Affine g2 = ec::g2_generator();
    DecodeError e;
    if (!f.g2) {
        e = f.compressed ? ec::g1_from_compressed(bytes.data(), bytes.size(), g1, check_subgroup)
                         : ec::g1_from_uncompressed(bytes.data(), bytes.size(), g1, check_subgroup);
    } else {
        e = f.compressed ? ec::g2_from_compressed(bytes.data(), bytes.size(), g2, check_subgroup)
                         : ec::g2_from_uncompressed(bytes.data(), bytes.size(), g2, check_subgroup);
    }
    if (e != DecodeError::ok) {
        EXPECT_EQ(g1, ec::g1_generator()) << "a refusal must leave the output untouched";
        EXPECT_EQ(g2, ec::g2_generator()) << "a refusal must leave the output untouched";
    }
    return e;
}

template <class C>
Bytes encode(const Format& f, const ec::Affine<C>& p) {
    if constexpr (std::is_same_v<C, ec::G1Params>) {
        return f.compressed ? g1_compressed(p) : g1_uncompressed(p);
    } else {
        return f.compressed ? g2_compressed(p) : g2_uncompressed(p);
    }
}

Bytes encode_generator(const Format& f) {
    return f.g2 ? encode(f, ec::g2_generator()) : encode(f, ec::g1_generator());
}

TEST(Encoding, WrongLengthIsRefused) {
    for (const Format& f : kFormats) {
        Bytes bytes = encode_generator(f);
        ASSERT_EQ(decode(f, bytes), DecodeError::ok) << f.name;
        for (size_t length : {size_t{0}, f.length - 1, f.length + 1, 2 * f.length}) {
            Bytes resized = bytes;
            resized.resize(length, 0);
            EXPECT_EQ(decode(f, resized), DecodeError::wrong_length) << f.name << ", " << length << " bytes";
        }
    }
}

TEST(Encoding, BadFlagsAreRefused) {
    for (const Format& f : kFormats) {
        Bytes bytes = encode_generator(f);
        // The compression flag flipped: compressed bytes without it, uncompressed with it.
        Bytes flipped = bytes;
        flipped[0] ^= 0x80;
        EXPECT_EQ(decode(f, flipped), DecodeError::bad_flags) << f.name;
        if (!f.compressed) {
            Bytes signed_bytes = bytes;
            signed_bytes[0] |= 0x20;
            EXPECT_EQ(decode(f, signed_bytes), DecodeError::bad_flags) << f.name << " with the sign flag";
        }
        // Infinity with the sign flag, with a stray low bit in the flag byte, with any
        // later bit set, and with the coordinates of a real point.
        Bytes infinity(f.length, 0);
        infinity[0] = f.compressed ? 0xc0 : 0x40;
        ASSERT_EQ(decode(f, infinity), DecodeError::ok);
        for (size_t position : {size_t{0}, size_t{1}, f.length / 2, f.length - 1}) {
            Bytes bad = infinity;
            bad[position] |= position == 0 ? 0x20 : 0x01;
            EXPECT_EQ(decode(f, bad), DecodeError::bad_infinity) << f.name << ", byte " << position;
        }
        Bytes stray = infinity;
        stray[0] |= 0x01;
        EXPECT_EQ(decode(f, stray), DecodeError::bad_infinity) << f.name;
        Bytes point_with_flag = bytes;
        point_with_flag[0] |= 0x40;
        EXPECT_EQ(decode(f, point_with_flag), DecodeError::bad_infinity) << f.name;
    }
}

// The 48 big-endian bytes of v.
Bytes be48(const mpz_class& v) {
    Bytes bytes(48, 0);
    uint8_t buffer[64];
    size_t count = 0;
    mpz_export(buffer, &count, 1, 1, 1, 0, v.get_mpz_t());
    std::copy(buffer, buffer + count, bytes.begin() + (48 - count));
    return bytes;
}

TEST(Encoding, CoordinatesOfPOrMoreAreRefused) {
    const mpz_class& p = test::fp_modulus();
    for (const Format& f : kFormats) {
        const Bytes bytes = encode_generator(f);
        // Each 48-byte half (x, or x.c1 and x.c0; then y's) in turn replaced by p, and by
        // the largest value the 381 unflagged bits hold.
        const size_t halves = f.length / 48;
        for (size_t half = 0; half < halves; ++half) {
            for (const mpz_class& bad : std::vector<mpz_class>{p, (mpz_class(1) << 381) - 1}) {
                Bytes crafted = bytes;
                const Bytes value = be48(bad);
                std::copy(value.begin(), value.end(), crafted.begin() + 48 * half);
                crafted[0] = static_cast<uint8_t>((crafted[0] & 0x1f) | (bytes[0] & 0xe0));
                EXPECT_EQ(decode(f, crafted), DecodeError::not_canonical) << f.name << ", half " << half;
            }
        }
    }
}

template <class C>
void check_off_curve_and_outside_subgroup(std::mt19937_64& rng) {
    for (const Format& f : kFormats) {
        if (f.g2 != std::is_same_v<C, ec::G2Params>) continue;
        // An x with no point: refused by the compressed decoder.
        ec::Affine<C> off{test::random_x_off_curve<C>(rng), ec::Affine<C>::infinity().y};
        if (f.compressed) {
            EXPECT_EQ(decode(f, encode(f, off)), DecodeError::not_on_curve) << f.name;
        } else {
            // A real point with y changed, and (0, 0) without the infinity flag.
            ec::Affine<C> moved = test::random_point<C>(rng).to_affine();
            moved.y = moved.y + decltype(moved.y)::one();
            EXPECT_EQ(decode(f, encode(f, moved)), DecodeError::not_on_curve) << f.name;
            EXPECT_EQ(decode(f, Bytes(f.length, 0)), DecodeError::not_on_curve) << f.name << " all zero";
        }
        // On the curve, outside the subgroup (checked by [r]P here, independently).
        const ec::Affine<C> outside = test::random_curve_point<C>(rng);
        ASSERT_FALSE(ec::scalar_mul(ec::Jacobian<C>::from_affine(outside), test::group_order_limbs()).is_infinity());
        const Bytes bytes = encode(f, outside);
        EXPECT_EQ(decode(f, bytes), DecodeError::not_in_subgroup) << f.name;
        EXPECT_EQ(decode(f, bytes, /*check_subgroup=*/false), DecodeError::ok) << f.name;
    }
}

TEST(Encoding, PointsOffTheCurveOrOutsideTheSubgroupAreRefused) {
    std::mt19937_64 rng(21);
    check_off_curve_and_outside_subgroup<ec::G1Params>(rng);
    check_off_curve_and_outside_subgroup<ec::G2Params>(rng);
    // Without the subgroup check the decoded point is the encoded one.
    const ec::G2Affine outside = test::random_curve_point<ec::G2Params>(rng);
    ec::G2Affine back;
    ASSERT_EQ(ec::g2_from_compressed(g2_compressed(outside).data(), 96, back, false), DecodeError::ok);
    EXPECT_EQ(back, outside);
}

TEST(Encoding, EveryErrorHasItsOwnActionableDescription) {
    std::set<std::string> texts;
    for (DecodeError e : {DecodeError::ok, DecodeError::wrong_length, DecodeError::bad_flags,
                          DecodeError::bad_infinity, DecodeError::not_canonical, DecodeError::not_on_curve,
                          DecodeError::not_in_subgroup}) {
        texts.insert(ec::describe(e));
    }
    EXPECT_EQ(texts.size(), 7u);
    EXPECT_NE(std::string(ec::describe(DecodeError::not_in_subgroup)).find("subgroup"), std::string::npos);
    EXPECT_NE(std::string(ec::describe(DecodeError::wrong_length)).find("48"), std::string::npos);
}

// ---- BN254: gnark-crypto's flags (0x80 smaller y, 0xc0 larger, 0x40 infinity) ----------

// EIP-197's G2 generator, decimal (x = x0 + x1 u, y = y0 + y1 u).
const char* const kBnG2X0 = "10857046999023057135944570762232829481370756359578518086990519993285655852781";
const char* const kBnG2X1 = "11559732032986387107991004021392285783925812861821192530917403151452391805634";
const char* const kBnG2Y0 = "8495653923123431417604973247489272438418190587263600148770280649306958101930";
const char* const kBnG2Y1 = "4082367875863433681332203403145435568316851327593401208105741076214120093531";

// 32 big-endian bytes of a value below 2^256, by GMP.
Bytes be32(const mpz_class& value) {
    Bytes out(32, 0);
    size_t count = 0;
    mpz_export(out.data() + 32 - mpz_sizeinbase(value.get_mpz_t(), 256), &count, 1, 1, 1, 0, value.get_mpz_t());
    return out;
}

template <class G>
Bytes compressed_of(const ec::Affine<G>& p) {
    Bytes out(ec::kCompressedBytes<G>);
    ec::to_compressed(p, out.data());
    return out;
}
template <class G>
Bytes uncompressed_of(const ec::Affine<G>& p) {
    Bytes out(2 * ec::kCompressedBytes<G>);
    ec::to_uncompressed(p, out.data());
    return out;
}

TEST(Bn254Encoding, GeneratorsAreWrittenAsTheFormatSays) {
    using G1 = ec::bn254::G1Params;
    using G2 = ec::bn254::G2Params;
    const mpz_class p = test::modulus_of<ff::bn254::Fq>(), half = (p - 1) / 2;
    // G1 = (1, 2): y = 2 is the smaller root; -G1 has the larger, p - 2.
    Bytes g1 = be32(1);
    g1[0] |= 0x80;
    EXPECT_EQ(compressed_of<G1>(ec::generator<G1>()), g1);
    g1[0] |= 0x40;
    EXPECT_EQ(compressed_of<G1>(-ec::generator<G1>()), g1);
    Bytes g1_plain = be32(1), y = be32(2);
    g1_plain.insert(g1_plain.end(), y.begin(), y.end());
    EXPECT_EQ(uncompressed_of<G1>(ec::generator<G1>()), g1_plain);
    // G2: x.c1 then x.c0; y's sign by its c1 (nonzero here) against (p - 1) / 2.
    Bytes g2 = be32(mpz_class(kBnG2X1)), x0 = be32(mpz_class(kBnG2X0));
    g2.insert(g2.end(), x0.begin(), x0.end());
    ASSERT_LE(mpz_class(kBnG2Y1), half) << "the sign below assumes the smaller y";
    g2[0] |= 0x80;
    EXPECT_EQ(compressed_of<G2>(ec::generator<G2>()), g2);
    Bytes g2_plain = be32(mpz_class(kBnG2X1));
    for (const char* part : {kBnG2X0, kBnG2Y1, kBnG2Y0}) {
        const Bytes bytes = be32(mpz_class(part));
        g2_plain.insert(g2_plain.end(), bytes.begin(), bytes.end());
    }
    EXPECT_EQ(uncompressed_of<G2>(ec::generator<G2>()), g2_plain);
}

template <class G>
class Bn254Encoding : public ::testing::Test {};
using Bn254Groups = ::testing::Types<ec::bn254::G1Params, ec::bn254::G2Params>;
TYPED_TEST_SUITE(Bn254Encoding, Bn254Groups, test::CurveNames);

TYPED_TEST(Bn254Encoding, RandomPointsRoundTripWithBothSigns) {
    using G = TypeParam;
    constexpr size_t size = ec::kCompressedBytes<G>;
    std::mt19937_64 rng(21);
    std::set<uint8_t> flags;
    for (int i = 0; i < 20; ++i) {
        const ec::Affine<G> p = test::random_point<G>(rng).to_affine();
        for (const ec::Affine<G>& q : {p, -p}) {
            const Bytes compressed = compressed_of(q);
            flags.insert(compressed[0] & 0xc0);
            ASSERT_EQ((compressed[0] & 0xc0) == 0xc0, q.y.is_lexicographically_largest());
            ec::Affine<G> back;
            ASSERT_EQ(ec::from_compressed(compressed.data(), size, back), DecodeError::ok);
            ASSERT_EQ(back, q);
            ASSERT_EQ(ec::from_uncompressed(uncompressed_of(q).data(), 2 * size, back), DecodeError::ok);
            ASSERT_EQ(back, q);
        }
    }
    EXPECT_EQ(flags, (std::set<uint8_t>{0x80, 0xc0}));
}

TYPED_TEST(Bn254Encoding, InfinityAndBadFlagsAndLengthsAreAsTheFormatSays) {
    using G = TypeParam;
    constexpr size_t size = ec::kCompressedBytes<G>;
    Bytes infinity(size, 0);
    infinity[0] = 0x40;
    EXPECT_EQ(compressed_of(ec::Affine<G>::infinity()), infinity);
    ec::Affine<G> back = ec::generator<G>();
    ASSERT_EQ(ec::from_compressed(infinity.data(), size, back), DecodeError::ok);
    EXPECT_TRUE(back.is_infinity());
    Bytes plain_infinity(2 * size, 0);
    plain_infinity[0] = 0x40;
    EXPECT_EQ(uncompressed_of(ec::Affine<G>::infinity()), plain_infinity);
    Bytes bad = infinity;
    bad[size - 1] = 1;
    EXPECT_EQ(ec::from_compressed(bad.data(), size, back), DecodeError::bad_infinity);

    const Bytes compressed = compressed_of(ec::generator<G>());
    Bytes unflagged = compressed;
    unflagged[0] &= 0x3f;  // neither compressed flag: uncompressed bytes' first byte
    EXPECT_EQ(ec::from_compressed(unflagged.data(), size, back), DecodeError::bad_flags);
    Bytes flagged = uncompressed_of(ec::generator<G>());
    flagged[0] |= 0x80;
    EXPECT_EQ(ec::from_uncompressed(flagged.data(), 2 * size, back), DecodeError::bad_flags);
    EXPECT_EQ(ec::from_compressed(compressed.data(), size - 1, back), DecodeError::wrong_length);
    // x = p (the flags' bits aside, the top of a coordinate above the modulus).
    Bytes too_big = be32(test::modulus_of<ff::bn254::Fq>());
    too_big.resize(size, 0);
    too_big[0] |= 0x80;
    EXPECT_EQ(ec::from_compressed(too_big.data(), size, back), DecodeError::not_canonical);
    std::mt19937_64 rng(22);
    const Bytes off_bytes = compressed_of(ec::Affine<G>{test::random_x_off_curve<G>(rng), ec::generator<G>().y});
    EXPECT_EQ(ec::from_compressed(off_bytes.data(), size, back), DecodeError::not_on_curve);
}

}  // namespace
}  // namespace zkbatch
