// The two groups of BLS12-381: G1 on E(Fp): y^2 = x^3 + 4 and G2 on the M-type twist
// E'(Fp2): y^2 = x^3 + 4(1 + u), both of prime order r (the scalar field Fr), with the
// standard generators of the Zcash BLS12-381 specification (also blst's, arkworks',
// the IETF pairing-friendly-curves draft's).
//
// Neither curve's full group is prime: E(Fp) has cofactor 0x396c8c005555e1568c00aaab0000aaab
// and E'(Fp2) a 507-bit one, so a point read from outside must be checked for the
// subgroup (is_in_subgroup), which costs a small scalar multiplication here instead of
// [r]P thanks to the curves' endomorphisms (Scott 2021, "A note on group membership
// tests for G1, G2 and GT on BLS pairing-friendly curves").
#pragma once

#include "core/ec/point.hpp"
#include "core/ec/twist.hpp"
#include "core/ff/fp2.hpp"
#include "core/ff/fr.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace zkbatch::ec {

// 4 in Montgomery form (built in a function: device code may not read a constexpr
// object of class type at namespace scope).
ZKB_HOST_DEVICE constexpr ff::Fp fp_four() {
    return ff::Fp{{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
                   0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}};
}

struct G1Params {
    using Field = ff::Fp;
    using Scalar = ff::Fr;  // the group order's field
    ZKB_HOST_DEVICE static constexpr Field b() { return fp_four(); }
    static const Affine<G1Params>& generator();  // host only
};

struct G2Params {
    using Field = ff::Fp2;
    using Scalar = ff::Fr;
    static constexpr Twist kTwist = Twist::multiplicative;
    ZKB_HOST_DEVICE static constexpr Field b() { return Field{fp_four(), fp_four()}; }  // 4(1 + u)
    static const Affine<G2Params>& generator();
};

using G1Affine = Affine<G1Params>;
using G2Affine = Affine<G2Params>;
using G1 = Jacobian<G1Params>;
using G2 = Jacobian<G2Params>;
using G1Xyzz = Xyzz<G1Params>;
using G2Xyzz = Xyzz<G2Params>;

static_assert(sizeof(G1Affine) == 96, "G1Affine must be the .zkey layout: x then y, 48 bytes each");
static_assert(sizeof(G2Affine) == 192, "G2Affine must be the .zkey layout: x.c0, x.c1, y.c0, y.c1");
static_assert(std::is_trivially_copyable_v<G1Affine> && std::is_trivially_copyable_v<G2Affine>);
static_assert(std::is_standard_layout_v<G1Affine> && std::is_standard_layout_v<G2Affine>);

// |x| for the BLS parameter x = -0xd201000000010000 (x is negative).
inline constexpr uint64_t kBlsXAbs = 0xd201000000010000ULL;

// ---- host only -----------------------------------------------------------------------

// The standard generators, by name or by group (generator<G1Params>(), point.hpp).
inline const G1Affine& g1_generator() { return G1Params::generator(); }
inline const G2Affine& g2_generator() { return G2Params::generator(); }

// G1's endomorphism phi(x, y) = (beta x, y), beta a primitive cube root of unity in Fp
// (the one for which phi acts on G1 as multiplication by -x^2).
G1Affine g1_endomorphism(const G1Affine& p);
// G2's untwist-Frobenius-twist endomorphism psi(x, y) = (conj(x) / xi^((p-1)/3),
// conj(y) / xi^((p-1)/2)); on G2 it acts as multiplication by x.
G2Affine g2_endomorphism(const G2Affine& p);

// Whether a point on the curve is in the order-r subgroup: phi(P) == [-x^2]P for G1,
// psi(P) == [x]P for G2 (Scott 2021). The point must be on the curve (is_on_curve);
// infinity is in the subgroup.
bool is_in_subgroup(const G1Affine& p);
bool is_in_subgroup(const G2Affine& p);

// out[i] = [scalars[i]] base, affine, for key generation (the same base times many
// scalars). Builds a table of the base's multiples for w-bit windows (w chosen from n),
// then each point costs about 255/w mixed additions; one batch inversion per 1024 points.
// `scalars` are the group's Fr as Fr stores them (Montgomery). Runs on up to `threads`
// threads; the output does not depend on the thread count (affine points are unique).
// Instantiated in fixed_base.cpp for both groups of BLS12-381 and of BN254.
template <class C>
void fixed_base_mul(const Affine<C>& base, const typename C::Scalar* scalars, size_t n, Affine<C>* out,
                    unsigned threads);

extern template void fixed_base_mul<G1Params>(const G1Affine&, const ff::Fr*, size_t, G1Affine*, unsigned);
extern template void fixed_base_mul<G2Params>(const G2Affine&, const ff::Fr*, size_t, G2Affine*, unsigned);

// The window width fixed_base_mul uses for n points (exposed for its tests and benchmark).
unsigned fixed_base_window_bits(size_t n);

// fixed_base_mul's table for `bits`-bit windows (1..16): entry w * 2^bits + d is
// [d * 2^(w * bits)] base, affine, for the ceil(255 / bits) windows (d = 0 is infinity,
// never read). What a device making many points of one base reads too.
template <class C>
std::vector<Affine<C>> fixed_base_table(const Affine<C>& base, unsigned bits, unsigned threads);

extern template std::vector<G1Affine> fixed_base_table<G1Params>(const G1Affine&, unsigned, unsigned);
extern template std::vector<G2Affine> fixed_base_table<G2Params>(const G2Affine&, unsigned, unsigned);
// The windows of such a table.
unsigned fixed_base_windows(unsigned bits);

}  // namespace zkbatch::ec
