// BN254's G1 and G2 beyond the group law: the generators, G2's endomorphism and the
// subgroup checks.
#include "core/ec/bn254.hpp"

namespace zkbatch::ec::bn254 {

namespace {

using ff::bn254::Fq;

Fq fq(const char* hex) { return Fq::from_hex(hex); }

// x as scalar limbs (63 bits).
constexpr uint64_t kXLimbs[4] = {kBnX, 0, 0, 0};

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

// [x+1]Q + psi([x]Q) + psi^2([x]Q) == psi^3([2x]Q) decides membership for any Q on
// E'(Fq2) (El Housni, Guillevic and Piellard, "Co-factor clearing and subgroup membership
// testing on pairing-friendly curves", eprint 2022/348, section 3.1; gnark-crypto's
// test): one scalar multiplication by x, of 63 bits, where psi(Q) == [6x^2]Q (Scott
// 2021's, noble's) takes one of 127 and [r]Q = O one of 254. On G2 psi is [p] with
// p = r + 6x^2, and (x + 1) + l x + l^2 x - 2 x l^3 = 0 mod r for l = 6x^2, so every point
// of G2 passes; the paper proves that no other point of E'(Fq2) does.
bool is_in_subgroup(const G2Affine& q) {
    if (q.is_infinity()) return true;
    const G2 point = G2::from_affine(q);
    const G2 x_q = scalar_mul(point, kXLimbs);
    const G2 psi_x_q = twist_frobenius(x_q, 1), psi2_x_q = twist_frobenius(x_q, 2);
    const G2 left = add(add(add(x_q, point), psi_x_q), psi2_x_q);
    const G2 right = dbl(twist_frobenius(psi2_x_q, 1));
    return left == right;
}

}  // namespace zkbatch::ec::bn254
