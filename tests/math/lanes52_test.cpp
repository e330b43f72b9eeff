// ff/lanes52.hpp's eight-lane arithmetic (AVX-512 IFMA, radix 2^52, R' = 2^(52 L)) against
// GMP, for every field: each lane's integer is read and written by GMP alone, inputs are
// edge and random values both canonical and loose (up to 8p for products), and each result
// is checked for its value mod p and for its bound (below 2p, or below p where canonical).
// Skipped, with the reason, on a CPU without AVX-512 IFMA.
#include "gmp_oracle.hpp"

#include "core/ff/lanes52.hpp"
#include "support/field_types.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

namespace zkbatch {
namespace {

#if ZKB_LANES52

using ff::lanes52::Lanes;
using test::modulus_of;
using Integers = std::array<mpz_class, 8>;

template <class F>
constexpr int kLimbs52 = ff::lanes52::Constants<F>::L;

template <class F>
mpz_class r_prime() {
    return mpz_class(1) << (52 * kLimbs52<F>);
}

// Lanes holding the integers v[k] (each below 2^(52 L)), 52 bits a limb.
template <class F>
ZKB_LANES52_TARGET Lanes<F> lanes_of(const Integers& v) {
    const mpz_class mask = (mpz_class(1) << 52) - 1;
    alignas(64) uint64_t rows[kLimbs52<F>][8];
    for (int k = 0; k < 8; ++k) {
        for (int j = 0; j < kLimbs52<F>; ++j) {
            const mpz_class limb = (v[k] >> (52 * j)) & mask;
            rows[j][k] = limb.get_ui();
        }
    }
    Lanes<F> a;
    for (int j = 0; j < kLimbs52<F>; ++j) a.limb[j] = _mm512_load_si512(rows[j]);
    return a;
}

// The integers of eight lanes; each limb must be below 2^52.
template <class F>
ZKB_LANES52_TARGET Integers integers_of(const Lanes<F>& a) {
    alignas(64) uint64_t rows[kLimbs52<F>][8];
    for (int j = 0; j < kLimbs52<F>; ++j) _mm512_store_si512(rows[j], a.limb[j]);
    Integers v;
    for (int k = 0; k < 8; ++k) {
        v[k] = 0;
        for (int j = kLimbs52<F>; j-- > 0;) {
            EXPECT_LT(rows[j][k], uint64_t{1} << 52) << "limb " << j << " of lane " << k << " is not reduced";
            v[k] = (v[k] << 52) + mpz_class(static_cast<unsigned long>(rows[j][k]));
        }
    }
    return v;
}

// Each of eight lanes' results: its value mod p and its bound.
template <class F>
void expect_lanes(const Integers& got, const Integers& expected_mod_p, const mpz_class& bound, const char* what) {
    for (int k = 0; k < 8; ++k) {
        EXPECT_LT(got[k], bound) << what << ", lane " << k;
        EXPECT_EQ(test::mod<F>(got[k]), test::mod<F>(expected_mod_p[k])) << what << ", lane " << k;
    }
}

template <class F>
ZKB_LANES52_TARGET Integers lane_mul(const Integers& a, const Integers& b) {
    return integers_of<F>(ff::lanes52::mul(lanes_of<F>(a), lanes_of<F>(b)));
}
template <class F>
ZKB_LANES52_TARGET Integers lane_add(const Integers& a, const Integers& b) {
    return integers_of<F>(ff::lanes52::add(lanes_of<F>(a), lanes_of<F>(b)));
}
template <class F>
ZKB_LANES52_TARGET Integers lane_sub(const Integers& a, const Integers& b) {
    return integers_of<F>(ff::lanes52::sub(lanes_of<F>(a), lanes_of<F>(b)));
}
template <class F>
ZKB_LANES52_TARGET Integers lane_neg(const Integers& a) {
    return integers_of<F>(ff::lanes52::neg(lanes_of<F>(a)));
}
template <class F>
ZKB_LANES52_TARGET Integers lane_canonical(const Integers& a) {
    return integers_of<F>(ff::lanes52::canonical(lanes_of<F>(a)));
}
template <class F>
ZKB_LANES52_TARGET unsigned lane_equal(const Integers& a, const Integers& b) {
    return ff::lanes52::equal(lanes_of<F>(a), lanes_of<F>(b));
}
template <class F>
ZKB_LANES52_TARGET Integers lane_inverse(const Integers& a) {
    return integers_of<F>(ff::lanes52::inverse(lanes_of<F>(a)));
}
template <class F>
ZKB_LANES52_TARGET Integers lane_round_trip(const F* values, F* back) {
    const Lanes<F> a = ff::lanes52::to_lanes(values);
    ff::lanes52::from_lanes(a, back);
    return integers_of<F>(a);
}

template <class F>
class Lanes52 : public ::testing::Test {
protected:
    void SetUp() override {
        if (!ff::lanes52::cpu_supported()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA: the lanes are not used here";
    }

    // Edge and random values x as lane integers x R' mod p, in groups of eight; lane k of
    // group g is loose (x R' mod p + p) for odd g + k.
    static std::vector<Integers> inputs(unsigned seed) {
        const mpz_class& p = modulus_of<F>();
        std::vector<mpz_class> values = test::edge_values<F>();
        std::mt19937_64 rng(seed);
        for (int i = 0; i < 200; ++i) values.push_back(test::canonical_of(test::random_element<F>(rng)));
        std::shuffle(values.begin(), values.end(), rng);
        std::vector<Integers> groups((values.size() + 7) / 8);
        for (size_t i = 0; i < groups.size() * 8; ++i) {
            const mpz_class x = values[i % values.size()];
            const size_t g = i / 8, k = i % 8;
            groups[g][k] = test::mod<F>(x * r_prime<F>()) + ((g + k) % 2 == 1 ? p : mpz_class(0));
        }
        return groups;
    }
};
TYPED_TEST_SUITE(Lanes52, test::Fields, test::FieldNames);

TYPED_TEST(Lanes52, ProductsAreMontgomeryProductsBelowTwoP) {
    using F = TypeParam;
    const mpz_class& p = modulus_of<F>();
    mpz_class r_inverse;
    const mpz_class rp = r_prime<F>();
    mpz_invert(r_inverse.get_mpz_t(), rp.get_mpz_t(), p.get_mpz_t());
    const auto a = this->inputs(1), b = this->inputs(2);
    for (size_t g = 0; g < a.size(); ++g) {
        Integers expected;
        for (int k = 0; k < 8; ++k) expected[k] = a[g][k] * b[g][k] * r_inverse;
        expect_lanes<F>(lane_mul<F>(a[g], b[g]), expected, 2 * p, "a b / R'");
        // Inputs up to 8p - 1 (sums not yet reduced): still below 2p.
        Integers big = a[g], near_eight_p;
        for (int k = 0; k < 8; ++k) {
            big[k] += 6 * p;
            near_eight_p[k] = 8 * p - 1 - k;
            expected[k] = big[k] * near_eight_p[k] * r_inverse;
        }
        expect_lanes<F>(lane_mul<F>(big, near_eight_p), expected, 2 * p, "products of inputs below 8p");
    }
}

TYPED_TEST(Lanes52, SumsDifferencesAndNegationsStayBelowTwoP) {
    using F = TypeParam;
    const mpz_class& p = modulus_of<F>();
    const auto a = this->inputs(3), b = this->inputs(4);
    for (size_t g = 0; g < a.size(); ++g) {
        Integers sum, difference, negation, zero;
        for (int k = 0; k < 8; ++k) {
            zero[k] = 0;
            sum[k] = a[g][k] + b[g][k];
            difference[k] = a[g][k] - b[g][k];
            negation[k] = -a[g][k];
        }
        expect_lanes<F>(lane_add<F>(a[g], b[g]), sum, 2 * p, "a + b");
        expect_lanes<F>(lane_sub<F>(a[g], b[g]), difference, 2 * p, "a - b");
        expect_lanes<F>(lane_sub<F>(a[g], a[g]), zero, 2 * p, "a - a");
        expect_lanes<F>(lane_neg<F>(a[g]), negation, 2 * p, "-a");
    }
}

TYPED_TEST(Lanes52, CanonicalFormsCompareEqual) {
    using F = TypeParam;
    const mpz_class& p = modulus_of<F>();
    const auto a = this->inputs(5);
    for (size_t g = 0; g < a.size(); ++g) {
        const Integers canonical = lane_canonical<F>(a[g]);
        expect_lanes<F>(canonical, a[g], p, "canonical");
        Integers other = canonical;
        other[g % 8] = test::mod<F>(other[g % 8] + 1);
        EXPECT_EQ(lane_equal<F>(canonical, canonical), 0xffu);
        EXPECT_EQ(lane_equal<F>(canonical, other), 0xffu & ~(1u << (g % 8)));
    }
}

TYPED_TEST(Lanes52, InversesAndConversionsAgreeWithTheScalarField) {
    using F = TypeParam;
    const mpz_class& p = modulus_of<F>();
    const mpz_class rp = r_prime<F>();
    const auto a = this->inputs(6);
    for (size_t g = 0; g < a.size(); ++g) {
        // 1/a as a lane integer: (1/a) R'^2 mod p, zero for zero.
        Integers expected;
        for (int k = 0; k < 8; ++k) {
            mpz_class inverse = 0;
            const mpz_class value = test::mod<F>(a[g][k]);
            if (value != 0) mpz_invert(inverse.get_mpz_t(), value.get_mpz_t(), p.get_mpz_t());
            expected[k] = inverse * rp * rp;
        }
        expect_lanes<F>(lane_inverse<F>(a[g]), expected, p, "1/a");
    }
    std::mt19937_64 rng(7);
    F values[8], back[8];
    for (F& x : values) x = test::random_element<F>(rng);
    values[0] = F::zero();
    values[1] = F::one();
    const Integers lanes = lane_round_trip<F>(values, back);
    for (int k = 0; k < 8; ++k) {
        EXPECT_EQ(lanes[k], test::mod<F>(test::canonical_of(values[k]) * rp)) << "lane " << k;
        EXPECT_EQ(back[k], values[k]) << "lane " << k;
    }
}

#endif  // ZKB_LANES52

}  // namespace
}  // namespace zkbatch
