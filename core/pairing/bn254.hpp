// BN254's optimal ate pairing e: G1 x G2 -> GT in Fq12 (host only), beside BLS12-381's
// (pairing.hpp), with the same names overloaded on BN254's types.
//
// e(P, Q) = final_exponentiation(miller_loop(P, Q)): the Miller loop f_{6x+2,Q}(P) over
// the non-adjacent form of 6x + 2 (x = 4965661367192848881 > 0: no conjugation), then the
// lines through T and pi(Q), and through T + pi(Q) and -pi^2(Q) (pi the p-power Frobenius,
// on the twist psi of twist.hpp); and the exponentiation to 2x(6x^2 + 3x + 1) (p^12 - 1)/r,
// the power arkworks, gnark and noble compute (Fuentes-Castaneda, Knapp and
// Rodriguez-Henriquez's hard part; 2x(6x^2 + 3x + 1) is prime to r, so it is still a
// pairing), so GT values interoperate with theirs coefficient by coefficient. Inputs must
// be valid group elements (ec/bn254.hpp's checks); pairs with a point at infinity
// contribute 1.
#pragma once

#include "core/ec/bn254.hpp"
#include "core/ff/bn254_tower.hpp"

#include <cstddef>

namespace zkbatch::pairing {

// The product of the Miller loops of (p[i], q[i]), sharing one squaring per step.
ff::bn254::Fq12 miller_loop(const ec::bn254::G1Affine* p, const ec::bn254::G2Affine* q, size_t count);

// f^(2x(6x^2 + 3x + 1) (p^12 - 1) / r): the easy part f^((p^6 - 1)(p^2 + 1)), then the hard
// part 2x(6x^2 + 3x + 1) (p^4 - p^2 + 1) / r.
ff::bn254::Fq12 final_exponentiation(const ff::bn254::Fq12& f);

ff::bn254::Fq12 pairing(const ec::bn254::G1Affine& p, const ec::bn254::G2Affine& q);

// Whether prod e(p[i], q[i]) = 1, with one final exponentiation (Groth16 verification).
bool pairing_product_is_one(const ec::bn254::G1Affine* p, const ec::bn254::G2Affine* q, size_t count);

}  // namespace zkbatch::pairing
