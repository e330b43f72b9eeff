// Fr: the scalar field of BLS12-381, an instance of montgomery_field.hpp.
//
// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (255 bits):
// four 64-bit limbs, R = 2^256. r leaves one spare bit, not two, so Fr inverts by
// Fermat's little theorem. Device code multiplies, adds and subtracts over 8x32-bit limbs
// in PTX carry chains (field32.hpp): the same R, so the same bits.
#pragma once

#include "core/ff/field32.hpp"
#include "core/ff/montgomery_field.hpp"

#include <cstdint>
#include <type_traits>

namespace zkbatch::ff {

namespace bls12_381 {

struct FrDescription {
    static constexpr int kLimbs = 4;
    static constexpr const char* kName = "BLS12-381 scalar field Fr";
    ZKB_HOST_DEVICE static constexpr Limbs<4> modulus() {
        return {{0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL}};
    }
    // 7 generates the multiplicative group; ROOT = 7^((r-1)/2^32), canonical:
    // 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b. These are blst's,
    // bellman's and arkworks' constants (snarkjs's ROOT' = 5^((r-1)/2^32): ntt::Roots).
    static constexpr uint64_t kGenerator = 7;
    ZKB_HOST_DEVICE static constexpr Limbs<4> root_of_unity() {
        return {{0x3829971f439f0d2bULL, 0xb63683508c2280b9ULL, 0xd09b681922c813b4ULL, 0x16a2a19edfe81f20ULL}};
    }
    using DeviceArithmetic = DeviceArithmetic32<FrDescription>;
};

using Fr = MontgomeryField<FrDescription>;

}  // namespace bls12_381

// The curve is BLS12-381 throughout the prover: its Fr is ff::Fr.
using Fr = bls12_381::Fr;

static_assert(sizeof(Fr) == 32, "Fr must be exactly 32 bytes (the plugin ABI relies on it)");
static_assert(std::is_trivially_copyable_v<Fr>, "Fr must be trivially copyable");
static_assert(std::is_standard_layout_v<Fr>, "Fr must be standard layout");

// The derived constants are the ones this file held as literals before they were derived.
static_assert(Fr::r_mod_modulus() ==
              Limbs<4>{{0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL}});
static_assert(Fr::r_squared() ==
              Limbs<4>{{0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL}});
static_assert(Fr::kMontInv == 0xfffffffeffffffffULL);
static_assert(Fr::kTwoAdicity == 32);
static_assert(Fr::max_root_of_unity() ==
              Fr{{0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL, 0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL}});
static_assert(Fr::coset_shift() ==
              Fr{{0x0000000efffffff1ULL, 0x17e363d300189c0fULL, 0xff9c57876f8457b0ULL, 0x351332208fc5a8c4ULL}});
static_assert(!Fr::kInvertsByDivsteps);
static_assert(static_cast<uint32_t>(Fr::kMontInv) == Field32<bls12_381::FrDescription>::kMontInv);
static_assert(Field32<bls12_381::FrDescription>::kSparseLowLimbs);

}  // namespace zkbatch::ff
