// Shared helpers of the GPU suite: deterministic random field vectors, and the one
// place that decides whether a test can use a GPU (and says why not).
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fr.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace zkbatch::test {

// Uniform-enough elements of Fr (either curve's): random canonical values below 2^254 < r
// (BLS12-381), 2^253 < r (BN254).
template <class Fr = ff::Fr>
std::vector<Fr> random_vector(size_t count, uint64_t seed) {
    constexpr int kTopShift = std::is_same_v<Fr, ff::Fr> ? 2 : 3;
    std::mt19937_64 generator(seed);
    std::vector<Fr> values(count);
    for (Fr& value : values) {
        uint64_t canonical[4] = {generator(), generator(), generator(), generator() >> kTopShift};
        value = Fr::from_canonical(canonical);
    }
    return values;
}

// The form h leaves a backend in (plugin ABI v3): each element's limbs hold its
// canonical value instead of its Montgomery form.
template <class Fr>
std::vector<Fr> canonical_form(std::vector<Fr> values) {
    for (Fr& value : values) value.to_canonical(value.limbs);
    return values;
}

// Empty when CUDA device 0 can run this build's kernels; else the reason (cached).
const std::string& gpu_unavailable_reason();

// Where the CUDA plugins are loaded from: "" (as the runner finds them:
// $ZKBATCH_PLUGIN_PATH, the build tree) unless this binary sits in a bundle, whose
// plugins are in ../plugins beside it.
std::string plugin_folder();

}  // namespace zkbatch::test

// First statement of every test that needs a GPU: skips, visibly, when there is none.
#define ZKB_REQUIRE_GPU()                                                                   \
    do {                                                                                    \
        const std::string& zkb_reason_ = ::zkbatch::test::gpu_unavailable_reason();         \
        if (!zkb_reason_.empty()) GTEST_SKIP() << "no usable GPU: " << zkb_reason_;         \
    } while (0)
