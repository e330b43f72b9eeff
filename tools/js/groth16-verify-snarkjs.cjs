#!/usr/bin/env node
// snarkjs's own Groth16 verifier (groth16.verify, the function `snarkjs groth16 verify`
// calls) over many proofs in one process: one Node start and one curve set-up instead of
// one per proof (about 1.5 s each).
// Usage: groth16-verify-snarkjs.cjs VK.json PROOF.json PUBLIC.json [PROOF.json PUBLIC.json ...]
// Prints one line per proof, in argument order, as groth16-verify-noble.cjs does ("OK file"
// or "INVALID file: why") and exits 0 only when every proof verifies, 1 when one does not,
// 2 on bad usage or unreadable files.
'use strict';
const fs = require('fs');
const snarkjs = require('snarkjs');

// groth16.verify reports why it rejects through its logger; keep the last error.
function collectingLogger() {
  const logger = { lastError: null };
  for (const level of ['debug', 'info', 'warn']) logger[level] = () => {};
  logger.error = (message) => { logger.lastError = String(message); };
  return logger;
}

async function main(args) {
  if (args.length < 3 || (args.length - 1) % 2 !== 0) {
    console.error('usage: groth16-verify-snarkjs.cjs VK.json PROOF.json PUBLIC.json [PROOF.json PUBLIC.json ...]');
    return 2;
  }
  const read = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
  let vk;
  const inputs = [];
  try {
    vk = read(args[0]);
    for (let i = 1; i < args.length; i += 2) inputs.push({ file: args[i], proof: read(args[i]), public: read(args[i + 1]) });
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  let failures = 0;
  for (const { file, proof, public: publicSignals } of inputs) {
    const logger = collectingLogger();
    let why = null;
    try {
      if (!(await snarkjs.groth16.verify(vk, publicSignals, proof, logger))) why = logger.lastError ?? 'rejected';
    } catch (e) {
      why = e.message;
    }
    console.log(why === null ? `OK ${file}` : `INVALID ${file}: ${why}`);
    if (why !== null) ++failures;
  }
  return failures === 0 ? 0 : 1;
}

// process.exit, not exitCode: the curve's worker threads would keep Node alive.
main(process.argv.slice(2)).then((status) => process.exit(status), (e) => {
  console.error(e.stack || e.message);
  process.exit(2);
});
