#!/usr/bin/env python3
"""An independent model of zkbatch's synthetic R1CS (core/circuit/synthetic_r1cs.hpp).

Plain Python integers, sharing no code with zkbatch: it re-derives the circuit and a
partition's witness from the stream layout the header documents, and checks the values
the C++ tests freeze (tests/groth16/synthetic_r1cs_test.cpp, KnownAnswers). CI runs it
(ctest synthetic_r1cs_model); `--print` shows the values for a new known answer;
`--unreferenced LOG_N [BOOLEAN_SHARE]` the shares of variables no A or B term references.
"""
import math
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MONT_R_INV = pow(1 << 256, -1, R)


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def derive_key(parent, child):
    return mix64(parent ^ mix64((child + GAMMA) & MASK))


class SplitMix64:
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + GAMMA) & MASK
        return mix64(self.state)


def uniform_fr(stream):
    """ff::uniform_fr: accepted words are the Montgomery form; returns the value."""
    while True:
        words = [stream.next() for _ in range(4)]
        words[3] &= 0x7FFFFFFFFFFFFFFF
        mont = sum(w << (64 * i) for i, w in enumerate(words))
        if mont < R:
            return mont * MONT_R_INV % R


def tag(text):
    return int.from_bytes(text.encode(), "big")


class Circuit:
    def __init__(self, log_n, terms, inputs, share, seed):
        self.n, self.terms, self.inputs = 1 << log_n, terms, inputs
        self.constraints = self.n - inputs - 1
        self.all_boolean = share == 1.0
        self.threshold = 0 if self.all_boolean else int(math.ldexp(share, 64))
        block_log = min(16, max(0, log_n - 6))
        self.block_rows = 1 << block_log
        self.window = 4 * self.block_rows
        circuit_key = derive_key(derive_key(tag("zkb-r1cs"), seed), 1)  # format version 1
        self.rows_key = derive_key(circuit_key, 0)

    def is_boolean(self, word):
        return self.all_boolean or word < self.threshold

    def terms_of(self, row):
        """[(matrix 'a'|'b'|'c', variable, coefficient)] of one row."""
        if row >= self.constraints:
            return [("a", row - self.constraints, 1)]
        defined = self.inputs + 1 + row
        stream = SplitMix64(derive_key(self.rows_key, row))
        if self.is_boolean(stream.next()):
            return [("a", defined, 1), ("b", defined, 1), ("b", 0, R - 1)]
        end = self.inputs + 1 + (row // self.block_rows) * self.block_rows
        begin = max(0, end - self.window)
        out = []
        for matrix in "ab":
            for _ in range(self.terms):
                variable = begin + stream.next() % (end - begin)
                out.append((matrix, variable, uniform_fr(stream)))
        out.append(("c", defined, 1))
        return out

    def synthesize(self, job_seed, partition):
        witness_key = derive_key(derive_key(tag("zkb-witn"), job_seed), partition)
        z = [None] * self.n
        z[0] = 1
        for i in range(1, self.inputs + 1):
            z[i] = uniform_fr(SplitMix64(derive_key(witness_key, i)))
        for row in range(self.constraints):
            if self.is_boolean(SplitMix64(derive_key(self.rows_key, row)).next()):
                z[self.inputs + 1 + row] = SplitMix64(derive_key(witness_key, self.inputs + 1 + row)).next() & 1
        a, b, c = [0] * self.n, [0] * self.n, [0] * self.n
        for row in range(self.n):  # in row order: every reference is to an earlier row's variable
            sums = {"a": 0, "b": 0, "c": 0}
            for matrix, variable, coefficient in self.terms_of(row):
                if matrix == "c":
                    z[variable] = sums["a"] * sums["b"] % R
                sums[matrix] = (sums[matrix] + coefficient * z[variable]) % R
            a[row], b[row], c[row] = sums["a"], sums["b"], sums["c"]
            assert a[row] * b[row] % R == c[row]
        return z, a, b, c


# (shape, job seed, partition) -> {name: value}, as KnownAnswers in the C++ test has them.
CASES = [
    ((6, 2, 2, 0.5, 3), 1, 0),
    ((12, 3, 1, 0.9, 1), 7, 5),
]


def values(case):
    """The frozen values: a public input, the first and last product rows (their
    variables and sums) and how many rows are boolean."""
    (log_n, terms, inputs, share, seed), job_seed, partition = case
    circuit = Circuit(log_n, terms, inputs, share, seed)
    z, a, b, c = circuit.synthesize(job_seed, partition)
    kinds = [circuit.is_boolean(SplitMix64(derive_key(circuit.rows_key, row)).next())
             for row in range(circuit.constraints)]
    products = [row for row, boolean in enumerate(kinds) if not boolean]
    first, last = products[0], products[-1]
    return {"z[1]": z[1], "first product row": first, "last product row": last,
            "a[first]": a[first], "b[first]": b[first], "z[last variable]": z[inputs + 1 + last],
            "b[last]": b[last], "boolean rows": sum(kinds)}


EXPECTED = [
    {"z[1]": 0x52dd7e8c4954e90134dd9971ceeabb997d321d4e528dce3fa84d1d662103fa74, "first product row": 2,
     "last product row": 59, "a[first]": 0x19b001eaaaeb81f288d590324867af39ecfb2f2e376003b9781c1c7365aff29f,
     "b[first]": 0x44dfb32308ed2ffb42b47aaef2388088de97a2e574555708e62ea7ef34e0af78, "z[last variable]": 0,
     "b[last]": 0, "boolean rows": 24},
    {"z[1]": 0x34aca1901a7f29a80e69c30805db6f03a6a47ebbffd29be9c6f98ed49a7dcb98, "first product row": 11,
     "last product row": 4090, "a[first]": 0x0b2f512bcc95739e9a0186ff8b28266a877492b55c30c850eb678a3bab97baed,
     "b[first]": 0x2cd24a3f3b2f495a2a8ffe1cb9931949e5bc5e93a55134c5bfcfc2fb3e14afed, "z[last variable]": 0,
     "b[last]": 0x5dfc69e80b6ab51f8ce970303c26499dd40e74df85a70771060219d36ca0e874, "boolean rows": 3677},
]


def unreferenced(log_n, share):
    """The shares of variables that no A term and no B term references: their points in
    the key's A and B queries are infinity (docs/msm.md#points-at-infinity). The job
    manifests' circuit: 4 terms a row, 1 public input, seed 1."""
    circuit = Circuit(log_n, 4, 1, share, 1)
    referenced = {"a": bytearray(circuit.n), "b": bytearray(circuit.n)}
    for row in range(circuit.n):
        for matrix, variable, _ in circuit.terms_of(row):
            if matrix in referenced:
                referenced[matrix][variable] = 1
    return {m: 1 - sum(seen) / circuit.n for m, seen in referenced.items()}


def main():
    if "--unreferenced" in sys.argv:  # --unreferenced LOG_N [BOOLEAN_SHARE]
        at = sys.argv.index("--unreferenced")
        log_n = int(sys.argv[at + 1])
        share = float(sys.argv[at + 2]) if len(sys.argv) > at + 2 else 0.0
        shares = unreferenced(log_n, share)
        print(f"2^{log_n}, boolean share {share}: unreferenced in A {shares['a']:.3%}, in B {shares['b']:.3%}")
        return 0
    if "--print" in sys.argv:
        for case in CASES:
            print(case, {k: hex(v) for k, v in values(case).items()})
        return 0
    failures = 0
    for case, expected in zip(CASES, EXPECTED):
        got = values(case)
        for key, value in expected.items():
            if got[key] != value:
                print(f"MISMATCH {case} {key}: model {got[key]:#x}, frozen {value:#x}")
                failures += 1
    print("synthetic R1CS model:", "ok" if failures == 0 else f"{failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
