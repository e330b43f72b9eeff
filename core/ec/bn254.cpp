// BN254's G1 and G2 beyond the group law: the generators, G2's endomorphism and the
// subgroup checks.
#include "core/ec/bn254.hpp"

namespace zkbatch::ec::bn254 {

namespace {

using ff::bn254::Fq;

Fq fq(const char* hex) { return Fq::from_hex(hex); }

// 6x^2, 127 bits, as scalar limbs.
struct SixXSquared {
    uint64_t limbs[4];
};
constexpr SixXSquared six_x_squared() {
    __extension__ typedef unsigned __int128 uint128;
    const uint128 value = uint128{6} * kBnX * kBnX;  // below 2^127
    return SixXSquared{{static_cast<uint64_t>(value), static_cast<uint64_t>(value >> 64), 0, 0}};
}
constexpr SixXSquared kSixXSquared = six_x_squared();
static_assert(kSixXSquared.limbs[1] == 0x6f4d8248eeb859fbULL && kSixXSquared.limbs[0] == 0xf83e9682e87cfd46ULL);

}  // namespace

const G1Affine& G1Params::generator() {
    static const G1Affine generator{Fq::from_u64(1), Fq::from_u64(2)};
    return generator;
}

const G2Affine& G2Params::generator() {
    static const G2Affine generator{
        {fq("0x1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"),
         fq("0x198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2")},
        {fq("0x12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"),
         fq("0x090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b")}};
    return generator;
}

G2Affine g2_endomorphism(const G2Affine& q) { return twist_frobenius(q, 1); }

bool is_in_subgroup(const G1Affine&) { return true; }

// psi(Q) == [6x^2]Q decides membership for any Q on E'(Fq2) (the test of noble's bn254,
// and Scott 2021's for BN curves):
// - On G2, psi is multiplication by p (twist.hpp), and p = r + 6x^2.
// - Conversely, psi^2 - t psi + p = 0 on E'(Fq2) with t = 6x^2 + 1, the trace of E(Fq)
//   (Galbraith-Scott 2008: psi has the characteristic polynomial of pi_p). If
//   psi(Q) = [l]Q with l = 6x^2, then psi^2(Q) = [l^2]Q and
//   O = [l^2 - t l + p]Q = [36x^4 - (6x^2 + 1) 6x^2 + p]Q = [p - 6x^2]Q = [r]Q.
// A scalar multiplication of 127 bits, against 254 for [r]Q = O.
bool is_in_subgroup(const G2Affine& q) {
    if (q.is_infinity()) return true;
    return G2::from_affine(g2_endomorphism(q)) == scalar_mul(G2::from_affine(q), kSixXSquared.limbs);
}

}  // namespace zkbatch::ec::bn254
