// field32.hpp, the 32-bit-limb carry-chain arithmetic the GPU runs for every field,
// executed here through HostChain (an exact model of PTX's carry flag) and checked
// against GMP and against montgomery_field.hpp's 64-bit code, bit for bit, for the four
// fields. The device tests (tests/gpu/field_device_test.cu) then show PtxChain gives the
// same bits.
#include "core/ff/field32.hpp"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "core/ff/bn254.hpp"
#include "core/ff/fp.hpp"
#include "core/ff/fr.hpp"
#include "gmp_oracle.hpp"

namespace zkbatch {
namespace {

template <class F>
class Field32Test : public ::testing::Test {
protected:
    using Arithmetic = ff::Field32<typename F::FieldDescription>;
    static constexpr int kLimbs = Arithmetic::kLimbs;
    using Words = uint32_t[kLimbs];

    static const mpz_class& m() { return test::modulus_of<F>(); }
    static mpz_class radix() { return mpz_class(1) << (32 * kLimbs); }

    static mpz_class integer_of(const uint32_t* words, int count = kLimbs) {
        mpz_class value;
        mpz_import(value.get_mpz_t(), count, -1, sizeof(uint32_t), 0, 0, words);
        return value;
    }
    // value < 2^(32 count).
    static void words_of(const mpz_class& value, uint32_t* words, int count = kLimbs) {
        for (int j = 0; j < count; ++j) words[j] = 0;
        size_t written = 0;
        mpz_export(words, &written, -1, sizeof(uint32_t), 0, 0, value.get_mpz_t());
    }
    // R^-1 mod m
    static const mpz_class& r_inverse() {
        static const mpz_class inverse = [] {
            mpz_class value;
            const mpz_class r_mod = radix() % m();
            mpz_invert(value.get_mpz_t(), r_mod.get_mpz_t(), m().get_mpz_t());
            return value;
        }();
        return inverse;
    }
    static mpz_class product(const mpz_class& x, const mpz_class& y) { return x * y * r_inverse() % m(); }

    // Raw residues < m (the limbs Field32 sees): gmp_oracle's edge values, a power of two
    // and its neighbours at every 32-bit word boundary, words of all ones, then random.
    static std::vector<mpz_class> operands(size_t random_count) {
        std::vector<mpz_class> values = test::edge_values<F>();
        for (int shift = 32; shift < 32 * kLimbs; shift += 32) {
            values.push_back(test::mod<F>(mpz_class(1) << shift));
            values.push_back(test::mod<F>((mpz_class(1) << shift) - 1));
            values.push_back(test::mod<F>(m() - (mpz_class(1) << shift)));
        }
        values.push_back(mpz_class("ffffffff00000000ffffffff00000000ffffffff00000000", 16));
        std::mt19937_64 rng(32 * kLimbs + mpz_class(m() % 1000).get_ui());
        for (size_t i = 0; i < random_count; ++i) {
            values.push_back(test::canonical_of(test::random_element<F>(rng)));
        }
        return values;
    }
};

TYPED_TEST_SUITE(Field32Test, test::Fields, test::FieldNames);

// The constants Field32 derives from the description, against the specification's modulus.
TYPED_TEST(Field32Test, DerivedConstantsDescribeTheModulus) {
    using Limbs32 = typename TestFixture::Arithmetic;
    const mpz_class& m = TestFixture::m();
    uint32_t words[TestFixture::kLimbs], twice[TestFixture::kLimbs];
    for (int j = 0; j < TestFixture::kLimbs; ++j) {
        words[j] = Limbs32::modulus_limb(j);
        twice[j] = Limbs32::twice_modulus_limb(j);
    }
    EXPECT_EQ(TestFixture::integer_of(words), m);
    EXPECT_EQ(TestFixture::integer_of(twice), 2 * m);
    const mpz_class two32 = mpz_class(1) << 32;
    EXPECT_EQ(mpz_class(mpz_class(Limbs32::kMontInv) * m + 1) % two32, 0);  // -m^-1 mod 2^32
    EXPECT_EQ(Limbs32::kSparseLowLimbs, m % (two32 * two32) == mpz_class("ffffffff00000001", 16));
    EXPECT_EQ(Limbs32::kLazyProducts, 3 * m < TestFixture::radix());
}

TYPED_TEST(Field32Test, HostChainArithmeticMatchesGmp) {
    using Limbs32 = typename TestFixture::Arithmetic;
    const mpz_class& m = TestFixture::m();
    const std::vector<mpz_class> values = TestFixture::operands(200);
    for (const mpz_class& x : values) {
        for (const mpz_class& y : values) {
            typename TestFixture::Words a, b, out;
            TestFixture::words_of(x, a);
            TestFixture::words_of(y, b);
            Limbs32::template mont_mul<ff::HostChain>(a, b, out);
            ASSERT_EQ(TestFixture::integer_of(out), TestFixture::product(x, y))
                << x.get_str(16) << " * " << y.get_str(16);
            Limbs32::template add<ff::HostChain>(a, b, out);
            ASSERT_EQ(TestFixture::integer_of(out), (x + y) % m) << x.get_str(16) << " + " << y.get_str(16);
            Limbs32::template sub<ff::HostChain>(a, b, out);
            ASSERT_EQ(TestFixture::integer_of(out), test::mod<TypeParam>(x - y))
                << x.get_str(16) << " - " << y.get_str(16);
        }
    }
}

// The NTT passes' partly reduced arithmetic: values < 2m, products by a factor < m of
// any K-limb value. Checked for the residue and for the bound (< 2m) each promises.
TYPED_TEST(Field32Test, PartlyReducedArithmeticStaysBelowTwiceTheModulus) {
    using Limbs32 = typename TestFixture::Arithmetic;
    const mpz_class& m = TestFixture::m();
    const mpz_class& radix = TestFixture::radix();
    std::vector<mpz_class> values = TestFixture::operands(100);
    const size_t residues = values.size();
    for (size_t i = 0; i < residues; i += 3) values.push_back(values[i] + m);  // [m, 2m)
    for (const mpz_class& v : {mpz_class(2 * m - 1), mpz_class(2 * m - 2), mpz_class(m)}) values.push_back(v);
    std::vector<mpz_class> multiplicands = values;
    for (const mpz_class& v : {mpz_class(radix - 1), mpz_class(radix - 2), mpz_class(radix - m)}) {
        multiplicands.push_back(v);
    }
    const std::vector<mpz_class> factors = TestFixture::operands(60);  // < m
    for (const mpz_class& x : values) {
        typename TestFixture::Words a, out;
        TestFixture::words_of(x, a);
        for (const mpz_class& y : values) {
            typename TestFixture::Words b;
            TestFixture::words_of(y, b);
            Limbs32::template add_partial<ff::HostChain>(a, b, out);
            ASSERT_LT(TestFixture::integer_of(out), 2 * m) << x.get_str(16) << " + " << y.get_str(16);
            ASSERT_EQ(TestFixture::integer_of(out) % m, (x + y) % m) << x.get_str(16) << " + " << y.get_str(16);
            Limbs32::template sub_partial<ff::HostChain>(a, b, out);
            ASSERT_LT(TestFixture::integer_of(out), 2 * m) << x.get_str(16) << " - " << y.get_str(16);
            ASSERT_EQ(TestFixture::integer_of(out) % m, test::mod<TypeParam>(x - y))
                << x.get_str(16) << " - " << y.get_str(16);
        }
        ff::HostChain chain;
        Limbs32::reduce_once(chain, a, out);
        ASSERT_EQ(TestFixture::integer_of(out), x % m) << x.get_str(16);
    }
    for (const mpz_class& factor : factors) {
        typename TestFixture::Words f;
        TestFixture::words_of(factor, f);
        for (const mpz_class& x : multiplicands) {
            typename TestFixture::Words b, out;
            TestFixture::words_of(x, b);
            Limbs32::template mont_mul_partial<ff::HostChain>(f, b, out);
            ASSERT_LT(TestFixture::integer_of(out), 2 * m) << factor.get_str(16) << " * " << x.get_str(16);
            ASSERT_EQ(TestFixture::integer_of(out) % m, TestFixture::product(factor, x))
                << factor.get_str(16) << " * " << x.get_str(16);
        }
    }
}

// Same R, same reduced output: what the GPU computes is what the host's 64-bit limbs
// compute, bit for bit, through the 64 <-> 32-bit split the device paths use.
TYPED_TEST(Field32Test, AgreesWithTheSixtyFourBitLimbs) {
    using Limbs32 = typename TestFixture::Arithmetic;
    std::mt19937_64 rng(64);
    std::vector<TypeParam> values = {TypeParam::zero(), TypeParam::one(), -TypeParam::one(), TypeParam::from_u64(2),
                                     -TypeParam::from_u64(2)};
    for (int i = 0; i < 4000; ++i) values.push_back(test::random_element<TypeParam>(rng));
    for (size_t i = 0; i < values.size(); ++i) {
        for (size_t k : {i, (i * 7 + 3) % values.size(), (i + 1) % values.size()}) {
            const TypeParam& x = values[i];
            const TypeParam& y = values[k];
            typename TestFixture::Words a, b, out;
            Limbs32::split(x.limbs, a);
            Limbs32::split(y.limbs, b);
            TypeParam result;
            Limbs32::template mont_mul<ff::HostChain>(a, b, out);
            Limbs32::join(out, result.limbs);
            ASSERT_EQ(result, x * y) << i << ", " << k;
            Limbs32::template add<ff::HostChain>(a, b, out);
            Limbs32::join(out, result.limbs);
            ASSERT_EQ(result, x + y) << i << ", " << k;
            Limbs32::template sub<ff::HostChain>(a, b, out);
            Limbs32::join(out, result.limbs);
            ASSERT_EQ(result, x - y) << i << ", " << k;
        }
    }
}

// mul_wide's double-width product (any K-limb a, b, so every carry of the rows runs) and
// reduce_wide's REDC over its whole domain [0, m R), both against GMP.
TYPED_TEST(Field32Test, WideProductsAndTheirReductionMatchGmp) {
    using Limbs32 = typename TestFixture::Arithmetic;
    constexpr int kWide = 2 * TestFixture::kLimbs;
    const mpz_class& m = TestFixture::m();
    const mpz_class& radix = TestFixture::radix();
    std::vector<mpz_class> values = TestFixture::operands(60);
    for (const mpz_class& v :
         {mpz_class(radix - 1), mpz_class(radix - 2), mpz_class(2 * m - 1), mpz_class(radix - m)}) {
        values.push_back(v);
    }
    for (const mpz_class& x : values) {
        for (const mpz_class& y : values) {
            typename TestFixture::Words a, b;
            TestFixture::words_of(x, a);
            TestFixture::words_of(y, b);
            uint32_t wide[kWide];
            Limbs32::template mul_wide<ff::HostChain>(a, b, wide);
            ASSERT_EQ(TestFixture::integer_of(wide, kWide), x * y) << x.get_str(16) << " * " << y.get_str(16);
        }
    }
    std::vector<mpz_class> wides = {0, 1, m * radix - 1, m * radix - 2, (m - 1) * radix, radix - 1, m * m, 2 * m * m};
    for (const mpz_class& low : TestFixture::operands(0)) {
        wides.push_back((m - 1) * radix + low);
        wides.push_back(low);
    }
    std::mt19937_64 rng(768);
    for (int i = 0; i < 3000; ++i) {
        wides.push_back(test::canonical_of(test::random_element<TypeParam>(rng)) * radix +
                        test::canonical_of(test::random_element<TypeParam>(rng)));
    }
    for (const mpz_class& value : wides) {
        uint32_t wide[kWide];
        TestFixture::words_of(value, wide, kWide);
        typename TestFixture::Words out;
        Limbs32::template reduce_wide<ff::HostChain>(wide, out);
        ASSERT_EQ(TestFixture::integer_of(out), value * TestFixture::r_inverse() % m) << value.get_str(16);
    }
}

// The lazy products, where the modulus leaves room for them (3m < R: all but BLS12-381's
// r): mont_mul with unreduced sums as factors (add_unreduced, below 2m; 2m - 1, the
// largest, as both factors), and a b - c d with one reduction (every edge as c: 0 makes
// m - c = m, the largest factor).
TYPED_TEST(Field32Test, LazyProductsMatchGmp) {
    using Limbs32 = typename TestFixture::Arithmetic;
    if constexpr (!Limbs32::kLazyProducts) {
        GTEST_SKIP() << "3m >= 2^(32 K): no room for unreduced factors, so no lazy products";
    } else {
        const mpz_class& m = TestFixture::m();
        std::vector<mpz_class> values = TestFixture::operands(60);
        std::vector<std::pair<mpz_class, mpz_class>> sums = {{m - 1, m - 1}, {m - 1, 1}, {0, 0}};
        for (size_t i = 0; i < values.size(); ++i) {
            for (size_t k = i; k < values.size(); k += 7) sums.emplace_back(values[i], values[k]);
        }
        for (const auto& [x, y] : sums) {
            typename TestFixture::Words a, b, sum, out;
            TestFixture::words_of(x, a);
            TestFixture::words_of(y, b);
            Limbs32::template add_unreduced<ff::HostChain>(a, b, sum);
            ASSERT_EQ(TestFixture::integer_of(sum), x + y) << x.get_str(16) << " + " << y.get_str(16);
            for (const auto& [u, v] : {sums[0], sums[1], sums[sums.size() / 2], sums.back()}) {
                typename TestFixture::Words c, d, other;
                TestFixture::words_of(u, c);
                TestFixture::words_of(v, d);
                Limbs32::template add_unreduced<ff::HostChain>(c, d, other);
                Limbs32::template mont_mul<ff::HostChain>(sum, other, out);
                ASSERT_EQ(TestFixture::integer_of(out), TestFixture::product(x + y, u + v)) << x.get_str(16);
                Limbs32::template mont_mul<ff::HostChain>(sum, c, out);
                ASSERT_EQ(TestFixture::integer_of(out), TestFixture::product(x + y, u)) << x.get_str(16);
            }
        }
        std::mt19937_64 rng(3);
        for (size_t i = 0; i < values.size(); ++i) {
            for (size_t k = 0; k < values.size(); ++k) {
                const mpz_class& x = values[i];
                const mpz_class& y = values[(i * 3 + k) % values.size()];
                const mpz_class& z = values[k];
                const mpz_class w = k % 2 == 0 ? values[(k * 5 + i) % values.size()]
                                               : test::canonical_of(test::random_element<TypeParam>(rng));
                typename TestFixture::Words a, b, c, d, out;
                TestFixture::words_of(x, a);
                TestFixture::words_of(y, b);
                TestFixture::words_of(z, c);
                TestFixture::words_of(w, d);
                Limbs32::template product_difference<ff::HostChain>(a, b, c, d, out);
                ASSERT_EQ(TestFixture::integer_of(out),
                          test::mod<TypeParam>((x * y - z * w) * TestFixture::r_inverse()))
                    << i << ", " << k;
            }
        }
    }
}

// Fp2's product with two reductions (the device's lazy Fp2 product) against GMP's
// (a0 + a1 u)(b0 + b1 u) with u^2 = -1, reduced (so the bits of Karatsuba over mont_mul),
// also with the outputs aliasing the inputs. For the towers' base fields.
TYPED_TEST(Field32Test, Fp2ProductsWithLazyReductionMatchGmp) {
    using Limbs32 = typename TestFixture::Arithmetic;
    if (TestFixture::m() % 4 != 3) GTEST_SKIP() << "not a tower's base field (u^2 = -1 needs m = 3 mod 4)";
    const mpz_class& m = TestFixture::m();
    std::vector<mpz_class> values = TestFixture::operands(30);
    values.resize(std::min<size_t>(values.size(), 90));
    std::mt19937_64 rng(2);
    for (size_t i = 0; i < values.size(); ++i) {
        for (size_t k = 0; k < values.size(); ++k) {
            const mpz_class& x0 = values[i];
            const mpz_class& x1 = values[k];
            const mpz_class& y0 = values[(i * 7 + k) % values.size()];
            const mpz_class y1 = k % 3 == 0 ? values[(k * 5 + i) % values.size()]
                                            : test::canonical_of(test::random_element<TypeParam>(rng));
            typename TestFixture::Words a0, a1, b0, b1, c0, c1;
            TestFixture::words_of(x0, a0);
            TestFixture::words_of(x1, a1);
            TestFixture::words_of(y0, b0);
            TestFixture::words_of(y1, b1);
            Limbs32::template fp2_mul<ff::HostChain>(a0, a1, b0, b1, c0, c1);
            const mpz_class real = test::mod<TypeParam>((x0 * y0 - x1 * y1) * TestFixture::r_inverse());
            const mpz_class imaginary = (x0 * y1 + x1 * y0) * TestFixture::r_inverse() % m;
            ASSERT_EQ(TestFixture::integer_of(c0), real) << i << ", " << k;
            ASSERT_EQ(TestFixture::integer_of(c1), imaginary) << i << ", " << k;
            Limbs32::template fp2_mul<ff::HostChain>(a0, a1, b0, b1, a0, a1);
            ASSERT_EQ(TestFixture::integer_of(a0), real) << i << ", " << k;
            ASSERT_EQ(TestFixture::integer_of(a1), imaginary) << i << ", " << k;
        }
    }
}

}  // namespace
}  // namespace zkbatch
