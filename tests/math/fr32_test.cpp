// fr32.hpp, the 32-bit-limb carry-chain arithmetic the GPU runs, executed here through
// HostChain (an exact model of PTX's carry flag) and checked against GMP. The device
// test (tests/gpu/field_device_test.cu) then shows PtxChain gives the same bits.
#include "gmp_oracle.hpp"

#include "core/ff/fr.hpp"
#include "core/ff/fr32.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;
namespace fr32 = ff::fr32;

const mpz_class kR = mpz_class(1) << 256;  // the Montgomery radix

mpz_class integer_of(const uint32_t limbs[8]) {
    mpz_class value;
    mpz_import(value.get_mpz_t(), 8, -1, sizeof(uint32_t), 0, 0, limbs);
    return value;
}

void limbs_of(const mpz_class& value, uint32_t limbs[8]) {
    for (int j = 0; j < 8; ++j) limbs[j] = 0;
    size_t count = 0;
    mpz_export(limbs, &count, -1, sizeof(uint32_t), 0, 0, value.get_mpz_t());
}

// Raw residues < r (the limbs fr32 sees), stressing the carry chains and the u == 0
// case of the reduction: zero, small values, r - k, all-ones limbs, limbs of r itself.
std::vector<mpz_class> operands() {
    const mpz_class& r = test::modulus();
    std::vector<mpz_class> values = {0, 1, 2, r - 1, r - 2, (r - 1) / 2, (r + 1) / 2};
    for (int shift : {32, 64, 96, 128, 160, 192, 224, 254}) {
        values.push_back(mpz_class(1) << shift);
        values.push_back(((mpz_class(1) << shift) - 1) % r);
        values.push_back((r - (mpz_class(1) << shift)) % r);
    }
    values.push_back(mpz_class("ffffffff00000000", 16));
    values.push_back(mpz_class("00000000ffffffff00000000ffffffff00000000ffffffff", 16));
    std::mt19937_64 rng(32);
    for (int i = 0; i < 400; ++i) values.push_back(test::random_below(rng, r));
    return values;
}

TEST(Fr32, ModulusLimbsAreTheModulus) {
    const uint32_t p[8] = {fr32::kP0, fr32::kP1, fr32::kP2, fr32::kP3, fr32::kP4, fr32::kP5, fr32::kP6, fr32::kP7};
    EXPECT_EQ(integer_of(p), test::modulus());
    // The reduction's shortcut needs r = 1 + (2^32 - 1) * 2^32 (mod 2^64).
    EXPECT_EQ(fr32::kP0, 1u);
    EXPECT_EQ(fr32::kP1, 0xffffffffu);
}

TEST(Fr32, HostChainArithmeticMatchesGmp) {
    const mpz_class& r = test::modulus();
    mpz_class r_inverse;  // R^-1 mod r
    mpz_invert(r_inverse.get_mpz_t(), mpz_class(kR % r).get_mpz_t(), r.get_mpz_t());
    const std::vector<mpz_class> values = operands();
    for (const mpz_class& x : values) {
        for (const mpz_class& y : values) {
            uint32_t a[8], b[8], out[8];
            limbs_of(x, a);
            limbs_of(y, b);
            fr32::mont_mul<fr32::HostChain>(a, b, out);
            ASSERT_EQ(integer_of(out), x * y * r_inverse % r) << x.get_str(16) << " * " << y.get_str(16);
            fr32::add<fr32::HostChain>(a, b, out);
            ASSERT_EQ(integer_of(out), (x + y) % r) << x.get_str(16) << " + " << y.get_str(16);
            fr32::sub<fr32::HostChain>(a, b, out);
            ASSERT_EQ(integer_of(out), ((x - y) % r + r) % r) << x.get_str(16) << " - " << y.get_str(16);
        }
    }
}

// The NTT passes' partly reduced arithmetic: values < 2r, products by a factor < r of
// any 256-bit value. Checked for the residue and for the bound (< 2r) it promises.
std::vector<mpz_class> partly_reduced_operands() {
    const mpz_class& r = test::modulus();
    std::vector<mpz_class> values = operands();
    const size_t residues = values.size();
    for (size_t i = 0; i < residues; i += 3) values.push_back(values[i] + r);  // [r, 2r)
    for (const mpz_class& v : {mpz_class(2 * r - 1), mpz_class(2 * r - 2), mpz_class(r)}) values.push_back(v);
    return values;
}

TEST(Fr32, PartlyReducedArithmeticMatchesGmp) {
    const mpz_class& r = test::modulus();
    mpz_class r_inverse;
    mpz_invert(r_inverse.get_mpz_t(), mpz_class(kR % r).get_mpz_t(), r.get_mpz_t());
    const uint32_t twice_r[8] = {fr32::twice_modulus_limb(0), fr32::twice_modulus_limb(1), fr32::twice_modulus_limb(2),
                                 fr32::twice_modulus_limb(3), fr32::twice_modulus_limb(4), fr32::twice_modulus_limb(5),
                                 fr32::twice_modulus_limb(6), fr32::twice_modulus_limb(7)};
    ASSERT_EQ(integer_of(twice_r), 2 * r);
    const std::vector<mpz_class> values = partly_reduced_operands();
    const std::vector<mpz_class> factors = operands();  // < r
    for (const mpz_class& x : values) {
        uint32_t a[8], out[8];
        limbs_of(x, a);
        for (const mpz_class& y : values) {
            uint32_t b[8];
            limbs_of(y, b);
            fr32::add_partial<fr32::HostChain>(a, b, out);
            ASSERT_LT(integer_of(out), 2 * r) << x.get_str(16) << " + " << y.get_str(16);
            ASSERT_EQ(integer_of(out) % r, (x + y) % r) << x.get_str(16) << " + " << y.get_str(16);
            fr32::sub_partial<fr32::HostChain>(a, b, out);
            ASSERT_LT(integer_of(out), 2 * r) << x.get_str(16) << " - " << y.get_str(16);
            ASSERT_EQ(integer_of(out) % r, ((x - y) % r + r) % r) << x.get_str(16) << " - " << y.get_str(16);
        }
        for (const mpz_class& factor : factors) {
            uint32_t f[8];
            limbs_of(factor, f);
            fr32::mont_mul_partial<fr32::HostChain>(f, a, out);
            ASSERT_LT(integer_of(out), 2 * r) << factor.get_str(16) << " * " << x.get_str(16);
            ASSERT_EQ(integer_of(out) % r, factor * x * r_inverse % r) << factor.get_str(16) << " * " << x.get_str(16);
        }
        fr32::HostChain chain;
        fr32::reduce_once(chain, a, out);
        ASSERT_EQ(integer_of(out), x % r);
    }
    // The largest multiplicand the bound allows: any 256-bit value times r - 1.
    uint32_t all_ones[8], r_minus_1[8], out[8];
    limbs_of((mpz_class(1) << 256) - 1, all_ones);
    limbs_of(r - 1, r_minus_1);
    fr32::mont_mul_partial<fr32::HostChain>(r_minus_1, all_ones, out);
    EXPECT_LT(integer_of(out), 2 * r);
    EXPECT_EQ(integer_of(out) % r, (r - 1) * ((mpz_class(1) << 256) - 1) * r_inverse % r);
}

TEST(Fr32, AgreesWithTheSixtyFourBitLimbs) {
    // Same R, same reduced output: the GPU and the host must produce the same bits.
    std::mt19937_64 rng(64);
    for (int i = 0; i < 20000; ++i) {
        const Fr x = test::random_fr(rng);
        const Fr y = test::random_fr(rng);
        uint32_t a[8], b[8], out[8];
        fr32::split(x.limbs, a);
        fr32::split(y.limbs, b);
        fr32::mont_mul<fr32::HostChain>(a, b, out);
        Fr product;
        fr32::join(out, product.limbs);
        ASSERT_EQ(product, x * y);
    }
}

}  // namespace
}  // namespace zkbatch
