// Fr against GMP: every operation on random and edge values, the constants, and the
// canonical byte/hex conversions with their failure paths.
#include "gmp_oracle.hpp"

#include "core/ff/fr.hpp"
#include "core/ff/random.hpp"
#include "core/util/splitmix64.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;
using test::canonical_of;
using test::fr_of;
using test::from_limbs;
using test::modulus;

const mpz_class kTwo256 = mpz_class(1) << 256;
const mpz_class kTwo255 = mpz_class(1) << 255;

// Canonical values that stress carries and the final subtraction.
std::vector<mpz_class> edge_values() {
    const mpz_class& r = modulus();
    std::vector<mpz_class> values = {0, 1, 2, 3, r - 1, r - 2, r - 3, (r - 1) / 2, (r + 1) / 2,
                                     mpz_class(1) << 64, (mpz_class(1) << 64) - 1, (mpz_class(1) << 192) - 1,
                                     mpz_class("ffffffff00000000", 16), mpz_class("ffffffff00000001", 16)};
    for (int k = 0; k < 4; ++k) {
        values.push_back((kTwo255 - 1 - k) % r);  // 256-bit inputs near 2^255, reduced
        values.push_back((kTwo255 + k) % r);
        values.push_back((kTwo256 - 1 - k) % r);
    }
    // Elements whose Montgomery representation is near r or near 0.
    const mpz_class r_inverse_mod = [&] {
        mpz_class inverse;
        mpz_invert(inverse.get_mpz_t(), mpz_class(kTwo256 % r).get_mpz_t(), r.get_mpz_t());
        return inverse;
    }();
    for (const mpz_class& representation : std::vector<mpz_class>{r - 1, r - 2, 1, 2}) {
        values.push_back(representation * r_inverse_mod % r);
    }
    return values;
}

std::vector<Fr> test_values(size_t random_count) {
    std::vector<Fr> values;
    for (const mpz_class& v : edge_values()) values.push_back(fr_of(v));
    std::mt19937_64 rng(20240601);
    for (size_t i = 0; i < random_count; ++i) values.push_back(test::random_fr(rng));
    return values;
}

TEST(Fr, LayoutIsThirtyTwoTriviallyCopyableBytes) {
    static_assert(sizeof(Fr) == 32);
    static_assert(std::is_trivially_copyable_v<Fr>);
    EXPECT_EQ(alignof(Fr), alignof(uint64_t));
}

TEST(Fr, ConstantsAgreeWithGmp) {
    const mpz_class& r = modulus();
    const uint64_t modulus_limbs[4] = {ff::kModulus0, ff::kModulus1, ff::kModulus2, ff::kModulus3};
    EXPECT_EQ(from_limbs(modulus_limbs), r);

    const Fr one = Fr::one();
    EXPECT_EQ(from_limbs(one.limbs), kTwo256 % r) << "one() must be R mod r";

    const uint64_t r_squared_limbs[4] = {ff::kRSquared0, ff::kRSquared1, ff::kRSquared2, ff::kRSquared3};
    EXPECT_EQ(from_limbs(r_squared_limbs), kTwo256 * kTwo256 % r);

    // kMontInv * r == -1 (mod 2^64)
    EXPECT_EQ(ff::kMontInv * ff::kModulus0, ~uint64_t{0});

    // r - 1 = 2^32 * odd
    const mpz_class r_minus_1 = r - 1;
    EXPECT_EQ(mpz_scan1(r_minus_1.get_mpz_t(), 0), ff::kTwoAdicity);

    const uint64_t root_limbs[4] = {ff::kRootOfUnity0, ff::kRootOfUnity1, ff::kRootOfUnity2, ff::kRootOfUnity3};
    const mpz_class root = from_limbs(root_limbs);
    EXPECT_EQ(root, mpz_class("16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b", 16));
    mpz_class expected_root;
    const mpz_class odd_part = r_minus_1 >> 32;
    mpz_powm(expected_root.get_mpz_t(), mpz_class(7).get_mpz_t(), odd_part.get_mpz_t(), r.get_mpz_t());
    EXPECT_EQ(root, expected_root) << "ROOT must be 7^((r-1)/2^32)";
    mpz_class power;
    mpz_powm(power.get_mpz_t(), root.get_mpz_t(), mpz_class(kTwo256 >> 224).get_mpz_t(), r.get_mpz_t());
    EXPECT_EQ(power, 1) << "ROOT^(2^32) must be 1";
    mpz_powm(power.get_mpz_t(), root.get_mpz_t(), mpz_class(kTwo256 >> 225).get_mpz_t(), r.get_mpz_t());
    EXPECT_EQ(power, r - 1) << "ROOT^(2^31) must be -1 (ROOT is primitive)";

    EXPECT_EQ(canonical_of(Fr::max_root_of_unity()), root);
    EXPECT_EQ(from_limbs(Fr::max_root_of_unity().limbs), root * kTwo256 % r);
    EXPECT_EQ(canonical_of(Fr::coset_shift()), ff::kCosetShift);
    EXPECT_EQ(Fr::coset_shift(), Fr::from_u64(7));
}

TEST(Fr, RootOfUnityHasExactOrder) {
    const mpz_class& r = modulus();
    for (uint32_t log_n = 0; log_n <= ff::kTwoAdicity; ++log_n) {
        const mpz_class omega = canonical_of(ff::root_of_unity(log_n));
        mpz_class power;
        mpz_class exponent = mpz_class(1) << log_n;
        mpz_powm(power.get_mpz_t(), omega.get_mpz_t(), exponent.get_mpz_t(), r.get_mpz_t());
        EXPECT_EQ(power, 1) << "log_n = " << log_n;
        if (log_n > 0) {
            exponent >>= 1;
            mpz_powm(power.get_mpz_t(), omega.get_mpz_t(), exponent.get_mpz_t(), r.get_mpz_t());
            EXPECT_EQ(power, r - 1) << "log_n = " << log_n;
        }
    }
    EXPECT_EQ(ff::root_of_unity(ff::kTwoAdicity), Fr::max_root_of_unity());
    EXPECT_TRUE(ff::root_of_unity(ff::kTwoAdicity + 1).is_zero());
}

TEST(Fr, ArithmeticMatchesGmp) {
    const mpz_class& r = modulus();
    const std::vector<Fr> values = test_values(3000);
    std::vector<mpz_class> plain;
    for (const Fr& v : values) plain.push_back(canonical_of(v));
    const size_t count = values.size();
    for (size_t i = 0; i < count; ++i) {
        // Each value against a fixed partner pattern plus every edge value.
        for (size_t j : {(i * 7 + 1) % count, (i * 13 + 5) % count, i % 40, count - 1 - i}) {
            const Fr& x = values[i];
            const Fr& y = values[j];
            const mpz_class& px = plain[i];
            const mpz_class& py = plain[j];
            ASSERT_EQ(canonical_of(x + y), (px + py) % r) << px.get_str(16) << " + " << py.get_str(16);
            ASSERT_EQ(canonical_of(x - y), ((px - py) % r + r) % r) << px.get_str(16) << " - " << py.get_str(16);
            ASSERT_EQ(canonical_of(x * y), px * py % r) << px.get_str(16) << " * " << py.get_str(16);
            Fr accumulator = x;
            accumulator += y;
            accumulator *= y;
            accumulator -= x;
            ASSERT_EQ(canonical_of(accumulator), (((px + py) * py - px) % r + r) % r);
            ASSERT_EQ(x == y, px == py);
            ASSERT_EQ(x != y, px != py);
        }
        const Fr& x = values[i];
        ASSERT_EQ(canonical_of(x.sqr()), plain[i] * plain[i] % r);
        ASSERT_EQ(canonical_of(-x), (r - plain[i]) % r);
        ASSERT_EQ(x.is_zero(), plain[i] == 0);
        // Stored limbs are always fully reduced.
        ASSERT_LT(from_limbs(x.limbs), r);
    }
}

TEST(Fr, PowAndInverseMatchGmp) {
    const mpz_class& r = modulus();
    const std::vector<Fr> values = test_values(300);
    std::mt19937_64 rng(7);
    for (const Fr& x : values) {
        const mpz_class px = canonical_of(x);
        for (uint64_t exponent : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{65537}, ~uint64_t{0}, rng()}) {
            mpz_class expected;
            mpz_class e;
            mpz_import(e.get_mpz_t(), 1, -1, sizeof(uint64_t), 0, 0, &exponent);
            mpz_powm(expected.get_mpz_t(), px.get_mpz_t(), e.get_mpz_t(), r.get_mpz_t());
            ASSERT_EQ(canonical_of(x.pow(exponent)), expected) << px.get_str(16) << "^" << exponent;
        }
        if (px == 0) {
            EXPECT_TRUE(x.inverse().is_zero()) << "the inverse of 0 is defined as 0";
        } else {
            mpz_class expected;
            mpz_invert(expected.get_mpz_t(), px.get_mpz_t(), r.get_mpz_t());
            ASSERT_EQ(canonical_of(x.inverse()), expected) << px.get_str(16);
            ASSERT_EQ(x * x.inverse(), Fr::one());
        }
    }
}

TEST(Fr, FromU64MatchesGmp) {
    std::mt19937_64 rng(99);
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{7}, ~uint64_t{0}, uint64_t{0xffffffff00000001ULL}, rng(), rng()}) {
        mpz_class expected;
        mpz_import(expected.get_mpz_t(), 1, -1, sizeof(uint64_t), 0, 0, &v);
        EXPECT_EQ(canonical_of(Fr::from_u64(v)), expected);
    }
    EXPECT_EQ(Fr::from_u64(0), Fr::zero());
    EXPECT_EQ(Fr::from_u64(1), Fr::one());
}

TEST(Fr, CanonicalLimbsRoundTrip) {
    for (const mpz_class& value : edge_values()) {
        uint64_t limbs[4];
        test::to_limbs(value, limbs);
        EXPECT_TRUE(ff::is_canonical(limbs));
        const Fr x = Fr::from_canonical(limbs);
        uint64_t back[4];
        x.to_canonical(back);
        EXPECT_EQ(from_limbs(back), value);
    }
    const mpz_class& r = modulus();
    for (const mpz_class& value : std::vector<mpz_class>{r, r + 1, kTwo255, kTwo256 - 1}) {
        uint64_t limbs[4];
        test::to_limbs(value, limbs);
        EXPECT_FALSE(ff::is_canonical(limbs)) << value.get_str(16);
    }
}

TEST(Fr, CanonicalBytesRoundTripAndRejectUnreduced) {
    const std::vector<Fr> values = test_values(500);
    std::vector<uint8_t> bulk(values.size() * 32);
    ff::to_canonical_le(values.data(), values.size(), bulk.data());
    for (size_t i = 0; i < values.size(); ++i) {
        std::array<uint8_t, 32> bytes{};
        values[i].to_canonical_le_bytes(bytes.data());
        ASSERT_EQ(0, std::memcmp(bytes.data(), bulk.data() + 32 * i, 32));
        // Byte k holds bits 8k..8k+7 of the canonical integer.
        mpz_class from_bytes;
        mpz_import(from_bytes.get_mpz_t(), 32, -1, 1, 0, 0, bytes.data());
        ASSERT_EQ(from_bytes, canonical_of(values[i]));
        Fr back;
        ASSERT_TRUE(Fr::try_from_canonical_le_bytes(bytes.data(), back));
        ASSERT_EQ(back, values[i]);
        ASSERT_EQ(Fr::from_canonical_le_bytes(bytes.data()), values[i]);
    }
    const mpz_class& r = modulus();
    for (const mpz_class& value : std::vector<mpz_class>{r, r + 1, kTwo255, kTwo256 - 1}) {
        std::array<uint8_t, 32> bytes{};
        mpz_export(bytes.data(), nullptr, -1, 1, 0, 0, value.get_mpz_t());
        Fr untouched = Fr::one();
        EXPECT_FALSE(Fr::try_from_canonical_le_bytes(bytes.data(), untouched)) << value.get_str(16);
        EXPECT_EQ(untouched, Fr::one());
        EXPECT_THROW(Fr::from_canonical_le_bytes(bytes.data()), std::invalid_argument);
    }
}

TEST(Fr, HexRoundTripAndParseErrors) {
    for (const Fr& x : test_values(200)) {
        const std::string hex = x.to_hex();
        ASSERT_EQ(hex.size(), 66u);
        ASSERT_EQ(hex.substr(0, 2), "0x");
        ASSERT_EQ(mpz_class(hex.substr(2), 16), canonical_of(x));
        ASSERT_EQ(Fr::from_hex(hex), x);
    }
    EXPECT_EQ(Fr::from_hex("0x7"), Fr::from_u64(7));
    EXPECT_EQ(Fr::from_hex("ff"), Fr::from_u64(255));
    EXPECT_EQ(Fr::from_hex("0XaBcD"), Fr::from_u64(0xabcd));
    EXPECT_EQ(Fr::one().to_hex(), "0x0000000000000000000000000000000000000000000000000000000000000001");
    EXPECT_EQ(Fr::from_hex("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000"), -Fr::one());

    for (const char* bad : {"", "0x", "0xg1", "12 3", "-1", "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
                            "0x100000000000000000000000000000000000000000000000000000000000000000"}) {
        Fr untouched = Fr::one();
        EXPECT_FALSE(Fr::try_from_hex(bad, untouched)) << "'" << bad << "'";
        EXPECT_EQ(untouched, Fr::one());
        EXPECT_THROW(Fr::from_hex(bad), std::invalid_argument) << "'" << bad << "'";
    }
    try {
        Fr::from_hex("0xzz");
        FAIL() << "from_hex accepted 0xzz";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("0xzz"), std::string::npos) << error.what();
    }
}

TEST(Fr, UniformDrawsAreReducedAndDeterministic) {
    util::SplitMix64 first(5);
    util::SplitMix64 second(5);
    for (int i = 0; i < 2000; ++i) {
        const Fr x = ff::uniform_fr(first);
        ASSERT_TRUE(ff::is_canonical(x.limbs));
        ASSERT_EQ(x, ff::uniform_fr(second));
    }
}

TEST(SplitMix64, MatchesReferenceOutput) {
    // The first outputs of the reference SplitMix64 seeded with 1234567 (Vigna's splitmix64.c).
    util::SplitMix64 generator(1234567);
    EXPECT_EQ(generator.next(), 6457827717110365317ULL);
    EXPECT_EQ(generator.next(), 3203168211198807973ULL);
    EXPECT_EQ(generator.next(), 9817491932198370423ULL);
}

}  // namespace
}  // namespace zkbatch
