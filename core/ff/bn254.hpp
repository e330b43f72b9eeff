// BN254's fields (snarkjs's and circom's "bn128", Ethereum's alt_bn128), instances of
// montgomery_field.hpp: the base field Fq and the scalar field Fr, four 64-bit limbs
// each, R = 2^256.
//
// p = 21888242871839275222246405745257275088696311157297823662689037894645226208583
//   = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47 (254 bits, 3 mod 4)
// r = 21888242871839275222246405745257275088548364400416034343698204186575808495617
//   = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001 (254 bits, r - 1 = 2^28 t)
// Both leave two spare bits, so both invert by divsteps. Device code multiplies, adds and
// subtracts over 8 x 32-bit limbs in PTX carry chains (field32.hpp), with the lazy
// products the spare bits allow: the same R, so the same bits.
#pragma once

#include "core/ff/field32.hpp"
#include "core/ff/montgomery_field.hpp"

#include <cstdint>
#include <type_traits>

namespace zkbatch::ff::bn254 {

struct FqDescription {
    static constexpr int kLimbs = 4;
    static constexpr const char* kName = "BN254 base field Fq";
    ZKB_HOST_DEVICE static constexpr Limbs<4> modulus() {
        return {{0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}};
    }
    using DeviceArithmetic = DeviceArithmetic32<FqDescription>;
};

struct FrDescription {
    static constexpr int kLimbs = 4;
    static constexpr const char* kName = "BN254 scalar field Fr";
    ZKB_HOST_DEVICE static constexpr Limbs<4> modulus() {
        return {{0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}};
    }
    // 5 generates the multiplicative group (arkworks' and gnark's generator; the smallest
    // non-residue, which snarkjs's ffjavascript takes); ROOT = 5^((r-1)/2^28), canonical:
    // 0x2a3c09f0a58a7e8500e0a7eb8ef62abc402d111e41112ed49bd61b6e725b19f0, ffjavascript
    // 0.3.1's Fr.w[28] for bn128 (src/f1field.js: nqr, then w[s] = nqr^t in src/fft.js).
    static constexpr uint64_t kGenerator = 5;
    ZKB_HOST_DEVICE static constexpr Limbs<4> root_of_unity() {
        return {{0x9bd61b6e725b19f0ULL, 0x402d111e41112ed4ULL, 0x00e0a7eb8ef62abcULL, 0x2a3c09f0a58a7e85ULL}};
    }
    using DeviceArithmetic = DeviceArithmetic32<FrDescription>;
};

using Fq = MontgomeryField<FqDescription>;
using Fr = MontgomeryField<FrDescription>;

static_assert(sizeof(Fq) == 32 && sizeof(Fr) == 32);
static_assert(std::is_trivially_copyable_v<Fq> && std::is_standard_layout_v<Fq>);
static_assert(std::is_trivially_copyable_v<Fr> && std::is_standard_layout_v<Fr>);
static_assert(Fr::kTwoAdicity == 28);
static_assert(Fq::kInvertsByDivsteps && Fr::kInvertsByDivsteps);

}  // namespace zkbatch::ff::bn254
