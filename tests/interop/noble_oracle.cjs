// The independent oracle of curve_interop_test.cpp: @noble/curves (tools/js, exactly as
// its package-lock pins it) computes what zkbatch's curve math computes.
//
//   node noble_oracle.cjs TOOLS_JS_DIR INPUT.json OUTPUT.json
//
// INPUT: {"g1": [k...], "g2": [k...], "g1_sums": [[a, b]...], "g2_sums": [[a, b]...],
//         "pairings": [[a, b]...], "msm": {"logs": [k...], "scalars": [s...]},
//         "bn254": {"g1": [k...], "g2": [k...], "g1_sums": [[a, b]...], "g2_sums": [[a, b]...],
//                   "pairings": [[a, b]...], "g2_points": [[x.c0, x.c1, y.c0, y.c1]...]}}
// with every number a hex string. OUTPUT: for each BLS12-381 [k]G1, [k]G2, [a]G + [b]G its
// Zcash encodings {"compressed", "uncompressed"} (hex), for each pairing
// e([a]G1, [b]G2) its twelve Fp coefficients in the tower order c0.c0.c0, c0.c0.c1,
// c0.c1.c0, ..., c1.c2.c1 (hex), and for the MSM sum_i s_i [k_i]G1 by noble's own msm.
// Under "bn254" the same from noble's bn254 (EIP-196/197's curve), whose points have no
// standard encoding: affine coordinates [x, y] or [x.c0, x.c1, y.c0, y.c1] (hex, infinity
// as zeros); and for each given G2 point whether it is on the twist and in G2
// {"on_curve", "in_subgroup", "order_r"}: noble's isTorsionFree (psi(P) = [6x^2]P, as
// zkbatch's check), and [r - 1]P + P = O by noble's group law (independent of both).
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

const [jsDir, inputPath, outputPath] = process.argv.slice(2);
const requireJs = createRequire(path.join(jsDir, 'package.json'));
const { bls12_381 } = requireJs('@noble/curves/bls12-381');
const { bn254 } = requireJs('@noble/curves/bn254');
const G1 = bls12_381.G1.ProjectivePoint;
const G2 = bls12_381.G2.ProjectivePoint;

const big = (hex) => BigInt('0x' + hex);
const hex = (n) => n.toString(16);
const encodings = (point) => ({ compressed: point.toHex(true), uncompressed: point.toHex(false) });
const times = (group, k) => (big(k) === 0n ? group.ZERO : group.BASE.multiply(big(k)));

function fp12Coefficients(f) {
  const out = [];
  for (const c6 of [f.c0, f.c1]) {
    for (const c2 of [c6.c0, c6.c1, c6.c2]) out.push(hex(c2.c0), hex(c2.c1));
  }
  return out;
}

function bn254Answers(request) {
  const B1 = bn254.G1.ProjectivePoint;
  const B2 = bn254.G2.ProjectivePoint;
  const { Fp2 } = bn254.fields;
  const g1Affine = (point) => { const { x, y } = point.toAffine(); return [hex(x), hex(y)]; };
  const g2Affine = (point) => {
    const { x, y } = point.toAffine();
    return [hex(x.c0), hex(x.c1), hex(y.c0), hex(y.c1)];
  };
  const g2Check = ([x0, x1, y0, y1]) => {
    const x = Fp2.fromBigTuple([big(x0), big(x1)]);
    const y = Fp2.fromBigTuple([big(y0), big(y1)]);
    const onCurve = Fp2.eql(Fp2.sqr(y), bn254.G2.weierstrassEquation(x));
    if (!onCurve) return { on_curve: false, in_subgroup: false, order_r: false };
    const point = B2.fromAffine({ x, y });
    const orderR = point.multiplyUnsafe(bn254.fields.Fr.ORDER - 1n).add(point).is0();
    return { on_curve: true, in_subgroup: point.isTorsionFree(), order_r: orderR };
  };
  return {
    g1: request.g1.map((k) => g1Affine(times(B1, k))),
    g2: request.g2.map((k) => g2Affine(times(B2, k))),
    g1_sums: request.g1_sums.map(([a, b]) => g1Affine(times(B1, a).add(times(B1, b)))),
    g2_sums: request.g2_sums.map(([a, b]) => g2Affine(times(B2, a).add(times(B2, b)))),
    pairings: request.pairings.map(([a, b]) => fp12Coefficients(bn254.pairing(times(B1, a), times(B2, b)))),
    g2_points: request.g2_points.map(g2Check),
  };
}

const input = JSON.parse(fs.readFileSync(inputPath, 'utf8'));
const output = {
  g1: input.g1.map((k) => encodings(times(G1, k))),
  g2: input.g2.map((k) => encodings(times(G2, k))),
  g1_sums: input.g1_sums.map(([a, b]) => encodings(times(G1, a).add(times(G1, b)))),
  g2_sums: input.g2_sums.map(([a, b]) => encodings(times(G2, a).add(times(G2, b)))),
  pairings: input.pairings.map(([a, b]) =>
    fp12Coefficients(bls12_381.pairing(times(G1, a), times(G2, b)))),
  msm: encodings(G1.msm(input.msm.logs.map((k) => times(G1, k)), input.msm.scalars.map(big))),
  bn254: bn254Answers(input.bn254),
};
fs.writeFileSync(outputPath, JSON.stringify(output));
