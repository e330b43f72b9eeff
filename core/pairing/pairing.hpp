// The optimal ate pairing e: G1 x G2 -> GT of BLS12-381 (host only).
//
// e(P, Q) = final_exponentiation(miller_loop(P, Q)): the Miller loop f_{x,Q}(P) over
// the BLS parameter x = -0xd201000000010000 (a loop over |x|, then a conjugation since
// x < 0), and the exponentiation to (p^12 - 1)/r times 3, the exponent blst, zkcrypto's
// bls12_381, arkworks and noble compute (Hayashida-Hayasaka-Teruya's hard part), so
// GT values interoperate with theirs coefficient by coefficient (fp12.hpp gives the
// order). Inputs must be valid group elements (on the curve, in the subgroup: what
// encoding.hpp's decoders check); pairs with a point at infinity contribute 1. The
// pairing's code is optimal_ate.hpp's, shared with BN254's (bn254.hpp).
#pragma once

#include "core/ec/curve.hpp"
#include "core/ff/fp12.hpp"

#include <cstddef>

namespace zkbatch::pairing {

// The product of the Miller loops of (p[i], q[i]), sharing one squaring per step.
ff::Fp12 miller_loop(const ec::G1Affine* p, const ec::G2Affine* q, size_t count);

// f^(3 (p^12 - 1) / r): the easy part f^((p^6 - 1)(p^2 + 1)), then the hard part
// 3 (p^4 - p^2 + 1) / r = (x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3.
ff::Fp12 final_exponentiation(const ff::Fp12& f);

ff::Fp12 pairing(const ec::G1Affine& p, const ec::G2Affine& q);

// Whether prod e(p[i], q[i]) = 1, with one final exponentiation (Groth16 verification:
// e(-A, B) e(alpha, beta) e(L, gamma) e(C, delta) = 1).
bool pairing_product_is_one(const ec::G1Affine* p, const ec::G2Affine* q, size_t count);

}  // namespace zkbatch::pairing
