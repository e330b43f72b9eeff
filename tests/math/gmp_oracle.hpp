// Test helpers: conversions between field elements and GMP integers, the independent
// oracle, for every instance of core/ff/montgomery_field.hpp.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fp.hpp"
#include "core/ff/fr.hpp"
#include "support/field_types.hpp"

#include <gmpxx.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace zkbatch::ff {
// GoogleTest prints field elements as canonical hex.
template <class Description>
void PrintTo(const MontgomeryField<Description>& x, std::ostream* os) {
    *os << x.to_hex();
}
}  // namespace zkbatch::ff

namespace zkbatch::test {

// Each field's modulus as its specification writes it, not as the code describes it:
// BLS12-381's from the Zcash specification, BN254's from EIP-196 (decimal).
template <class F>
const mpz_class& modulus_of();
template <>
inline const mpz_class& modulus_of<ff::bls12_381::Fr>() {
    static const mpz_class r("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
    return r;
}
template <>
inline const mpz_class& modulus_of<ff::bls12_381::Fp>() {
    static const mpz_class p(
        "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16);
    return p;
}
template <>
inline const mpz_class& modulus_of<ff::bn254::Fq>() {
    static const mpz_class p("21888242871839275222246405745257275088696311157297823662689037894645226208583");
    return p;
}
template <>
inline const mpz_class& modulus_of<ff::bn254::Fr>() {
    static const mpz_class r("21888242871839275222246405745257275088548364400416034343698204186575808495617");
    return r;
}

// BLS12-381's r, the group order of the curves the prover uses.
inline const mpz_class& modulus() { return modulus_of<ff::Fr>(); }

// Little-endian 64-bit limbs <-> integer.
inline mpz_class from_limbs(const uint64_t* limbs, size_t count) {
    mpz_class value;
    mpz_import(value.get_mpz_t(), count, -1, sizeof(uint64_t), 0, 0, limbs);
    return value;
}
inline mpz_class from_limbs(const uint64_t limbs[4]) { return from_limbs(limbs, 4); }

// value must be < 2^(64 count).
inline void to_limbs(const mpz_class& value, uint64_t* limbs, size_t count) {
    for (size_t i = 0; i < count; ++i) limbs[i] = 0;
    size_t written = 0;
    mpz_export(limbs, &written, -1, sizeof(uint64_t), 0, 0, value.get_mpz_t());
}
inline void to_limbs(const mpz_class& value, uint64_t limbs[4]) { to_limbs(value, limbs, 4); }

template <class F>
mpz_class canonical_of(const F& x) {
    uint64_t limbs[F::kLimbs];
    x.to_canonical(limbs);
    return from_limbs(limbs, F::kLimbs);
}

// value must be in [0, the modulus).
template <class F>
F element_of(const mpz_class& value) {
    uint64_t limbs[F::kLimbs];
    to_limbs(value, limbs, F::kLimbs);
    return F::from_canonical(limbs);
}
inline ff::Fr fr_of(const mpz_class& value) { return element_of<ff::Fr>(value); }

// kLimbs random words, reduced.
template <class F>
F random_element(std::mt19937_64& rng) {
    uint64_t limbs[F::kLimbs];
    for (uint64_t& limb : limbs) limb = rng();
    return element_of<F>(from_limbs(limbs, F::kLimbs) % modulus_of<F>());
}
inline ff::Fr random_fr(std::mt19937_64& rng) { return random_element<ff::Fr>(rng); }

inline mpz_class random_below(std::mt19937_64& rng, const mpz_class& bound) {
    uint64_t limbs[4] = {rng(), rng(), rng(), rng()};
    return from_limbs(limbs) % bound;
}

// R = 2^(64 kLimbs), and v mod m in [0, m).
template <class F>
inline const mpz_class kR = mpz_class(1) << (64 * F::kLimbs);
template <class F>
mpz_class mod(const mpz_class& v) {
    mpz_class r = v % modulus_of<F>();
    if (r < 0) r += modulus_of<F>();
    return r;
}

// Canonical values that stress carries, the final subtraction and limb boundaries.
template <class F>
std::vector<mpz_class> edge_values() {
    const mpz_class& m = modulus_of<F>();
    const int bits = static_cast<int>(mpz_sizeinbase(m.get_mpz_t(), 2));
    std::vector<mpz_class> values = {0, 1, 2, 3, m - 1, m - 2, m - 3, (m - 1) / 2, (m + 1) / 2, (m - 3) / 4};
    for (int power : {63, 64, 128, 192, 256, 320, 384, bits - 2, bits - 1, bits}) {
        if (power > 64 * F::kLimbs) continue;
        for (int k = 0; k < 4; ++k) {
            values.push_back(mod<F>((mpz_class(1) << power) - 1 - k));
            values.push_back(mod<F>((mpz_class(1) << power) + k));
        }
    }
    // The modulus' low limb (BLS12-381's r: ffffffff00000001), and one below it.
    values.push_back(m % (mpz_class(1) << 64));
    values.push_back(m % (mpz_class(1) << 64) - 1);
    // Elements whose Montgomery representation is near m or near 0, and R, R^2 themselves.
    mpz_class r_inverse;
    const mpz_class r_mod = kR<F> % m;
    mpz_invert(r_inverse.get_mpz_t(), r_mod.get_mpz_t(), m.get_mpz_t());
    for (const mpz_class& representation : std::vector<mpz_class>{m - 1, m - 2, 1, 2}) {
        values.push_back(representation * r_inverse % m);
    }
    values.push_back(r_mod);
    values.push_back(r_mod * r_mod % m);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
}

}  // namespace zkbatch::test
