// Test helpers: conversions between Fr and GMP integers, the independent oracle.
#pragma once

#include "core/ff/fr.hpp"

#include <gmpxx.h>

#include <cstdint>
#include <ostream>
#include <random>

namespace zkbatch::ff {
// GoogleTest prints field elements as canonical hex.
inline void PrintTo(const Fr& x, std::ostream* os) { *os << x.to_hex(); }
}  // namespace zkbatch::ff

namespace zkbatch::test {

inline const mpz_class& modulus() {
    static const mpz_class r("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
    return r;
}

// Little-endian 64-bit limbs <-> integer.
inline mpz_class from_limbs(const uint64_t limbs[4]) {
    mpz_class value;
    mpz_import(value.get_mpz_t(), 4, -1, sizeof(uint64_t), 0, 0, limbs);
    return value;
}

inline void to_limbs(const mpz_class& value, uint64_t limbs[4]) {
    limbs[0] = limbs[1] = limbs[2] = limbs[3] = 0;
    size_t count = 0;
    mpz_export(limbs, &count, -1, sizeof(uint64_t), 0, 0, value.get_mpz_t());
}

inline mpz_class canonical_of(const ff::Fr& x) {
    uint64_t limbs[4];
    x.to_canonical(limbs);
    return from_limbs(limbs);
}

// value must be in [0, r).
inline ff::Fr fr_of(const mpz_class& value) {
    uint64_t limbs[4];
    to_limbs(value, limbs);
    return ff::Fr::from_canonical(limbs);
}

inline mpz_class random_below(std::mt19937_64& rng, const mpz_class& bound) {
    uint64_t limbs[4] = {rng(), rng(), rng(), rng()};
    return from_limbs(limbs) % bound;
}

inline ff::Fr random_fr(std::mt19937_64& rng) { return fr_of(random_below(rng, modulus())); }

}  // namespace zkbatch::test
