#!/usr/bin/env python3
"""Independent check of zkbatch dumps (`zkbatch run --dump DIR`), in plain Python
integers, sharing no code with zkbatch.

For each partition P in DIR it reads pP.{a,b,c,h}.bin (n elements of 32 bytes,
canonical little-endian BLS12-381 Fr; a, b, c evaluations on the domain in natural
order, h coefficients in natural order) and checks:
  - every element is < r and all four files hold the same power-of-two n;
  - a_i * b_i == c_i for every i (the circuit is satisfied);
  - h[n-1] == 0;
  - A(x)B(x) - C(x) == h(x)(x^n - 1) at random x (barycentric evaluation, Horner);
  - for n <= 256, h equals (A*B - C) / (X^n - 1) computed by schoolbook algebra.
Exit status 0 when every partition passes, 1 otherwise.
"""
import pathlib
import random
import re
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
ROOT = 0x16A2A19EDFE81F20D09B681922C813B4B63683508C2280B93829971F439F0D2B  # 2^32-th root
TWO_ADICITY = 32


def read_vector(path):
    data = path.read_bytes()
    if len(data) % 32:
        raise ValueError(f"{path}: {len(data)} bytes is not a multiple of 32")
    values = [int.from_bytes(data[i:i + 32], "little") for i in range(0, len(data), 32)]
    for i, v in enumerate(values):
        if v >= R:
            raise ValueError(f"{path}: element {i} is not reduced (>= r)")
    return values


def batch_inverse(values):
    prefix, acc = [], 1
    for v in values:
        prefix.append(acc)
        acc = acc * v % R
    inv = pow(acc, R - 2, R)
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = prefix[i] * inv % R
        inv = inv * values[i] % R
    return out


def check_identity(a, b, c, h, omega, rng):
    n = len(a)
    x = rng.randrange(R)
    while pow(x, n, R) == 1:
        x = rng.randrange(R)
    powers = [1] * n
    for i in range(1, n):
        powers[i] = powers[i - 1] * omega % R
    inverses = batch_inverse([(x - w) % R for w in powers])
    zx = (pow(x, n, R) - 1) % R
    scale = zx * pow(n, R - 2, R) % R

    def at_x(values):
        return scale * sum(v * w % R * d for v, w, d in zip(values, powers, inverses)) % R

    hx = 0
    for coefficient in reversed(h):
        hx = (hx * x + coefficient) % R
    return (at_x(a) * at_x(b) - at_x(c)) % R == hx * zx % R


def schoolbook_quotient(a, b, c, omega):
    n = len(a)
    n_inv, omega_inv = pow(n, R - 2, R), pow(omega, R - 2, R)

    def interpolate(values):
        return [n_inv * sum(v * pow(omega_inv, i * k, R) for i, v in enumerate(values)) % R
                for k in range(n)]

    pa, pb, pc = interpolate(a), interpolate(b), interpolate(c)
    product = [0] * (2 * n - 1)
    for i, x in enumerate(pa):
        for j, y in enumerate(pb):
            product[i + j] = (product[i + j] + x * y) % R
    for i, z in enumerate(pc):
        product[i] = (product[i] - z) % R
    # Divide by X^n - 1 from the top: q[k] = p[k+n] + q[k+n].
    quotient = [0] * n
    for k in range(n - 2, -1, -1):
        quotient[k] = (product[k + n] + (quotient[k + n] if k + n < n else 0)) % R
    remainder = [(product[k] + quotient[k]) % R for k in range(n)]
    return quotient, remainder


def check_partition(folder, index, rng):
    a, b, c, h = (read_vector(folder / f"p{index}.{name}.bin") for name in "abch")
    n = len(a)
    if not (len(b) == len(c) == len(h) == n) or n & (n - 1):
        return f"sizes differ or are not a power of two: {len(a)}, {len(b)}, {len(c)}, {len(h)}"
    log_n = n.bit_length() - 1
    omega = pow(ROOT, 1 << (TWO_ADICITY - log_n), R)
    for i in range(n):
        if a[i] * b[i] % R != c[i]:
            return f"constraint {i} is not satisfied: a*b != c"
    if n > 1 and h[n - 1] != 0:
        return "h[n-1] != 0"
    for _ in range(2):
        if not check_identity(a, b, c, h, omega, rng):
            return "A(x)B(x) - C(x) != h(x)(x^n - 1) at a random x"
    if n <= 256:
        quotient, remainder = schoolbook_quotient(a, b, c, omega)
        if any(remainder):
            return "A*B - C is not divisible by X^n - 1"
        if quotient != h:
            return "h differs from the schoolbook quotient"
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: verify_dump.py DUMP_DIR", file=sys.stderr)
        return 2
    folder = pathlib.Path(sys.argv[1])
    indices = sorted({int(m.group(1)) for p in folder.glob("p*.h.bin")
                      if (m := re.fullmatch(r"p(\d+)\.h\.bin", p.name))})
    if not indices:
        print(f"{folder}: no pP.h.bin files", file=sys.stderr)
        return 1
    rng = random.SystemRandom()
    failures = 0
    for index in indices:
        problem = check_partition(folder, index, rng)
        print(f"partition {index}: {'ok' if problem is None else 'FAILED: ' + problem}")
        failures += problem is not None
    print(f"{len(indices) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
