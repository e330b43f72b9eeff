#!/usr/bin/env python3
"""The NTT pass kernels' machine code, here, without a GPU or cuobjdump:

    tools/kernel_code_diff.py [--jobs N] [--source FILE.cu ...] [REV]   (REV defaults to HEAD)
    tools/kernel_code_diff.py --check-fused DIT_COUNT DIF_COUNT [REV]

compiles gpu/ntt/ntt_kernels.cu to an sm_90 cubin from git revision REV and from the
working tree, and prints for each kernel its instruction count (16 bytes each), whether
its code is byte-identical between the two, and how many instructions are IMAD.WIDE.U32
(.X): the fused form of the field products (docs/ntt.md#keeping-the-products-fused). The
last is read off the low 12 bits of each instruction (0x225 or 0x825), an observation that
matched cuobjdump's counts on every build compared side by side, not a documented
encoding. Identical code means identical speed; anything else is for a GPU
host (tools/gpu-bench.sh OUT variants).

--source FILE.cu (repeatable) compares the kernels of the files named instead, say every
.cu under gpu/msm and gpu/key (the fully inlined G2 ones take minutes each), compiling up
to --jobs of them at once (default 1).

--check-fused DIT_COUNT DIF_COUNT compiles one tree (REV, or the working tree) and fails
unless BLS12-381's DIT pass kernel over expanded power tables (PassKind 0, false) has exactly
DIT_COUNT IMAD.WIDE and its DIF pass kernel (PassKind 1, false) DIF_COUNT: the guard against a product whose reduction compiles split
into IMAD.X + IMAD.HI pairs (48 fewer), which costs the kernel about 10% without changing
a bit of the output (docs/ntt.md#keeping-the-products-fused). A change to the
kernels' products changes the counts on purpose; the ctest that runs this names them.
"""
import argparse
import collections
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The NTT kernels' source, and where its includes are found; trees before the layout of
# gpu/ kept them under core/.
SOURCES = ("gpu/ntt/ntt_kernels.cu", "core/cuda/src/ntt_kernels.cu")
INCLUDE_DIRS = (".", "core/cuda/include", "core/include")
WIDE_MULTIPLY_OPCODES = {0x225, 0x825}


def compile_command(tree, source, out):
    """nvcc's command for one source of `tree` (None: the NTT kernels, wherever the tree keeps them)."""
    nvcc = os.environ.get("CUDACXX", "/usr/local/cuda/bin/nvcc")
    if source is None:
        source = next(s for s in SOURCES if os.path.exists(os.path.join(tree, s)))
    includes = [flag for d in INCLUDE_DIRS for flag in ("-I", os.path.join(tree, d))]
    return [nvcc, "-O3", "-DNDEBUG", "-DZKBATCH_VERSION=\"0\"", "-std=c++20", "-cubin", "-arch=sm_90",
            *includes, os.path.join(tree, source), "-o", out]


def kernel_code(cubin):
    """{kernel name: machine code} from the cubin's .text.<kernel> sections (ELF64)."""
    data = open(cubin, "rb").read()
    (section_offset,) = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + i * entry_size) for i in range(count)]
    names_offset = headers[names_index][4]
    code = {}
    for header in headers:
        start = names_offset + header[0]
        name = data[start:data.index(b"\0", start)].decode()
        if name.startswith(".text."):
            code[readable(name[len(".text."):])] = data[header[4]:header[4] + header[5]]
    return code


def readable(mangled):
    """ntt_pass_kernel<PassKind 1> for the mangled name (whose anonymous namespace's part
    depends on the file's path, so the two trees' names differ)."""
    name = subprocess.run(["c++filt", mangled], check=True, capture_output=True, text=True).stdout.strip()
    name = re.sub(r"^void |zkbatch::cuda::ntt::|\(anonymous namespace\)::", "", name)
    # BLS12-381's fields by the names they had before they were instances of one template.
    name = re.sub(r"zkbatch::ff::MontgomeryField<zkbatch::ff::bls12_381::(F[rp])Description>", r"zkbatch::ff::\1", name)
    # BN254's as its aliases name them.
    name = re.sub(r"zkbatch::ff::MontgomeryField<zkbatch::ff::bn254::(F[rq])Description>", r"zkbatch::ff::bn254::\1",
                  name)
    name = name.replace(" >", ">")
    name = re.sub(r"\([^()]*\)$", "", name)  # the parameters
    return re.sub(r"\(PassKind\)(\d)", r"PassKind \1", name)


def wide_multiplies(code):
    opcodes = collections.Counter(struct.unpack_from("<Q", code, i)[0] & 0xFFF for i in range(0, len(code), 16))
    return sum(opcodes[opcode] for opcode in WIDE_MULTIPLY_OPCODES)


def source_tree(revision, scratch):
    """The folder holding git revision `revision`'s core/ and gpu/, or the working tree (None)."""
    if revision is None:
        return ROOT
    tree = os.path.join(scratch, revision.replace("/", "_"))
    os.mkdir(tree)
    paths = [p for p in ("core", "gpu") if subprocess.run(["git", "-C", ROOT, "cat-file", "-e", f"{revision}:{p}"],
                                                          capture_output=True).returncode == 0]
    archive = subprocess.run(["git", "-C", ROOT, "archive", revision, *paths], check=True, capture_output=True)
    subprocess.run(["tar", "x", "-C", tree], input=archive.stdout, check=True)
    return tree


def compiled_kernels(revisions, sources, scratch, jobs):
    """{revision: {kernel name: machine code}} over every source, compiling up to `jobs` at once."""
    work = []  # (revision, nvcc's command), the command's last argument its cubin
    for index, revision in enumerate(revisions):
        tree = source_tree(revision, scratch)
        for number, source in enumerate(sources):
            work.append((revision, compile_command(tree, source, os.path.join(scratch, f"{index}_{number}.cubin"))))
    pending, running = [command for _, command in work], []
    while pending or running:
        while pending and len(running) < jobs:
            running.append(subprocess.Popen(pending.pop(0)))
        time.sleep(1)
        for process in [p for p in running if p.poll() is not None]:
            running.remove(process)
            if process.returncode != 0:
                raise subprocess.CalledProcessError(process.returncode, process.args)
    kernels = {revision: {} for revision in revisions}
    for revision, command in work:
        kernels[revision].update(kernel_code(command[-1]))
    return kernels


def tree_kernels(revision, scratch):
    """The NTT kernels compiled from git revision `revision`, or from the working tree (None)."""
    return compiled_kernels([revision], [None], scratch, 1)[revision]


def check_fused(expected, revision):
    """expected: {kernel name: IMAD.WIDE count}."""
    with tempfile.TemporaryDirectory() as scratch:
        kernels = tree_kernels(revision, scratch)
    failed = False
    for name, count in sorted(expected.items()):
        actual = wide_multiplies(kernels[name]) if name in kernels else None
        print(f"{name}: {actual} IMAD.WIDE, expected {count}")
        failed |= actual != count
    if failed:
        print("FAIL: a product compiled split (IMAD.X + IMAD.HI pairs) has 48 fewer IMAD.WIDE "
              "(docs/ntt.md#keeping-the-products-fused); a deliberate change to the products updates the counts")
        return 1
    print("ok: the products compile as they did when the counts were set")
    return 0


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--check-fused":
        expected = {"ntt_pass_kernel<PassKind 0, false, zkbatch::ff::Fr>": int(sys.argv[2]),
                    "ntt_pass_kernel<PassKind 1, false, zkbatch::ff::Fr>": int(sys.argv[3])}
        return check_fused(expected, sys.argv[4] if len(sys.argv) > 4 else None)
    parser = argparse.ArgumentParser(description="Compare kernels' machine code between REV and the working tree.")
    parser.add_argument("--source", action="append", help="a .cu file to compare (default: the NTT kernels)")
    parser.add_argument("--jobs", type=int, default=1, help="compilations at once")
    parser.add_argument("revision", nargs="?", default="HEAD")
    arguments = parser.parse_args()
    revision = arguments.revision
    with tempfile.TemporaryDirectory() as scratch:
        kernels = compiled_kernels([revision, None], arguments.source or [None], scratch, max(1, arguments.jobs))
        old, new = kernels[revision], kernels[None]
    # A kernel that gained template arguments (ntt_pass_kernel<PassKind 0> became
    # <PassKind 0, false> and <PassKind 0, true>; bit_reverse_kernel became one per field)
    # is compared with the one of its instances whose code is its old code, if any.
    renamed = {}
    for name in set(old) - set(new):
        prefix = name[:-1] + ", " if name.endswith(">") else name + "<"
        for candidate in sorted(set(new) - set(old)):
            if candidate.startswith(prefix) and new[candidate] == old[name]:
                renamed[candidate] = name
    print(f"| kernel | instructions {revision} / here | IMAD.WIDE {revision} / here | code |")
    print("|---|---|---|---|")
    for name in sorted((set(old) - set(renamed.values())) | set(new)):
        was = renamed.get(name, name)
        counts = [(len(code[key]) // 16, wide_multiplies(code[key])) if key in code else ("-", "-")
                  for code, key in ((old, was), (new, name))]
        verdict = "identical" if old.get(was) == new.get(name) else "differs"
        if was != name:
            verdict += f" (was {was})"
        print(f"| {name} | {counts[0][0]} / {counts[1][0]} | {counts[0][1]} / {counts[1][1]} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
