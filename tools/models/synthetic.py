#!/usr/bin/env python3
"""An independent model of zkbatch's synthetic circuit, in plain Python integers.

It follows the stream layout documented in core/circuit/synthetic.cpp and shares no code
with it: SplitMix64 (Steele, Lea and Flood) keyed per partition, per witness element and
per row; field elements drawn as four 64-bit words, bit 255 cleared, values >= r
rejected, the words taken as the Montgomery representation (value = words * 2^-256 mod r);
row i: for each of the A terms and then the B terms, one word whose low log_n bits pick
the witness variable and one uniform element as its coefficient; a = <A_i, w>,
b = <B_i, w>, c = a * b.

It prints the known answers tests/math/synthetic_test.cpp (Synthetic.KnownAnswers)
freezes and exits 1 if any differs from the values below, which are the same as that
test's: the generator, this model and the test must change together. CI runs it
(ctest -R synthetic_model).
"""
import sys

MASK64 = (1 << 64) - 1
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
MONTGOMERY_INVERSE = pow(1 << 256, -1, R)
GAMMA = 0x9E3779B97F4A7C15
CIRCUIT_TAG = 0x7A6B62617463682D  # "zkbatch-"
WITNESS_STREAM, ROW_STREAM = 0, 1

KNOWN_ANSWERS = {
    # (log_n, terms_per_row, seed, partition, vector, row): canonical value
    (4, 3, 1, 0, "a", 0): 0x06E381364A91777EB53CBBDAC82F7F7D4BBD89D0AB5AA111C3F9B43E925E2C04,
    (4, 3, 1, 0, "b", 5): 0x1AFB838508BC714962CFEA4198960D71C7757DD569BD4C8B88896DA5942CD6AF,
    (4, 3, 1, 0, "c", 15): 0x592C16F8DD7D6BF8840327A6AC26CC4BB91979B61030C027B88F38AA0AC948B5,
    (0, 1, 0, 0, "a", 0): 0x025BBDCB74DC871B4CD6B5DBE20CF0AA99DA6B791DA120F73C1F3430D6D8893D,
}


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def derive_key(parent, child):
    return mix64(parent ^ mix64((child + GAMMA) & MASK64))


class SplitMix64:
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + GAMMA) & MASK64
        return mix64(self.state)


def uniform_element(generator):
    """The field element (a plain integer below r) of the next accepted draw."""
    while True:
        words = [generator.next() for _ in range(4)]
        words[3] &= 0x7FFFFFFFFFFFFFFF
        montgomery = sum(word << (64 * i) for i, word in enumerate(words))
        if montgomery < R:
            return montgomery * MONTGOMERY_INVERSE % R


def synthesize(log_n, terms_per_row, seed, partition):
    n = 1 << log_n
    partition_key = derive_key(derive_key(CIRCUIT_TAG, seed), partition)
    witness_key = derive_key(partition_key, WITNESS_STREAM)
    row_key = derive_key(partition_key, ROW_STREAM)
    witness = [uniform_element(SplitMix64(derive_key(witness_key, j))) for j in range(n)]
    a, b, c = [], [], []
    for i in range(n):
        generator = SplitMix64(derive_key(row_key, i))

        def linear_combination():
            total = 0
            for _ in range(terms_per_row):
                variable = generator.next() & (n - 1)
                total += uniform_element(generator) * witness[variable]
            return total % R

        a_i = linear_combination()
        b_i = linear_combination()
        a.append(a_i)
        b.append(b_i)
        c.append(a_i * b_i % R)
    return {"a": a, "b": b, "c": c}


def main():
    wrong = 0
    for (log_n, terms, seed, partition, vector, row), expected in KNOWN_ANSWERS.items():
        value = synthesize(log_n, terms, seed, partition)[vector][row]
        verdict = "ok" if value == expected else f"DIFFERS from 0x{expected:064x}"
        print(f"log_n {log_n}, terms_per_row {terms}, seed {seed}, partition {partition}: "
              f"{vector}[{row}] = 0x{value:064x} {verdict}")
        wrong += value != expected
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
