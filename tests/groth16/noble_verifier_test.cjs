#!/usr/bin/env node
// tools/js/groth16-verify-noble.cjs against snarkjs's own proofs: for each fixture folder
// given (circuit-fixture.mjs --prove's output, any curve), every snarkjs proof must
// verify, and each tampered copy of the first one must not, with the reason a verifier
// that checks the right thing gives:
//   - pi_a negated (a valid point in the group, so only the pairing equation can catch it)
//   - pi_c moved off the curve (y + 1)
//   - the first public signal plus one (mod r), and the first public signal plus r
//   - the key's curve renamed: exit 2, not a verdict
//   node tests/groth16/noble_verifier_test.cjs FIXTURE_DIR...
// Exits 0 when every expectation holds, 1 otherwise (each failure printed).
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const verifier = path.join(__dirname, '..', '..', 'tools', 'js', 'groth16-verify-noble.cjs');
// The group orders r and base fields q by snarkjs's curve names (only what tampering needs).
const ORDERS = {
  bls12381: {
    r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
    q: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
  },
  bn128: {
    r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    q: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
  },
};

let failures = 0;
function expect(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) ++failures;
}

function runVerifier(args) {
  const result = spawnSync(process.execPath, [verifier, ...args], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

function checkFixture(dir, work) {
  const fixture = JSON.parse(fs.readFileSync(path.join(dir, 'fixture.json'), 'utf8'));
  const vkFile = fixture.verificationKey;
  const vk = JSON.parse(fs.readFileSync(vkFile, 'utf8'));
  const { r, q } = ORDERS[fixture.curve] ?? {};
  const name = `${fixture.circuit} (${fixture.curve})`;
  if (!r || vk.curve !== fixture.curve) {
    expect(false, `${name}: fixture.json's curve and the key's "${vk.curve}" are a known curve and agree`);
    return;
  }
  const proofs = fixture.witnesses.filter((w) => w.proof);
  if (!proofs.length || proofs.length !== fixture.witnesses.length) {
    expect(false, `${name}: every witness has a snarkjs proof (build it with --prove)`);
    return;
  }

  const all = runVerifier([vkFile, ...proofs.flatMap((w) => [w.proof, w.public])]);
  const accepted = all.output.split('\n').filter((l) => l.startsWith('OK ')).length;
  expect(all.status === 0 && accepted === proofs.length,
    `${name}: all ${proofs.length} snarkjs proofs verify (exit ${all.status}, ${accepted} OK)`);

  const proof = JSON.parse(fs.readFileSync(proofs[0].proof, 'utf8'));
  const signals = JSON.parse(fs.readFileSync(proofs[0].public, 'utf8'));
  const write = (label, value) => {
    const file = path.join(work, `${fixture.curve}-${fixture.circuit}-${label.replace(/[^A-Za-z0-9.]+/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify(value));
    return file;
  };
  const rejected = (label, proofValue, signalsValue, reason) => {
    const run = runVerifier([vkFile, write(`${label}.proof`, proofValue), write(`${label}.public`, signalsValue)]);
    expect(run.status === 1 && run.output.startsWith('INVALID') && reason.test(run.output),
      `${name}: ${label} is rejected for ${reason} (exit ${run.status}: ${run.output})`);
  };
  const copy = (value) => JSON.parse(JSON.stringify(value));

  const negatedA = copy(proof);
  negatedA.pi_a[1] = String(q - BigInt(proof.pi_a[1]));
  rejected('pi_a negated', negatedA, signals, /pairing equation does not hold/);
  const offCurveC = copy(proof);
  offCurveC.pi_c[1] = String((BigInt(proof.pi_c[1]) + 1n) % q);
  rejected('pi_c off the curve', offCurveC, signals, /bad point: equation left != right/);
  if (signals.length) {
    const plusOne = copy(signals);
    plusOne[0] = String((BigInt(signals[0]) + 1n) % r);
    rejected('public signal 0 + 1', proof, plusOne, /pairing equation does not hold/);
    const plusR = copy(signals);
    plusR[0] = String(BigInt(signals[0]) + r);
    rejected('public signal 0 + r', proof, plusR, /not below r/);
  }

  const renamed = copy(vk);
  renamed.curve = 'bn254-renamed';
  const unknown = runVerifier([write('renamed.vk', renamed), proofs[0].proof, proofs[0].public]);
  expect(unknown.status === 2 && /not one this verifier knows/.test(unknown.output),
    `${name}: a key of an unknown curve is a usage error (exit ${unknown.status}: ${unknown.output})`);
}

function main(dirs) {
  if (!dirs.length) {
    console.error('usage: node tests/groth16/noble_verifier_test.cjs FIXTURE_DIR...');
    return 2;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'noble-verifier-test-'));
  try {
    for (const dir of dirs) checkFixture(dir, work);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return failures ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
