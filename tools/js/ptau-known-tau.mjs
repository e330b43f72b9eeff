#!/usr/bin/env node
// INSECURE: FOR TESTS AND BENCHMARKS ONLY. Whoever knows tau, alpha and beta can forge
// proofs for every key made from the file this writes.
//
// Writes a PREPARED powers-of-tau file (BLS12-381 or BN254: snarkjs's bls12381, bn128),
// the one `snarkjs powersoftau new`, one contribution and `powersoftau prepare phase2`
// would make (sections 1-7 and 12-15), straight from a known tau, alpha and beta. Every
// point is one fixed-base scalar multiplication of a generator (at most 32 additions from
// a table), where prepare phase2 runs group FFTs whose every butterfly is a full scalar
// multiplication: on 2 busy cores 10 s instead of 2 min at power 12, 3 min instead of
// about an hour at power 16 (BLS12-381).
//
//   node tools/js/ptau-known-tau.mjs --power K [--curve bls12381|bn128] [--out FILE] [--force]
//        [--beacon HEX [--iterations-exp N]]        tau, alpha, beta as a snarkjs beacon draws them
//        [--tau N --alpha N --beta N]               or given (decimal or 0x hex, 0 < N < r)
//
// Default: the public beacon of tools/make-circom-fixtures.sh, so at the same curve and
// power the file is byte for byte the committed ceremony (the check that this script is
// right). The curve's sizes (n8 = 48 for BLS12-381's q, 32 for BN254's) come from snarkjs's
// curve object; the code is the same for both. Default curve bls12381; default FILE:
// tools/js/cache/ptau/known-tau-CURVE-pKK.ptau. FILE.json beside it records the curve,
// the power, tau, alpha and beta; an existing FILE with the same record is kept
// (written under a temporary name and renamed, so an existing FILE is complete).
// Prints FILE on the last line of stdout; progress and warnings go to stderr.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as binFileUtils from "@iden3/binfileutils";
import { blake2b } from "@noble/hashes/blake2b";
import { ChaCha } from "ffjavascript";

// snarkjs's own ceremony code, so the header, the hashes and the contribution record are
// what snarkjs writes (the package exports only its API, so by path).
const snarkjsSrc = new URL("./node_modules/snarkjs/src/", import.meta.url);
const { getCurveFromName } = await import(new URL("curves.js", snarkjsSrc));
const ptauUtils = await import(new URL("powersoftau_utils.js", snarkjsSrc));
const keyPair = await import(new URL("keypair.js", snarkjsSrc));
const misc = await import(new URL("misc.js", snarkjsSrc));

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE_BEACON = createHash("sha256").update("zkbatch test ceremony").digest("hex");
const FIXTURE_NAME = "zkbatch test fixture";
// snarkjs's names, as `powersoftau new` and circom's -p take them.
const CURVES = ["bls12381", "bn128"];
const WARNING = "INSECURE: tau, alpha and beta of this file are known; for tests and benchmarks only";

function usage(message) {
    process.stderr.write(`ptau-known-tau: ${message}\n` +
        "usage: node tools/js/ptau-known-tau.mjs --power K [--curve bls12381|bn128] [--out FILE] [--force]\n" +
        "       [--beacon HEX [--iterations-exp N]] | [--tau N --alpha N --beta N]\n");
    process.exit(2);
}

function parseArguments(argv) {
    const options = { force: false };
    const valued = new Set(["--power", "--curve", "--out", "--beacon", "--iterations-exp", "--tau", "--alpha", "--beta"]);
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === "--force") { options.force = true; continue; }
        if (!valued.has(arg)) usage(`unknown argument '${arg}'`);
        if (i + 1 >= argv.length) usage(`${arg} needs a value`);
        options[arg.slice(2)] = argv[++i];
    }
    const power = Number(options.power);
    // The powers `snarkjs powersoftau new` accepts.
    if (!Number.isInteger(power) || power < 1 || power > 28) usage("--power must be an integer 1..28");
    const curve = options.curve ?? "bls12381";
    if (!CURVES.includes(curve)) usage(`--curve must be ${CURVES.join(" or ")}, not '${curve}'`);
    const explicit = ["tau", "alpha", "beta"].filter((k) => options[k] !== undefined);
    if (explicit.length !== 0 && explicit.length !== 3) usage("give all of --tau, --alpha, --beta or none");
    if (explicit.length && options.beacon !== undefined) usage("--beacon and --tau/--alpha/--beta exclude each other");
    const beacon = options.beacon ?? FIXTURE_BEACON;
    if (!explicit.length && !/^([0-9a-fA-F]{2}){1,255}$/.test(beacon)) usage("--beacon must be 1..255 bytes of hex");
    const iterationsExp = Number(options["iterations-exp"] ?? 10);
    if (!Number.isInteger(iterationsExp) || iterationsExp < 10 || iterationsExp > 63) usage("--iterations-exp must be 10..63");
    const out = options.out ?? path.join(here, "cache", "ptau", `known-tau-${curve}-p${String(power).padStart(2, "0")}.ptau`);
    return { curve, power, out, force: options.force, explicit: explicit.length === 3, beacon, iterationsExp,
        tau: options.tau, alpha: options.alpha, beta: options.beta };
}

function parseScalar(Fr, name, text) {
    let value;
    try { value = BigInt(text); } catch { usage(`--${name} '${text}' is not an integer`); }
    if (value <= 0n || value >= BigInt(Fr.p.toString())) usage(`--${name} must be in 1..r-1`);
    return Fr.e(value);
}

// The same key snarkjs's contribute/beacon draws, from the given values: the proofs of
// knowledge (keypair.js's calculatePubKey, not exported) from a fixed ChaCha stream.
function explicitKey(curve, challengeHash, tau, alpha, beta) {
    const rng = new ChaCha([0x7a6b6261, 0x74636820, 0x6b6e6f77, 0x6e207461, 0x75000000, 0, 0, 0]);  // "zkbatch known tau"
    const key = { tau: { prvKey: tau }, alpha: { prvKey: alpha }, beta: { prvKey: beta } };
    ["tau", "alpha", "beta"].forEach((name, personalization) => {
        const k = key[name];
        k.g1_s = curve.G1.toAffine(curve.G1.fromRng(rng));
        k.g1_sx = curve.G1.toAffine(curve.G1.timesFr(k.g1_s, k.prvKey));
        k.g2_sp = curve.G2.toAffine(keyPair.getG2sp(curve, personalization, challengeHash, k.g1_s, k.g1_sx));
        k.g2_spx = curve.G2.toAffine(curve.G2.timesFr(k.g2_sp, k.prvKey));
    });
    return key;
}

// The fixed-base table of a group's generator: entry 256·k + d is d·2^(8k)·G, affine
// Montgomery (LEM), for the 32 byte positions k of a scalar (entries d = 0 are zero).
const tables = new Map();
async function generatorTable(curve, groupName) {
    if (tables.has(groupName)) return tables.get(groupName);
    const G = curve[groupName];
    const sJacobian = G.F.n8 * 3;
    const jacobian = new Uint8Array(32 * 256 * sJacobian);
    let base = G.g;
    for (let k = 0; k < 32; k++) {
        let multiple = G.zero;
        for (let d = 0; d < 256; d++) {
            jacobian.set(G.toJacobian(multiple), (256 * k + d) * sJacobian);
            multiple = G.add(multiple, base);
        }
        base = multiple;  // 256·2^(8k)·G
    }
    const table = await G.batchToAffine(jacobian);
    tables.set(groupName, table);
    return table;
}

// scalars[i]·G for every 32-byte Montgomery scalar, affine Montgomery (LEM) out. Each
// point is the sum of one table entry per nonzero byte of its scalar: at most 32 mixed
// additions where a double-and-add costs 255 doublings and ~85 additions (2.4x faster
// here), run in wasm on ffjavascript's worker threads.
async function timesGenerator(curve, groupName, scalars) {
    const G = curve[groupName];
    const { Fr } = curve;
    const prefix = groupName === "G1" ? "g1m" : "g2m";
    const sAffine = G.F.n8 * 2, sJacobian = G.F.n8 * 3;
    const table = await generatorTable(curve, groupName);
    const nPoints = scalars.byteLength / Fr.n8;
    const chunk = 1024;
    function task(start) {
        const n = Math.min(chunk, nPoints - start);
        const commands = [
            { cmd: "ALLOCSET", var: 0, buff: table },
            { cmd: "ALLOC", var: 1, len: n * sJacobian },
        ];
        for (let i = 0; i < n; i++) {
            const o = (start + i) * Fr.n8;
            const bytes = Fr.fromMontgomery(scalars.subarray(o, o + Fr.n8));  // canonical, little-endian
            const sum = { var: 1, offset: i * sJacobian };
            commands.push({ cmd: "CALL", fnName: `${prefix}_zero`, params: [sum] });
            for (let k = 0; k < 32; k++) {
                if (bytes[k] === 0) continue;
                commands.push({ cmd: "CALL", fnName: `${prefix}_addMixed`,
                    params: [sum, { var: 0, offset: (256 * k + bytes[k]) * sAffine }, sum] });
            }
        }
        commands.push({ cmd: "ALLOC", var: 2, len: n * sAffine });
        commands.push({ cmd: "CALL", fnName: `${prefix}_batchToAffine`, params: [{ var: 1 }, { val: n }, { var: 2 }] });
        commands.push({ cmd: "GET", out: 0, var: 2, len: n * sAffine });
        return commands;
    }
    // A task lists ~33 commands per point: keep only a few tasks in flight, or 2^19 points
    // would hold millions of command objects at once.
    const out = new Uint8Array(nPoints * sAffine);
    let next = 0;
    async function feed() {
        while (next < nPoints) {
            const start = next;
            next += chunk;
            out.set((await curve.tm.queueAction(task(start)))[0], start * sAffine);
        }
    }
    await Promise.all(Array.from({ length: 2 * curve.tm.concurrency }, feed));
    return out;
}

// L_i(tau) for the domain of size 2^p with ffjavascript's root w = Fr.w[p], i = 0..2^p-1:
// what ffjavascript's inverse FFT of (tau^j·G), j < 2^p, gives: (1/n)·sum_j tau^j·w^-ij
// = w^i·(tau^n - 1)/(n·(tau - w^i)). prepare phase2 pads section 2, one point short of
// 2^(K+1), with a zero; `truncated` drops the same tau^(n-1) term: minus tau^(n-1)·w^i/n.
async function lagrangeScalars(Fr, tau, p, truncated) {
    const n = 2 ** p, n8 = Fr.n8;
    const w = Fr.w[p];
    const differences = new Uint8Array(n * n8);
    let wi = Fr.one;
    for (let i = 0; i < n; i++) {
        const d = Fr.sub(tau, wi);
        if (Fr.isZero(d)) throw new Error(`tau is a 2^${p}-th root of unity; choose another tau`);
        differences.set(d, i * n8);
        wi = Fr.mul(wi, w);
    }
    const inverses = await Fr.batchInverse(differences);
    const nInv = Fr.inv(Fr.e(n));
    const z = Fr.mul(Fr.sub(Fr.exp(tau, n), Fr.one), nInv);
    const dropped = Fr.mul(Fr.exp(tau, n - 1), nInv);
    const out = new Uint8Array(n * n8);
    wi = Fr.one;
    for (let i = 0; i < n; i++) {
        let l = Fr.mul(z, inverses.slice(i * n8, (i + 1) * n8));
        if (truncated) l = Fr.sub(l, dropped);
        out.set(Fr.mul(l, wi), i * n8);
        wi = Fr.mul(wi, w);
    }
    return out;
}

function scaled(Fr, scalars, factor) {
    const out = new Uint8Array(scalars.byteLength);
    for (let o = 0; o < scalars.byteLength; o += Fr.n8) out.set(Fr.mul(scalars.slice(o, o + Fr.n8), factor), o);
    return out;
}

async function writeKnownTauPtau(curve, args, record, tmpName, log) {
    const { Fr } = curve;
    const power = args.power;
    const challengeHash = ptauUtils.calculateFirstChallengeHash(curve, power);
    let contribution;
    if (args.explicit) {
        const key = explicitKey(curve, challengeHash, parseScalar(Fr, "tau", args.tau),
            parseScalar(Fr, "alpha", args.alpha), parseScalar(Fr, "beta", args.beta));
        contribution = { name: FIXTURE_NAME, type: 0, key };
    } else {
        const beaconHash = misc.hex2ByteArray(args.beacon);
        const key = await ptauUtils.keyFromBeacon(curve, challengeHash, beaconHash, args.iterationsExp);
        contribution = { name: FIXTURE_NAME, type: 1, numIterationsExp: args.iterationsExp, beaconHash, key };
    }
    const tau = contribution.key.tau.prvKey, alpha = contribution.key.alpha.prvKey, beta = contribution.key.beta.prvKey;
    Object.assign(record, { tau: Fr.toString(tau), alpha: Fr.toString(alpha), beta: Fr.toString(beta) });

    const fd = await binFileUtils.createBinFile(tmpName, "ptau", 1, 11);
    await ptauUtils.writePTauHeader(fd, curve, power);

    // Sections 2-6 as snarkjs's beacon writes them over a fresh ceremony (generator·first·inc^i),
    // hashed (compressed) into the response hash as it goes.
    const responseHasher = blake2b.create({ dkLen: 64 });
    responseHasher.update(challengeHash);
    const sectionStart = {};
    async function geometricSection(sectionId, groupName, nPoints, first, inc) {
        const G = curve[groupName];
        const sG = G.F.n8 * 2;
        const chunk = 1 << 16;
        await binFileUtils.startWriteSection(fd, sectionId);
        sectionStart[sectionId] = fd.pos;
        const firstPoints = [];
        let t = first;
        for (let i = 0; i < nPoints; i += chunk) {
            const n = Math.min(chunk, nPoints - i);
            const scalars = new Uint8Array(n * Fr.n8);
            for (let j = 0; j < n; j++, t = Fr.mul(t, inc)) scalars.set(t, j * Fr.n8);
            const points = await timesGenerator(curve, groupName, scalars);
            await fd.write(points);
            responseHasher.update(await G.batchLEMtoC(points));
            if (i === 0) for (let j = 0; j < Math.min(2, n); j++) firstPoints.push(G.fromRprLEM(points, j * sG));
        }
        await binFileUtils.endWriteSection(fd);
        log(`section ${sectionId}: ${nPoints} ${groupName} points`);
        return firstPoints;
    }
    const n = 2 ** power;
    contribution.tauG1 = (await geometricSection(2, "G1", 2 * n - 1, Fr.one, tau))[1];
    contribution.tauG2 = (await geometricSection(3, "G2", n, Fr.one, tau))[1];
    contribution.alphaG1 = (await geometricSection(4, "G1", n, alpha, tau))[0];
    contribution.betaG1 = (await geometricSection(5, "G1", n, beta, tau))[0];
    contribution.betaG2 = (await geometricSection(6, "G2", 1, beta, tau))[0];

    contribution.partialHash = misc.toPartialHash(responseHasher);
    const publicKey = new Uint8Array(curve.F1.n8 * 2 * 6 + curve.F2.n8 * 2 * 3);
    ptauUtils.toPtauPubKeyRpr(publicKey, 0, curve, contribution.key, false);
    responseHasher.update(publicKey);
    const nextChallengeHasher = blake2b.create({ dkLen: 64 });
    nextChallengeHasher.update(responseHasher.digest());
    const end = fd.pos;
    for (const [sectionId, groupName, nPoints] of [[2, "G1", 2 * n - 1], [3, "G2", n], [4, "G1", n], [5, "G1", n], [6, "G2", 1]]) {
        const G = curve[groupName];
        const sG = G.F.n8 * 2;
        const chunk = 1 << 14;
        fd.pos = sectionStart[sectionId];
        for (let i = 0; i < nPoints; i += chunk) {
            nextChallengeHasher.update(await G.batchLEMtoU(await fd.read(Math.min(chunk, nPoints - i) * sG)));
        }
    }
    fd.pos = end;
    contribution.nextChallenge = nextChallengeHasher.digest();
    await ptauUtils.writeContributions(fd, curve, [contribution]);

    // Sections 12-15, as prepare phase2 lays them out: for each power p = 0..K (and K+1 in
    // section 12) the 2^p points L_i(tau)·G, times alpha (14) or beta (15).
    const lagrange = [];
    for (let p = 0; p <= power; p++) lagrange[p] = await lagrangeScalars(Fr, tau, p, false);
    const lagrangeTop = await lagrangeScalars(Fr, tau, power + 1, true);
    for (const [sectionId, groupName, factor] of [[12, "G1", null], [13, "G2", null], [14, "G1", alpha], [15, "G1", beta]]) {
        await binFileUtils.startWriteSection(fd, sectionId);
        const powers = sectionId === 12 ? [...lagrange, lagrangeTop] : lagrange;
        for (const scalars of powers) {
            await fd.write(await timesGenerator(curve, groupName, factor ? scaled(Fr, scalars, factor) : scalars));
        }
        await binFileUtils.endWriteSection(fd);
        log(`section ${sectionId}: Lagrange ${groupName} points, domains 2^0..2^${powers.length - 1}`);
    }
    await fd.close();
}

async function main() {
    const args = parseArguments(process.argv.slice(2));
    const record = { warning: WARNING, curve: args.curve, power: args.power,
        source: args.explicit ? "explicit" : { beacon: args.beacon.toLowerCase(), iterationsExp: args.iterationsExp } };
    if (args.explicit) Object.assign(record, { tau: args.tau, alpha: args.alpha, beta: args.beta });
    const recordName = `${args.out}.json`;
    const started = Date.now();
    const log = (message) => process.stderr.write(`ptau-known-tau: ${message} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    process.stderr.write(`ptau-known-tau: ${WARNING}\n`);

    if (!args.force && fs.existsSync(args.out) && fs.existsSync(recordName)) {
        const old = JSON.parse(fs.readFileSync(recordName, "utf8"));
        const same = (old.curve ?? "bls12381") === record.curve && old.power === record.power && JSON.stringify(old.source) === JSON.stringify(record.source) &&
            (!args.explicit || ["tau", "alpha", "beta"].every((k) => BigInt(old[k]) === BigInt(args[k])));
        if (same) {
            log(`kept ${args.out} (same curve, power and key; --force rewrites it)`);
            console.log(args.out);
            return;
        }
    }

    fs.mkdirSync(path.dirname(path.resolve(args.out)), { recursive: true });
    const tmpName = `${args.out}.tmp-${process.pid}`;
    const curve = await getCurveFromName(args.curve);
    try {
        await writeKnownTauPtau(curve, args, record, tmpName, log);
    } catch (error) {
        fs.rmSync(tmpName, { force: true });
        throw error;
    } finally {
        await curve.terminate();
    }
    // The record goes last, so a FILE without its record (a crash in between) is remade.
    fs.rmSync(recordName, { force: true });
    fs.renameSync(tmpName, args.out);
    fs.writeFileSync(`${tmpName}.json`, JSON.stringify(record, null, 1) + "\n");
    fs.renameSync(`${tmpName}.json`, recordName);
    log(`wrote ${args.out} (${(fs.statSync(args.out).size / 2 ** 20).toFixed(1)} MiB; tau, alpha, beta in ${path.basename(recordName)})`);
    process.stderr.write(`ptau-known-tau: ${WARNING}\n`);
    console.log(args.out);
}

main().catch((error) => {
    process.stderr.write(`ptau-known-tau: ${error.stack || error}\n`);
    process.exit(1);
});
