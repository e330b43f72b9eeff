// The quotient against a schoolbook computation (interpolate, multiply, divide by
// X^n - 1) over both curves' scalar fields, and the identity check on synthesized
// circuits, with its failure paths.
#include "gmp_oracle.hpp"

#include "core/circuit/synthetic.hpp"
#include "core/quotient/quotient.hpp"
#include "core/quotient/identity.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;

// Lagrange interpolation on H from the definition: coefficients of the polynomial
// with values[i] at omega^i, as sum_i values[i] * prod_{j != i} (X - w_j) / (w_i - w_j).
template <class Fr>
std::vector<Fr> interpolate(const std::vector<Fr>& values, uint32_t log_n) {
    const size_t n = values.size();
    const Fr omega = Fr::root_of_unity(log_n);
    std::vector<Fr> points(n);
    for (size_t i = 0; i < n; ++i) points[i] = omega.pow(i);
    std::vector<Fr> result(n, Fr::zero());
    for (size_t i = 0; i < n; ++i) {
        std::vector<Fr> basis = {Fr::one()};  // prod_{j != i} (X - w_j), low degree first
        Fr denominator = Fr::one();
        for (size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            std::vector<Fr> next(basis.size() + 1, Fr::zero());
            for (size_t k = 0; k < basis.size(); ++k) {
                next[k + 1] += basis[k];
                next[k] -= basis[k] * points[j];
            }
            basis = std::move(next);
            denominator *= points[i] - points[j];
        }
        const Fr scale = values[i] * denominator.inverse();
        for (size_t k = 0; k < n; ++k) result[k] += basis[k] * scale;
    }
    return result;
}

// (A*B - C) / (X^n - 1) by polynomial multiplication and long division; the
// remainder must vanish for a satisfied circuit.
template <class Fr>
std::vector<Fr> schoolbook_quotient(const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c,
                                    uint32_t log_n) {
    const size_t n = a.size();
    const auto a_poly = interpolate(a, log_n);
    const auto b_poly = interpolate(b, log_n);
    const auto c_poly = interpolate(c, log_n);
    std::vector<Fr> numerator(2 * n, Fr::zero());
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) numerator[i + j] += a_poly[i] * b_poly[j];
    }
    for (size_t i = 0; i < n; ++i) numerator[i] -= c_poly[i];
    std::vector<Fr> quotient(n, Fr::zero());
    for (size_t degree = 2 * n - 1; degree >= n; --degree) {
        // numerator = q_d X^(d-n) (X^n - 1) + rest
        const Fr q = numerator[degree];
        quotient[degree - n] = q;
        numerator[degree] = Fr::zero();
        numerator[degree - n] += q;
    }
    for (size_t i = 0; i < n; ++i) EXPECT_TRUE(numerator[i].is_zero()) << "remainder coefficient " << i;
    return quotient;
}

template <class F>
struct VectorsOver {
    std::vector<F> a, b, c;
};
using Vectors = VectorsOver<Fr>;

template <class F>
VectorsOver<F> random_satisfied(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    VectorsOver<F> v{std::vector<F>(n), std::vector<F>(n), std::vector<F>(n)};
    for (size_t i = 0; i < n; ++i) {
        v.a[i] = test::random_element<F>(rng);
        v.b[i] = test::random_element<F>(rng);
        v.c[i] = v.a[i] * v.b[i];
    }
    return v;
}

template <class F>
std::vector<F> quotient_of(const VectorsOver<F>& v, uint32_t log_n, unsigned threads) {
    const size_t n = v.a.size();
    std::vector<F> h(n);
    std::vector<F> scratch(2 * n);
    prove::compute_quotient_cpu(log_n, v.a.data(), v.b.data(), v.c.data(), h.data(), scratch.data(), threads);
    return h;
}

template <class F>
class QuotientOver : public ::testing::Test {};
TYPED_TEST_SUITE(QuotientOver, test::ScalarFields, test::FieldNames);

TYPED_TEST(QuotientOver, MatchesSchoolbookDivision) {
    for (uint32_t log_n = 0; log_n <= 6; ++log_n) {
        SCOPED_TRACE("log_n = " + std::to_string(log_n));
        const auto v = random_satisfied<TypeParam>(size_t{1} << log_n, 500 + log_n);
        const auto before = v;
        const auto h = quotient_of(v, log_n, 2);
        EXPECT_EQ(h, schoolbook_quotient(v.a, v.b, v.c, log_n));
        EXPECT_TRUE(h.back().is_zero());
        EXPECT_EQ(v.a, before.a);
        EXPECT_EQ(v.b, before.b);
        EXPECT_EQ(v.c, before.c);
    }
}

TYPED_TEST(QuotientOver, ResultDoesNotDependOnThreadCount) {
    const uint32_t log_n = 14;
    const auto v = random_satisfied<TypeParam>(size_t{1} << log_n, 77);
    const auto single = quotient_of(v, log_n, 1);
    EXPECT_EQ(quotient_of(v, log_n, 2), single);
    EXPECT_EQ(quotient_of(v, log_n, 5), single);
}

// The runner's check of a backend's h, over either curve's Fr: it holds for the quotient
// and, with h as backends return it (canonical bytes), fails when one coefficient changes.
TYPED_TEST(QuotientOver, IdentityHoldsAndCatchesAChangedCoefficient) {
    const uint32_t log_n = 15;  // two blocks of the check
    const auto v = random_satisfied<TypeParam>(size_t{1} << log_n, 88);
    auto h = quotient_of(v, log_n, 2);
    const auto canonical = [&] {
        std::vector<uint8_t> bytes(32 * h.size());
        for (size_t i = 0; i < h.size(); ++i) h[i].to_canonical_le_bytes(bytes.data() + 32 * i);
        return bytes;
    };
    EXPECT_TRUE(verify::check_quotient(log_n, v.a.data(), v.b.data(), v.c.data(), h.data(), 3, 2).ok);
    EXPECT_TRUE(
        verify::check_quotient_canonical_h(log_n, v.a.data(), v.b.data(), v.c.data(), canonical().data(), 3, 2).ok);
    h[(size_t{1} << 14) + 5] += TypeParam::one();
    const verify::IdentityResult changed =
        verify::check_quotient_canonical_h(log_n, v.a.data(), v.b.data(), v.c.data(), canonical().data(), 3, 2);
    EXPECT_FALSE(changed.ok);
    EXPECT_NE(changed.detail.find("h is not the quotient"), std::string::npos) << changed.detail;
}

TEST(Identity, HoldsForSynthesizedCircuits) {
    for (uint32_t log_n = 1; log_n <= 14; ++log_n) {
        SCOPED_TRACE("log_n = " + std::to_string(log_n));
        const size_t n = size_t{1} << log_n;
        Vectors v{std::vector<Fr>(n), std::vector<Fr>(n), std::vector<Fr>(n)};
        circuit::synthesize({log_n, 3}, 11, log_n, v.a.data(), v.b.data(), v.c.data());
        const auto h = quotient_of(v, log_n, 2);
        for (uint64_t x_seed : {uint64_t{1}, uint64_t{2}}) {
            const auto result = verify::check_quotient(log_n, v.a.data(), v.b.data(), v.c.data(), h.data(), x_seed);
            EXPECT_TRUE(result.ok) << result.detail;
            EXPECT_TRUE(result.detail.empty());
        }
    }
}

// Above 2^14 the check runs over several blocks, each with its own batch inversion and
// Horner segment: a corruption in any block, on any thread, must still be caught.
TEST(Identity, BlocksAndThreadsAgree) {
    const uint32_t log_n = 16;
    const size_t n = size_t{1} << log_n;
    Vectors v{std::vector<Fr>(n), std::vector<Fr>(n), std::vector<Fr>(n)};
    circuit::synthesize({log_n, 2}, 5, 1, v.a.data(), v.b.data(), v.c.data());
    auto h = quotient_of(v, log_n, 2);
    for (unsigned threads : {1u, 2u, 3u}) {
        const auto result = verify::check_quotient(log_n, v.a.data(), v.b.data(), v.c.data(), h.data(), 4, threads);
        EXPECT_TRUE(result.ok) << "threads " << threads << ": " << result.detail;
    }
    for (size_t corrupt : {size_t{0}, (size_t{1} << 14) + 3, n - 2}) {
        h[corrupt] += Fr::one();
        EXPECT_FALSE(verify::check_quotient(log_n, v.a.data(), v.b.data(), v.c.data(), h.data(), 4, 3).ok)
            << "h[" << corrupt << "] corrupted";
        h[corrupt] -= Fr::one();
    }
}

class IdentityRejects : public ::testing::Test {
protected:
    static constexpr uint32_t kLogN = 8;
    void SetUp() override {
        const size_t n = size_t{1} << kLogN;
        v = {std::vector<Fr>(n), std::vector<Fr>(n), std::vector<Fr>(n)};
        circuit::synthesize({kLogN, 2}, 3, 0, v.a.data(), v.b.data(), v.c.data());
        h = quotient_of(v, kLogN, 1);
        ASSERT_TRUE(check().ok);
    }
    verify::IdentityResult check() const {
        return verify::check_quotient(kLogN, v.a.data(), v.b.data(), v.c.data(), h.data(), 9);
    }
    Vectors v;
    std::vector<Fr> h;
};

TEST_F(IdentityRejects, CorruptedQuotientElement) {
    h[17] += Fr::one();
    const auto result = check();
    EXPECT_FALSE(result.ok);
    EXPECT_NE(result.detail.find("identity"), std::string::npos) << result.detail;
    EXPECT_NE(result.detail.find("at x = 0x"), std::string::npos) << result.detail;
}

TEST_F(IdentityRejects, CorruptedC) {
    v.c[5] += Fr::one();
    const auto result = check();
    EXPECT_FALSE(result.ok);
    EXPECT_NE(result.detail.find("identity"), std::string::npos) << result.detail;
}

TEST_F(IdentityRejects, NonZeroTopCoefficient) {
    h.back() = Fr::from_u64(5);
    const auto result = check();
    EXPECT_FALSE(result.ok);
    EXPECT_NE(result.detail.find("h[n-1] != 0"), std::string::npos) << result.detail;
}

TEST_F(IdentityRejects, QuotientOfAnUnsatisfiedCircuit) {
    v.c[0] += Fr::one();
    h = quotient_of(v, kLogN, 1);  // an honest computation on a wrong c
    EXPECT_FALSE(check().ok);
}

TEST_F(IdentityRejects, DomainLargerThanTheField) {
    EXPECT_FALSE(verify::check_quotient(33, v.a.data(), v.b.data(), v.c.data(), h.data(), 9).ok);
}

}  // namespace
}  // namespace zkbatch
