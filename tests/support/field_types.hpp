// The fields as typed tests list them, and their names: what the math suites (GMP
// oracle) and the GPU suites (kernel emulation) share. Header-only, no GMP.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fp.hpp"
#include "core/ff/fr.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace zkbatch::test {

// The four fields, for typed tests, named Bls12_381Fr, Bls12_381Fp, Bn254Fq, Bn254Fr.
using Fields = ::testing::Types<ff::bls12_381::Fr, ff::bls12_381::Fp, ff::bn254::Fq, ff::bn254::Fr>;
using ScalarFields = ::testing::Types<ff::bls12_381::Fr, ff::bn254::Fr>;       // with FFT domains
using ThreeModFourFields = ::testing::Types<ff::bls12_381::Fp, ff::bn254::Fq>;  // with sqrt
using DivstepFields = ::testing::Types<ff::bls12_381::Fp, ff::bn254::Fq, ff::bn254::Fr>;  // inverse by divsteps
struct FieldNames {
    template <class F>
    static std::string GetName(int) {
        if (std::is_same_v<F, ff::bls12_381::Fr>) return "Bls12_381Fr";
        if (std::is_same_v<F, ff::bls12_381::Fp>) return "Bls12_381Fp";
        return std::is_same_v<F, ff::bn254::Fq> ? "Bn254Fq" : "Bn254Fr";
    }
    // The field's name in the messages its parsers throw (written out here, not read
    // from the field, so the tests check what the code says).
    template <class F>
    static std::string description() {
        if (std::is_same_v<F, ff::bls12_381::Fr>) return "BLS12-381 scalar field Fr";
        if (std::is_same_v<F, ff::bls12_381::Fp>) return "BLS12-381 base field Fp";
        return std::is_same_v<F, ff::bn254::Fq> ? "BN254 base field Fq" : "BN254 scalar field Fr";
    }
};

}  // namespace zkbatch::test
