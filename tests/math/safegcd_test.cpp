// The inverse by divsteps (core/ff/safegcd.hpp) in every field that uses it (BLS12-381's
// Fp, BN254's Fq and Fr): against GMP on integers that stress it, against Fermat, and
// batch by batch against the paper's divstep on GMP integers with the invariants the
// inverse relies on.
#include "gmp_oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

namespace zkbatch {
namespace {

using test::canonical_of;
using test::element_of;
using test::from_limbs;
using test::modulus_of;

template <class F>
using Inverter = ff::safegcd::Inverter<F>;

template <class F>
class Divsteps : public ::testing::Test {};
TYPED_TEST_SUITE(Divsteps, test::DivstepFields, test::FieldNames);

template <class F>
int modulus_bits() {
    return static_cast<int>(mpz_sizeinbase(modulus_of<F>().get_mpz_t(), 2));
}

// Integers that stress the divsteps, used both as canonical values and as the stored
// Montgomery integer the divsteps actually see: small ones, powers of two, ones with all
// high bits set (m minus a power of two, m with its low bits cleared), near m/2.
template <class F>
std::vector<mpz_class> inverse_edge_integers() {
    const mpz_class& m = modulus_of<F>();
    const int bits = modulus_bits<F>();
    std::vector<mpz_class> values = test::edge_values<F>();
    for (int v = 1; v <= 64; ++v) values.push_back(v);
    for (int k = 0; k < bits; k += (k < 8 || k > bits - 11) ? 1 : 7) {
        const mpz_class power = mpz_class(1) << k;
        values.push_back(power);
        values.push_back(m - power);
        values.push_back((m >> k) << k);  // m's high bits, low k bits cleared
        values.push_back(power - 1);
    }
    for (int k = -40; k <= 40; ++k) values.push_back(m / 2 + k);
    std::vector<mpz_class> below_m;
    for (const mpz_class& v : values) {
        if (v >= 0 && v < m) below_m.push_back(v);
    }
    return below_m;
}

// The stored integer `representation` read as an element (its value is representation / R).
template <class F>
F with_representation(const mpz_class& representation) {
    F x;
    test::to_limbs(representation, x.limbs, F::kLimbs);
    return x;
}

template <class F>
mpz_class gmp_inverse(const mpz_class& v) {
    mpz_class inverse;
    if (v == 0) return 0;
    EXPECT_NE(mpz_invert(inverse.get_mpz_t(), v.get_mpz_t(), modulus_of<F>().get_mpz_t()), 0);
    return inverse;
}

TYPED_TEST(Divsteps, InverseMatchesGmp) {
    using F = TypeParam;
    static_assert(F::kInvertsByDivsteps);
    const mpz_class& m = modulus_of<F>();
    std::vector<F> values;
    for (const mpz_class& v : inverse_edge_integers<F>()) {
        values.push_back(element_of<F>(v));
        values.push_back(with_representation<F>(v));
    }
    std::mt19937_64 rng(381);
    for (int i = 0; i < 5000; ++i) values.push_back(test::random_element<F>(rng));
    ASSERT_GT(values.size(), 5500u);
    for (const F& x : values) {
        const mpz_class px = canonical_of(x);
        const F inverse = x.inverse();
        ASSERT_EQ(canonical_of(inverse), gmp_inverse<F>(px)) << px.get_str(16);
        ASSERT_LT(from_limbs(inverse.limbs, F::kLimbs), m) << "fully reduced";
        if (px != 0) {
            ASSERT_EQ(x * inverse, F::one()) << px.get_str(16);
        }
        ASSERT_EQ(inverse.inverse(), x) << px.get_str(16);
    }
    EXPECT_EQ(F::zero().inverse(), F::zero()) << "the inverse of 0 is 0 by convention";
    EXPECT_EQ(F::one().inverse(), F::one());
    EXPECT_EQ((-F::one()).inverse(), -F::one());
    EXPECT_EQ(canonical_of(F::from_u64(2).inverse()), (m + 1) / 2);
    EXPECT_EQ(canonical_of((-F::from_u64(2)).inverse()), (m - 1) / 2);
}

TYPED_TEST(Divsteps, InverseAgreesWithFermat) {
    using F = TypeParam;
    uint64_t m_minus_2[F::kLimbs];
    test::to_limbs(modulus_of<F>() - 2, m_minus_2, F::kLimbs);
    std::mt19937_64 rng(2);
    for (int i = 0; i < 200; ++i) {
        const F x = test::random_element<F>(rng);
        ASSERT_EQ(x.inverse(), x.pow(m_minus_2, F::kLimbs));
    }
}

template <class F>
mpz_class value_of(const typename Inverter<F>::Signed30& x) {
    mpz_class value = 0;
    for (int i = Inverter<F>::kLimbs - 1; i >= 0; --i) value = (value << 30) + x.limbs[i];
    return value;
}

// x (|x| below 2^(30 kLimbs - 1)) as signed 30-bit limbs: the low ones in [0, 2^30), the
// top one signed.
template <class F>
typename Inverter<F>::Signed30 signed30_of(const mpz_class& x) {
    typename Inverter<F>::Signed30 out{};
    for (int i = 0; i < Inverter<F>::kLimbs; ++i) {
        mpz_class limb;
        mpz_fdiv_q_2exp(limb.get_mpz_t(), x.get_mpz_t(), 30 * i);  // floor, also for negative x
        if (i + 1 < Inverter<F>::kLimbs) mpz_fdiv_r_2exp(limb.get_mpz_t(), limb.get_mpz_t(), 30);
        out.limbs[i] = static_cast<int32_t>(limb.get_si());
    }
    return out;
}

// apply_to_de's range argument at its extremes, which random inputs never reach: matrices
// with |u| + |v| = 2^30 and d, e at the ends of (-2m, m) still give results in (-2m, m),
// congruent to (u d + v e) / 2^30.
TYPED_TEST(Divsteps, MatrixUpdateStaysInRangeAtTheExtremes) {
    using F = TypeParam;
    const mpz_class& m = modulus_of<F>();
    const int32_t full = 1 << 30, half = 1 << 29;
    const ff::safegcd::Transition matrices[] = {
        {full, 0, 0, full}, {-full, 0, 0, -full}, {0, full, full, 0},        {0, -full, -full, 0},
        {half, half, half, -half}, {-half, -half, -half, half}, {half, -half, -half, half},
        {full - 1, 1, -1, -(full - 1)}, {1, -(full - 1), -(full - 1), 1}};
    std::mt19937_64 rng(7);
    std::vector<mpz_class> ends = {-2 * m + 1, -2 * m + 2, -m - 1, -m, -m + 1, -1, 0, 1, m - 2, m - 1};
    for (int i = 0; i < 4; ++i) ends.push_back(canonical_of(test::random_element<F>(rng)) - m);
    const mpz_class two30 = mpz_class(1) << 30;
    for (const ff::safegcd::Transition& t : matrices) {
        for (const mpz_class& d : ends) {
            for (const mpz_class& e : ends) {
                auto new_d = signed30_of<F>(d), new_e = signed30_of<F>(e);
                ASSERT_EQ(value_of<F>(new_d), d);
                Inverter<F>::apply_to_de(new_d, new_e, t);
                // mpz_class(...): gmpxx's lazy expressions would keep references to
                // temporaries that end here.
                for (const auto& [value, row] : {std::pair{value_of<F>(new_d), mpz_class(t.u * d + t.v * e)},
                                                 std::pair{value_of<F>(new_e), mpz_class(t.q * d + t.r * e)}}) {
                    ASSERT_GT(value, -2 * m) << d.get_str(16) << ", " << e.get_str(16);
                    ASSERT_LT(value, m) << d.get_str(16) << ", " << e.get_str(16);
                    ASSERT_EQ(mpz_class(value * two30 - row) % m, 0) << d.get_str(16) << ", " << e.get_str(16);
                }
            }
        }
    }
}

// A divstep as the paper defines it, on GMP integers.
void divstep(int& delta, mpz_class& f, mpz_class& g) {
    const bool g_odd = mpz_odd_p(g.get_mpz_t()) != 0;
    if (delta > 0 && g_odd) {
        const mpz_class old_f = f;
        delta = 1 - delta;
        f = g;
        g = (g - old_f) / 2;
    } else {
        delta = 1 + delta;
        if (g_odd) g += f;
        g /= 2;  // exact
    }
}

// The sizes the inverse runs with, worked out by hand: 64 n / 30 + 1 limbs of 30 bits,
// Theorem 11.2's floor((49 b + 57) / 17) divsteps for a b-bit modulus, in batches of 30.
struct DivstepSizes {
    int limbs, bits, divsteps, batches;
};
template <class F>
DivstepSizes sizes() {
    if (std::is_same_v<F, ff::bls12_381::Fp>) return {13, 381, 1101, 37};
    return {9, 254, 735, 25};  // BN254's Fq and Fr
}

// Each batch against 30 plain divsteps, and the invariants inverse relies on: d x = f and
// e x = g (mod m) with d, e in (-2m, m), limbs below the top in [0, 2^30), and g = 0,
// f = +-1 within the batches run.
TYPED_TEST(Divsteps, BatchesKeepTheirInvariants) {
    using F = TypeParam;
    using Signed30 = typename Inverter<F>::Signed30;
    const mpz_class& m = modulus_of<F>();
    const DivstepSizes expected = sizes<F>();
    EXPECT_EQ(Inverter<F>::kLimbs, expected.limbs);
    EXPECT_EQ(Inverter<F>::modulus_bits(), expected.bits);
    EXPECT_EQ(Inverter<F>::kDivsteps, expected.divsteps);
    EXPECT_EQ(Inverter<F>::kBatches, expected.batches);
    EXPECT_EQ(mpz_class(Inverter<F>::modulus_inverse30()) * (m % (1 << 30)) % (1 << 30), 1);

    std::vector<mpz_class> inputs = inverse_edge_integers<F>();
    std::mt19937_64 rng(30);
    for (int i = 0; i < 300; ++i) inputs.push_back(canonical_of(test::random_element<F>(rng)));
    int most_steps = 0;
    for (const mpz_class& x : inputs) {
        Signed30 f{}, g{}, d{}, e{};
        for (int i = 0; i < Inverter<F>::kLimbs; ++i) {
            f.limbs[i] = static_cast<int32_t>(mpz_class((m >> (30 * i)) % (1 << 30)).get_si());
            g.limbs[i] = static_cast<int32_t>(mpz_class((x >> (30 * i)) % (1 << 30)).get_si());
        }
        e.limbs[0] = 1;
        int32_t delta = 1;
        int plain_delta = 1;
        mpz_class plain_f = m, plain_g = x;
        int steps = 0;
        for (int batch = 0; batch < Inverter<F>::kBatches; ++batch) {
            const ff::safegcd::Transition t =
                Inverter<F>::divsteps(delta, static_cast<uint32_t>(f.limbs[0]), static_cast<uint32_t>(g.limbs[0]));
            Inverter<F>::apply_to_fg(f, g, t);
            Inverter<F>::apply_to_de(d, e, t);
            for (int step = 0; step < ff::safegcd::kBatchSteps; ++step) {
                if (plain_g != 0) ++steps;
                divstep(plain_delta, plain_f, plain_g);
            }
            ASSERT_EQ(delta, plain_delta) << x.get_str(16) << " batch " << batch;
            ASSERT_EQ(value_of<F>(f), plain_f) << x.get_str(16) << " batch " << batch;
            ASSERT_EQ(value_of<F>(g), plain_g) << x.get_str(16) << " batch " << batch;
            for (const mpz_class& value : {value_of<F>(d), value_of<F>(e)}) {
                ASSERT_GT(value, -2 * m) << x.get_str(16) << " batch " << batch;
                ASSERT_LT(value, m) << x.get_str(16) << " batch " << batch;
            }
            ASSERT_EQ(mpz_class(value_of<F>(d) * x - plain_f) % m, 0) << x.get_str(16) << " batch " << batch;
            ASSERT_EQ(mpz_class(value_of<F>(e) * x - plain_g) % m, 0) << x.get_str(16) << " batch " << batch;
            for (const Signed30* value : {&f, &g, &d, &e}) {
                for (int i = 0; i + 1 < Inverter<F>::kLimbs; ++i) {
                    ASSERT_GE(value->limbs[i], 0);
                    ASSERT_LT(value->limbs[i], 1 << 30);
                }
            }
        }
        EXPECT_EQ(plain_g, 0) << x.get_str(16);
        EXPECT_EQ(abs(plain_f), x == 0 ? m : mpz_class(1)) << x.get_str(16);
        most_steps = std::max(most_steps, steps);
    }
    EXPECT_LE(most_steps, Inverter<F>::kDivsteps);
    std::printf("most divsteps until g = 0 over %zu inputs: %d (bound %d, run %d)\n", inputs.size(), most_steps,
                Inverter<F>::kDivsteps, Inverter<F>::kBatches * ff::safegcd::kBatchSteps);
}

}  // namespace
}  // namespace zkbatch
