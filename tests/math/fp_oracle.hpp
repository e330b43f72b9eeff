// Test helpers for the base fields and what is built on them: random tower elements (of
// either tower) and points (gmp_oracle.hpp has field elements <-> GMP integers).
#pragma once

#include "gmp_oracle.hpp"

#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/bn254_tower.hpp"
#include "core/ff/fp.hpp"
#include "core/ff/fp12.hpp"
#include "core/ff/fp2.hpp"
#include "core/ff/fp6.hpp"

#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <type_traits>

namespace zkbatch::ff::tower {
// GoogleTest prints field elements as canonical hex.
template <class Tower>
void PrintTo(const Fp2<Tower>& x, std::ostream* os) {
    *os << "(" << x.c0.to_hex() << ", " << x.c1.to_hex() << ")";
}
}  // namespace zkbatch::ff::tower

namespace zkbatch::test {

inline const mpz_class& fp_modulus() { return modulus_of<ff::Fp>(); }

// value must be in [0, p).
inline ff::Fp fp_of(const mpz_class& value) { return element_of<ff::Fp>(value); }

// A random element of a prime field or of any floor of a tower, coefficient by
// coefficient from c0 up.
template <class F>
F random_tower_element(std::mt19937_64& rng) {
    if constexpr (requires { F::kLimbs; }) {
        return random_element<F>(rng);
    } else if constexpr (requires(F x) { x.c2; }) {
        using Coefficient = decltype(F::c0);
        return F{random_tower_element<Coefficient>(rng), random_tower_element<Coefficient>(rng),
                 random_tower_element<Coefficient>(rng)};
    } else {
        using Coefficient = decltype(F::c0);
        return F{random_tower_element<Coefficient>(rng), random_tower_element<Coefficient>(rng)};
    }
}

inline ff::Fp random_fp(std::mt19937_64& rng) { return random_element<ff::Fp>(rng); }
inline ff::Fp2 random_fp2(std::mt19937_64& rng) { return random_tower_element<ff::Fp2>(rng); }
inline ff::Fp6 random_fp6(std::mt19937_64& rng) { return random_tower_element<ff::Fp6>(rng); }
inline ff::Fp12 random_fp12(std::mt19937_64& rng) { return random_tower_element<ff::Fp12>(rng); }

// Uniform scalars below BLS12-381's r.
inline ff::Fr random_scalar(std::mt19937_64& rng) { return random_fr(rng); }

// Whether C is one of BN254's groups (else BLS12-381's).
template <class C>
constexpr bool kIsBn254 = std::is_same_v<C, ec::bn254::G1Params> || std::is_same_v<C, ec::bn254::G2Params>;

// [k]G for a random k: a random subgroup point.
template <class C>
ec::Jacobian<C> random_point(std::mt19937_64& rng) {
    return ec::scalar_mul(ec::Jacobian<C>::from_affine(ec::generator<C>()), random_element<typename C::Scalar>(rng));
}

// A random element of the field of C's coordinates.
template <class C>
typename C::Field random_coordinate(std::mt19937_64& rng) {
    return random_tower_element<typename C::Field>(rng);
}

// A point of C's curve found from a random x, its cofactor not cleared: outside the
// subgroup with overwhelming probability (the tests that rely on it check [r]P).
template <class C>
ec::Affine<C> random_curve_point(std::mt19937_64& rng) {
    for (;;) {
        ec::Affine<C> point;
        point.x = random_coordinate<C>(rng);
        if ((point.x.sqr() * point.x + C::b()).sqrt(point.y)) return point;
    }
}

// An x for which x^3 + b is not a square: no point of C's curve has it.
template <class C>
typename C::Field random_x_off_curve(std::mt19937_64& rng) {
    for (;;) {
        const typename C::Field x = random_coordinate<C>(rng);
        typename C::Field y;
        if (!(x.sqr() * x + C::b()).sqrt(y)) return x;
    }
}

// Typed tests over BLS12-381's two groups, named G1 and G2, or over those and BN254's,
// named Bn254G1 and Bn254G2.
using Curves = ::testing::Types<ec::G1Params, ec::G2Params>;
using AllCurves = ::testing::Types<ec::G1Params, ec::G2Params, ec::bn254::G1Params, ec::bn254::G2Params>;
struct CurveNames {
    template <class C>
    static std::string GetName(int) {
        const bool g1 = std::is_same_v<C, ec::G1Params> || std::is_same_v<C, ec::bn254::G1Params>;
        return std::string(kIsBn254<C> ? "Bn254" : "") + (g1 ? "G1" : "G2");
    }
};

// The group order r as scalar limbs: BLS12-381's, or that of C's curve.
inline const uint64_t* group_order_limbs() {
    static constexpr ff::Limbs<4> kR = ff::Fr::modulus();
    return kR.limbs;
}
template <class C>
const uint64_t* group_order_limbs() {
    static constexpr ff::Limbs<4> kR = C::Scalar::modulus();
    return kR.limbs;
}

}  // namespace zkbatch::test
