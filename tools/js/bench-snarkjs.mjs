#!/usr/bin/env node
// zkbatch side by side with snarkjs: for each size 2^k a chain circuit
// (x <- x^2 + c, tests/fixtures/circom/lib/chain.circom) of 2^k - max(2, 2^(k-6))
// constraints, its zkey from a known-tau ptau (INSECURE, for benchmarks only), one
// witness, then `snarkjs groth16 prove` and `groth16 verify`, and the same .zkey and
// .wtns proved by `zkbatch prove` (rapidsnark's arguments, on --backend, default
// cpu-ref), its proof checked by `snarkjs groth16 verify`; each timed over a few runs (a
// rejected proof fails the benchmark). zkbatch's first run checks every point of the
// .zkey; the later ones find it in the record of checked keys (cache/keys/checked-zkeys,
// started empty) and are timed apart.
//
//   node tools/js/bench-snarkjs.mjs [--sizes 12,16,18] [--runs 3] [--cache DIR] [--json FILE]
//                                   [--curve bls12381|bn128] [--zkbatch build/zkbatch|none]
//                                   [--backend cpu-ref]
//
// --curve picks the circuits' curve (default bls12381; bn128 is BN254, circom's default;
// zkbatch reads the curve from the .zkey). With --zkbatch none only snarkjs runs and the
// zkbatch columns say why they are empty. Artifacts are cached (default
// tools/js/cache/bench/, git-ignored; bn128's in its bn128/ folder) and rebuilt only when
// their inputs change, so a second run only proves. Times are wall clock of the snarkjs
// CLI process, as a user runs it: they include Node's start and the curve's set-up (0.8 s
// of CPU here; the 2^3 row, `--sizes 3`, measures it). The CPU seconds of each prove are
// recorded too. Prints a markdown table on stdout (a cached step shows as "cached" or,
// for the ptau, a fraction of a second).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const jsDir = path.dirname(fileURLToPath(import.meta.url));
const snarkjs = path.join(jsDir, "node_modules", "snarkjs", "build", "cli.cjs");
const fromRoot = (file) => path.relative(path.join(jsDir, "..", ".."), file);

// How zkbatch proves ZKEY with WTNS: `zkbatch prove` run as a user runs it (argv, no
// shell, in outDir, whose cache/keys/checked-zkeys is its record of checked keys; timed
// like snarkjs's prove: the process's wall clock, which includes reading the .zkey,
// checking its points unless the record has it, synthesis, the proof and its pairing
// check), then the command that prints the run's phases (whose "prove" line is the proof
// alone).
function zkbatchCommands({ zkbatch, backend, zkey, wtns, outDir }) {
    fs.mkdirSync(outDir, { recursive: true });
    const db = path.join(outDir, "zkbatch.db");
    const proof = path.join(outDir, "proof.json"), publicJson = path.join(outDir, "public.json");
    return {
        prove: [zkbatch, "--log-level", "warn", "prove", zkey, wtns, proof, publicJson, "--db", db, "--backend", backend],
        show: [zkbatch, "show", "latest", "--db", db],
        record: path.join(outDir, "cache", "keys", "checked-zkeys"),
        cwd: outDir, proof, publicJson,
    };
}

function fail(message) {
    process.stderr.write(`bench-snarkjs: ${message}\n`);
    process.exit(1);
}

function parseArguments(argv) {
    const options = { sizes: "12,16,18", runs: "3", cache: path.join(jsDir, "cache", "bench"), json: null,
                      curve: "bls12381", zkbatch: path.join(jsDir, "..", "..", "build", "zkbatch"), backend: "cpu-ref" };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i]?.replace(/^--/, "");
        if (!(key in options) || !argv[i].startsWith("--") || i + 1 >= argv.length) {
            process.stderr.write("usage: node tools/js/bench-snarkjs.mjs [--sizes 12,16,18] [--runs 3] [--cache DIR] [--json FILE] " +
                                 "[--curve bls12381|bn128] [--zkbatch PATH|none] [--backend NAME]\n");
            process.exit(2);
        }
        options[key] = argv[i + 1];
    }
    const sizes = options.sizes.split(",").map(Number);
    if (!sizes.every((k) => Number.isInteger(k) && k >= 3 && k <= 22)) fail("--sizes: powers 3..22, comma-separated");
    const runs = Number(options.runs);
    if (!Number.isInteger(runs) || runs < 1) fail("--runs must be a positive integer");
    if (!["bls12381", "bn128"].includes(options.curve)) fail(`--curve must be bls12381 or bn128, not '${options.curve}'`);
    // Why the zkbatch columns stay empty, or null when zkbatch runs.
    const zkbatchSkipped = options.zkbatch === "none" ? "--zkbatch none" : null;
    if (!zkbatchSkipped && !fs.existsSync(options.zkbatch)) {
        fail(`--zkbatch ${options.zkbatch}: no such file (build it: tools/setup.sh run; --zkbatch none runs snarkjs alone)`);
    }
    const cache = path.resolve(options.cache);
    return { sizes, runs, curve: options.curve, cache: options.curve === "bls12381" ? cache : path.join(cache, options.curve),
             json: options.json && path.resolve(options.json), zkbatch: zkbatchSkipped ? null : path.resolve(options.zkbatch),
             zkbatchSkipped, backend: options.backend };
}

function seconds(start) {
    return (performance.now() - start) / 1000;
}

// Runs argv without a shell (in `cwd`, default this process's); returns its wall time in
// seconds. Output is shown on failure.
function timed(argv, what, cwd = undefined) {
    const start = performance.now();
    try {
        execFileSync(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 26, cwd });
    } catch (error) {
        process.stderr.write(String(error.stdout ?? "") + String(error.stderr ?? ""));
        fail(`${what} failed (exit status ${error.status})`);
    }
    return seconds(start);
}

// A preload for the timed Node process: writes the CPU seconds (user + system, every
// thread) it used to $BENCH_CPU_FILE as it exits. On a shared machine wall time grows with
// the load; CPU time much less so.
function cpuReporter(cache) {
    const file = path.join(cache, "cpu-reporter.cjs");
    const text = 'process.on("exit", () => { const u = process.cpuUsage(); ' +
        'require("fs").writeFileSync(process.env.BENCH_CPU_FILE, String((u.user + u.system) / 1e6)); });\n';
    if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text) fs.writeFileSync(file, text);
    return file;
}

function median(values) {
    const s = [...values].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function load() {
    return os.loadavg().map((l) => l.toFixed(2)).join(" ");
}

// The circuit, its input and every artifact of size 2^k on `curve`, built or taken from
// the cache.
function prepare(k, curve, cache) {
    const dir = path.join(cache, `chain-p${String(k).padStart(2, "0")}`);
    // Constraints + 1 public input must stay below 2^k, or the domain doubles.
    const length = 2 ** k - Math.max(2, 2 ** (k - 6));
    const source = path.join(dir, `chain-p${k}.circom`);
    const text = `pragma circom 2.0.0;\ninclude "chain.circom";\n\ncomponent main {public [x]} = Chain(${length});\n`;
    fs.mkdirSync(path.join(dir, "inputs"), { recursive: true });
    // Rewritten only when different, so its mtime (the cache key) stays put.
    if (!fs.existsSync(source) || fs.readFileSync(source, "utf8") !== text) fs.writeFileSync(source, text);
    const input = path.join(dir, "inputs", "bench.json");
    const inputText = JSON.stringify({ x: "0x1d2f3e4c5b6a79880706f5e4d3c2b1a0", c: "0x2a2b2c2d2e2f30313233343536373839" }) + "\n";
    if (!fs.existsSync(input) || fs.readFileSync(input, "utf8") !== inputText) fs.writeFileSync(input, inputText);

    // Both print their result's path last on stdout and report on stderr.
    const lastLine = (script, args) => {
        try {
            return execFileSync(process.execPath, [path.join(jsDir, script), ...args],
                { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" }).trim().split("\n").pop();
        } catch (error) {
            fail(`${script} ${args.join(" ")}: exit status ${error.status}`);
        }
    };
    const start = performance.now();
    const ptau = lastLine("ptau-known-tau.mjs", ["--curve", curve, "--power", String(k)]);
    const ptauSeconds = seconds(start);
    const fixtureFile = lastLine("circuit-fixture.mjs",
        [source, dir, "--curve", curve, "--inputs", path.join(dir, "inputs"), "--ptau", ptau]);
    const fixture = JSON.parse(fs.readFileSync(fixtureFile, "utf8"));
    if (fixture.domainPower !== k) fail(`${source}: domain 2^${fixture.domainPower}, not 2^${k}`);
    return { dir, length, ptau, ptauSeconds, fixture };
}

function bench(k, args) {
    const { runs, cache } = args;
    const p = prepare(k, args.curve, cache);
    const { zkey, verificationKey } = p.fixture;
    const wtns = p.fixture.witnesses[0].wtns;
    const proof = path.join(p.dir, "proof.json"), publicJson = path.join(p.dir, "public.json");
    const loadBefore = load();
    const prove = [], proveCpu = [], verify = [];
    const cpuFile = path.join(p.dir, "prove-cpu.json");
    process.env.BENCH_CPU_FILE = cpuFile;
    for (let r = 0; r < runs; r++) {
        fs.rmSync(cpuFile, { force: true });
        prove.push(timed([process.execPath, "--require", cpuReporter(cache), snarkjs, "groth16", "prove", zkey, wtns, proof, publicJson],
            "snarkjs groth16 prove"));
        proveCpu.push(JSON.parse(fs.readFileSync(cpuFile, "utf8")));
        verify.push(timed([process.execPath, snarkjs, "groth16", "verify", verificationKey, publicJson, proof], "snarkjs groth16 verify (proof rejected?)"));
        process.stderr.write(`bench-snarkjs: 2^${k} run ${r + 1}/${runs}: prove ${prove[r].toFixed(2)} s (CPU ${proveCpu[r].toFixed(2)} s), verify ${verify[r].toFixed(2)} s (load ${load()})\n`);
    }
    const result = {
        log2: k, constraints: p.fixture.constraints, variables: p.fixture.variables,
        // Files named from the checkout's root, so a committed result says nothing of where it ran.
        zkeyBytes: fs.statSync(zkey).size, ptau: fromRoot(p.ptau), ptauSeconds: p.ptauSeconds, zkey: fromRoot(zkey),
        wtns: fromRoot(wtns),
        setupSeconds: p.fixture.timings.reduce((sum, t) => sum + (t.seconds ?? 0), 0) || null,
        proveSeconds: prove, proveCpuSeconds: proveCpu, verifySeconds: verify,
        proveMedian: median(prove), proveCpuMedian: median(proveCpu), verifyMedian: median(verify),
        loadBefore, loadAfter: load(),
    };
    if (args.zkbatchSkipped) {
        process.stderr.write(`bench-snarkjs: 2^${k} zkbatch prove skipped: ${args.zkbatchSkipped}\n`);
        return { ...result, zkbatchSkipped: args.zkbatchSkipped, zkbatchFirstSeconds: null, zkbatchSeconds: [],
                 zkbatchMedian: null, zkbatchProveMs: [], zkbatchProveMedianMs: null };
    }

    const z = zkbatchCommands({ zkbatch: args.zkbatch, backend: args.backend, zkey, wtns, outDir: path.join(p.dir, "zkbatch") });
    // Run 0 checks the key's points (the record starts empty); runs 1..runs find it checked.
    fs.rmSync(z.record, { force: true });
    const times = [], proveMs = [];
    for (let r = 0; r <= runs; r++) {
        fs.rmSync(z.proof, { force: true });
        times.push(timed(z.prove, "zkbatch prove", z.cwd));
        timed([process.execPath, snarkjs, "groth16", "verify", verificationKey, z.publicJson, z.proof],
            "snarkjs groth16 verify of zkbatch's proof (rejected?)");
        // The run's own "prove" phase: the proof alone, without the process and the key's reading.
        const shown = execFileSync(z.show[0], z.show.slice(1), { encoding: "utf8" });
        const line = shown.split("\n").find((l) => /^\s+prove\s/.test(l));
        if (line) proveMs.push(Number(line.trim().split(/\s+/)[2]));
        process.stderr.write(`bench-snarkjs: 2^${k} zkbatch prove ${r === 0 ? "(first)" : `${r}/${runs}`}: ` +
            `${times[r].toFixed(2)} s, prove phase ${proveMs[r]} ms\n`);
    }
    result.zkbatchFirstSeconds = times[0];
    result.zkbatchSeconds = times.slice(1);
    result.zkbatchMedian = median(result.zkbatchSeconds);
    result.zkbatchProveMs = proveMs;
    result.zkbatchProveMedianMs = proveMs.length ? median(proveMs) : null;
    return result;
}

function main() {
    const args = parseArguments(process.argv.slice(2));
    const context = {
        date: new Date().toISOString(), host: os.hostname(), cpus: os.cpus().length, cpu: os.cpus()[0]?.model,
        memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)), node: process.version,
        snarkjs: JSON.parse(fs.readFileSync(path.join(jsDir, "node_modules", "snarkjs", "package.json"), "utf8")).version,
        curve: args.curve, runs: args.runs, loadAtStart: load(),
    };
    const results = args.sizes.map((k) => bench(k, args));

    const f = (s) => (s == null ? "–" : s.toFixed(2));
    const zkbatchNote = args.zkbatchSkipped ? `zkbatch skipped (${args.zkbatchSkipped})` : `zkbatch --backend ${args.backend}`;
    console.log(`${args.curve}, snarkjs ${context.snarkjs}, Node ${context.node}, ${zkbatchNote}, ${context.cpus} cores ` +
        `(${context.cpu}), median of ${args.runs}; times are CLI wall clock, but zkbatch's prove phase (the proof alone); ` +
        `every proof accepted by snarkjs groth16 verify; zkbatch prove's first command checks the key's points, ` +
        `the later ones find them checked`);
    console.log("");
    console.log("| domain | constraints | zkey MB | known-tau ptau s | setup s (compile + setup + beacon) | snarkjs prove s (min–max) | prove CPU s | verify s | zkbatch prove, first s | speed-up | zkbatch prove, key checked before s | speed-up | zkbatch prove phase s | speed-up | load before → after |");
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const r of results) {
        const ratio = (seconds) => (seconds ? `${(r.proveMedian / seconds).toFixed(1)}×` : "–");
        const phase = r.zkbatchProveMedianMs == null ? null : r.zkbatchProveMedianMs / 1e3;
        console.log(`| 2^${r.log2} | ${r.constraints} | ${(r.zkeyBytes / 1e6).toFixed(1)} | ${r.ptauSeconds.toFixed(1)} | ${r.setupSeconds ? r.setupSeconds.toFixed(1) : "cached"} | ` +
            `${f(r.proveMedian)} (${f(Math.min(...r.proveSeconds))}–${f(Math.max(...r.proveSeconds))}) | ${f(r.proveCpuMedian)} | ${f(r.verifyMedian)} | ` +
            `${f(r.zkbatchFirstSeconds)} | ${ratio(r.zkbatchFirstSeconds)} | ${f(r.zkbatchMedian)} | ${ratio(r.zkbatchMedian)} | ` +
            `${f(phase)} | ${ratio(phase)} | ${r.loadBefore} → ${r.loadAfter} |`);
    }
    if (args.json) fs.writeFileSync(args.json, JSON.stringify({ context, results }, null, 1) + "\n");
}

main();
