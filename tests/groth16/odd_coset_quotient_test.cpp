// snarkjs's quotient variant: A*B - C at the odd points of the size-2n domain, with
// ffjavascript's roots of unity, against a naive O(n^2) interpolation and Horner
// evaluation that shares no code with the NTTs, over both curves' scalar fields.
#include "core/ntt/ntt.hpp"
#include "core/quotient/quotient.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace zkbatch {
namespace {

// Uniform below r: random words with the top limb cut to r's bit length, rejected at r or above.
template <class F>
F random_element(std::mt19937_64& rng) {
    constexpr int kTopBits = F::kModulusBits - 64 * (F::kLimbs - 1);
    for (;;) {
        uint64_t limbs[F::kLimbs];
        for (int i = 0; i < F::kLimbs; ++i) limbs[i] = i + 1 < F::kLimbs ? rng() : rng() >> (64 - kTopBits);
        if (F::is_canonical(limbs)) return F::from_canonical(limbs);
    }
}

// base^e for a 256-bit exponent (little-endian limbs), square and multiply.
template <class Fr>
Fr power(const Fr& base, const uint64_t exponent[4]) {
    Fr result = Fr::one();
    for (int limb = 3; limb >= 0; --limb)
        for (int bit = 63; bit >= 0; --bit) {
            result = result.sqr();
            if ((exponent[limb] >> bit) & 1) result *= base;
        }
    return result;
}

TEST(OddCosetQuotient, SnarkjsRootsAreFivesPowers) {
    using ff::Fr;
    // (r - 1) / 2^32
    const uint64_t t[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL, 0x299d7d483339d808ULL, 0x0000000073eda753ULL};
    const Fr five_root = power(Fr::from_u64(5), t);
    for (uint32_t log_n : {1u, 4u, 10u, 20u}) {
        const ntt::Domain& domain = ntt::Domain::get(log_n, ntt::Roots::snarkjs);
        Fr expected = five_root;
        for (uint32_t i = log_n; i < 32; ++i) expected = expected.sqr();
        EXPECT_EQ(domain.omega(), expected) << "log_n " << log_n;
        EXPECT_EQ(domain.coset_shift().sqr(), domain.omega()) << "the coset shift is a 2n-th root";
        EXPECT_NE(domain.coset_shift().pow(uint64_t{1} << log_n), Fr::one()) << "a primitive one";
        // Every primitive 2^k-th root is -1 at k = 1; the two families part further up.
        if (log_n >= 10) {
            EXPECT_NE(domain.omega(), ntt::Domain::get(log_n).omega()) << "not zkbatch's root";
        }
    }
}

template <class F>
class OddCosetQuotientOver : public ::testing::Test {};
struct FieldNames {
    template <class F>
    static std::string GetName(int) {
        return std::is_same_v<F, ff::bls12_381::Fr> ? "Bls12_381Fr" : "Bn254Fr";
    }
};
using ScalarFields = ::testing::Types<ff::bls12_381::Fr, ff::bn254::Fr>;
TYPED_TEST_SUITE(OddCosetQuotientOver, ScalarFields, FieldNames);

TYPED_TEST(OddCosetQuotientOver, EqualsNaiveEvaluationAtTheOddPoints) {
    using Fr = TypeParam;
    std::mt19937_64 rng(2024);
    for (uint32_t log_n : {1u, 2u, 3u, 6u, 9u}) {
        const size_t n = size_t{1} << log_n;
        std::vector<Fr> a(n), b(n), c(n), out(n), scratch(2 * n);
        for (size_t i = 0; i < n; ++i)
            a[i] = random_element<Fr>(rng), b[i] = random_element<Fr>(rng), c[i] = random_element<Fr>(rng);
        prove::compute_odd_coset_quotient_cpu(log_n, a.data(), b.data(), c.data(), out.data(), scratch.data(), 2);

        const auto& domain = ntt::generic::Domain<Fr>::get(log_n, ntt::Roots::snarkjs);
        const Fr omega_inv = domain.omega().inverse(), n_inv = Fr::from_u64(n).inverse();
        auto coefficients = [&](const std::vector<Fr>& values) {  // naive inverse DFT
            std::vector<Fr> coeffs(n, Fr::zero());
            for (size_t k = 0; k < n; ++k) {
                const Fr step = omega_inv.pow(k);
                Fr point = Fr::one();
                for (size_t j = 0; j < n; ++j, point *= step) coeffs[k] += values[j] * point;
                coeffs[k] *= n_inv;
            }
            return coeffs;
        };
        const std::vector<Fr> ca = coefficients(a), cb = coefficients(b), cc = coefficients(c);
        auto horner = [n](const std::vector<Fr>& coeffs, const Fr& x) {
            Fr sum = Fr::zero();
            for (size_t k = n; k-- > 0;) sum = sum * x + coeffs[k];
            return sum;
        };
        for (size_t j = 0; j < n; ++j) {
            const Fr x = domain.coset_shift().pow(2 * j + 1);
            ASSERT_EQ(out[j], horner(ca, x) * horner(cb, x) - horner(cc, x)) << "log_n " << log_n << " j " << j;
        }
    }
}

}  // namespace
}  // namespace zkbatch
