// The NTTs against a naive O(n^2) DFT written from the definition, round trips, and
// independence of the thread count.
#include "gmp_oracle.hpp"

#include "core/ntt/ntt.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;

// omega_n straight from the constants via GMP: ROOT^(2^(32 - log_n)) mod r.
Fr reference_omega(uint32_t log_n) {
    const mpz_class root("16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b", 16);
    const mpz_class exponent = mpz_class(1) << (32 - log_n);
    mpz_class omega;
    mpz_powm(omega.get_mpz_t(), root.get_mpz_t(), exponent.get_mpz_t(), test::modulus().get_mpz_t());
    return test::fr_of(omega);
}

size_t naive_bit_reverse(size_t index, uint32_t bits) {
    size_t reversed = 0;
    for (uint32_t bit = 0; bit < bits; ++bit) {
        if (index & (size_t{1} << bit)) reversed |= size_t{1} << (bits - 1 - bit);
    }
    return reversed;
}

// A(point) by Horner from natural-order coefficients.
Fr evaluate(const std::vector<Fr>& coefficients, const Fr& point) {
    Fr value = Fr::zero();
    for (size_t k = coefficients.size(); k-- > 0;) value = value * point + coefficients[k];
    return value;
}

// e[i] = A(shift * omega^i).
std::vector<Fr> naive_evaluations(const std::vector<Fr>& coefficients, uint32_t log_n, const Fr& shift) {
    const Fr omega = reference_omega(log_n);
    std::vector<Fr> evaluations(coefficients.size());
    Fr point = shift;
    for (Fr& e : evaluations) {
        e = evaluate(coefficients, point);
        point *= omega;
    }
    return evaluations;
}

// coefficients[k] = n^-1 * sum_i e[i] * omega^(-ik).
std::vector<Fr> naive_interpolation(const std::vector<Fr>& evaluations, uint32_t log_n) {
    const size_t n = evaluations.size();
    const Fr omega_inv = reference_omega(log_n).inverse();
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

std::vector<Fr> bit_reversed_copy(const std::vector<Fr>& values, uint32_t log_n) {
    std::vector<Fr> permuted(values.size());
    for (size_t i = 0; i < values.size(); ++i) permuted[naive_bit_reverse(i, log_n)] = values[i];
    return permuted;
}

std::vector<Fr> random_vector(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Fr> values(n);
    for (Fr& v : values) v = test::random_fr(rng);
    return values;
}

TEST(Ntt, BitReverseIndexMatchesNaive) {
    for (uint32_t bits = 0; bits <= 20; ++bits) {
        for (size_t index = 0; index < std::min<size_t>(size_t{1} << bits, 3000); ++index) {
            ASSERT_EQ(ntt::bit_reverse_index(index, bits), naive_bit_reverse(index, bits)) << bits << " " << index;
        }
    }
    EXPECT_EQ(ntt::bit_reverse_index(1, 32), size_t{1} << 31);
}

TEST(Ntt, BitReversePermutation) {
    for (uint32_t log_n : {0u, 1u, 3u, 8u, 13u}) {
        const auto values = random_vector(size_t{1} << log_n, log_n);
        auto permuted = values;
        ntt::bit_reverse(permuted.data(), log_n, 3);
        EXPECT_EQ(permuted, bit_reversed_copy(values, log_n)) << "log_n = " << log_n;
    }
}

TEST(Ntt, DomainConstants) {
    for (uint32_t log_n = 0; log_n <= 12; ++log_n) {
        const ntt::Domain& domain = ntt::Domain::get(log_n);
        EXPECT_EQ(&domain, &ntt::Domain::get(log_n)) << "domains are cached";
        EXPECT_EQ(domain.size(), size_t{1} << log_n);
        EXPECT_EQ(domain.omega(), reference_omega(log_n));
        EXPECT_EQ(domain.omega() * domain.omega_inv(), Fr::one());
        EXPECT_EQ(domain.size_inv() * Fr::from_u64(domain.size()), Fr::one());
        EXPECT_EQ(domain.coset_shift(), Fr::from_u64(7));
        EXPECT_EQ(domain.coset_shift() * domain.coset_shift_inv(), Fr::one());
        for (size_t p = 0; p < domain.size(); p += 1 + domain.size() / 64) {
            const uint64_t k = naive_bit_reverse(p, log_n);
            EXPECT_EQ(domain.coset_scale_bitrev(p), Fr::from_u64(7).pow(k));
            EXPECT_EQ(domain.coset_unscale_bitrev(p), Fr::from_u64(7).pow(k).inverse() * domain.size_inv());
        }
    }
    EXPECT_THROW(ntt::Domain::get(ntt::kMaxLogN + 1), std::invalid_argument);
}

// Every transform against the naive DFT for n = 2^0 .. 2^8.
TEST(Ntt, AllVariantsMatchNaiveDft) {
    const Fr g = Fr::from_u64(7);
    for (uint32_t log_n = 0; log_n <= 8; ++log_n) {
        SCOPED_TRACE("log_n = " + std::to_string(log_n));
        const ntt::Domain& domain = ntt::Domain::get(log_n);
        const size_t n = size_t{1} << log_n;
        const std::vector<Fr> coefficients = random_vector(n, 100 + log_n);
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

TEST(Ntt, RoundTripsAtLargerSizes) {
    for (uint32_t log_n = 10; log_n <= 16; ++log_n) {
        SCOPED_TRACE("log_n = " + std::to_string(log_n));
        const ntt::Domain& domain = ntt::Domain::get(log_n);
        const std::vector<Fr> original = random_vector(domain.size(), 200 + log_n);
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
        EXPECT_EQ(coset_values[i], evaluate(coefficients, Fr::from_u64(7) * domain.omega().pow(i)));
    }
}

TEST(Ntt, ResultsDoNotDependOnThreadCount) {
    const uint32_t log_n = 14;  // above the size where transforms start using threads
    const ntt::Domain& domain = ntt::Domain::get(log_n);
    const std::vector<Fr> input = random_vector(domain.size(), 314);
    using Transform = void (*)(const ntt::Domain&, Fr*, unsigned);
    const Transform transforms[] = {ntt::forward_ntt_natural,
                                    ntt::inverse_ntt_natural,
                                    ntt::inverse_ntt_natural_to_bitrev,
                                    ntt::forward_ntt_bitrev_to_natural,
                                    ntt::coset_forward_ntt_bitrev_to_natural,
                                    ntt::coset_inverse_ntt_natural};
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
