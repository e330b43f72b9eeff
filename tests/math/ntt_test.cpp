// The NTTs against a naive O(n^2) DFT written from the definition, round trips, and
// independence of the thread count, over both curves' scalar fields.
#include "gmp_oracle.hpp"

#include "core/ntt/ntt.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace zkbatch {
namespace {

// Each field's published domain facts (fr_test.cpp checks them against GMP): its
// generator g (the coset shift), two-adicity s and ROOT = g^((r-1)/2^s), canonical hex.
struct DomainFacts {
    uint64_t generator;
    uint32_t two_adicity;
    const char* root_hex;
};
template <class F>
DomainFacts facts();
template <>
DomainFacts facts<ff::bls12_381::Fr>() {  // blst's, bellman's, arkworks'
    return {7, 32, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"};
}
template <>
DomainFacts facts<ff::bn254::Fr>() {  // ffjavascript's bn128 Fr.w[28], arkworks'
    return {5, 28, "2a3c09f0a58a7e8500e0a7eb8ef62abc402d111e41112ed49bd61b6e725b19f0"};
}

// omega_n straight from the constants via GMP: ROOT^(2^(s - log_n)) mod r.
template <class Fr>
Fr reference_omega(uint32_t log_n) {
    const mpz_class root(facts<Fr>().root_hex, 16);
    const mpz_class exponent = mpz_class(1) << (facts<Fr>().two_adicity - log_n);
    mpz_class omega;
    mpz_powm(omega.get_mpz_t(), root.get_mpz_t(), exponent.get_mpz_t(), test::modulus_of<Fr>().get_mpz_t());
    return test::element_of<Fr>(omega);
}

template <class Fr>
Fr generator() {
    return Fr::from_u64(facts<Fr>().generator);
}

size_t naive_bit_reverse(size_t index, uint32_t bits) {
    size_t reversed = 0;
    for (uint32_t bit = 0; bit < bits; ++bit) {
        if (index & (size_t{1} << bit)) reversed |= size_t{1} << (bits - 1 - bit);
    }
    return reversed;
}

// A(point) by Horner from natural-order coefficients.
template <class Fr>
Fr evaluate(const std::vector<Fr>& coefficients, const Fr& point) {
    Fr value = Fr::zero();
    for (size_t k = coefficients.size(); k-- > 0;) value = value * point + coefficients[k];
    return value;
}

// e[i] = A(shift * omega^i).
template <class Fr>
std::vector<Fr> naive_evaluations(const std::vector<Fr>& coefficients, uint32_t log_n, const Fr& shift) {
    const Fr omega = reference_omega<Fr>(log_n);
    std::vector<Fr> evaluations(coefficients.size());
    Fr point = shift;
    for (Fr& e : evaluations) {
        e = evaluate(coefficients, point);
        point *= omega;
    }
    return evaluations;
}

// coefficients[k] = n^-1 * sum_i e[i] * omega^(-ik).
template <class Fr>
std::vector<Fr> naive_interpolation(const std::vector<Fr>& evaluations, uint32_t log_n) {
    const size_t n = evaluations.size();
    const Fr omega_inv = reference_omega<Fr>(log_n).inverse();
    const Fr n_inv = Fr::from_u64(n).inverse();
    std::vector<Fr> coefficients(n);
    for (size_t k = 0; k < n; ++k) {
        const Fr step = omega_inv.pow(k);
        Fr power = Fr::one();
        Fr sum = Fr::zero();
        for (size_t i = 0; i < n; ++i) {
            sum += evaluations[i] * power;
            power *= step;
        }
        coefficients[k] = sum * n_inv;
    }
    return coefficients;
}

template <class Fr>
std::vector<Fr> bit_reversed_copy(const std::vector<Fr>& values, uint32_t log_n) {
    std::vector<Fr> permuted(values.size());
    for (size_t i = 0; i < values.size(); ++i) permuted[naive_bit_reverse(i, log_n)] = values[i];
    return permuted;
}

template <class Fr>
std::vector<Fr> random_vector(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Fr> values(n);
    for (Fr& v : values) v = test::random_element<Fr>(rng);
    return values;
}

template <class F>
class NttOver : public ::testing::Test {};
TYPED_TEST_SUITE(NttOver, test::ScalarFields, test::FieldNames);

TEST(Ntt, BitReverseIndexMatchesNaive) {
    for (uint32_t bits = 0; bits <= 20; ++bits) {
        for (size_t index = 0; index < std::min<size_t>(size_t{1} << bits, 3000); ++index) {
            ASSERT_EQ(ntt::bit_reverse_index(index, bits), naive_bit_reverse(index, bits)) << bits << " " << index;
        }
    }
    EXPECT_EQ(ntt::bit_reverse_index(1, 32), size_t{1} << 31);
}

TYPED_TEST(NttOver, BitReversePermutation) {
    using Fr = TypeParam;
    for (uint32_t log_n : {0u, 1u, 3u, 8u, 13u}) {
        const auto values = random_vector<Fr>(size_t{1} << log_n, log_n);
        auto permuted = values;
        ntt::bit_reverse(permuted.data(), log_n, 3);
        EXPECT_EQ(permuted, bit_reversed_copy(values, log_n)) << "log_n = " << log_n;
    }
}

TYPED_TEST(NttOver, DomainConstants) {
    using Fr = TypeParam;
    using Domain = ntt::generic::Domain<Fr>;
    const Fr g = generator<Fr>();
    for (uint32_t log_n = 0; log_n <= 12; ++log_n) {
        const Domain& domain = Domain::get(log_n);
        EXPECT_EQ(&domain, &Domain::get(log_n)) << "domains are cached";
        EXPECT_EQ(domain.size(), size_t{1} << log_n);
        EXPECT_EQ(domain.omega(), reference_omega<Fr>(log_n));
        EXPECT_EQ(domain.omega() * domain.omega_inv(), Fr::one());
        EXPECT_EQ(domain.size_inv() * Fr::from_u64(domain.size()), Fr::one());
        EXPECT_EQ(domain.coset_shift(), g);
        EXPECT_EQ(domain.coset_shift() * domain.coset_shift_inv(), Fr::one());
        for (size_t p = 0; p < domain.size(); p += 1 + domain.size() / 64) {
            const uint64_t k = naive_bit_reverse(p, log_n);
            EXPECT_EQ(domain.coset_scale_bitrev(p), g.pow(k));
            EXPECT_EQ(domain.coset_unscale_bitrev(p), g.pow(k).inverse() * domain.size_inv());
        }
    }
    EXPECT_THROW(Domain::get(ntt::kMaxLogN + 1), std::invalid_argument);
    // snarkjs's domains shift by a root of twice their size, so the largest is one smaller
    // where the field's two-adicity is what bounds them (BN254's 28).
    const uint32_t largest_snarkjs = std::min(ntt::kMaxLogN, facts<Fr>().two_adicity - 1);
    EXPECT_THROW(Domain::get(largest_snarkjs + 1, ntt::Roots::snarkjs), std::invalid_argument);
    // The roots the device's tables are built from refuse what the field does not hold.
    const uint32_t two_adicity = facts<Fr>().two_adicity;
    EXPECT_EQ(ntt::root_of_unity<Fr>(ntt::Roots::snarkjs, 10), Domain::get(10, ntt::Roots::snarkjs).omega());
    EXPECT_THROW(ntt::root_of_unity<Fr>(ntt::Roots::zkbatch, two_adicity + 1), std::invalid_argument);
    EXPECT_THROW(ntt::coset_shift<Fr>(ntt::Roots::snarkjs, two_adicity), std::invalid_argument);
}

// snarkjs's roots for BN254 are the field's own (5 is both generator and first
// non-residue), and its coset is the odd points of the domain of twice the size.
TEST(Ntt, Bn254SnarkjsDomainIsTheOddPointsOfTheDoubleDomain) {
    using Fr = ff::bn254::Fr;
    for (uint32_t log_n : {1u, 4u, 10u}) {
        const auto& domain = ntt::generic::Domain<Fr>::get(log_n, ntt::Roots::snarkjs);
        EXPECT_EQ(domain.omega(), reference_omega<Fr>(log_n));
        EXPECT_EQ(domain.coset_shift(), reference_omega<Fr>(log_n + 1));
    }
}

// Every transform against the naive DFT for n = 2^0 .. 2^8.
TYPED_TEST(NttOver, AllVariantsMatchNaiveDft) {
    using Fr = TypeParam;
    const Fr g = generator<Fr>();
    for (uint32_t log_n = 0; log_n <= 8; ++log_n) {
        SCOPED_TRACE("log_n = " + std::to_string(log_n));
        const auto& domain = ntt::generic::Domain<Fr>::get(log_n);
        const size_t n = size_t{1} << log_n;
        const std::vector<Fr> coefficients = random_vector<Fr>(n, 100 + log_n);
        const std::vector<Fr> evaluations = naive_evaluations(coefficients, log_n, Fr::one());
        const std::vector<Fr> coset_evaluations = naive_evaluations(coefficients, log_n, g);
        // The naive DFT pair is itself consistent.
        ASSERT_EQ(naive_interpolation(evaluations, log_n), coefficients);

        auto values = coefficients;
        ntt::forward_ntt_natural(domain, values.data(), 2);
        EXPECT_EQ(values, evaluations) << "forward_ntt_natural";

        values = evaluations;
        ntt::inverse_ntt_natural(domain, values.data(), 2);
        EXPECT_EQ(values, coefficients) << "inverse_ntt_natural";

        values = evaluations;
        ntt::inverse_ntt_natural_to_bitrev(domain, values.data(), 2);
        EXPECT_EQ(values, bit_reversed_copy(coefficients, log_n)) << "inverse_ntt_natural_to_bitrev";

        values = bit_reversed_copy(coefficients, log_n);
        ntt::forward_ntt_bitrev_to_natural(domain, values.data(), 2);
        EXPECT_EQ(values, evaluations) << "forward_ntt_bitrev_to_natural";

        values = bit_reversed_copy(coefficients, log_n);
        ntt::coset_forward_ntt_bitrev_to_natural(domain, values.data(), 2);
        EXPECT_EQ(values, coset_evaluations) << "coset_forward_ntt_bitrev_to_natural";

        values = coset_evaluations;
        ntt::coset_inverse_ntt_natural(domain, values.data(), 2);
        EXPECT_EQ(values, coefficients) << "coset_inverse_ntt_natural";
    }
}

TYPED_TEST(NttOver, RoundTripsAtLargerSizes) {
    using Fr = TypeParam;
    for (uint32_t log_n = 10; log_n <= 16; ++log_n) {
        SCOPED_TRACE("log_n = " + std::to_string(log_n));
        const auto& domain = ntt::generic::Domain<Fr>::get(log_n);
        const std::vector<Fr> original = random_vector<Fr>(domain.size(), 200 + log_n);
        auto values = original;
        ntt::forward_ntt_natural(domain, values.data(), 2);
        ntt::inverse_ntt_natural(domain, values.data(), 2);
        EXPECT_EQ(values, original) << "plain";

        ntt::inverse_ntt_natural_to_bitrev(domain, values.data(), 2);
        ntt::coset_forward_ntt_bitrev_to_natural(domain, values.data(), 2);
        // original is now the evaluations of some polynomial P on gH; back to P's
        // coefficients (natural), then to P on H, must give original again.
        ntt::coset_inverse_ntt_natural(domain, values.data(), 2);
        ntt::forward_ntt_natural(domain, values.data(), 2);
        EXPECT_EQ(values, original) << "coset";

        // Spot-check one coset evaluation against Horner at g * omega^i.
        auto coefficients = original;
        auto coset_values = original;
        ntt::inverse_ntt_natural(domain, coefficients.data(), 2);
        ntt::inverse_ntt_natural_to_bitrev(domain, coset_values.data(), 2);
        ntt::coset_forward_ntt_bitrev_to_natural(domain, coset_values.data(), 2);
        const size_t i = domain.size() / 3;
        EXPECT_EQ(coset_values[i], evaluate(coefficients, generator<Fr>() * domain.omega().pow(i)));
    }
}

TYPED_TEST(NttOver, ResultsDoNotDependOnThreadCount) {
    using Fr = TypeParam;
    using Domain = ntt::generic::Domain<Fr>;
    const uint32_t log_n = 14;  // above the size where transforms start using threads
    const Domain& domain = Domain::get(log_n);
    const std::vector<Fr> input = random_vector<Fr>(domain.size(), 314);
    using Transform = void (*)(const Domain&, Fr*, unsigned);
    const Transform transforms[] = {ntt::forward_ntt_natural<Fr>,
                                    ntt::inverse_ntt_natural<Fr>,
                                    ntt::inverse_ntt_natural_to_bitrev<Fr>,
                                    ntt::forward_ntt_bitrev_to_natural<Fr>,
                                    ntt::coset_forward_ntt_bitrev_to_natural<Fr>,
                                    ntt::coset_inverse_ntt_natural<Fr>};
    for (size_t t = 0; t < std::size(transforms); ++t) {
        auto single = input;
        transforms[t](domain, single.data(), 1);
        for (unsigned threads : {0u, 2u, 3u, 7u}) {
            auto multi = input;
            transforms[t](domain, multi.data(), threads);
            EXPECT_EQ(multi, single) << "transform " << t << " with " << threads << " threads";
        }
    }
}

}  // namespace
}  // namespace zkbatch
