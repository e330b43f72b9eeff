// The independent oracle of curve_interop_test.cpp: @noble/curves (tools/js, exactly as
// its package-lock pins it) computes what zkbatch's curve math computes.
//
//   node noble_oracle.cjs TOOLS_JS_DIR INPUT.json OUTPUT.json
//
// INPUT: {"g1": [k...], "g2": [k...], "g1_sums": [[a, b]...], "g2_sums": [[a, b]...],
//         "pairings": [[a, b]...], "msm": {"logs": [k...], "scalars": [s...]}}
// with every number a hex string. OUTPUT: for each [k]G1, [k]G2, [a]G + [b]G its
// Zcash encodings {"compressed", "uncompressed"} (hex), for each pairing
// e([a]G1, [b]G2) its twelve Fp coefficients in the tower order c0.c0.c0, c0.c0.c1,
// c0.c1.c0, ..., c1.c2.c1 (hex), and for the MSM sum_i s_i [k_i]G1 by noble's own msm.
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

const [jsDir, inputPath, outputPath] = process.argv.slice(2);
const { bls12_381 } = createRequire(path.join(jsDir, 'package.json'))('@noble/curves/bls12-381');
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

const input = JSON.parse(fs.readFileSync(inputPath, 'utf8'));
const output = {
  g1: input.g1.map((k) => encodings(times(G1, k))),
  g2: input.g2.map((k) => encodings(times(G2, k))),
  g1_sums: input.g1_sums.map(([a, b]) => encodings(times(G1, a).add(times(G1, b)))),
  g2_sums: input.g2_sums.map(([a, b]) => encodings(times(G2, a).add(times(G2, b)))),
  pairings: input.pairings.map(([a, b]) =>
    fp12Coefficients(bls12_381.pairing(times(G1, a), times(G2, b)))),
  msm: encodings(G1.msm(input.msm.logs.map((k) => times(G1, k)), input.msm.scalars.map(big))),
};
fs.writeFileSync(outputPath, JSON.stringify(output));
