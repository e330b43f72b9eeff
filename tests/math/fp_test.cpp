// Fp against GMP: every operation on random and edge values, the constants, and the
// byte/hex conversions with their failure paths.
#include "fp_oracle.hpp"

#include "core/ff/fp.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fp;
using test::canonical_of;
using test::fp_modulus;
using test::fp_of;
using test::from_limbs;

const mpz_class kTwo384 = mpz_class(1) << 384;

mpz_class mod_p(const mpz_class& v) {
    mpz_class r = v % fp_modulus();
    if (r < 0) r += fp_modulus();
    return r;
}

// Canonical values that stress carries, the final subtraction and limb boundaries.
std::vector<mpz_class> edge_values() {
    const mpz_class& p = fp_modulus();
    std::vector<mpz_class> values = {0, 1, 2, 3, p - 1, p - 2, p - 3, (p - 1) / 2, (p + 1) / 2, (p - 3) / 4};
    for (int bits : {63, 64, 128, 192, 256, 320, 379, 380}) {
        values.push_back(mpz_class(1) << bits);
        values.push_back((mpz_class(1) << bits) - 1);
    }
    for (int k = 0; k < 3; ++k) {
        values.push_back(mod_p(kTwo384 - 1 - k));  // 384-bit values near 2^384, reduced
        values.push_back(mod_p((mpz_class(1) << 381) - 1 - k));
        values.push_back(mod_p(kTwo384 + k));
    }
    // Elements whose Montgomery representation is near p or near 0, and R itself.
    mpz_class r_inverse;
    const mpz_class r_mod = kTwo384 % p;
    mpz_invert(r_inverse.get_mpz_t(), r_mod.get_mpz_t(), p.get_mpz_t());
    for (const mpz_class& representation : std::vector<mpz_class>{p - 1, p - 2, 1, 2}) {
        values.push_back(representation * r_inverse % p);
    }
    values.push_back(r_mod);
    values.push_back(r_mod * r_mod % p);
    return values;
}

std::vector<Fp> test_values(size_t random_count) {
    std::vector<Fp> values;
    for (const mpz_class& v : edge_values()) values.push_back(fp_of(v));
    std::mt19937_64 rng(20250101);
    for (size_t i = 0; i < random_count; ++i) values.push_back(test::random_fp(rng));
    return values;
}

TEST(Fp, LayoutIsFortyEightTriviallyCopyableBytes) {
    static_assert(sizeof(Fp) == 48);
    static_assert(std::is_trivially_copyable_v<Fp>);
    EXPECT_EQ(alignof(Fp), alignof(uint64_t));
}

TEST(Fp, ConstantsAgreeWithGmp) {
    const mpz_class& p = fp_modulus();
    const uint64_t modulus_limbs[6] = {ff::kFpModulus0, ff::kFpModulus1, ff::kFpModulus2,
                                       ff::kFpModulus3, ff::kFpModulus4, ff::kFpModulus5};
    EXPECT_EQ(from_limbs(modulus_limbs, 6), p);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(Fp::modulus_limb(i), modulus_limbs[i]);
    EXPECT_EQ(mpz_sizeinbase(p.get_mpz_t(), 2), 381u);
    EXPECT_EQ(mpz_class(p % 4), 3) << "sqrt relies on p = 3 mod 4";
    EXPECT_NE(mpz_probab_prime_p(p.get_mpz_t(), 30), 0);

    EXPECT_EQ(from_limbs(Fp::one().limbs, 6), kTwo384 % p) << "one() must be R mod p";
    const uint64_t r_squared_limbs[6] = {ff::kFpRSquared0, ff::kFpRSquared1, ff::kFpRSquared2,
                                         ff::kFpRSquared3, ff::kFpRSquared4, ff::kFpRSquared5};
    EXPECT_EQ(from_limbs(r_squared_limbs, 6), kTwo384 * kTwo384 % p);
    EXPECT_EQ(ff::kFpMontInv * ff::kFpModulus0, ~uint64_t{0}) << "kFpMontInv * p must be -1 mod 2^64";
    const uint64_t r_cubed_limbs[6] = {ff::kFpRCubed0, ff::kFpRCubed1, ff::kFpRCubed2,
                                       ff::kFpRCubed3, ff::kFpRCubed4, ff::kFpRCubed5};
    EXPECT_EQ(from_limbs(r_cubed_limbs, 6), kTwo384 * kTwo384 * kTwo384 % p) << "inverse's factor is R^3 mod p";

    // The BLS parameter: p = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x with x = -0xd201000000010000.
    const mpz_class x = -mpz_class("d201000000010000", 16);
    EXPECT_EQ((x - 1) * (x - 1) * (x * x * x * x - x * x + 1) / 3 + x, p);
    EXPECT_EQ(ec::kBlsXAbs, 0xd201000000010000ULL);
}

TEST(Fp, ArithmeticMatchesGmp) {
    const mpz_class& p = fp_modulus();
    const std::vector<Fp> values = test_values(1500);
    std::vector<mpz_class> plain;
    for (const Fp& v : values) plain.push_back(canonical_of(v));
    const size_t count = values.size();
    const size_t edges = edge_values().size();
    for (size_t i = 0; i < count; ++i) {
        for (size_t j : {(i * 7 + 1) % count, (i * 13 + 5) % count, i % edges, count - 1 - i}) {
            const Fp& x = values[i];
            const Fp& y = values[j];
            const mpz_class& px = plain[i];
            const mpz_class& py = plain[j];
            ASSERT_EQ(canonical_of(x + y), (px + py) % p) << px.get_str(16) << " + " << py.get_str(16);
            ASSERT_EQ(canonical_of(x - y), mod_p(px - py)) << px.get_str(16) << " - " << py.get_str(16);
            ASSERT_EQ(canonical_of(x * y), px * py % p) << px.get_str(16) << " * " << py.get_str(16);
            Fp accumulator = x;
            accumulator += y;
            accumulator *= y;
            accumulator -= x;
            ASSERT_EQ(canonical_of(accumulator), mod_p((px + py) * py - px));
            ASSERT_EQ(x == y, px == py);
            ASSERT_EQ(x != y, px != py);
        }
        const Fp& x = values[i];
        ASSERT_EQ(canonical_of(x.sqr()), plain[i] * plain[i] % p);
        ASSERT_EQ(canonical_of(x.dbl()), 2 * plain[i] % p);
        ASSERT_EQ(canonical_of(x.half()) * 2 % p, plain[i]);
        ASSERT_EQ(canonical_of(-x), (p - plain[i]) % p);
        ASSERT_EQ(x.is_zero(), plain[i] == 0);
        ASSERT_EQ(x.is_one(), plain[i] == 1);
        // Stored limbs are always fully reduced.
        ASSERT_LT(from_limbs(x.limbs, 6), p);
        ASSERT_LT(from_limbs((x + x).limbs, 6), p);
        ASSERT_LT(from_limbs((x * x).limbs, 6), p);
        ASSERT_LT(from_limbs(x.half().limbs, 6), p);
    }
}

TEST(Fp, InversePowAndSqrtMatchGmp) {
    const mpz_class& p = fp_modulus();
    const std::vector<Fp> values = test_values(200);
    int squares = 0;
    int non_squares = 0;
    for (const Fp& x : values) {
        const mpz_class px = canonical_of(x);
        mpz_class expected;
        if (px != 0) {
            mpz_invert(expected.get_mpz_t(), px.get_mpz_t(), p.get_mpz_t());
            ASSERT_EQ(canonical_of(x.inverse()), expected) << px.get_str(16);
            ASSERT_EQ(x * x.inverse(), Fp::one());
        }
        const uint64_t exponent = px.get_ui() ^ 0x9e3779b97f4a7c15ULL;
        mpz_powm(expected.get_mpz_t(), px.get_mpz_t(), mpz_class(std::to_string(exponent)).get_mpz_t(),
                 p.get_mpz_t());
        ASSERT_EQ(canonical_of(x.pow(exponent)), expected);

        Fp root;
        const int legendre = mpz_legendre(px.get_mpz_t(), p.get_mpz_t());
        ASSERT_EQ(x.sqrt(root), legendre >= 0) << px.get_str(16);
        if (legendre >= 0) {
            ASSERT_EQ(canonical_of(root) * canonical_of(root) % p, px);
            ++squares;
        } else {
            ++non_squares;
        }
        // The square of anything has a root, which is x or -x.
        ASSERT_TRUE(x.sqr().sqrt(root));
        ASSERT_TRUE(root == x || root == -x);
    }
    EXPECT_GT(squares, 50);
    EXPECT_GT(non_squares, 50);
    EXPECT_TRUE(Fp::zero().inverse().is_zero()) << "the inverse of 0 is 0 by convention";
    Fp root = Fp::one();
    EXPECT_TRUE(Fp::zero().sqrt(root));
    EXPECT_TRUE(root.is_zero());
    EXPECT_FALSE((-Fp::one()).sqrt(root)) << "-1 is not a square when p = 3 mod 4";

    // pow over several limbs: x^(p-1) = 1 (Fermat), x^p = x.
    uint64_t p_limbs[6];
    test::to_limbs(p, p_limbs, 6);
    const Fp x = values.back();
    EXPECT_EQ(x.pow(p_limbs, 6), x);
    p_limbs[0] -= 1;
    EXPECT_EQ(x.pow(p_limbs, 6), Fp::one());
}

// ---- inverse (safegcd.hpp's divsteps) ---------------------------------------------

using Inverter = ff::safegcd::Inverter<Fp>;

// Integers that stress the divsteps, used both as canonical values and as the stored
// Montgomery integer the divsteps actually see: small ones, powers of two, ones with all
// high bits set (p minus a power of two, p with its low bits cleared), near p/2.
std::vector<mpz_class> inverse_edge_integers() {
    const mpz_class& p = fp_modulus();
    std::vector<mpz_class> values = edge_values();
    for (int v = 1; v <= 64; ++v) values.push_back(v);
    for (int k = 0; k <= 380; k += (k < 8 || k > 370) ? 1 : 7) {
        const mpz_class power = mpz_class(1) << k;
        values.push_back(power);
        values.push_back(p - power);
        values.push_back((p >> k) << k);  // p's high bits, low k bits cleared
        values.push_back(power - 1);
    }
    for (int k = -40; k <= 40; ++k) values.push_back(p / 2 + k);
    std::vector<mpz_class> below_p;
    for (const mpz_class& v : values) {
        if (v >= 0 && v < p) below_p.push_back(v);
    }
    return below_p;
}

// The stored integer `representation` read as an Fp (its value is representation / R).
Fp with_representation(const mpz_class& representation) {
    Fp x;
    test::to_limbs(representation, x.limbs, 6);
    return x;
}

mpz_class gmp_inverse(const mpz_class& v) {
    mpz_class inverse;
    if (v == 0) return 0;
    EXPECT_NE(mpz_invert(inverse.get_mpz_t(), v.get_mpz_t(), fp_modulus().get_mpz_t()), 0);
    return inverse;
}

TEST(Fp, InverseMatchesGmp) {
    const mpz_class& p = fp_modulus();
    std::vector<Fp> values;
    for (const mpz_class& v : inverse_edge_integers()) {
        values.push_back(fp_of(v));
        values.push_back(with_representation(v));
    }
    std::mt19937_64 rng(381);
    for (int i = 0; i < 5000; ++i) values.push_back(test::random_fp(rng));
    ASSERT_GT(values.size(), 5500u);
    for (const Fp& x : values) {
        const mpz_class px = canonical_of(x);
        const Fp inverse = x.inverse();
        ASSERT_EQ(canonical_of(inverse), gmp_inverse(px)) << px.get_str(16);
        ASSERT_LT(from_limbs(inverse.limbs, 6), p) << "fully reduced";
        if (px != 0) {
            ASSERT_EQ(x * inverse, Fp::one()) << px.get_str(16);
        }
        ASSERT_EQ(inverse.inverse(), x) << px.get_str(16);
    }
    EXPECT_EQ(Fp::zero().inverse(), Fp::zero()) << "the inverse of 0 is 0 by convention";
    EXPECT_EQ(Fp::one().inverse(), Fp::one());
    EXPECT_EQ((-Fp::one()).inverse(), -Fp::one());
    EXPECT_EQ(canonical_of(Fp::from_u64(2).inverse()), (p + 1) / 2);
    EXPECT_EQ(canonical_of((-Fp::from_u64(2)).inverse()), (p - 1) / 2);
}

TEST(Fp, InverseAgreesWithFermat) {
    uint64_t p_minus_2[6];
    test::to_limbs(fp_modulus() - 2, p_minus_2, 6);
    std::mt19937_64 rng(2);
    for (int i = 0; i < 200; ++i) {
        const Fp x = test::random_fp(rng);
        ASSERT_EQ(x.inverse(), x.pow(p_minus_2, 6));
    }
}

mpz_class value_of(const Inverter::Signed30& x) {
    mpz_class value = 0;
    for (int i = Inverter::kLimbs - 1; i >= 0; --i) value = (value << 30) + x.limbs[i];
    return value;
}

// x (|x| < 2^389) as 13 signed 30-bit limbs: the low ones in [0, 2^30), the top one signed.
Inverter::Signed30 signed30_of(const mpz_class& x) {
    Inverter::Signed30 out{};
    for (int i = 0; i < Inverter::kLimbs; ++i) {
        mpz_class limb;
        mpz_fdiv_q_2exp(limb.get_mpz_t(), x.get_mpz_t(), 30 * i);  // floor, also for negative x
        if (i + 1 < Inverter::kLimbs) mpz_fdiv_r_2exp(limb.get_mpz_t(), limb.get_mpz_t(), 30);
        out.limbs[i] = static_cast<int32_t>(limb.get_si());
    }
    return out;
}

// apply_to_de's range argument at its extremes, which random inputs never reach: matrices
// with |u| + |v| = 2^30 and d, e at the ends of (-2p, p) still give results in (-2p, p),
// congruent to (u d + v e) / 2^30.
TEST(Fp, InverseMatrixUpdateStaysInRangeAtTheExtremes) {
    const mpz_class& p = fp_modulus();
    const int32_t full = 1 << 30, half = 1 << 29;
    const ff::safegcd::Transition matrices[] = {
        {full, 0, 0, full}, {-full, 0, 0, -full}, {0, full, full, 0},        {0, -full, -full, 0},
        {half, half, half, -half}, {-half, -half, -half, half}, {half, -half, -half, half},
        {full - 1, 1, -1, -(full - 1)}, {1, -(full - 1), -(full - 1), 1}};
    std::mt19937_64 rng(7);
    std::vector<mpz_class> ends = {-2 * p + 1, -2 * p + 2, -p - 1, -p, -p + 1, -1, 0, 1, p - 2, p - 1};
    for (int i = 0; i < 4; ++i) ends.push_back(canonical_of(test::random_fp(rng)) - p);
    const mpz_class two30 = mpz_class(1) << 30;
    for (const ff::safegcd::Transition& t : matrices) {
        for (const mpz_class& d : ends) {
            for (const mpz_class& e : ends) {
                Inverter::Signed30 new_d = signed30_of(d), new_e = signed30_of(e);
                ASSERT_EQ(value_of(new_d), d);
                Inverter::apply_to_de(new_d, new_e, t);
                // mpz_class(...): gmpxx's lazy expressions would keep references to
                // temporaries that end here.
                for (const auto& [value, row] : {std::pair{value_of(new_d), mpz_class(t.u * d + t.v * e)},
                                                 std::pair{value_of(new_e), mpz_class(t.q * d + t.r * e)}}) {
                    ASSERT_GT(value, -2 * p) << d.get_str(16) << ", " << e.get_str(16);
                    ASSERT_LT(value, p) << d.get_str(16) << ", " << e.get_str(16);
                    ASSERT_EQ(mpz_class(value * two30 - row) % p, 0) << d.get_str(16) << ", " << e.get_str(16);
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

// Each batch against 30 plain divsteps, and the invariants inverse relies on: d x = f and
// e x = g (mod p) with d, e in (-2p, p), limbs below the top in [0, 2^30), and g = 0,
// f = +-1 within the batches run (Theorem 11.2's bound, 1101 steps for a 381-bit p).
TEST(Fp, InverseDivstepBatchesKeepTheirInvariants) {
    const mpz_class& p = fp_modulus();
    static_assert(Inverter::kLimbs == 13);
    EXPECT_EQ(Inverter::modulus_bits(), 381);
    EXPECT_EQ(Inverter::kDivsteps, 1101);
    EXPECT_EQ(Inverter::kBatches, 37);
    EXPECT_EQ(mpz_class(Inverter::modulus_inverse30()) * (p % (1 << 30)) % (1 << 30), 1);

    std::vector<mpz_class> inputs = inverse_edge_integers();
    std::mt19937_64 rng(30);
    for (int i = 0; i < 300; ++i) inputs.push_back(canonical_of(test::random_fp(rng)));
    int most_steps = 0;
    for (const mpz_class& x : inputs) {
        Inverter::Signed30 f{}, g{}, d{}, e{};
        for (int i = 0; i < Inverter::kLimbs; ++i) {
            f.limbs[i] = static_cast<int32_t>(mpz_class((p >> (30 * i)) % (1 << 30)).get_si());
            g.limbs[i] = static_cast<int32_t>(mpz_class((x >> (30 * i)) % (1 << 30)).get_si());
        }
        e.limbs[0] = 1;
        int32_t delta = 1;
        int plain_delta = 1;
        mpz_class plain_f = p, plain_g = x;
        int steps = 0;
        for (int batch = 0; batch < Inverter::kBatches; ++batch) {
            const ff::safegcd::Transition t =
                Inverter::divsteps(delta, static_cast<uint32_t>(f.limbs[0]), static_cast<uint32_t>(g.limbs[0]));
            Inverter::apply_to_fg(f, g, t);
            Inverter::apply_to_de(d, e, t);
            for (int step = 0; step < ff::safegcd::kBatchSteps; ++step) {
                if (plain_g != 0) ++steps;
                divstep(plain_delta, plain_f, plain_g);
            }
            ASSERT_EQ(delta, plain_delta) << x.get_str(16) << " batch " << batch;
            ASSERT_EQ(value_of(f), plain_f) << x.get_str(16) << " batch " << batch;
            ASSERT_EQ(value_of(g), plain_g) << x.get_str(16) << " batch " << batch;
            for (const mpz_class& value : {value_of(d), value_of(e)}) {
                ASSERT_GT(value, -2 * p) << x.get_str(16) << " batch " << batch;
                ASSERT_LT(value, p) << x.get_str(16) << " batch " << batch;
            }
            ASSERT_EQ(mpz_class(value_of(d) * x - plain_f) % p, 0) << x.get_str(16) << " batch " << batch;
            ASSERT_EQ(mpz_class(value_of(e) * x - plain_g) % p, 0) << x.get_str(16) << " batch " << batch;
            for (const Inverter::Signed30* value : {&f, &g, &d, &e}) {
                for (int i = 0; i + 1 < Inverter::kLimbs; ++i) {
                    ASSERT_GE(value->limbs[i], 0);
                    ASSERT_LT(value->limbs[i], 1 << 30);
                }
            }
        }
        EXPECT_EQ(plain_g, 0) << x.get_str(16);
        EXPECT_EQ(abs(plain_f), x == 0 ? p : mpz_class(1)) << x.get_str(16);
        most_steps = std::max(most_steps, steps);
    }
    EXPECT_LE(most_steps, Inverter::kDivsteps);
    std::printf("most divsteps until g = 0 over %zu inputs: %d (bound %d, run %d)\n", inputs.size(), most_steps,
                Inverter::kDivsteps, Inverter::kBatches * ff::safegcd::kBatchSteps);
}

TEST(Fp, FromU64AndCanonicalRoundTrip) {
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{4}, ~uint64_t{0}, uint64_t{0x8000000000000000ULL}}) {
        EXPECT_EQ(canonical_of(Fp::from_u64(v)), mpz_class(std::to_string(v)));
    }
    for (const mpz_class& v : edge_values()) {
        uint64_t limbs[6];
        test::to_limbs(v, limbs, 6);
        ASSERT_TRUE(Fp::is_canonical(limbs));
        const Fp x = Fp::from_canonical(limbs);
        uint64_t back[6];
        x.to_canonical(back);
        EXPECT_EQ(from_limbs(back, 6), v);
        EXPECT_EQ(from_limbs(x.limbs, 6), v * kTwo384 % fp_modulus()) << "storage is Montgomery form";
    }
    uint64_t limbs[6];
    test::to_limbs(fp_modulus(), limbs, 6);
    EXPECT_FALSE(Fp::is_canonical(limbs));
    test::to_limbs(kTwo384 - 1, limbs, 6);
    EXPECT_FALSE(Fp::is_canonical(limbs));
}

TEST(Fp, LexicographicallyLargestIsAboveHalfOfP) {
    const mpz_class half = (fp_modulus() - 1) / 2;
    for (const Fp& x : test_values(300)) {
        ASSERT_EQ(x.is_lexicographically_largest(), canonical_of(x) > half) << x.to_hex();
    }
    EXPECT_FALSE(fp_of(half).is_lexicographically_largest());
    EXPECT_TRUE(fp_of(half + 1).is_lexicographically_largest());
    EXPECT_FALSE(Fp::zero().is_lexicographically_largest());
}

// Big-endian bytes of a value as GMP writes them, left-padded to 48.
std::vector<uint8_t> be_bytes(const mpz_class& v) {
    std::vector<uint8_t> bytes(48, 0);
    size_t count = 0;
    uint8_t buffer[64];
    mpz_export(buffer, &count, 1, 1, 1, 0, v.get_mpz_t());
    std::memcpy(bytes.data() + 48 - count, buffer, count);
    return bytes;
}

TEST(Fp, BigEndianBytesMatchGmpAndRefuseValuesOfPOrMore) {
    for (const Fp& x : test_values(100)) {
        uint8_t bytes[48];
        x.to_be_bytes(bytes);
        ASSERT_EQ(std::vector<uint8_t>(bytes, bytes + 48), be_bytes(canonical_of(x)));
        Fp back;
        ASSERT_TRUE(Fp::try_from_be_bytes(bytes, back));
        ASSERT_EQ(back, x);
    }
    const mpz_class& p = fp_modulus();
    for (const mpz_class& bad : std::vector<mpz_class>{p, p + 1, mpz_class(1) << 381, kTwo384 - 1}) {
        const std::vector<uint8_t> bytes = be_bytes(bad);
        Fp out = Fp::one();
        EXPECT_FALSE(Fp::try_from_be_bytes(bytes.data(), out)) << bad.get_str(16);
        EXPECT_EQ(out, Fp::one()) << "a refused value must leave the output untouched";
    }
    Fp out;
    EXPECT_TRUE(Fp::try_from_be_bytes(be_bytes(p - 1).data(), out));
    EXPECT_EQ(out, -Fp::one());
}

TEST(Fp, HexRoundTripsAndRefusesBadText) {
    for (const Fp& x : test_values(50)) {
        const std::string hex = x.to_hex();
        ASSERT_EQ(hex.size(), 98u);
        ASSERT_EQ(hex, "0x" + std::string(96 - canonical_of(x).get_str(16).size(), '0') + canonical_of(x).get_str(16));
        Fp back;
        ASSERT_TRUE(Fp::try_from_hex(hex, back));
        ASSERT_EQ(back, x);
    }
    Fp out;
    EXPECT_TRUE(Fp::try_from_hex("0X1", out));
    EXPECT_EQ(out, Fp::one());
    const std::string p_hex = fp_modulus().get_str(16);
    for (const std::string& bad : {std::string(""), std::string("0x"), std::string("xyz"), p_hex,
                                   std::string(97, '1'), std::string("0x") + std::string(96, 'f')}) {
        EXPECT_FALSE(Fp::try_from_hex(bad, out)) << bad;
    }
    EXPECT_THROW(Fp::from_hex(p_hex), std::invalid_argument);
    EXPECT_EQ(Fp::from_hex(fp_modulus().get_str(16).replace(p_hex.size() - 1, 1, "a")), -Fp::one());
}

}  // namespace
}  // namespace zkbatch
