// The scalar fields' domain facts against GMP and published values: the generator (the
// coset shift), the primitive root of unity and every domain's; BLS12-381 Fr's uniform
// draws. The arithmetic every field shares is field_test.cpp's.
#include "gmp_oracle.hpp"

#include "core/ff/random.hpp"
#include "core/util/splitmix64.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <type_traits>

namespace zkbatch {
namespace {

using test::canonical_of;
using test::modulus_of;

// Published facts of each scalar field: the generator, the primitive 2^s-th root of
// unity g^((r-1)/2^s) (canonical hex), and the factorization of r - 1.
struct ScalarFieldFacts {
    uint64_t generator;
    uint32_t two_adicity;
    const char* root_hex;
    std::map<std::string, unsigned> factors;  // prime (decimal) -> exponent
};

template <class F>
ScalarFieldFacts facts();
// ROOT is blst's, bellman's and arkworks' BLS12-381 constant, 7 their generator. The
// factorizations of r - 1 are checked here (product and primality), not trusted.
template <>
ScalarFieldFacts facts<ff::bls12_381::Fr>() {
    return {7,
            32,
            "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b",
            {{"2", 32}, {"3", 1}, {"11", 1}, {"19", 1}, {"10177", 1}, {"125527", 1}, {"859267", 1}, {"906349", 2},
             {"2508409", 1}, {"2529403", 1}, {"52437899", 1}, {"254760293", 2}}};
}
// ROOT is snarkjs's: ffjavascript 0.3.1's bn128 Fr.w[28] (tools/js/node_modules/ffjavascript:
// src/f1field.js takes the smallest non-residue, 5, and src/fft.js w[s] = 5^t), also
// arkworks' TWO_ADIC_ROOT_OF_UNITY; 5 is arkworks' and gnark's generator.
template <>
ScalarFieldFacts facts<ff::bn254::Fr>() {
    return {5,
            28,
            "2a3c09f0a58a7e8500e0a7eb8ef62abc402d111e41112ed49bd61b6e725b19f0",
            {{"2", 28}, {"3", 2}, {"13", 1}, {"29", 1}, {"983", 1}, {"11003", 1}, {"237073", 1}, {"405928799", 1},
             {"1670836401704629", 1}, {"13818364434197438864469338081", 1}}};
}

template <class F>
class ScalarField : public ::testing::Test {};
TYPED_TEST_SUITE(ScalarField, test::ScalarFields, test::FieldNames);

TYPED_TEST(ScalarField, DomainConstantsAgreeWithGmpAndPublishedValues) {
    using F = TypeParam;
    const ScalarFieldFacts expected = facts<F>();
    const mpz_class& r = modulus_of<F>();
    const mpz_class r_minus_1 = r - 1;
    EXPECT_EQ(mpz_scan1(r_minus_1.get_mpz_t(), 0), expected.two_adicity);
    EXPECT_EQ(F::kTwoAdicity, expected.two_adicity);

    const mpz_class root(expected.root_hex, 16);
    EXPECT_EQ(canonical_of(F::max_root_of_unity()), root);
    EXPECT_EQ(test::from_limbs(F::max_root_of_unity().limbs, F::kLimbs), root * test::kR<F> % r);
    mpz_class power;
    const mpz_class odd_part = r_minus_1 >> expected.two_adicity;
    mpz_powm(power.get_mpz_t(), mpz_class(std::to_string(expected.generator)).get_mpz_t(), odd_part.get_mpz_t(),
             r.get_mpz_t());
    EXPECT_EQ(root, power) << "ROOT must be g^((r-1)/2^s)";
    const mpz_class order = mpz_class(1) << expected.two_adicity;
    mpz_powm(power.get_mpz_t(), root.get_mpz_t(), order.get_mpz_t(), r.get_mpz_t());
    EXPECT_EQ(power, 1) << "ROOT^(2^s) must be 1";
    const mpz_class half_order = order / 2;
    mpz_powm(power.get_mpz_t(), root.get_mpz_t(), half_order.get_mpz_t(), r.get_mpz_t());
    EXPECT_EQ(power, r - 1) << "ROOT^(2^(s-1)) must be -1 (ROOT is primitive)";

    EXPECT_EQ(canonical_of(F::coset_shift()), expected.generator);
    EXPECT_EQ(F::coset_shift(), F::from_u64(expected.generator));
}

// g generates the whole multiplicative group: g^((r-1)/q) != 1 for every prime q of r - 1.
TYPED_TEST(ScalarField, TheGeneratorHasOrderRMinusOne) {
    using F = TypeParam;
    const ScalarFieldFacts expected = facts<F>();
    const mpz_class& r = modulus_of<F>();
    mpz_class product = 1;
    for (const auto& [prime_text, exponent] : expected.factors) {
        const mpz_class prime(prime_text);
        EXPECT_NE(mpz_probab_prime_p(prime.get_mpz_t(), 30), 0) << prime_text;
        for (unsigned i = 0; i < exponent; ++i) product *= prime;
        mpz_class power;
        const mpz_class exponent_of_q = (r - 1) / prime;
        mpz_powm(power.get_mpz_t(), canonical_of(F::coset_shift()).get_mpz_t(), exponent_of_q.get_mpz_t(),
                 r.get_mpz_t());
        EXPECT_NE(power, 1) << "g^((r-1)/" << prime_text << ")";
    }
    EXPECT_EQ(product, r - 1) << "the factorization of r - 1";
}

TYPED_TEST(ScalarField, RootOfUnityHasExactOrder) {
    using F = TypeParam;
    const mpz_class& r = modulus_of<F>();
    for (uint32_t log_n = 0; log_n <= F::kTwoAdicity; ++log_n) {
        const mpz_class omega = canonical_of(F::root_of_unity(log_n));
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
    EXPECT_EQ(F::root_of_unity(F::kTwoAdicity), F::max_root_of_unity());
    EXPECT_TRUE(F::root_of_unity(F::kTwoAdicity + 1).is_zero());
}

TEST(Fr, UniformDrawsAreReducedAndDeterministic) {
    util::SplitMix64 first(5);
    util::SplitMix64 second(5);
    for (int i = 0; i < 2000; ++i) {
        const ff::Fr x = ff::uniform_fr(first);
        ASSERT_TRUE(ff::Fr::is_canonical(x.limbs));
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
