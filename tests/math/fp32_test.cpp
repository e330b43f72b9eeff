// fp32.hpp, the 12 x 32-bit carry-chain arithmetic the GPU runs for Fp, executed here
// through HostChain (an exact model of PTX's carry flag) and checked against GMP and
// against fp.hpp's 64-bit host code, bit for bit. The device test
// (tests/gpu/field_device_test.cu) then shows PtxChain gives the same bits.
#include "fp_oracle.hpp"

#include "core/ff/fp.hpp"
#include "core/ff/fp32.hpp"
#include "bench/fp_f64.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fp;
namespace fp32 = ff::fp32;
using Limbs = uint32_t[fp32::kLimbs];

const mpz_class kR = mpz_class(1) << 384;  // the Montgomery radix

mpz_class integer_of(const uint32_t limbs[fp32::kLimbs]) {
    mpz_class value;
    mpz_import(value.get_mpz_t(), fp32::kLimbs, -1, sizeof(uint32_t), 0, 0, limbs);
    return value;
}

void limbs_of(const mpz_class& value, uint32_t limbs[fp32::kLimbs]) {
    for (int j = 0; j < fp32::kLimbs; ++j) limbs[j] = 0;
    size_t count = 0;
    mpz_export(limbs, &count, -1, sizeof(uint32_t), 0, 0, value.get_mpz_t());
}

const mpz_class& r_inverse() {  // R^-1 mod p
    static const mpz_class inverse = [] {
        mpz_class value;
        mpz_invert(value.get_mpz_t(), mpz_class(kR % test::fp_modulus()).get_mpz_t(), test::fp_modulus().get_mpz_t());
        return value;
    }();
    return inverse;
}

// Raw residues < p (the limbs fp32 sees), stressing the carry chains: zero, small
// values, p - k, all-ones limbs at every word boundary, p's own limbs, and the
// Montgomery forms of 0, 1 and -1 (R mod p and p - R mod p), plus random values.
std::vector<mpz_class> operands() {
    const mpz_class& p = test::fp_modulus();
    std::vector<mpz_class> values = {0, 1, 2, 3, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2, kR % p, p - kR % p};
    for (int shift = 32; shift <= 352; shift += 32) {
        values.push_back(mpz_class(1) << shift);
        values.push_back((mpz_class(1) << shift) - 1);
        values.push_back(p - (mpz_class(1) << shift));
    }
    values.push_back((mpz_class(1) << 380) + 12345);
    values.push_back(mpz_class("ffffffff00000000ffffffff00000000ffffffff00000000ffffffff00000000", 16));
    std::mt19937_64 rng(381);
    for (int i = 0; i < 300; ++i) values.push_back(test::random_below(rng, p));
    return values;
}

TEST(Fp32, ModulusLimbsAreTheModulus) {
    Limbs p;
    for (int j = 0; j < fp32::kLimbs; ++j) p[j] = fp32::modulus_limb(j);
    EXPECT_EQ(integer_of(p), test::fp_modulus());
    const mpz_class two32 = mpz_class(1) << 32;
    // kMontInv * p = -1 (mod 2^32)
    EXPECT_EQ(mpz_class(mpz_class(fp32::kMontInv) * test::fp_modulus() + 1) % two32, 0);
}

TEST(Fp32, HostChainArithmeticMatchesGmp) {
    const mpz_class& p = test::fp_modulus();
    const std::vector<mpz_class> values = operands();
    for (const mpz_class& x : values) {
        for (const mpz_class& y : values) {
            Limbs a, b, out;
            limbs_of(x, a);
            limbs_of(y, b);
            fp32::mont_mul<ff::HostChain>(a, b, out);
            ASSERT_EQ(integer_of(out), x * y * r_inverse() % p) << x.get_str(16) << " * " << y.get_str(16);
            fp32::add<ff::HostChain>(a, b, out);
            ASSERT_EQ(integer_of(out), (x + y) % p) << x.get_str(16) << " + " << y.get_str(16);
            fp32::sub<ff::HostChain>(a, b, out);
            ASSERT_EQ(integer_of(out), ((x - y) % p + p) % p) << x.get_str(16) << " - " << y.get_str(16);
        }
    }
}

// mont_mul_partial: a < p and any 384-bit b give a result below 2p with the right
// residue; reduce_once brings any value below 2p to its residue.
TEST(Fp32, PartlyReducedProductsStayBelowTwiceTheModulus) {
    const mpz_class& p = test::fp_modulus();
    std::vector<mpz_class> multiplicands = operands();
    for (const mpz_class& v : {mpz_class(kR - 1), mpz_class(kR - 2), mpz_class(2 * p - 1), mpz_class(2 * p),
                               mpz_class(4 * p - 1), mpz_class(kR - p)}) {
        multiplicands.push_back(v);
    }
    const std::vector<mpz_class> factors = operands();  // < p
    for (const mpz_class& factor : factors) {
        Limbs f;
        limbs_of(factor, f);
        for (const mpz_class& x : multiplicands) {
            Limbs b, out;
            limbs_of(x, b);
            fp32::mont_mul_partial<ff::HostChain>(f, b, out);
            ASSERT_LT(integer_of(out), 2 * p) << factor.get_str(16) << " * " << x.get_str(16);
            ASSERT_EQ(integer_of(out) % p, factor * x * r_inverse() % p) << factor.get_str(16) << " * " << x.get_str(16);
        }
    }
    for (const mpz_class& x : {mpz_class(0), mpz_class(p - 1), mpz_class(p), mpz_class(p + 1), mpz_class(2 * p - 1)}) {
        Limbs v, out;
        limbs_of(x, v);
        ff::HostChain chain;
        fp32::reduce_once(chain, v, out);
        EXPECT_EQ(integer_of(out), x % p) << x.get_str(16);
    }
}

// mont_mul with unreduced sums as factors (add_unreduced: below 2p), as Fp::sum_times and
// Fp2's products use it on the device: the reduced product of the sums, and each sum
// below 2p with the right value. Includes 2p - 1 (the largest such sum) as both factors.
TEST(Fp32, ProductsTakeUnreducedSums) {
    const mpz_class& p = test::fp_modulus();
    std::vector<mpz_class> values = operands();
    values.resize(120);  // the edge values and some random ones: 120^2 sums, each times 8 more
    std::vector<std::pair<mpz_class, mpz_class>> sums = {{p - 1, p - 1}, {p - 1, 1}, {0, 0}};
    for (size_t i = 0; i < values.size(); ++i) {
        for (size_t k = i; k < values.size(); k += 7) sums.emplace_back(values[i], values[k]);
    }
    for (const auto& [x, y] : sums) {
        Limbs a, b, sum, out;
        limbs_of(x, a);
        limbs_of(y, b);
        fp32::add_unreduced<ff::HostChain>(a, b, sum);
        ASSERT_EQ(integer_of(sum), x + y) << x.get_str(16) << " + " << y.get_str(16);
        for (const auto& [u, v] : {sums[0], sums[1], sums[sums.size() / 2], sums.back()}) {
            Limbs c, d, other;
            limbs_of(u, c);
            limbs_of(v, d);
            fp32::add_unreduced<ff::HostChain>(c, d, other);
            fp32::mont_mul<ff::HostChain>(sum, other, out);
            ASSERT_EQ(integer_of(out), (x + y) * (u + v) * r_inverse() % p) << x.get_str(16) << " + " << y.get_str(16);
            fp32::mont_mul<ff::HostChain>(sum, c, out);
            ASSERT_EQ(integer_of(out), (x + y) * u * r_inverse() % p) << x.get_str(16) << " + " << y.get_str(16);
        }
    }
}

// Same R, same reduced output: what the GPU computes is what Fp computes on the host,
// bit for bit, including through the 64 <-> 32-bit limb split the device paths use.
TEST(Fp32, AgreesWithTheSixtyFourBitLimbs) {
    std::mt19937_64 rng(64);
    std::vector<Fp> values = {Fp::zero(), Fp::one(), -Fp::one(), Fp::from_u64(2), -Fp::from_u64(2)};
    for (int i = 0; i < 4000; ++i) values.push_back(test::random_fp(rng));
    for (size_t i = 0; i < values.size(); ++i) {
        for (size_t k : {i, (i * 7 + 3) % values.size(), (i + 1) % values.size()}) {
            const Fp& x = values[i];
            const Fp& y = values[k];
            Limbs a, b, out;
            fp32::split(x.limbs, a);
            fp32::split(y.limbs, b);
            Fp result;
            fp32::mont_mul<ff::HostChain>(a, b, out);
            fp32::join(out, result.limbs);
            ASSERT_EQ(result, x * y) << i << ", " << k;
            fp32::add<ff::HostChain>(a, b, out);
            fp32::join(out, result.limbs);
            ASSERT_EQ(result, x + y) << i << ", " << k;
            fp32::sub<ff::HostChain>(a, b, out);
            fp32::join(out, result.limbs);
            ASSERT_EQ(result, x - y) << i << ", " << k;
        }
    }
}

// The lazy-reduction pieces: mul_wide's 768-bit product (a, b up to 2^384 - 1, so every
// carry of the rows runs) and reduce_wide's REDC over its whole domain [0, p 2^384),
// both against GMP.
mpz_class integer_of_wide(const uint32_t limbs[2 * fp32::kLimbs]) {
    return integer_of(limbs) + (integer_of(limbs + fp32::kLimbs) << 384);
}

TEST(Fp32, WideProductsAndTheirReductionMatchGmp) {
    const mpz_class& p = test::fp_modulus();
    std::vector<mpz_class> values = operands();
    values.resize(160);
    for (const mpz_class& v : {mpz_class(kR - 1), mpz_class(kR - 2), mpz_class(2 * p - 1), mpz_class(kR - p)}) {
        values.push_back(v);
    }
    for (const mpz_class& x : values) {
        for (const mpz_class& y : values) {
            Limbs a, b;
            limbs_of(x, a);
            limbs_of(y, b);
            uint32_t wide[2 * fp32::kLimbs];
            fp32::mul_wide<ff::HostChain>(a, b, wide);
            ASSERT_EQ(integer_of_wide(wide), x * y) << x.get_str(16) << " * " << y.get_str(16);
        }
    }
    // REDC: T R^-1 mod p, reduced, for T < p R: the domain's edges (0, p R - 1, a high
    // half of p - 1 under every low half of the edge values) and random T.
    std::vector<mpz_class> wides = {0, 1, p * kR - 1, p * kR - 2, (p - 1) * kR, kR - 1, p * p, 2 * p * p};
    for (const mpz_class& low : operands()) {
        wides.push_back((p - 1) * kR + low);
        wides.push_back(low);
    }
    std::mt19937_64 rng(768);
    for (int i = 0; i < 3000; ++i) wides.push_back(test::random_below(rng, p) * kR + test::random_below(rng, kR));
    for (const mpz_class& value : wides) {
        uint32_t wide[2 * fp32::kLimbs];
        limbs_of(value % kR, wide);
        limbs_of(value / kR, wide + fp32::kLimbs);
        Limbs out;
        fp32::reduce_wide<ff::HostChain>(wide, out);
        ASSERT_EQ(integer_of(out), value * r_inverse() % p) << value.get_str(16);
    }
}

// Fp2's product with two reductions (the device's Fp2 * Fp2) against GMP's
// (a0 + a1 u)(b0 + b1 u) with u^2 = -1, reduced (so the bits of Karatsuba over mont_mul),
// also with the outputs aliasing the inputs.
TEST(Fp32, Fp2ProductsWithLazyReductionMatchGmp) {
    const mpz_class& p = test::fp_modulus();
    std::vector<mpz_class> values = operands();
    values.resize(90);
    std::mt19937_64 rng(2);
    for (size_t i = 0; i < values.size(); ++i) {
        for (size_t k = 0; k < values.size(); ++k) {
            const mpz_class& x0 = values[i];
            const mpz_class& x1 = values[k];
            const mpz_class& y0 = values[(i * 7 + k) % values.size()];
            const mpz_class y1 = k % 3 == 0 ? values[(k * 5 + i) % values.size()] : test::random_below(rng, p);
            Limbs a0, a1, b0, b1, c0, c1;
            limbs_of(x0, a0);
            limbs_of(x1, a1);
            limbs_of(y0, b0);
            limbs_of(y1, b1);
            fp32::fp2_mul<ff::HostChain>(a0, a1, b0, b1, c0, c1);
            const mpz_class real = ((x0 * y0 - x1 * y1) * r_inverse() % p + p) % p;
            const mpz_class imaginary = (x0 * y1 + x1 * y0) * r_inverse() % p;
            ASSERT_EQ(integer_of(c0), real) << i << ", " << k;
            ASSERT_EQ(integer_of(c1), imaginary) << i << ", " << k;
            fp32::fp2_mul<ff::HostChain>(a0, a1, b0, b1, a0, a1);
            ASSERT_EQ(integer_of(a0), real) << i << ", " << k;
            ASSERT_EQ(integer_of(a1), imaginary) << i << ", " << k;
        }
    }
}

// product_difference, a b - c d with one reduction, against GMP: every operand edge as c
// (0 makes p - c = p, the largest factor) and as a, b and d.
TEST(Fp32, ProductDifferencesMatchGmp) {
    const mpz_class& p = test::fp_modulus();
    std::vector<mpz_class> values = operands();
    values.resize(120);
    std::mt19937_64 rng(3);
    for (size_t i = 0; i < values.size(); ++i) {
        for (size_t k = 0; k < values.size(); ++k) {
            const mpz_class& x = values[i];
            const mpz_class& y = values[(i * 3 + k) % values.size()];
            const mpz_class& z = values[k];
            const mpz_class w = k % 2 == 0 ? values[(k * 5 + i) % values.size()] : test::random_below(rng, p);
            Limbs a, b, c, d, out;
            limbs_of(x, a);
            limbs_of(y, b);
            limbs_of(z, c);
            limbs_of(w, d);
            fp32::product_difference<ff::HostChain>(a, b, c, d, out);
            ASSERT_EQ(integer_of(out), ((x * y - z * w) * r_inverse() % p + p) % p) << i << ", " << k;
        }
    }
}

// fp_f64.hpp, the product on the double-precision FMA pipe: the same R, so for operands
// below 2p (unreduced sums included) the same bits as fp32's partial product, and the
// right residue (GMP). The edges: 0, p - 1, 2p - 1 on both sides, every 48-bit limb
// boundary (values whose limbs are all ones or zero), the rest random.
TEST(FpF64, ProductIsFp32sBitForBit) {
    const mpz_class& p = test::fp_modulus();
    std::vector<mpz_class> values = operands();
    for (int shift = 48; shift <= 336; shift += 48) {
        values.push_back((mpz_class(1) << shift) - 1);
        values.push_back(2 * p - (mpz_class(1) << shift));
    }
    std::mt19937_64 rng(4848);
    for (int i = 0; i < 100; ++i) values.push_back(test::random_below(rng, 2 * p));
    for (const mpz_class& v : {mpz_class(2 * p - 1), mpz_class(2 * p - 2), mpz_class(p), mpz_class(p + 1)}) {
        values.push_back(v);
    }
    for (const mpz_class& x : values) {
        for (const mpz_class& y : values) {
            Limbs a, b, expected, out;
            limbs_of(x, a);
            limbs_of(y, b);
            fp32::mont_mul_partial<ff::HostChain>(a, b, expected);
            ff::fp_f64::mont_mul_partial(a, b, out);
            ASSERT_EQ(integer_of(out), integer_of(expected)) << x.get_str(16) << " * " << y.get_str(16);
            ASSERT_LT(integer_of(out), 2 * p) << x.get_str(16) << " * " << y.get_str(16);
            ASSERT_EQ(integer_of(out) % p, x * y * r_inverse() % p) << x.get_str(16) << " * " << y.get_str(16);
        }
    }
}

TEST(FpF64, ModulusLimbsAreTheModulus) {
    mpz_class p = 0;
    for (int j = ff::fp_f64::kLimbs - 1; j >= 0; --j) p = (p << 48) + mpz_class(ff::fp_f64::modulus_limb(j));
    EXPECT_EQ(p, test::fp_modulus());
    const mpz_class inverse(ff::fp_f64::kMontInv);
    EXPECT_EQ(mpz_class(inverse * test::fp_modulus() + 1) % (mpz_class(1) << 48), 0);
}

}  // namespace
}  // namespace zkbatch
