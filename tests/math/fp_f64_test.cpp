// bench/fp_f64.hpp, Fp's product on the double-precision FMA pipe (a benchmark's
// alternative to the integer pipe): the same bits as field32.hpp's partial product and
// the right residue, against GMP.
#include "bench/fp_f64.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/ff/field32.hpp"
#include "core/ff/fp.hpp"
#include "fp_oracle.hpp"

namespace zkbatch {
namespace {

using Fp32 = ff::Field32<ff::bls12_381::FpDescription>;
using Limbs = uint32_t[Fp32::kLimbs];

const mpz_class kR = mpz_class(1) << 384;  // the Montgomery radix

mpz_class integer_of(const uint32_t limbs[Fp32::kLimbs]) {
    mpz_class value;
    mpz_import(value.get_mpz_t(), Fp32::kLimbs, -1, sizeof(uint32_t), 0, 0, limbs);
    return value;
}

void limbs_of(const mpz_class& value, uint32_t limbs[Fp32::kLimbs]) {
    for (int j = 0; j < Fp32::kLimbs; ++j) limbs[j] = 0;
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

// Raw residues < p: gmp_oracle's edge values and random ones.
std::vector<mpz_class> operands() {
    std::vector<mpz_class> values = test::edge_values<ff::Fp>();
    std::mt19937_64 rng(381);
    for (int i = 0; i < 300; ++i) values.push_back(test::random_below(rng, test::fp_modulus()));
    return values;
}

// fp_f64.hpp, the product on the double-precision FMA pipe: the same R, so for operands
// below 2p (unreduced sums included) the same bits as Fp32's partial product, and the
// right residue (GMP). The edges: 0, p - 1, 2p - 1 on both sides, every 48-bit limb
// boundary (values whose limbs are all ones or zero), the rest random.
TEST(FpF64, ProductIsField32sBitForBit) {
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
            Fp32::mont_mul_partial<ff::HostChain>(a, b, expected);
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
