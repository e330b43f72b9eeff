// G1 and G2 beyond the group law: the standard generators, the endomorphisms, and the
// subgroup checks built on them.
#include "core/ec/curve.hpp"

namespace zkbatch::ec {

namespace {

ff::Fp fp(const char* hex) { return ff::Fp::from_hex(hex); }

// [|x|]P: 63 doublings and 5 additions (|x| has six set bits).
template <class C>
Jacobian<C> mul_by_x_abs(const Jacobian<C>& p) {
    const uint64_t scalar[4] = {kBlsXAbs, 0, 0, 0};
    return scalar_mul(p, scalar);
}

}  // namespace

const G1Affine& G1Params::generator() {
    static const G1Affine generator{
        fp("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
        fp("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};
    return generator;
}

const G2Affine& G2Params::generator() {
    static const G2Affine generator{
        {fp("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
         fp("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
        {fp("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
         fp("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")}};
    return generator;
}

G1Affine g1_endomorphism(const G1Affine& p) {
    // A primitive cube root of unity; the other one, beta^2, would make phi act as
    // x^2 - 1 instead of -x^2 (tests check which).
    static const ff::Fp beta =
        fp("0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
    return G1Affine{p.x * beta, p.y};
}

G2Affine g2_endomorphism(const G2Affine& p) { return twist_frobenius(p, 1); }

bool is_in_subgroup(const G1Affine& p) {
    if (p.is_infinity()) return true;
    const G1 x2p = mul_by_x_abs(mul_by_x_abs(G1::from_affine(p)));  // [x^2]P
    return G1::from_affine(g1_endomorphism(p)) == -x2p;
}

bool is_in_subgroup(const G2Affine& p) {
    if (p.is_infinity()) return true;
    const G2 xp = -mul_by_x_abs(G2::from_affine(p));  // [x]P, x < 0
    return G2::from_affine(g2_endomorphism(p)) == xp;
}

}  // namespace zkbatch::ec
