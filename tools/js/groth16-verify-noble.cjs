#!/usr/bin/env node
// An independent Groth16 verifier for BLS12-381 and BN254, written against @noble/curves
// (not snarkjs, not zkbatch): reads snarkjs-layout verification_key.json, proof.json and
// public.json and checks
//   e(-A, B) * e(alpha, beta) * e(IC_0 + sum x_i IC_i, gamma) * e(C, delta) = 1
// on the curve the key's "curve" names: "bls12381" or "bn128" (snarkjs's name for BN254,
// noble's bn254: EIP-196/197's curve, the one circom and snarkjs use).
// Usage: groth16-verify-noble.cjs VK.json PROOF.json PUBLIC.json [PROOF.json PUBLIC.json ...]
// Prints one line per proof ("OK file" or "INVALID file: why") and exits 0 only when
// every proof verifies, 1 when one does not, 2 on bad usage, unreadable files or a key of
// another curve.
'use strict';
const fs = require('fs');
const { bls12_381 } = require('@noble/curves/bls12-381');
const { bn254 } = require('@noble/curves/bn254');

// By snarkjs's names, as verification_key.json and proof.json write them.
const CURVES = { bls12381: bls12_381, bn128: bn254 };

// A curve's point readers and pairing check, from its noble implementation.
function curveOps(noble) {
  const { Fp2, Fp12, Fr } = noble.fields;
  const G1 = noble.G1.ProjectivePoint;
  const G2 = noble.G2.ProjectivePoint;
  return { Fp2, Fp12, Fr, G1, G2, pairingBatch: (pairs) => noble.pairingBatch(pairs) };
}

function g1({ G1 }, point) {  // snarkjs writes affine points as projective with z = 1, infinity as (0, 1, 0)
  if (BigInt(point[2]) === 0n) return G1.ZERO;
  const p = G1.fromAffine({ x: BigInt(point[0]), y: BigInt(point[1]) });
  p.assertValidity();  // on the curve and in the subgroup
  return p;
}

function g2({ Fp2, G2 }, point) {
  if (BigInt(point[2][0]) === 0n && BigInt(point[2][1]) === 0n) return G2.ZERO;
  const p = G2.fromAffine({
    x: Fp2.fromBigTuple([BigInt(point[0][0]), BigInt(point[0][1])]),
    y: Fp2.fromBigTuple([BigInt(point[1][0]), BigInt(point[1][1])]),
  });
  p.assertValidity();
  return p;
}

function verify(c, vk, proof, inputs) {
  if (proof.curve !== vk.curve) return `the proof's curve "${proof.curve}" is not the key's "${vk.curve}"`;
  const { Fp12, Fr, G1, G2 } = c;
  if (inputs.length !== vk.nPublic || vk.IC.length !== vk.nPublic + 1) return 'public input count does not match the key';
  let ic = g1(c, vk.IC[0]);
  for (let i = 0; i < inputs.length; ++i) {
    const x = BigInt(inputs[i]);
    if (x >= Fr.ORDER) return `public input ${i} is not below r`;
    if (x !== 0n) ic = ic.add(g1(c, vk.IC[i + 1]).multiply(x));
  }
  const pairs = [
    { g1: g1(c, proof.pi_a).negate(), g2: g2(c, proof.pi_b) },
    { g1: g1(c, vk.vk_alpha_1), g2: g2(c, vk.vk_beta_2) },
    { g1: ic, g2: g2(c, vk.vk_gamma_2) },
    { g1: g1(c, proof.pi_c), g2: g2(c, vk.vk_delta_2) },
  ].filter((pair) => !pair.g1.equals(G1.ZERO) && !pair.g2.equals(G2.ZERO));
  return Fp12.eql(c.pairingBatch(pairs), Fp12.ONE) ? null : 'the pairing equation does not hold';
}

function main(args) {
  if (args.length < 3 || (args.length - 1) % 2 !== 0) {
    console.error('usage: groth16-verify-noble.cjs VK.json PROOF.json PUBLIC.json [PROOF.json PUBLIC.json ...]');
    return 2;
  }
  const read = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
  let vk;
  try {
    vk = read(args[0]);
  } catch (e) {
    console.error(`${args[0]}: ${e.message}`);
    return 2;
  }
  if (!Object.hasOwn(CURVES, vk.curve)) {
    console.error(`${args[0]}: curve ${JSON.stringify(vk.curve)} is not one this verifier knows ` +
                  `(${Object.keys(CURVES).join(', ')})`);
    return 2;
  }
  const c = curveOps(CURVES[vk.curve]);
  let failures = 0;
  for (let i = 1; i < args.length; i += 2) {
    let why;
    try {
      why = verify(c, vk, read(args[i]), read(args[i + 1]));
    } catch (e) {
      why = e.message;
    }
    console.log(why === null ? `OK ${args[i]}` : `INVALID ${args[i]}: ${why}`);
    if (why !== null) ++failures;
  }
  return failures === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
