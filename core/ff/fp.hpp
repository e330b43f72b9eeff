// Fp: the base field of BLS12-381, an instance of montgomery_field.hpp.
//
// p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
// (381 bits, p = 3 mod 4, so sqrt is one power): six 64-bit limbs, R = 2^384. That is
// exactly the coordinate layout of snarkjs's .zkey and .ptau points (48 bytes
// little-endian Montgomery), so those load without conversion; the Zcash encodings write
// the canonical value big-endian. Device code multiplies, adds and subtracts over 32-bit
// limbs in PTX carry chains (field32.hpp): the same R, so the same bits, in the GPU's
// native word size.
#pragma once

#include "core/ff/field32.hpp"
#include "core/ff/montgomery_field.hpp"

#include <cstdint>
#include <type_traits>

namespace zkbatch::ff {

namespace bls12_381 {

struct FpDescription {
    static constexpr int kLimbs = 6;
    static constexpr const char* kName = "BLS12-381 base field Fp";
    ZKB_HOST_DEVICE static constexpr Limbs<6> modulus() {
        return {{0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL}};
    }
    using DeviceArithmetic = DeviceArithmetic32<FpDescription>;
};

using Fp = MontgomeryField<FpDescription>;

}  // namespace bls12_381

// The curve is BLS12-381 throughout the prover: its Fp is ff::Fp.
using Fp = bls12_381::Fp;

static_assert(sizeof(Fp) == 48, "Fp must be exactly 48 bytes (the .zkey point layout relies on it)");
static_assert(std::is_trivially_copyable_v<Fp>, "Fp must be trivially copyable");
static_assert(std::is_standard_layout_v<Fp>, "Fp must be standard layout");

// The derived constants are the ones this file held as literals before they were derived.
static_assert(Fp::r_mod_modulus() == Limbs<6>{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                                                0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}});
static_assert(Fp::r_squared() == Limbs<6>{{0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                                            0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL}});
static_assert(Fp::r_cubed() == Limbs<6>{{0xed48ac6bd94ca1e0ULL, 0x315f831e03a7adf8ULL, 0x9a53352a615e29ddULL,
                                          0x34c04e5e921e1761ULL, 0x2512d43565724728ULL, 0x0aa6346091755d4dULL}});
static_assert(Fp::kMontInv == 0x89f3fffcfffcfffdULL);
static_assert(Fp::kInvertsByDivsteps);
static_assert(static_cast<uint32_t>(Fp::kMontInv) == Field32<bls12_381::FpDescription>::kMontInv);

}  // namespace zkbatch::ff
