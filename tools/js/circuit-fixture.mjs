#!/usr/bin/env node
// Builds one circom circuit's proving artifacts with the real toolchain, for tests:
//
//   node tools/js/circuit-fixture.mjs CIRCUIT OUT_DIR [--curve bls12381|bn128] [--prove]
//                                     [--ptau FILE] [--inputs DIR]
//
// CIRCUIT is a name from tests/fixtures/circom (CIRCUIT.circom, inputs in
// tests/fixtures/circom/inputs/CIRCUIT/*.json) or a path to a .circom file (then --inputs
// DIR names its input JSON files). --curve is the curve circom compiles for and snarkjs
// proves on: bls12381 (the default) or bn128 (BN254, circom's own default). One OUT_DIR
// holds one curve's artifacts: an OUT_DIR whose NAME.r1cs is of the other curve is
// refused, so give each curve its own (the tests use CIRCUIT/ and bn128/CIRCUIT/). Into
// OUT_DIR it writes, skipping every step whose outputs are newer than its inputs:
//   NAME.r1cs, NAME.sym, NAME.wasm   circom2 -p CURVE --r1cs --wasm --sym
//   NAME_0000.zkey                   snarkjs groth16 setup with the ptau: the smallest
//                                    committed one of the curve that is big enough
//                                    (CURVE-pKK.ptau; --ptau overrides, and must be of
//                                    the curve)
//   NAME.zkey                        snarkjs zkey beacon, so delta is not the ceremony's; a
//                                    beacon, not `zkey contribute`, because contribute mixes
//                                    random bytes into its entropy: this zkey is reproducible
//   verification_key.json            snarkjs zkey export verificationkey
//   wtns/INPUT.wtns                  snarkjs wtns calculate, one per input JSON
//   proofs/INPUT.{proof,public}.json with --prove: snarkjs groth16 prove, then groth16
//                                    verify (a rejected proof fails this script)
//   fixture.json                     all of the above as paths, the curve, the circuit's
//                                    sizes and each witness's share of 0/1 values
// Every file is written under a temporary name and renamed, and every step is
// deterministic, so concurrent runs on one OUT_DIR are safe. Prints one line per step
// (its time, or "up to date") and every artifact's path on stderr, and fixture.json's
// path on stdout.
// Exit status: 0 done, 1 a tool failed or a proof was rejected, 2 bad arguments.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const jsDir = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(jsDir, "..", "..");
const fixturesDir = path.join(repo, "tests", "fixtures", "circom");
const circom2 = path.join(jsDir, "node_modules", "circom2", "cli.js");
const snarkjs = path.join(jsDir, "node_modules", "snarkjs", "build", "cli.cjs");
// The zkey's contribution: a fixed public beacon (INSECURE, for tests only).
const ZKEY_BEACON = "7a6b62617463682074657374207a6b6579";  // "zkbatch test zkey"
const ZKEY_BEACON_ITERATIONS_EXP = "10";
// The curves by snarkjs's (and circom -p's) names, with the base field's prime q (a .ptau's
// header) and the group order r (a .r1cs's header): how a file tells its curve.
const CURVES = {
    bls12381: {
        q: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
        r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
    },
    bn128: {
        q: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
        r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    },
};

function fail(status, message) {
    process.stderr.write(`circuit-fixture: ${message}\n`);
    process.exit(status);
}

function parseArguments(argv) {
    const positional = [];
    const options = { prove: false, curve: "bls12381" };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === "--prove") options.prove = true;
        else if (arg === "--ptau" || arg === "--inputs" || arg === "--curve") {
            if (i + 1 >= argv.length) fail(2, `${arg} needs a value`);
            options[arg.slice(2)] = arg === "--curve" ? argv[++i] : path.resolve(argv[++i]);
        } else if (arg.startsWith("--")) fail(2, `unknown option '${arg}'`);
        else positional.push(arg);
    }
    if (positional.length !== 2) {
        fail(2, "usage: node tools/js/circuit-fixture.mjs CIRCUIT OUT_DIR [--curve bls12381|bn128] [--prove] " +
            "[--ptau FILE] [--inputs DIR]");
    }
    if (!Object.hasOwn(CURVES, options.curve)) {
        fail(2, `--curve must be ${Object.keys(CURVES).join(" or ")}, not '${options.curve}'`);
    }
    const [circuit, outDir] = positional;
    let source, inputsDir;
    if (circuit.endsWith(".circom")) {
        source = path.resolve(circuit);
        if (!options.inputs) fail(2, `${circuit}: a .circom path needs --inputs DIR`);
    } else {
        if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(circuit)) fail(2, `'${circuit}' is not a fixture name`);
        source = path.join(fixturesDir, `${circuit}.circom`);
        inputsDir = path.join(fixturesDir, "inputs", circuit);
    }
    if (!fs.existsSync(source)) fail(2, `${source}: no such circuit`);
    inputsDir = options.inputs ?? inputsDir;
    if (!fs.existsSync(inputsDir)) fail(2, `${inputsDir}: no inputs folder`);
    if (options.ptau && !fs.existsSync(options.ptau)) fail(2, `${options.ptau}: no such ptau file`);
    return { source, name: path.basename(source, ".circom"), inputsDir, outDir: path.resolve(outDir),
        curve: options.curve, prove: options.prove, ptau: options.ptau };
}

function mtime(file) {
    try { return fs.statSync(file).mtimeMs; } catch { return -Infinity; }
}

// True when every output exists and is newer than every input.
function upToDate(outputs, inputs) {
    const oldestOutput = Math.min(...outputs.map(mtime));
    return oldestOutput > Math.max(...inputs.map(mtime));
}

// snarkjs's CLI exits 0 after many failures (groth16 setup with too small a ptau, zkey
// beacon with bad arguments), leaving a stub file or none: a logged [ERROR] fails too.
// circom2 runs from the repository root: its WASI shim rewrites paths relative to the
// working folder, and its include search fails on "../" paths (seen when ctest runs it
// from build/tests/groth16), so the sources and libraries must lie below the folder.
function run(tool, args) {
    const label = tool === snarkjs ? "snarkjs" : "circom2";
    const result = spawnSync(process.execPath, [tool, ...args],
        { encoding: "utf8", maxBuffer: 1 << 26, cwd: tool === circom2 ? repo : undefined });
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
    if (result.status !== 0 || output.includes("[ERROR]")) {
        process.stderr.write(output);
        fail(1, `${label} ${args.join(" ")}: ${result.status !== 0 ? `exit status ${result.status ?? result.signal}` : "logged an error"}`);
    }
}

// The sections of a snarkjs binary file (magic, version, count, then id, u64 length and
// payload each) as {id, offset, size}, reading only their headers.
function sections(file, magic) {
    const fd = fs.openSync(file, "r");
    try {
        const size = fs.fstatSync(fd).size;
        const head = Buffer.alloc(12);
        const read = (offset) => fs.readSync(fd, head, 0, 12, offset) === 12;
        if (!read(0) || head.toString("latin1", 0, 4) !== magic) fail(1, `${file}: not a ${magic} file`);
        const list = [];
        for (let o = 12; o + 12 <= size && read(o); o += 12 + list.at(-1).size) {
            list.push({ id: head.readUInt32LE(0), offset: o + 12, size: Number(head.readBigUInt64LE(4)) });
        }
        return list;
    } finally {
        fs.closeSync(fd);
    }
}

function checkZkey(file) {
    const ids = sections(file, "zkey").map((s) => s.id);
    if (!Array.from({ length: 10 }, (_, i) => i + 1).every((id) => ids.includes(id))) {
        fail(1, `${file}: sections ${ids.join(",") || "none"}, not 1-10: snarkjs failed to write it`);
    }
}

// A little-endian unsigned integer.
function readLE(bytes) {
    return BigInt(`0x${Buffer.from(bytes).reverse().toString("hex") || "0"}`);
}

// The curve whose field is `prime` (its `key`, q or r), or undefined.
function curveOf(key, prime) {
    return Object.keys(CURVES).find((name) => CURVES[name][key] === prime);
}

// A ptau's curve, power and whether prepare phase2 ran (section 1: n8, q, power, ceremony
// power).
function ptauInfo(file) {
    const list = sections(file, "ptau");
    const header = list.find((s) => s.id === 1);
    if (!header) fail(1, `${file}: no header section`);
    const fd = fs.openSync(file, "r");
    const b = Buffer.alloc(Math.min(header.size, 128));
    fs.readSync(fd, b, 0, b.length, header.offset);
    fs.closeSync(fd);
    const n8 = b.readUInt32LE(0);
    return { curve: curveOf("q", readLE(b.subarray(4, 4 + n8))), power: b.readUInt32LE(4 + n8),
        prepared: list.some((s) => s.id === 12) };
}

const timings = [];
// Runs make(tmpOutputs) unless the outputs are up to date, then renames each temporary
// output into place; records the step's time (null when skipped) for fixture.json.
function step(label, outputs, inputs, make) {
    if (upToDate(outputs, inputs)) {
        process.stderr.write(`circuit-fixture: ${label}: up to date\n`);
        timings.push({ step: label, seconds: null });
        return;
    }
    const tmp = outputs.map((o) => `${o}.tmp-${process.pid}${path.extname(o)}`);
    const start = performance.now();
    make(tmp);
    const seconds = (performance.now() - start) / 1000;
    for (const [i, o] of outputs.entries()) fs.renameSync(tmp[i], o);
    timings.push({ step: label, seconds: Number(seconds.toFixed(2)) });
    process.stderr.write(`circuit-fixture: ${label}: ${seconds.toFixed(1)} s (load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")})\n`);
}

// The r1cs header (section 1): field size, prime (r of the curve circom compiled for),
// wires, outputs, public and private inputs, labels, constraints.
function readR1csHeader(file) {
    const b = fs.readFileSync(file);
    if (b.toString("latin1", 0, 4) !== "r1cs") fail(1, `${file}: not an r1cs file`);
    for (let o = 12; o + 12 <= b.length;) {
        const id = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
        if (id === 1) {
            const n8 = b.readUInt32LE(o + 12);
            const h = o + 16 + n8;
            return { curve: curveOf("r", readLE(b.subarray(o + 16, h))), nWires: b.readUInt32LE(h),
                nOutputs: b.readUInt32LE(h + 4), nPubInputs: b.readUInt32LE(h + 8),
                nPrvInputs: b.readUInt32LE(h + 12), nConstraints: b.readUInt32LE(h + 24) };
        }
        o += 12 + size;
    }
    fail(1, `${file}: no header section`);
}

// snarkjs's domain: the smallest power of two above constraints + public signals (the
// extra rows for the public inputs), zkey_new.js's log2(...) + 1.
function domainPower(r1cs) {
    return Math.floor(Math.log2(r1cs.nConstraints + r1cs.nPubInputs + r1cs.nOutputs)) + 1;
}

// The smallest committed ceremony of the curve (CURVE-pKK.ptau) that reaches 2^power.
function committedPtau(curve, power) {
    const dir = path.join(fixturesDir, "ptau");
    const pattern = new RegExp(`^${curve}-p(\\d+)\\.ptau$`);
    const candidates = fs.readdirSync(dir)
        .map((f) => ({ file: path.join(dir, f), power: Number((pattern.exec(f) ?? [])[1]) }))
        .filter((c) => c.power >= power)
        .sort((a, b) => a.power - b.power);
    if (!candidates.length) {
        fail(1, `no committed ${curve} ptau reaches 2^${power}; make one with ` +
            `node tools/js/ptau-known-tau.mjs --curve ${curve} --power ${power} and pass --ptau`);
    }
    return candidates[0].file;
}

// The share of witness values that are 0 or 1 (section 2 of a .wtns holds n8-byte
// little-endian plain values).
function witnessProfile(file) {
    const b = fs.readFileSync(file);
    let n8 = 0, values = null;
    for (let o = 12; o + 12 <= b.length;) {
        const id = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
        if (id === 1) n8 = b.readUInt32LE(o + 12);
        if (id === 2) values = b.subarray(o + 12, o + 12 + size);
        o += 12 + size;
    }
    let zeros = 0, ones = 0;
    const n = values.length / n8;
    for (let i = 0; i < n; i++) {
        const v = values.subarray(i * n8, (i + 1) * n8);
        let high = 0;
        for (let j = 1; j < n8; j++) high |= v[j];
        if (high === 0 && v[0] === 0) zeros++;
        else if (high === 0 && v[0] === 1) ones++;
    }
    return { values: n, zeros, ones, zeroOneShare: Number(((zeros + ones) / n).toFixed(4)) };
}

function main() {
    const a = parseArguments(process.argv.slice(2));
    const out = (f) => path.join(a.outDir, f);
    fs.mkdirSync(out("wtns"), { recursive: true });
    const toolchain = [path.join(jsDir, "package-lock.json")];
    const libraries = [path.join(fixturesDir, "lib"), path.join(jsDir, "node_modules", "circomlib", "circuits")];
    const libraryFiles = fs.readdirSync(libraries[0]).map((f) => path.join(libraries[0], f));

    const r1cs = out(`${a.name}.r1cs`), sym = out(`${a.name}.sym`), wasm = out(`${a.name}.wasm`);
    // The steps below trust mtimes, not curves: artifacts of the other curve would look up
    // to date.
    if (fs.existsSync(r1cs) && readR1csHeader(r1cs).curve !== a.curve) {
        fail(2, `${r1cs} is not a ${a.curve} circuit: give each curve its own OUT_DIR`);
    }
    step(`${a.name}: compile`, [r1cs, sym, wasm], [a.source, ...libraryFiles, ...toolchain], (tmp) => {
        const work = fs.mkdtempSync(path.join(a.outDir, ".compile-"));
        try {
            run(circom2, ["-p", a.curve, "--r1cs", "--wasm", "--sym", ...libraries.flatMap((l) => ["-l", l]),
                "-o", work, a.source]);
            fs.renameSync(path.join(work, `${a.name}.r1cs`), tmp[0]);
            fs.renameSync(path.join(work, `${a.name}.sym`), tmp[1]);
            fs.renameSync(path.join(work, `${a.name}_js`, `${a.name}.wasm`), tmp[2]);
        } finally {
            fs.rmSync(work, { recursive: true, force: true });
        }
    });

    const header = readR1csHeader(r1cs);
    const power = domainPower(header);
    const ptau = a.ptau ?? committedPtau(a.curve, power);
    const ptauHeader = ptauInfo(ptau);
    if (ptauHeader.curve !== a.curve) {
        fail(2, `${ptau}: ${ptauHeader.curve ? `a ${ptauHeader.curve}` : "an unknown curve's"} ceremony, not ${a.curve}`);
    }
    if (ptauHeader.power < power) fail(1, `${ptau}: power ${ptauHeader.power}, below the circuit's 2^${power}`);
    if (!ptauHeader.prepared) fail(1, `${ptau}: not prepared (no section 12): run snarkjs powersoftau prepare phase2`);
    const zkey0 = out(`${a.name}_0000.zkey`), zkey = out(`${a.name}.zkey`), vkey = out("verification_key.json");
    step(`${a.name}: groth16 setup (2^${power}, ${path.basename(ptau)})`, [zkey0], [r1cs, ptau], (tmp) => {
        run(snarkjs, ["groth16", "setup", r1cs, ptau, tmp[0]]);
        checkZkey(tmp[0]);
    });
    step(`${a.name}: zkey beacon`, [zkey], [zkey0], (tmp) => {
        run(snarkjs, ["zkey", "beacon", zkey0, tmp[0], ZKEY_BEACON, ZKEY_BEACON_ITERATIONS_EXP, "-n=zkbatch test zkey"]);
        if (!fs.existsSync(tmp[0])) fail(1, "zkey beacon wrote nothing");
        checkZkey(tmp[0]);
    });
    step(`${a.name}: export verification key`, [vkey], [zkey],
        (tmp) => run(snarkjs, ["zkey", "export", "verificationkey", zkey, tmp[0]]));

    const inputs = fs.readdirSync(a.inputsDir).filter((f) => f.endsWith(".json")).sort();
    if (!inputs.length) fail(2, `${a.inputsDir}: no input .json files`);
    const witnesses = [];
    for (const file of inputs) {
        const input = path.join(a.inputsDir, file), base = path.basename(file, ".json");
        const wtns = out(path.join("wtns", `${base}.wtns`));
        step(`${a.name}/${base}: wtns calculate`, [wtns], [wasm, input],
            (tmp) => run(snarkjs, ["wtns", "calculate", wasm, input, tmp[0]]));
        const entry = { input, wtns, ...witnessProfile(wtns) };
        if (a.prove) {
            fs.mkdirSync(out("proofs"), { recursive: true });
            entry.proof = out(path.join("proofs", `${base}.proof.json`));
            entry.public = out(path.join("proofs", `${base}.public.json`));
            step(`${a.name}/${base}: groth16 prove + verify`, [entry.proof, entry.public], [zkey, wtns], (tmp) => {
                run(snarkjs, ["groth16", "prove", zkey, wtns, tmp[0], tmp[1]]);
                run(snarkjs, ["groth16", "verify", vkey, tmp[1], tmp[0]]);
            });
        }
        witnesses.push(entry);
    }

    const fixture = {
        circuit: a.name, source: a.source, curve: a.curve,
        constraints: header.nConstraints, publicInputs: header.nPubInputs, publicOutputs: header.nOutputs,
        nPublic: header.nPubInputs + header.nOutputs, privateInputs: header.nPrvInputs, variables: header.nWires,
        domainPower: power, ptau, r1cs, sym, wasm, zkey, verificationKey: vkey, witnesses, timings,
    };
    const fixtureFile = out("fixture.json");
    const tmp = `${fixtureFile}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, JSON.stringify(fixture, null, 1) + "\n");
    fs.renameSync(tmp, fixtureFile);
    const where = [["r1cs", r1cs], ["wasm", wasm], ["ptau", ptau], ["zkey", zkey], ["verification key", vkey],
        ...witnesses.flatMap((w) => [["wtns", w.wtns], ...(w.proof ? [["proof", w.proof], ["public", w.public]] : [])])];
    for (const [what, file] of where) process.stderr.write(`circuit-fixture: ${a.name}: ${what.padEnd(16)} ${file}\n`);
    console.log(fixtureFile);
}

main();
