// Inputs for the device MSM's tests (msm_emulation_test.cpp without a GPU,
// msm_device_test.cpp with one): bases and scalar profiles, and the CPU reference.
#pragma once

#include "core/ec/curve.hpp"
#include "core/ff/fr.hpp"
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

template <class C>
const ec::Affine<C>& curve_generator() {
    if constexpr (std::is_same_v<C, ec::G1Params>) {
        return ec::g1_generator();
    } else {
        return ec::g2_generator();
    }
}

inline ff::Fr random_fr(std::mt19937_64& rng) {
    for (;;) {
        uint64_t limbs[4] = {rng(), rng(), rng(), rng() >> 1};
        if (limbs[3] < ff::Fr::modulus_limb(3) || (limbs[3] == ff::Fr::modulus_limb(3) && limbs[2] < ff::Fr::modulus_limb(2))) {
            return ff::Fr::from_canonical(limbs);
        }
    }
}

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
    std::vector<ff::Fr> scalars(distinct);
    for (ff::Fr& k : scalars) k = random_fr(rng);
    std::vector<ec::Affine<C>> points(distinct);
    ec::fixed_base_mul(curve_generator<C>(), scalars.data(), distinct, points.data(), host_threads());
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

// Field elements (Montgomery form, as a witness is held).
inline std::vector<ff::Fr> make_scalars(size_t n, ScalarProfile profile, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const ff::Fr minus_one = -ff::Fr::one();
    std::vector<ff::Fr> scalars(n);
    for (size_t i = 0; i < n; ++i) {
        ff::Fr& s = scalars[i];
        switch (profile) {
            case ScalarProfile::uniform: s = random_fr(rng); break;
            case ScalarProfile::zeros: s = ff::Fr::zero(); break;
            case ScalarProfile::ones: s = ff::Fr::one(); break;
            case ScalarProfile::mostly_boolean: {
                const uint64_t draw = rng() % 20;
                s = draw < 9 ? ff::Fr::zero() : draw < 18 ? ff::Fr::one() : random_fr(rng);
                break;
            }
            case ScalarProfile::r_minus_1: s = minus_one; break;
            case ScalarProfile::small: s = ff::Fr::from_u64(rng() % 65536); break;
            case ScalarProfile::edges: {
                const uint64_t draw = rng() % 8;
                if (draw == 0) s = ff::Fr::zero();
                if (draw == 1) s = ff::Fr::one();
                if (draw == 2) s = ff::Fr::from_u64(2);
                if (draw == 3) s = minus_one;
                if (draw == 4) s = minus_one - ff::Fr::one();
                if (draw == 5) {  // 2^k for k < 255
                    uint64_t limbs[4] = {0, 0, 0, 0};
                    const unsigned k = static_cast<unsigned>(rng() % 255);
                    limbs[k / 64] = uint64_t{1} << (k % 64);
                    s = ff::Fr::from_canonical(limbs);
                }
                if (draw >= 6) s = random_fr(rng);
                break;
            }
        }
    }
    return scalars;
}

inline std::vector<msm::Scalar> canonical_scalars(const std::vector<ff::Fr>& scalars) {
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
