// Every instance of core/ff/montgomery_field.hpp (BLS12-381's Fr and Fp, BN254's Fq and
// Fr) against GMP: the derived constants, every operation on random and edge values, and
// the canonical limb, byte and hex conversions with their failure paths.
#include "gmp_oracle.hpp"

#include "core/ec/curve.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace zkbatch {
namespace {

using test::canonical_of;
using test::edge_values;
using test::element_of;
using test::from_limbs;
using test::kR;
using test::mod;
using test::modulus_of;

template <class F>
std::vector<F> test_values(size_t random_count) {
    std::vector<F> values;
    for (const mpz_class& v : edge_values<F>()) values.push_back(element_of<F>(v));
    std::mt19937_64 rng(20240601);
    for (size_t i = 0; i < random_count; ++i) values.push_back(test::random_element<F>(rng));
    return values;
}

template <class F>
class Field : public ::testing::Test {};
TYPED_TEST_SUITE(Field, test::Fields, test::FieldNames);

TYPED_TEST(Field, LayoutIsTheLimbsAlone) {
    using F = TypeParam;
    static_assert(sizeof(F) == 8 * F::kLimbs && F::kBytes == sizeof(F));
    static_assert(std::is_trivially_copyable_v<F> && std::is_standard_layout_v<F>);
    EXPECT_EQ(alignof(F), alignof(uint64_t));
}

TYPED_TEST(Field, DerivedConstantsAgreeWithGmp) {
    using F = TypeParam;
    constexpr int n = F::kLimbs;
    const mpz_class& m = modulus_of<F>();
    EXPECT_NE(mpz_probab_prime_p(m.get_mpz_t(), 30), 0);
    EXPECT_EQ(from_limbs(F::modulus().limbs, n), m);
    for (int i = 0; i < n; ++i) EXPECT_EQ(F::modulus_limb(i), F::modulus().limbs[i]);
    EXPECT_EQ(F::kModulusBits, static_cast<int>(mpz_sizeinbase(m.get_mpz_t(), 2)));
    // Divsteps need two spare bits: every field here has them but BLS12-381's Fr (255 bits).
    EXPECT_EQ(F::kInvertsByDivsteps, (!std::is_same_v<F, ff::bls12_381::Fr>));
    const mpz_class m_minus_1 = m - 1;
    EXPECT_EQ(F::kTwoAdicity, mpz_scan1(m_minus_1.get_mpz_t(), 0));

    EXPECT_EQ(from_limbs(F::r_mod_modulus().limbs, n), kR<F> % m);
    EXPECT_EQ(from_limbs(F::one().limbs, n), kR<F> % m) << "one() must be R mod m";
    EXPECT_EQ(from_limbs(F::r_squared().limbs, n), kR<F> * kR<F> % m);
    EXPECT_EQ(from_limbs(F::r_cubed().limbs, n), kR<F> * kR<F> * kR<F> % m);
    mpz_class inverse;
    mpz_invert(inverse.get_mpz_t(), m.get_mpz_t(), mpz_class(mpz_class(1) << 64).get_mpz_t());
    EXPECT_EQ(mpz_class(std::to_string(F::kMontInv)), (mpz_class(1) << 64) - inverse) << "kMontInv = -m^-1 mod 2^64";
}

TYPED_TEST(Field, ArithmeticMatchesGmp) {
    using F = TypeParam;
    const mpz_class& m = modulus_of<F>();
    const std::vector<F> values = test_values<F>(3000);
    std::vector<mpz_class> plain;
    for (const F& v : values) plain.push_back(canonical_of(v));
    const size_t count = values.size();
    const size_t edges = edge_values<F>().size();
    for (size_t i = 0; i < count; ++i) {
        // Each value against a fixed partner pattern plus every edge value.
        for (size_t j : {(i * 7 + 1) % count, (i * 13 + 5) % count, i % edges, count - 1 - i}) {
            const F& x = values[i];
            const F& y = values[j];
            const mpz_class& px = plain[i];
            const mpz_class& py = plain[j];
            ASSERT_EQ(canonical_of(x + y), (px + py) % m) << px.get_str(16) << " + " << py.get_str(16);
            ASSERT_EQ(canonical_of(x - y), mod<F>(px - py)) << px.get_str(16) << " - " << py.get_str(16);
            ASSERT_EQ(canonical_of(x * y), px * py % m) << px.get_str(16) << " * " << py.get_str(16);
            F accumulator = x;
            accumulator += y;
            accumulator *= y;
            accumulator -= x;
            ASSERT_EQ(canonical_of(accumulator), mod<F>((px + py) * py - px));
            ASSERT_EQ(canonical_of(F::sum_times(x, y, x)), (px + py) * px % m);
            ASSERT_EQ(canonical_of(F::sum_times_sum(x, y, y, x)), (px + py) * (py + px) % m);
            ASSERT_EQ(canonical_of(F::product_difference(x, y, y, y)), mod<F>(px * py - py * py));
            ASSERT_EQ(x == y, px == py);
            ASSERT_EQ(x != y, px != py);
        }
        const F& x = values[i];
        ASSERT_EQ(canonical_of(x.sqr()), plain[i] * plain[i] % m);
        ASSERT_EQ(canonical_of(x.dbl()), 2 * plain[i] % m);
        ASSERT_EQ(canonical_of(x.half()) * 2 % m, plain[i]);
        ASSERT_EQ(canonical_of(-x), (m - plain[i]) % m);
        ASSERT_EQ(x.is_zero(), plain[i] == 0);
        ASSERT_EQ(x.is_one(), plain[i] == 1);
        // Stored limbs are always fully reduced.
        ASSERT_LT(from_limbs(x.limbs, F::kLimbs), m);
        ASSERT_LT(from_limbs((x + x).limbs, F::kLimbs), m);
        ASSERT_LT(from_limbs((x * x).limbs, F::kLimbs), m);
        ASSERT_LT(from_limbs(x.half().limbs, F::kLimbs), m);
    }
}

// On x86-64 the host multiplies in MULX/ADX assembly where the CPU has it
// (core/ff/x86_mont_mul.hpp); the portable C product, which CPUs without it and device
// code take, must give the same bits, and both GMP's. The test above checked whichever
// path this CPU takes.
TYPED_TEST(Field, PortableProductIsTheAssemblyOne) {
#if ZKB_X86_MONT_MUL
    using F = TypeParam;
    const mpz_class& m = modulus_of<F>();
    if (!ff::detail::x86_mulx_adx()) GTEST_SKIP() << "this CPU has no MULX/ADX: the portable product is the only one";
    const std::vector<F> values = test_values<F>(20000);
    for (size_t i = 0; i < values.size(); ++i) {
        const F& x = values[i];
        const F& y = values[(i * 7919 + 3) % values.size()];
        const F portable = F::portable_mont_mul(x, y);
        ASSERT_EQ(std::memcmp(portable.limbs, F::mont_mul(x, y).limbs, sizeof portable.limbs), 0)
            << canonical_of(x).get_str(16) << " * " << canonical_of(y).get_str(16);
        ASSERT_EQ(canonical_of(portable), canonical_of(x) * canonical_of(y) % m);
    }
#else
    GTEST_SKIP() << "not an x86-64 host: the portable product is the only one";
#endif
}

TYPED_TEST(Field, PowAndInverseMatchGmp) {
    using F = TypeParam;
    const mpz_class& m = modulus_of<F>();
    const std::vector<F> values = test_values<F>(300);
    std::mt19937_64 rng(7);
    for (const F& x : values) {
        const mpz_class px = canonical_of(x);
        for (uint64_t exponent : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{65537}, ~uint64_t{0}, rng()}) {
            mpz_class expected;
            mpz_powm(expected.get_mpz_t(), px.get_mpz_t(), mpz_class(std::to_string(exponent)).get_mpz_t(),
                     m.get_mpz_t());
            ASSERT_EQ(canonical_of(x.pow(exponent)), expected) << px.get_str(16) << "^" << exponent;
        }
        if (px == 0) {
            EXPECT_TRUE(x.inverse().is_zero()) << "the inverse of 0 is defined as 0";
        } else {
            mpz_class expected;
            mpz_invert(expected.get_mpz_t(), px.get_mpz_t(), m.get_mpz_t());
            ASSERT_EQ(canonical_of(x.inverse()), expected) << px.get_str(16);
            ASSERT_EQ(x * x.inverse(), F::one());
        }
    }
    // pow over several limbs: x^m = x, and x^(m-1) = 1 (Fermat).
    uint64_t m_limbs[F::kLimbs];
    test::to_limbs(m, m_limbs, F::kLimbs);
    const F x = values.back();
    EXPECT_EQ(x.pow(m_limbs, F::kLimbs), x);
    m_limbs[0] -= 1;
    EXPECT_EQ(x.pow(m_limbs, F::kLimbs), F::one());
}

// The fields whose modulus is 3 mod 4, where sqrt is one power.
template <class F>
class SqrtField : public ::testing::Test {};
TYPED_TEST_SUITE(SqrtField, test::ThreeModFourFields, test::FieldNames);

TYPED_TEST(SqrtField, SqrtMatchesGmp) {
    using F = TypeParam;
    const mpz_class& m = modulus_of<F>();
    ASSERT_EQ(mpz_class(m % 4), 3);
    int squares = 0;
    int non_squares = 0;
    for (const F& x : test_values<F>(200)) {
        const mpz_class px = canonical_of(x);
        F root;
        const int legendre = mpz_legendre(px.get_mpz_t(), m.get_mpz_t());
        ASSERT_EQ(x.sqrt(root), legendre >= 0) << px.get_str(16);
        if (legendre >= 0) {
            ASSERT_EQ(canonical_of(root) * canonical_of(root) % m, px);
            ++squares;
        } else {
            ++non_squares;
        }
        // The square of anything has a root, which is x or -x.
        ASSERT_TRUE(x.sqr().sqrt(root));
        ASSERT_TRUE(root == x || root == -x);
    }
    EXPECT_GT(squares, 50);
    EXPECT_GT(non_squares, 50);
    F root = F::one();
    EXPECT_TRUE(F::zero().sqrt(root));
    EXPECT_TRUE(root.is_zero());
    EXPECT_FALSE((-F::one()).sqrt(root)) << "-1 is not a square when m = 3 mod 4";
}

TYPED_TEST(Field, FromU64MatchesGmp) {
    using F = TypeParam;
    std::mt19937_64 rng(99);
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{7}, ~uint64_t{0}, uint64_t{0x8000000000000000ULL},
                       F::modulus_limb(0), rng(), rng()}) {
        EXPECT_EQ(canonical_of(F::from_u64(v)), mpz_class(std::to_string(v)));
    }
    EXPECT_EQ(F::from_u64(0), F::zero());
    EXPECT_EQ(F::from_u64(1), F::one());
}

// Values just outside the field: what every parser must refuse.
template <class F>
std::vector<mpz_class> unreduced_values() {
    const mpz_class& m = modulus_of<F>();
    std::vector<mpz_class> values = {m, m + 1, 2 * m - 1, kR<F> - 1};
    const size_t bits = mpz_sizeinbase(m.get_mpz_t(), 2);
    if (bits < 64 * F::kLimbs) values.push_back(mpz_class(1) << bits);
    return values;
}

TYPED_TEST(Field, CanonicalLimbsRoundTrip) {
    using F = TypeParam;
    for (const mpz_class& value : edge_values<F>()) {
        uint64_t limbs[F::kLimbs];
        test::to_limbs(value, limbs, F::kLimbs);
        ASSERT_TRUE(F::is_canonical(limbs));
        const F x = F::from_canonical(limbs);
        uint64_t back[F::kLimbs];
        x.to_canonical(back);
        EXPECT_EQ(from_limbs(back, F::kLimbs), value);
        EXPECT_EQ(from_limbs(x.limbs, F::kLimbs), value * kR<F> % modulus_of<F>()) << "storage is Montgomery form";
    }
    for (const mpz_class& value : unreduced_values<F>()) {
        uint64_t limbs[F::kLimbs];
        test::to_limbs(value, limbs, F::kLimbs);
        EXPECT_FALSE(F::is_canonical(limbs)) << value.get_str(16);
    }
}

TYPED_TEST(Field, LittleEndianBytesRoundTripAndRefuseUnreducedValues) {
    using F = TypeParam;
    constexpr size_t kBytes = F::kBytes;
    const std::vector<F> values = test_values<F>(500);
    std::vector<uint8_t> bulk(values.size() * kBytes);
    ff::to_canonical_le(values.data(), values.size(), bulk.data());
    for (size_t i = 0; i < values.size(); ++i) {
        std::array<uint8_t, kBytes> bytes{};
        values[i].to_canonical_le_bytes(bytes.data());
        ASSERT_EQ(0, std::memcmp(bytes.data(), bulk.data() + kBytes * i, kBytes));
        // Byte k holds bits 8k..8k+7 of the canonical integer.
        mpz_class from_bytes;
        mpz_import(from_bytes.get_mpz_t(), kBytes, -1, 1, 0, 0, bytes.data());
        ASSERT_EQ(from_bytes, canonical_of(values[i]));
        F back;
        ASSERT_TRUE(F::try_from_canonical_le_bytes(bytes.data(), back));
        ASSERT_EQ(back, values[i]);
        ASSERT_EQ(F::from_canonical_le_bytes(bytes.data()), values[i]);
    }
    for (const mpz_class& value : unreduced_values<F>()) {
        std::array<uint8_t, kBytes> bytes{};
        mpz_export(bytes.data(), nullptr, -1, 1, 0, 0, value.get_mpz_t());
        F untouched = F::one();
        EXPECT_FALSE(F::try_from_canonical_le_bytes(bytes.data(), untouched)) << value.get_str(16);
        EXPECT_EQ(untouched, F::one()) << "a refused value must leave the output untouched";
        EXPECT_THROW(F::from_canonical_le_bytes(bytes.data()), std::invalid_argument);
    }
}

// Big-endian bytes of a value as GMP writes them, left-padded to the field's width.
template <class F>
std::vector<uint8_t> be_bytes(const mpz_class& v) {
    std::vector<uint8_t> bytes(F::kBytes, 0);
    size_t count = 0;
    uint8_t buffer[F::kBytes + 8];
    mpz_export(buffer, &count, 1, 1, 1, 0, v.get_mpz_t());
    std::memcpy(bytes.data() + F::kBytes - count, buffer, count);
    return bytes;
}

TYPED_TEST(Field, BigEndianBytesMatchGmpAndRefuseUnreducedValues) {
    using F = TypeParam;
    for (const F& x : test_values<F>(100)) {
        std::vector<uint8_t> bytes(F::kBytes);
        x.to_be_bytes(bytes.data());
        ASSERT_EQ(bytes, be_bytes<F>(canonical_of(x)));
        F back;
        ASSERT_TRUE(F::try_from_be_bytes(bytes.data(), back));
        ASSERT_EQ(back, x);
    }
    for (const mpz_class& bad : unreduced_values<F>()) {
        F out = F::one();
        EXPECT_FALSE(F::try_from_be_bytes(be_bytes<F>(bad).data(), out)) << bad.get_str(16);
        EXPECT_EQ(out, F::one()) << "a refused value must leave the output untouched";
    }
    F out;
    EXPECT_TRUE(F::try_from_be_bytes(be_bytes<F>(modulus_of<F>() - 1).data(), out));
    EXPECT_EQ(out, -F::one());
}

TYPED_TEST(Field, HexRoundTripsAndRefusesBadText) {
    using F = TypeParam;
    const size_t digits = 16 * F::kLimbs;
    for (const F& x : test_values<F>(200)) {
        const std::string hex = x.to_hex();
        const std::string expected = canonical_of(x).get_str(16);
        ASSERT_EQ(hex, "0x" + std::string(digits - expected.size(), '0') + expected);
        ASSERT_EQ(F::from_hex(hex), x);
    }
    EXPECT_EQ(F::from_hex("0x7"), F::from_u64(7));
    EXPECT_EQ(F::from_hex("ff"), F::from_u64(255));
    EXPECT_EQ(F::from_hex("0XaBcD"), F::from_u64(0xabcd));
    EXPECT_EQ(F::one().to_hex(), "0x" + std::string(digits - 1, '0') + "1");
    const std::string m_hex = modulus_of<F>().get_str(16);
    EXPECT_EQ(F::from_hex("0x" + mpz_class(modulus_of<F>() - 1).get_str(16)), -F::one());

    for (const std::string& bad : {std::string(""), std::string("0x"), std::string("0xg1"), std::string("12 3"),
                                   std::string("-1"), m_hex, "0x" + m_hex, std::string(digits + 1, '1'),
                                   "0x1" + std::string(digits, '0')}) {
        F untouched = F::one();
        EXPECT_FALSE(F::try_from_hex(bad, untouched)) << "'" << bad << "'";
        EXPECT_EQ(untouched, F::one());
        EXPECT_THROW(F::from_hex(bad), std::invalid_argument) << "'" << bad << "'";
    }
    // The message names the field, the text and the bound.
    for (const std::string& bad : {std::string("0xzz"), m_hex}) {
        try {
            F::from_hex(bad);
            FAIL() << "from_hex accepted " << bad;
        } catch (const std::invalid_argument& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find(test::FieldNames::description<F>()), std::string::npos) << message;
            EXPECT_NE(message.find(bad), std::string::npos) << message;
            EXPECT_NE(message.find("0x" + m_hex.substr(0, 8) + "..."), std::string::npos) << message;
        }
    }
}

TYPED_TEST(Field, LexicographicallyLargestIsAboveHalfTheModulus) {
    using F = TypeParam;
    const mpz_class half = (modulus_of<F>() - 1) / 2;
    for (const F& x : test_values<F>(300)) {
        ASSERT_EQ(x.is_lexicographically_largest(), canonical_of(x) > half) << x.to_hex();
    }
    EXPECT_FALSE(element_of<F>(half).is_lexicographically_largest());
    EXPECT_TRUE(element_of<F>(half + 1).is_lexicographically_largest());
    EXPECT_FALSE(F::zero().is_lexicographically_largest());
}

// BLS12-381's moduli from its BLS parameter x = -0xd201000000010000:
// r = x^4 - x^2 + 1, p = (x - 1)^2 r / 3 + x.
TEST(Bls12_381, ModuliFollowFromTheBlsParameter) {
    const mpz_class x = -mpz_class("d201000000010000", 16);
    const mpz_class r = x * x * x * x - x * x + 1;
    EXPECT_EQ(modulus_of<ff::bls12_381::Fr>(), r);
    EXPECT_EQ(modulus_of<ff::bls12_381::Fp>(), (x - 1) * (x - 1) * r / 3 + x);
    EXPECT_EQ(ec::kBlsXAbs, 0xd201000000010000ULL);
}

// BN254's moduli from its BN parameter x = 4965661367192848881 (ARCHITECTURE.md, and
// Barreto-Naehrig's p(x) = 36x^4 + 36x^3 + 24x^2 + 6x + 1, r(x) = p(x) - 6x^2).
TEST(Bn254, ModuliFollowFromTheBnParameter) {
    const mpz_class x("4965661367192848881");
    EXPECT_EQ(x, mpz_class("44e992b44a6909f1", 16));
    const mpz_class p = 36 * x * x * x * x + 36 * x * x * x + 24 * x * x + 6 * x + 1;
    EXPECT_EQ(modulus_of<ff::bn254::Fq>(), p);
    EXPECT_EQ(modulus_of<ff::bn254::Fr>(), p - 6 * x * x);
    EXPECT_EQ(from_limbs(ff::bn254::Fq::modulus().limbs, 4), p);
    EXPECT_EQ(from_limbs(ff::bn254::Fr::modulus().limbs, 4), p - 6 * x * x);
}

}  // namespace
}  // namespace zkbatch
