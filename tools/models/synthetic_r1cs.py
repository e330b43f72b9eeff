#!/usr/bin/env python3
"""An independent model of zkbatch's synthetic R1CS (core/circuit/synthetic_r1cs.hpp),
both profiles (the PoRep profile: core/circuit/porep_profile.hpp, docs/porep.md).

Plain Python integers, sharing no code with zkbatch: it re-derives the circuit and a
partition's witness from the stream layout the headers document, and checks the values
the C++ tests freeze (tests/groth16/synthetic_r1cs_test.cpp, KnownAnswers and
PorepKnownAnswers) and the PoRep profile's counts at 2^27. CI runs it (ctest
synthetic_r1cs_model); `--print` shows the values for a new known answer;
`--unreferenced LOG_N [BOOLEAN_SHARE]` the shares of variables no A or B term references;
`--porep-counts LOG_N [BIT_SHARE]` the PoRep profile's counts at 2^LOG_N.
"""
import bisect
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


# ---- The PoRep profile (circuit.profile = "porep") ----------------------------------

# Published facts of one 32 GiB PoRep partition (docs/porep.md): at 2^27, constraint
# rows without the 328 input rows, private (aux) variables, and how many of those appear
# in A and in B.
PUBLISHED_CONSTRAINTS = 130_278_869 - 328
PUBLISHED_AUX = 130_169_893
PUBLISHED_AUX_IN_A = 129_753_292
PUBLISHED_AUX_IN_B = 33_112_281
POREP_PUBLIC_INPUTS = 327
POREP_BIT_SHARE = 0.987032085829555  # the estimate: 1,688,032 full-size values at 2^27
POREP_MIN_BIT_SHARE = 0.5
CANDIDATES = 32


def porep_template():
    """[(is_full, nominal length at 2^27)] in synthesis order."""
    segments = [(True, 5), (False, 255), (True, 311)]
    for _ in range(18):
        for _ in range(30):
            segments += [(False, 45_000), (True, 4)]
        for _ in range(14):
            segments += [(True, 5_890), (False, 30)]
        segments.append((False, 64))
        for _ in range(11):
            segments += [(False, 522_000), (True, 1)]
        segments.append((True, 11_171))
    return segments


def scaled(value, log_n):
    return (value * (1 << log_n) + (1 << 26)) >> 27


class Porep:
    """The layout and rows, by the rules docs/porep.md and porep_profile.hpp state."""
    def __init__(self, log_n, inputs, share, seed):
        self.log_n, self.inputs, self.seed = log_n, inputs, seed
        self.n = 1 << log_n
        self.aux = scaled(PUBLISHED_AUX, log_n)
        self.constraints = scaled(PUBLISHED_CONSTRAINTS, log_n)
        self.aux_in_a = scaled(PUBLISHED_AUX_IN_A, log_n)
        self.aux_in_b = scaled(PUBLISHED_AUX_IN_B, log_n)
        self.checks = self.constraints - self.aux
        assert self.constraints + inputs + 1 <= self.n
        if share == 1.0:
            self.bits = self.aux
        else:
            self.bits = (int(math.ldexp(share, 64)) * self.aux + (1 << 63)) >> 64
        self.full = self.aux - self.bits
        # Segments: each kind's total spread over its nominal lengths, in order.
        template = porep_template()
        totals = {True: sum(l for f, l in template if f), False: sum(l for f, l in template if not f)}
        targets = {True: self.full, False: self.bits}
        prefix = {True: 0, False: 0}
        self.segments = []  # (first aux, length, is_full, bits before)
        first, bits_before = 0, 0
        for full, nominal in template:
            start = targets[full] * prefix[full] // totals[full]
            prefix[full] += nominal
            length = targets[full] * prefix[full] // totals[full] - start
            if length == 0:
                continue
            self.segments.append((first, length, full, bits_before))
            first += length
            if not full:
                bits_before += length
        assert first == self.aux and bits_before == self.bits
        self.full_ab = sum((length - 1) // 2 for _, length, full, _ in self.segments if full)
        self.bits_ab = self.aux_in_b - self.full_ab
        self.bits_c = self.aux - self.aux_in_a
        self.bits_a = self.bits - self.bits_ab - self.bits_c
        assert self.bits_ab >= 0 and self.bits_a >= 0
        self.block_rows = 1 << min(16, max(0, log_n - 6))
        self.lookback = 3 * self.block_rows
        self.rows_key = derive_key(derive_key(derive_key(tag("zkb-prep"), seed), 1), 0)
        self.candidates = {}

    def segment_of(self, aux):
        return self.segments[bisect.bisect_right([s[0] for s in self.segments], aux) - 1]

    def kind(self, aux):
        """'ab' (a free bit), 'a' (a NOT bit), 'c' (an XOR bit), 'full-ab', 'full-a', and
        the offset and length of a full value's cluster."""
        first, length, full, bits_before = self.segment_of(aux)
        if full:
            offset = aux - first
            return ("full-ab" if offset % 2 == 0 and offset + 3 <= length else "full-a"), offset, length
        t = bits_before + aux - first
        ab_before = t * self.bits_ab // self.bits
        if (t + 1) * self.bits_ab // self.bits > ab_before:
            return "ab", 0, 0
        u = t - ab_before
        rest = self.bits - self.bits_ab
        return ("c" if (u + 1) * self.bits_c // rest > u * self.bits_c // rest else "a"), 0, 0

    def is_check(self, row):
        return (row + 1) * self.checks // self.constraints > row * self.checks // self.constraints

    def first_aux_of_block(self, row):
        first_row = row // self.block_rows * self.block_rows
        return first_row - first_row * self.checks // self.constraints

    def block_candidates(self, row):
        end = self.first_aux_of_block(row)
        if end not in self.candidates:
            found = []
            for aux in range(end - 1, max(0, end - self.lookback) - 1, -1):
                if len(found) == CANDIDATES:
                    break
                if self.kind(aux)[0] == "ab":
                    found.append(self.inputs + 1 + aux)
            self.candidates[end] = found or [0]
        return self.candidates[end]

    def row(self, row):
        """(kind, defined variable or None, [(matrix, variable, coefficient)])."""
        if row >= self.constraints:
            i = row - self.constraints
            return ("input", None, [("a", i, 1)]) if i <= self.inputs else ("padding", None, [])
        stream = SplitMix64(derive_key(self.rows_key, row))
        candidates = self.block_candidates(row)
        pick = lambda: candidates[stream.next() % len(candidates)]
        if self.is_check(row):
            x = pick()
            return "check", None, [("a", 0, 1), ("a", x, R - 1), ("b", x, 1)]
        aux = row - row * self.checks // self.constraints
        z = self.inputs + 1 + aux
        kind, offset, length = self.kind(aux)
        if kind == "ab":
            return "ab", z, [("a", 0, 1), ("a", z, R - 1), ("b", z, 1)]
        if kind == "a":
            y = pick()
            return "a", z, [("a", z, 1), ("b", 0, 1), ("c", 0, 1), ("c", y, R - 1)]
        if kind == "c":
            x, y = pick(), pick()
            return "c", z, [("a", x, 2), ("b", y, 1), ("c", x, 1), ("c", y, 1), ("c", z, R - 1)]
        if offset == 0:
            end = self.inputs + 1 + self.first_aux_of_block(row)
            begin = max(0, end - self.lookback)
            terms = [("a", z, 1), ("b", 0, 1), ("c", 0, uniform_fr(stream))]
            for _ in range(4):
                variable = begin + stream.next() % (end - begin)
                terms.append(("c", variable, uniform_fr(stream)))
            return "head", z, terms
        pred = z - 1
        if offset == length - 1:
            c, d = uniform_fr(stream), uniform_fr(stream)
            return "last", z, [("a", z, 1), ("a", pred, (R - c) % R), ("b", 0, 1), ("c", 0, d)]
        a, b = uniform_fr(stream), uniform_fr(stream)
        if (offset - 1) % 2 == 0:
            return "square", z, [("a", pred, 1), ("a", 0, a), ("b", pred, 1), ("b", 0, b), ("c", z, 1)]
        return "scale", z, [("a", pred, 1), ("a", 0, a), ("b", 0, b), ("c", z, 1)]

    def synthesize(self, job_seed, partition):
        """z, a, b, c in row order, each defined variable solved from its own row (the one
        term it has, with the row's other sums), every row checked."""
        witness_key = derive_key(derive_key(tag("zkb-witn"), job_seed), partition)
        z = [None] * (self.inputs + 1 + self.aux)
        z[0] = 1
        for i in range(1, self.inputs + 1):
            z[i] = uniform_fr(SplitMix64(derive_key(witness_key, i)))
        for aux in range(self.aux):
            if self.kind(aux)[0] == "ab":
                v = self.inputs + 1 + aux
                z[v] = SplitMix64(derive_key(witness_key, v)).next() & 1
        a, b, c = [0] * self.n, [0] * self.n, [0] * self.n
        for row in range(self.n):
            kind, defined, terms = self.row(row)
            if defined is not None and z[defined] is None:
                sums, own = {"a": 0, "b": 0, "c": 0}, {}
                for matrix, variable, coefficient in terms:
                    if variable == defined:
                        own[matrix] = coefficient
                    else:
                        sums[matrix] = (sums[matrix] + coefficient * z[variable]) % R
                assert len(own) == 1, (kind, own)
                (matrix, coefficient), = own.items()
                if matrix == "a":  # (A0 + k z) B = C
                    value = (sums["c"] * pow(sums["b"], -1, R) - sums["a"]) * pow(coefficient, -1, R)
                else:  # A B = C0 + k z
                    value = (sums["a"] * sums["b"] - sums["c"]) * pow(coefficient, -1, R)
                z[defined] = value % R
            sums = {"a": 0, "b": 0, "c": 0}
            for matrix, variable, coefficient in terms:
                sums[matrix] = (sums[matrix] + coefficient * z[variable]) % R
            a[row], b[row], c[row] = sums["a"], sums["b"], sums["c"]
            assert a[row] * b[row] % R == c[row], (row, kind)
        return z, a, b, c

    def counts(self):
        """What the layout says, without the rows."""
        return {"rows": self.constraints + self.inputs + 1, "variables": self.inputs + 1 + self.aux,
                "aux": self.aux, "aux in A": self.bits_ab + self.bits_a + self.full,
                "aux in B": self.bits_ab + self.full_ab, "bit-valued": self.bits}


# (log_n, public inputs, bit share, circuit seed), job seed, partition
POREP_CASES = [
    ((10, 3, POREP_BIT_SHARE, 5), 2, 1),
    ((12, 2, 0.6, 1), 7, 0),  # clusters of several full values: every kind of chain row
]


def weighted_sum(values):
    return sum((i + 1) * v for i, v in enumerate(values)) % R


def porep_values(case):
    """The frozen values: the first full value, sum (i + 1) v_i over z, a, b and c, how
    many private values are bits and how many of those are 1, and the private variables
    the rows reference in A and in B."""
    (log_n, inputs, share, seed), job_seed, partition = case
    circuit = Porep(log_n, inputs, share, seed)
    z, a, b, c = circuit.synthesize(job_seed, partition)
    first = inputs + 1 + next(k for k in range(circuit.aux) if circuit.kind(k)[0].startswith("full"))
    in_a, in_b = set(), set()
    for row in range(circuit.n):
        for matrix, variable, _ in circuit.row(row)[2]:
            if variable > inputs:
                (in_a if matrix == "a" else in_b if matrix == "b" else set()).add(variable)
    aux = z[inputs + 1:]
    return {"z[first full]": z[first], "z sum": weighted_sum(z), "a sum": weighted_sum(a),
            "b sum": weighted_sum(b), "c sum": weighted_sum(c), "bit-valued": sum(1 for v in aux if v in (0, 1)),
            "ones": sum(1 for v in aux if v == 1), "aux in A": len(in_a), "aux in B": len(in_b)}


POREP_EXPECTED = [
    {"z[first full]": 0x1f92768c4dd5a0b75f74568b97f427d54b64f4fbba3eccf38b2f9ef4817caceb,
     "z sum": 0x39b3c631aafa3924a486c6d5d75162c92c1b00ff00c5c21a76fe27ffba8eef57,
     "a sum": 0x2186a37fbb1dd6e5ff55c7451426316f7725ce4d6ff1c715de0ebaebf35bc112, "b sum": 421049,
     "c sum": 0x654f9f1d98963408d09a3b10de994c5a536fa653501f5b7086237d5274a0cd38,
     "bit-valued": 980, "ones": 493, "aux in A": 990, "aux in B": 253},
    {"z[first full]": 0x5711218623056294ab4aa62af28d49951dc5c0d39b93ff49d7029198ea38b07d,
     "z sum": 0x0caccf9e568275ef6aa0ea53c931cfb3f535923600c67dbc3cb73e3de3c9dab6,
     "a sum": 0x02c61fe848bf31f0a8cfe1eeed110eab02dac4ae45835fe7692c5ce6af60346c,
     "b sum": 0x51c9a3cec50c9b15d1121ad5424d5b8170bbf77fc5c59b9896c9800d152a1eb0,
     "c sum": 0x0e0e8f122f9aa54c25f823d7f300259a51be96e31f08cbeb4bb1317c2aff2fd7,
     "bit-valued": 2383, "ones": 1242, "aux in A": 3960, "aux in B": 1011},
]

# At 2^27 the layout must give the published counts (and the estimated bit-valued one).
POREP_PUBLISHED = {"rows": 130_278_869, "variables": 130_170_221, "aux": 130_169_893, "aux in A": 129_753_292,
                   "aux in B": 33_112_281, "bit-valued": 128_481_861}


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


def check(name, got, expected):
    mismatches = 0
    for key, value in expected.items():
        if got[key] != value:
            print(f"MISMATCH {name} {key}: model {got[key]:#x}, frozen {value:#x}")
            mismatches += 1
    return mismatches


def main():
    if "--unreferenced" in sys.argv:  # --unreferenced LOG_N [BOOLEAN_SHARE]
        at = sys.argv.index("--unreferenced")
        log_n = int(sys.argv[at + 1])
        share = float(sys.argv[at + 2]) if len(sys.argv) > at + 2 else 0.0
        shares = unreferenced(log_n, share)
        print(f"2^{log_n}, boolean share {share}: unreferenced in A {shares['a']:.3%}, in B {shares['b']:.3%}")
        return 0
    if "--porep-counts" in sys.argv:  # --porep-counts LOG_N [BIT_SHARE]
        at = sys.argv.index("--porep-counts")
        log_n = int(sys.argv[at + 1])
        share = float(sys.argv[at + 2]) if len(sys.argv) > at + 2 else POREP_BIT_SHARE
        circuit = Porep(log_n, POREP_PUBLIC_INPUTS, share, 1)
        for key, value in circuit.counts().items():
            print(f"{key:>10}: {value:>12,} ({value / circuit.aux:.4%} of aux)")
        return 0
    if "--print" in sys.argv:
        for case in CASES:
            print(case, {k: hex(v) for k, v in values(case).items()})
        for case in POREP_CASES:
            print(case, {k: hex(v) for k, v in porep_values(case).items()})
        return 0
    failures = 0
    for case, expected in zip(CASES, EXPECTED):
        failures += check(case, values(case), expected)
    for case, expected in zip(POREP_CASES, POREP_EXPECTED):
        failures += check(case, porep_values(case), expected)
    failures += check("porep at 2^27", Porep(27, POREP_PUBLIC_INPUTS, POREP_BIT_SHARE, 1).counts(), POREP_PUBLISHED)
    print("synthetic R1CS model:", "ok" if failures == 0 else f"{failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
