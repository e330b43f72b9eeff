// Inputs for the device MSM's tests (msm_emulation_test.cpp without a GPU,
// msm_device_test.cpp with one): bases and scalar profiles, and the CPU reference.
#pragma once

#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/bn254.hpp"
#include "core/ff/fr.hpp"
#include "core/ff/random.hpp"
#include "core/msm/pippenger.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace zkbatch::test {

inline unsigned host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// "G1", "G2", "BN254 G1", "BN254 G2", for messages.
template <class C>
std::string curve_name() {
    constexpr bool kBn254 = std::is_same_v<typename C::Scalar, ff::bn254::Fr>;
    constexpr bool kG2 = requires { typename C::Field::Fp; };  // coordinates in Fp2
    return std::string(kBn254 ? "BN254 " : "") + (kG2 ? "G2" : "G1");
}

// A uniform element of the scalar field F: ff::uniform_element over this generator.
template <class F>
F random_scalar(std::mt19937_64& rng) {
    struct Words {
        std::mt19937_64& rng;
        uint64_t next() { return rng(); }
    } words{rng};
    return ff::uniform_element<F>(words);
}
inline ff::Fr random_fr(std::mt19937_64& rng) { return random_scalar<ff::Fr>(rng); }

// How the bases repeat: every point different, a few points repeated many times (the
// same point twice in a bucket: the additions double), or some at infinity.
enum class BaseProfile { distinct, repeated, with_infinity };

inline const char* to_string(BaseProfile profile) {
    switch (profile) {
        case BaseProfile::distinct: return "distinct";
        case BaseProfile::repeated: return "repeated";
        case BaseProfile::with_infinity: return "with_infinity";
    }
    return "?";
}

// [k_i] G for random k_i (fixed_base_mul: a table of G's multiples, so it is fast).
template <class C>
std::vector<ec::Affine<C>> make_bases(size_t n, BaseProfile profile, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const size_t distinct = profile == BaseProfile::repeated ? std::min<size_t>(n, 3) : n;
    std::vector<typename C::Scalar> scalars(distinct);
    for (auto& k : scalars) k = random_scalar<typename C::Scalar>(rng);
    std::vector<ec::Affine<C>> points(distinct);
    ec::fixed_base_mul(ec::generator<C>(), scalars.data(), distinct, points.data(), host_threads());
    std::vector<ec::Affine<C>> bases(n);
    for (size_t i = 0; i < n; ++i) bases[i] = points[i % distinct];
    if (profile == BaseProfile::with_infinity) {
        for (size_t i = 0; i < n; i += 3) bases[i] = ec::Affine<C>::infinity();
    }
    return bases;
}

// What the scalars look like: uniform, every one 0 or 1 or r - 1, a witness of 90%
// booleans (45% zeros, 45% ones, 10% uniform), small values (< 2^16, one digit or two),
// and a mix of the edge values (0, 1, 2, r - 1, r - 2, powers of two).
enum class ScalarProfile { uniform, zeros, ones, mostly_boolean, r_minus_1, small, edges };

inline const char* to_string(ScalarProfile profile) {
    switch (profile) {
        case ScalarProfile::uniform: return "uniform";
        case ScalarProfile::zeros: return "zeros";
        case ScalarProfile::ones: return "ones";
        case ScalarProfile::mostly_boolean: return "mostly_boolean";
        case ScalarProfile::r_minus_1: return "r_minus_1";
        case ScalarProfile::small: return "small";
        case ScalarProfile::edges: return "edges";
    }
    return "?";
}

inline constexpr ScalarProfile kScalarProfiles[] = {ScalarProfile::uniform,   ScalarProfile::zeros,
                                                    ScalarProfile::ones,      ScalarProfile::mostly_boolean,
                                                    ScalarProfile::r_minus_1, ScalarProfile::small,
                                                    ScalarProfile::edges};

// Elements of the scalar field F (BLS12-381's by default) in Montgomery form, as a
// witness is held.
template <class F = ff::Fr>
std::vector<F> make_scalars(size_t n, ScalarProfile profile, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const F minus_one = -F::one();
    std::vector<F> scalars(n);
    for (size_t i = 0; i < n; ++i) {
        F& s = scalars[i];
        switch (profile) {
            case ScalarProfile::uniform: s = random_scalar<F>(rng); break;
            case ScalarProfile::zeros: s = F::zero(); break;
            case ScalarProfile::ones: s = F::one(); break;
            case ScalarProfile::mostly_boolean: {
                const uint64_t draw = rng() % 20;
                s = draw < 9 ? F::zero() : draw < 18 ? F::one() : random_scalar<F>(rng);
                break;
            }
            case ScalarProfile::r_minus_1: s = minus_one; break;
            case ScalarProfile::small: s = F::from_u64(rng() % 65536); break;
            case ScalarProfile::edges: {
                const uint64_t draw = rng() % 8;
                if (draw == 0) s = F::zero();
                if (draw == 1) s = F::one();
                if (draw == 2) s = F::from_u64(2);
                if (draw == 3) s = minus_one;
                if (draw == 4) s = minus_one - F::one();
                if (draw == 5) {  // 2^k below r: k < r's bit length - 1
                    uint64_t limbs[4] = {0, 0, 0, 0};
                    const unsigned k = static_cast<unsigned>(rng() % (F::kModulusBits - 1));
                    limbs[k / 64] = uint64_t{1} << (k % 64);
                    s = F::from_canonical(limbs);
                }
                if (draw >= 6) s = random_scalar<F>(rng);
                break;
            }
        }
    }
    return scalars;
}

template <class F>
std::vector<msm::Scalar> canonical_scalars(const std::vector<F>& scalars) {
    std::vector<msm::Scalar> canonical(scalars.size());
    for (size_t i = 0; i < scalars.size(); ++i) canonical[i] = msm::to_scalar(scalars[i]);
    return canonical;
}

// The CPU's sum, affine (unique, so equal affine points are equal sums).
template <class C>
ec::Affine<C> cpu_msm(const std::vector<ec::Affine<C>>& bases, const std::vector<msm::Scalar>& scalars) {
    return msm::pippenger(bases.data(), scalars.data(), scalars.size(), host_threads()).to_affine();
}

}  // namespace zkbatch::test
