#!/usr/bin/env bash
# zkbatch's GPU checks and measurements on one GPU host (an H100 80 GB, an H200 141 GB or a
# smaller card), run from a checkout of this repository:
#
#   tools/gpu-bench.sh OUT_DIR [STEP...]
#
# Binaries: from .bundle/ (tools/make-bundle.sh: zkbatch, its plugins, the GPU suite, the
# benchmarks and the shared libraries they need; ZKBATCH_BUNDLE=DIR for a bundle elsewhere),
# or, with ZKBATCH_BUILD=DIR, from a Release build tree configured with -DZKBATCH_CUDA=ON
# -DZKBATCH_BENCHMARKS=ON (DIR/zkbatch, DIR/plugins/, DIR/gpu_tests, DIR/*_bench).
# ZKBATCH_BUILD wins when it is set.
#
# OUT_DIR (made if missing) gets, for each step, STEP.log (all the step printed), STEP.db
# (its zkbatch runs, each tagged step=STEP and shape=...: `zkbatch runs --db OUT_DIR/STEP.db`)
# and STEP.md (a short summary table), plus host.md (the host, its GPUs, the binaries).
# The summaries are printed last. Running again into the same OUT_DIR adds runs to its
# databases; each summary shows the runs of this invocation.
#
# Steps, run in the order named (default: tests kernels msm proofs snarkjs):
#   tests      the GPU suite, gpu_tests (GPU_BENCH_TEST_FILTER: a gtest filter, default all).
#              Its circom cases need the fixtures in tools/js/cache/circom (a build's tests
#              make them; ZKBATCH_CIRCOM_CACHE names another folder); they skip without.
#   kernels    ntt_kernel_bench: NTTs and the quotient (7 NTTs + pointwise) on device-resident
#              data at GPU_BENCH_KERNEL_LOG_NS (default 20,22,24,26,27), for each pass plan
#              of GPU_BENCH_KERNEL_PLANS (default 10:10; STAGES:TILE_LOG,...).
#   msm        msm_kernel_bench: G1 and G2 MSMs on device-resident bases, plain and over base
#              tables, at GPU_BENCH_MSM_LOG_NS (default 16,18,20,22,24,26): the sizes up to
#              2^24 in one run, each larger one in runs of its own (G1 and G2 plain, then G1
#              over a table), so a size the card cannot hold fails alone.
#              GPU_BENCH_MSM_REPETITIONS (default 11); GPU_BENCH_MSM_ARGS adds arguments.
#   proofs     whole Groth16 proofs (jobs/groth16-gpu.toml) on cuda-pinned: one prove worker,
#              replayed inputs, the key made on the device (setup.key = "backend"), MSM
#              tables and B2's rounds where memory allows, for each size of GPU_BENCH_LOG_NS
#              (default "24 26 27") and each share of boolean witness values of
#              GPU_BENCH_BOOLEAN_SHARES (default "0 0.9": full density, then PoRep-like;
#              "porep" is the PoRep profile, jobs/porep-32g.toml).
#              GPU_BENCH_PARTITIONS: partitions per size (default "24:8 26:6 27:5"; 4 for a
#              size not listed). A shape the device or the host cannot hold is refused by
#              zkbatch before it proves, and the summary gives its reason. Summary: median
#              ms a partition of the prove call and of each of its steps (quotient; MSMs A,
#              B in G1, B in G2, L, H), as the backend timed them.
#   ab         pinned against pageable host memory: the same proofs on cuda-pinned, then on
#              cuda-pageable (two prove workers, two replayed input sets, the key made on the
#              device), at GPU_BENCH_AB_LOG_NS (default "24 26") x GPU_BENCH_BOOLEAN_SHARES,
#              GPU_BENCH_AB_PARTITIONS partitions each (default 12), then `zkbatch compare`
#              of each pair (same inputs: the proofs must be the same bytes). A pair whose two
#              workers do not fit beside the key runs again with one. From 2^27 each arm
#              runs one worker and one input set, and zkbatch refuses an arm the host's
#              memory cannot hold (the summary gives the estimate).
#   snarkjs    the circom fixtures (ZKBATCH_CIRCOM_CACHE, default tools/js/cache/circom)
#              proved on both CUDA backends into snarkjs.db, then every proof of OUT_DIR's
#              databases exported and checked by snarkjs (tools/verify-exported-proofs.sh).
#              The check needs node, tools/js/node_modules and sqlite3; a GPU host without
#              them still proves, and the step says the command that checks the databases
#              on any machine that has them (the fixtures' folders copied with them).
#   copies     copy_overlap_bench: whether uploads and downloads overlap, alone and in the
#              prove workers' pattern, with the driver's default work queues and with 32.
#   multigpu   (2 or more GPUs) one replay job of 2^24 partitions of the quotient workload
#              (proof.system = "quotient") on GPU 0, then on every GPU, interleaved,
#              GPU_BENCH_MULTIGPU_ROUNDS times (default 2), GPU_BENCH_MULTIGPU_PARTITIONS
#              each (default 640): partitions per hour of each arm, their ratio and
#              `zkbatch compare` of the last pair.
#   replay     the quotient workload (jobs/gpu-replay.toml, proof.system = "quotient": h
#              alone, no MSMs), pinned against pageable with one input set replayed and 3
#              prove workers, at GPU_BENCH_REPLAY_LOG_NS (default "24 26 27"): each arm's
#              steady state against its bound, the larger of the upload at 55 GB/s and the
#              quotient's kernels (the kernels step's table, when it ran first;
#              tools/run_timing.py). The 2^27 pageable arm needs more than 200 GiB of host
#              memory: skipped on a smaller host.
#   profile    (needs ncu) Nsight Compute on each NTT pass of one forward NN and RN at
#              2^GPU_BENCH_PROFILE_LOG_N (default 24) and on the MSM's level-0 accumulation
#              (G1 and G2 at 2^22), and the kernels' SASS opcode counts (needs cuobjdump).
#   variants   ntt_kernel_bench builds side by side: each binary of GPU_BENCH_VARIANTS
#              (paths, space-separated), round-robin GPU_BENCH_VARIANT_ROUNDS times
#              (default 2) at GPU_BENCH_KERNEL_LOG_NS, then each one's SASS summary.
#   fp-product fp_product_bench: Fp products on the integer and FP64 pipes, and inversions.
#
# Other knobs: GPU_BENCH_PLUGINS, a folder of other plugin builds to run instead of the
# binaries' own (ZKBATCH_PLUGIN_PATH is replaced either way); GPU_BENCH_PROOF_ARGS, more
# arguments (--set KEY=VALUE ...) for every run of proofs and ab. Relative paths in these
# variables are taken from the repository root; OUT_DIR from the current folder.
#
# Exit status: 0 when every step ran clean (a shape refused for want of memory, or a step
# skipped for want of a tool or a second GPU, is not a failure); 1 when a test, benchmark,
# comparison or proof check failed (its summary says which); 2 for a bad command line or
# missing binaries.
set -uo pipefail

all_steps="tests kernels msm proofs ab snarkjs copies multigpu replay profile variants fp-product"
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,/^set -uo pipefail$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && exit 0
  exit 2
fi
out_arg=$1
shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests kernels msm proofs snarkjs)
for step in "${steps[@]}"; do
  case " $all_steps " in
    *" $step "*) ;;
    *) echo "gpu-bench: unknown step '$step' (steps: $all_steps)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out_arg" || exit 2
OUT_DIR=$(cd "$out_arg" && pwd)
cd "$(dirname "$0")/.." || exit 2

# --- the binaries ---------------------------------------------------------------------
if [ -n "${ZKBATCH_BUILD:-}" ]; then
  tree=$(cd "$ZKBATCH_BUILD" 2>/dev/null && pwd) || { echo "gpu-bench: no build tree $ZKBATCH_BUILD" >&2; exit 2; }
  bin_dir=$tree tests_dir=$tree plugins_dir=$tree/plugins
  binaries="build tree $tree"
else
  bundle=${ZKBATCH_BUNDLE:-.bundle}
  tree=$(cd "$bundle" 2>/dev/null && pwd) || {
    echo "gpu-bench: no $bundle/: run tools/make-bundle.sh (or set ZKBATCH_BUILD to a CUDA build tree)" >&2
    exit 2
  }
  bin_dir=$tree/bin tests_dir=$tree/tests plugins_dir=$tree/plugins
  binaries="bundle $tree"
  export LD_LIBRARY_PATH=$tree/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
zkbatch=$bin_dir/zkbatch
[ -x "$zkbatch" ] || { echo "gpu-bench: $zkbatch not found ($binaries)" >&2; exit 2; }
export ZKBATCH_PLUGIN_PATH=${GPU_BENCH_PLUGINS:-$plugins_dir}
export PYTHONDONTWRITEBYTECODE=1  # the summaries import tools/run_timing.py: no tools/__pycache__
command -v nvidia-smi >/dev/null || { echo "gpu-bench: no nvidia-smi: not a GPU host?" >&2; exit 2; }
command -v python3 >/dev/null || { echo "gpu-bench: python3 is needed for the summaries" >&2; exit 2; }

gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
gpu_count=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
gpu_gib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -n 1 |
          awk '$1 ~ /^[0-9]+$/ {printf "%d GiB", $1 / 1024}')
revision=$(git describe --always --dirty --abbrev=12 --match "v[0-9]*" 2>/dev/null || echo "unknown")
version=$("$zkbatch" --version 2>/dev/null | head -n 1)
today=$(date -u +%Y-%m-%d)
available_gib=$(awk '/MemAvailable/ {printf "%d", $2 / 1048576}' /proc/meminfo)
small_host=$([ "$available_gib" -lt 200 ] && echo 1 || echo 0)  # under 200 GiB available

failed_steps=()
cuobjdump=$(command -v cuobjdump || compgen -G '/usr/local/cuda*/bin/cuobjdump' | head -n 1)
summary_py=$(mktemp)
trap 'rm -f "$summary_py"' EXIT

say() { echo "== $(date -u +%H:%M:%S) $*"; }
fail() { [[ " ${failed_steps[*]} " == *" $1 "* ]] || failed_steps+=("$1"); }
# md_head STEP TEXT: the first lines of STEP.md.
md_head() {
  echo "## $1: $2"
  echo
  echo "$gpu_name (${gpu_gib:-memory unknown}), $today; zkbatch $version, checkout $revision"
  echo
}
# need STEP FILE: whether FILE is an executable; if not, the step's summary says so.
need() {
  [ -x "$2" ] && return 0
  { md_head "$1" "not run"; echo "$2 not found ($binaries)."; } >"$OUT_DIR/$1.md"
  fail "$1"
  return 1
}
# skip STEP REASON: a step that cannot run on this host, said in its summary.
skip() {
  say "$1 skipped: $2"
  { md_head "$1" "skipped"; echo "$2"; } >"$OUT_DIR/$1.md"
}
partitions_for() {  # partitions_for LOG_N: GPU_BENCH_PARTITIONS' count for that size
  local entry
  for entry in ${GPU_BENCH_PARTITIONS:-24:8 26:6 27:5}; do
    [ "${entry%%:*}" = "$1" ] && { echo "${entry#*:}"; return; }
  done
  echo 4
}

# zk_run STEP LABEL ARGS...: one `zkbatch run ARGS` into OUT_DIR/STEP.db, its output added
# to STEP.log. Sets run_status (the exit status), run_id (the run recorded, if any) and
# run_message (why it stopped, when it did), and adds "LABEL<tab>ID<tab>MESSAGE" to entries.
zk_run() {
  local step=$1 label=$2 output
  shift 2
  say "$step $label: zkbatch run $1 ${2:-} ${3:-} ..."
  output=$(mktemp)
  echo "### $label: zkbatch run $*" >>"$OUT_DIR/$step.log"
  "$zkbatch" --log-level info run "$@" --db "$OUT_DIR/$step.db" >"$output" 2>&1
  run_status=$?
  cat "$output" >>"$OUT_DIR/$step.log"
  echo "### exit $run_status" >>"$OUT_DIR/$step.log"
  run_id=$(sed -n 's/^run \([0-9][0-9]*\)[ :].*/\1/p' "$output" | head -n 1)
  run_message=$(grep -E '^(error|internal error|stopped because): ' "$output" | tail -n 1 |
                sed -E 's/^(error|internal error|stopped because): //' | tr '\t' ' ')
  grep -E '^run [0-9]+|^GPU busy|^(error|internal error|stopped because): ' "$output" | sed 's/^/   /'
  rm -f "$output"
  entries+=("$label"$'\t'"$run_id"$'\t'"$run_message")
}
refused_for_memory() { [ "$run_status" -ne 0 ] && [[ $run_message == *memory* ]]; }

cat >"$summary_py" <<'PY'
"""The steps' summary tables, from their databases and logs (gpu-bench.sh)."""
import re
import sqlite3
import sys


def connect(path):
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return None


def parse_entries(args):
    rows = []
    for arg in args:
        label, run_id, message = (arg.split("\t") + ["", ""])[:3]
        rows.append((label, int(run_id) if run_id.isdigit() else None, message))
    return rows


def ms(value):
    if value is None:
        return "-"
    return f"{value:,.1f}" if value < 10000 else f"{value:,.0f}"


def shape_text(label):
    if re.fullmatch(r"log\d+-porep", label):
        return f"2^{label[3:].split('-')[0]} PoRep profile"
    found = re.match(r"log(\d+)-bool([0-9.]+)", label)
    if not found:
        return label
    share = float(found.group(2))
    return f"2^{found.group(1)} " + ("full density" if share == 0 else f"{share * 100:.0f}% boolean")


def run_row(db, run_id):
    if db is None or run_id is None:
        return None
    db.row_factory = sqlite3.Row
    row = db.execute("SELECT r.*, s.partitions_per_hour, s.median_h2d_gb_per_s FROM run r "
                     "JOIN run_summary s ON s.run_id = r.id WHERE r.id = ?", (run_id,)).fetchone()
    return row


def phase_medians(db, run_id):
    return dict(db.execute("SELECT phase, median_ms FROM phase_summary WHERE run_id = ?", (run_id,)).fetchall())


def fact(db, run_id, key):
    row = db.execute("SELECT value FROM run_fact WHERE run_id = ? AND key = ?", (run_id, key)).fetchone()
    return row[0] if row else None


def note_of(row, message):
    if message:
        return message.replace("|", "/")
    if row is not None and row["status"] != "ok":
        return f"{row['status']}: {row['error'] or ''}".replace("|", "/")
    return ""


def proofs(db_path, args):
    db = connect(db_path)
    phases = ["prove", "quotient", "msm.a", "msm.b_g1", "msm.b_g2", "msm.l", "msm.h"]
    print("| shape | partitions | prove ms | quotient | msm.a | msm.b_g1 | msm.b_g2 | msm.l | msm.h "
          "| key made on the device, s | MSM tables | note |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    revisions = set()
    for label, run_id, message in parse_entries(args):
        row = run_row(db, run_id)
        if row is None:
            print(f"| {shape_text(label)} | - |" + " - |" * len(phases) + f" - | - | {note_of(None, message)} |")
            continue
        revisions.add(row["git_revision"])
        medians = phase_medians(db, run_id)
        key_ms = db.execute("SELECT max(key_load_ms) FROM run_device WHERE run_id = ?", (run_id,)).fetchone()[0]
        tables = fact(db, run_id, "cuda.msm_table_shapes") or fact(db, run_id, "cuda.msm_tables") or "-"
        print(f"| {shape_text(label)} | {row['partitions_ok']} | "
              + " | ".join(ms(medians.get(phase)) for phase in phases)
              + f" | {ms(key_ms / 1e3) if key_ms else '-'} | {tables} | {note_of(row, message)} |")
    print()
    print(f"Medians over each run's partitions; binaries at {', '.join(sorted(revisions)) or '-'}. "
          "Every phase of a run: zkbatch show RUN --db proofs.db.")


def ab(db_path, args):
    db = connect(db_path)
    shapes, order = {}, []
    for label, run_id, message in parse_entries(args):
        shape, _, arm = label.partition("/")
        if shape not in shapes:
            shapes[shape] = {}
            order.append(shape)
        shapes[shape][arm] = (run_row(db, run_id), message)
    print("| shape | prove workers | pinned partitions/h | pageable partitions/h | pinned / pageable "
          "| h2d GB/s pinned, pageable | prove ms pinned, pageable | GPU busy pinned, pageable | compare | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for shape in order:
        arms = shapes[shape]
        pinned, pinned_note = arms.get("pinned", (None, ""))
        pageable, pageable_note = arms.get("pageable", (None, ""))
        compare = arms.get("compare", (None, "-"))[1] or "-"

        def get(row, key, scale=1.0, fmt="{:,.0f}"):
            return "-" if row is None or row[key] is None else fmt.format(row[key] * scale)

        def prove_ms(row):
            return "-" if row is None else ms(phase_medians(db, row["id"]).get("prove"))

        ratio = "-"
        if pinned is not None and pageable is not None and pageable["partitions_per_hour"]:
            ratio = f"{pinned['partitions_per_hour'] / pageable['partitions_per_hour']:.2f}x"
        workers = get(pinned if pinned is not None else pageable, "prove_workers", fmt="{:.0f}")
        notes = "; ".join(f"{arm}: {text}" for arm, text in
                          (("pinned", note_of(pinned, pinned_note)), ("pageable", note_of(pageable, pageable_note)))
                          if text)
        print(f"| {shape_text(shape)} | {workers} | {get(pinned, 'partitions_per_hour')} "
              f"| {get(pageable, 'partitions_per_hour')} | {ratio} "
              f"| {get(pinned, 'median_h2d_gb_per_s', fmt='{:.1f}')}, {get(pageable, 'median_h2d_gb_per_s', fmt='{:.1f}')} "
              f"| {prove_ms(pinned)}, {prove_ms(pageable)} "
              f"| {get(pinned, 'gpu_busy_fraction', 100, '{:.0f}%')}, {get(pageable, 'gpu_busy_fraction', 100, '{:.0f}%')} "
              f"| {compare} | {notes} |")
    print()
    print("Partitions per hour over each run's wall time; medians over its partitions. "
          "`zkbatch compare A B --db ab.db` for every phase (ab.log has each pair's).")


def multigpu(db_path, args):
    sys.path.insert(0, "tools")
    import statistics
    from run_timing import steady_ms
    db = connect(db_path)
    if db is None or not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'run'").fetchone():
        print("No runs recorded (multigpu.log says why).")
        return
    arms, order, compare = {}, [], "-"
    for label, run_id, message in parse_entries(args):
        if label == "compare":
            compare = message
            continue
        if label not in arms:
            arms[label] = []
            order.append(label)
        if run_id is not None:
            arms[label].append(run_id)
    print("| arm | runs | partitions/h (over the rounds) | steady ms/partition (median) | devices busy (last run) |")
    print("|---|---|---|---|---|")
    rates = {}
    for arm in order:
        ids = arms[arm]
        if not ids:
            print(f"| {arm} | - | - | - | - |")
            continue
        ok, wall = db.execute(f"SELECT sum(partitions_ok), sum(wall_ms) FROM run WHERE id IN ({','.join(map(str, ids))})"
                              ).fetchone()
        rates[arm] = (ok or 0) * 3.6e6 / wall if wall else 0
        steady = statistics.median(steady_ms(db, run_id) for run_id in ids)
        busy = db.execute("SELECT group_concat(device_index || ': ' || printf('%.1f%%', 100 * busy_fraction), ', ') "
                          "FROM run_device WHERE run_id = ?", (ids[-1],)).fetchone()[0]
        print(f"| {arm} | {', '.join(map(str, ids))} | {rates[arm]:,.0f} | {steady:.1f} | {busy} |")
    print()
    if len(order) == 2 and all(rates.get(arm) for arm in order):
        print(f"{order[1]} / {order[0]}: {rates[order[1]] / rates[order[0]]:.3f}x the partitions per hour; "
              f"zkbatch compare of the last pair: {compare}.")


def msm(log_path, args):
    cells = {}  # log n -> column -> value
    columns = {"G1 resident ms": "g1", "G2 resident ms": "g2", "G1 table ms": "g1t", "G2 table ms": "g2t"}
    header = None
    for line in open(log_path, errors="replace"):
        if not line.startswith("|"):
            header = None
            continue
        row = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if row[0] == "log n":
            header = row
            continue
        if header is None or not row[0].isdigit() or len(row) != len(header):
            continue
        named = dict(zip(header, row))
        if named.get("stride", "1") != "1":
            continue
        for name, value in named.items():
            key = columns.get(name) or ("g1b" if name.endswith("boolean resident ms") else None)
            if key and value not in ("-", "") and key not in cells.setdefault(int(row[0]), {}):
                cells[int(row[0])][key] = value
    print("| log n | G1 plain ms | G1 over a table ms | G2 plain ms | G2 over a table ms | G1 90% boolean ms |")
    print("|---|---|---|---|---|---|")
    for log_n in sorted(cells):
        row = cells[log_n]
        print(f"| {log_n} | " + " | ".join(row.get(key, "-") for key in ("g1", "g1t", "g2", "g2t", "g1b")) + " |")
    problems = [(label, message) for label, _, message in parse_entries(args) if message]
    if problems:
        print()
        for label, message in problems:
            print(f"- {label}: {message}")
    print()
    print("Medians, CUDA events, bases and scalars resident on the device, uniform 255-bit scalars; "
          "msm.log has the benchmark's whole output (steps, the rounds' comparison).")


def profile(log_path, _args):
    print("| # | kernel | duration | compute (SM) throughput % | memory throughput % |")
    print("|---|---|---|---|---|")
    count, current = 0, None
    for line in open(log_path, errors="replace"):
        kernel = re.match(r"\s{2}(\S.*?)\s*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), Context", line)
        if kernel:
            current = {"name": kernel.group(1)[:70]}
            continue
        if current is None:
            continue
        parts = line.split()
        if line.strip().startswith("Duration") and len(parts) >= 3:
            current["duration"] = f"{parts[-1]} {parts[-2]}"
        elif line.strip().startswith("Compute (SM) Throughput"):
            current["sm"] = parts[-1]
        elif line.strip().startswith("Memory Throughput") and "memory" not in current:
            current["memory"] = parts[-1]
        if all(key in current for key in ("duration", "sm", "memory")):
            count += 1
            print(f"| {count} | {current['name']} | {current['duration']} | {current['sm']} | {current['memory']} |")
            current = None
    print()
    print("Nsight Compute's sections, the MSM's pipes and the SASS opcode counts: profile.log.")


if __name__ == "__main__":
    {"proofs": proofs, "ab": ab, "multigpu": multigpu, "msm": msm, "profile": profile}[sys.argv[1]](
        sys.argv[2], sys.argv[3:])
PY
summarize() { python3 "$summary_py" "$@" 2>&1; }

# --- the steps --------------------------------------------------------------------------
step_tests() {
  local gpu_tests=$tests_dir/gpu_tests log=$OUT_DIR/tests.log start=$SECONDS status
  need tests "$gpu_tests" || return
  say "tests: gpu_tests --gtest_filter=${GPU_BENCH_TEST_FILTER:-*}"
  "$gpu_tests" --gtest_filter="${GPU_BENCH_TEST_FILTER:-*}" --gtest_output="xml:$OUT_DIR/tests.xml" >"$log" 2>&1
  status=$?
  count() {
    local n
    n=$(sed -n "s/^\[  $1 *\] \([0-9][0-9]*\) tests\{0,1\}[.,].*/\1/p" "$log" | tail -n 1)
    echo "${n:-0}"
  }
  {
    md_head tests "the GPU suite (gpu_tests --gtest_filter=${GPU_BENCH_TEST_FILTER:-*})"
    echo "| exit | seconds | passed | failed | skipped |"
    echo "|---|---|---|---|---|"
    echo "| $status | $((SECONDS - start)) | $(count PASSED) | $(count FAILED) | $(count SKIPPED) |"
    echo
    grep -E '^\[  (FAILED|SKIPPED) ' "$log" | grep -v ' tests\{0,1\}[.,]' | sed -E 's/ \([0-9]+ ms\)$//' |
      sort -u | head -n 30 | sed -E 's/^\[  (FAILED|SKIPPED) *\] /- \1: /'
    echo
    echo "Why each was skipped: tests.log (the line before its [  SKIPPED ])."
  } >"$OUT_DIR/tests.md"
  say "tests: exit $status"
  [ "$status" -eq 0 ] || fail tests
}

step_kernels() {
  local bench=$bin_dir/ntt_kernel_bench status
  need kernels "$bench" || return
  say "kernels: ntt_kernel_bench"
  "$bench" --log-n "${GPU_BENCH_KERNEL_LOG_NS:-20,22,24,26,27}" --repetitions 15 \
    --plans "${GPU_BENCH_KERNEL_PLANS:-10:10}" >"$OUT_DIR/kernels.log" 2>&1
  status=$?
  {
    md_head kernels "NTT and quotient kernels (ntt_kernel_bench, data on the device)"
    sed 's/^# //' "$OUT_DIR/kernels.log"
    [ "$status" -eq 0 ] || printf '\nntt_kernel_bench exit %s: %s\n' "$status" "$(tail -n 1 "$OUT_DIR/kernels.log")"
  } >"$OUT_DIR/kernels.md"
  [ "$status" -eq 0 ] || fail kernels
}

step_msm() {
  local bench=$bin_dir/msm_kernel_bench log=$OUT_DIR/msm.log small=() large=() n entries=() status failed=0 last
  need msm "$bench" || return
  : >"$log"
  msm_bench() {  # msm_bench LABEL ARGS...
    local label=$1 output
    shift
    say "msm $label: msm_kernel_bench $*"
    echo "### $label: msm_kernel_bench $*" >>"$log"
    output=$(mktemp)
    # shellcheck disable=SC2086  # GPU_BENCH_MSM_ARGS is a list of arguments
    "$bench" "$@" --repetitions "${GPU_BENCH_MSM_REPETITIONS:-11}" ${GPU_BENCH_MSM_ARGS:-} >"$output" 2>&1
    status=$?
    cat "$output" >>"$log"
    echo "### exit $status" >>"$log"
    if [ "$status" -ne 0 ]; then
      last=$(grep -v '^$' "$output" | tail -n 1 | tr '\t|' '  ')
      entries+=("$label"$'\t\t'"exit $status: $last")
      [[ $last == *memory* ]] || failed=1  # a size this card cannot hold is not a failure
    fi
    rm -f "$output"
  }
  for n in $(echo "${GPU_BENCH_MSM_LOG_NS:-16,18,20,22,24,26}" | tr ',' ' '); do
    if [ "$n" -le 24 ]; then small+=("$n"); else large+=("$n"); fi
  done
  if [ ${#small[@]} -gt 0 ]; then
    msm_bench "2^${small[0]}..2^${small[-1]}" --log-n "$(IFS=,; echo "${small[*]}")" --sweep-log-n ''
  fi
  for n in "${large[@]}"; do
    # Alone: G2's affine rounds at 2^26 take scratch for long segments only without a G1
    # table of 2^26 beside them, and each of the two fits a card the other may not.
    msm_bench "2^$n plain" --log-n "$n" --g2-max-log-n "$n" --tables 0 --affine-log-n '' --sweep-log-n ''
    msm_bench "2^$n over a table" --log-n "$n" --affine-log-n '' --sweep-log-n ''
  done
  { md_head msm "G1 and G2 MSMs (msm_kernel_bench)"; summarize msm "$log" "${entries[@]}"; } >"$OUT_DIR/msm.md"
  [ "$failed" -eq 0 ] || fail msm
}

# A share of GPU_BENCH_BOOLEAN_SHARES is a uniform circuit's share of boolean rows, or
# "porep": the PoRep profile (jobs/porep-32g.toml, docs/porep.md) with its own share.
shape_of() { [ "$2" = porep ] && echo "log$1-porep" || echo "log$1-bool$2"; }
job_of() { [ "$1" = porep ] && echo jobs/porep-32g.toml || echo jobs/groth16-gpu.toml; }
proof_args() {  # the settings every run of proofs and ab shares, for LOG_N SHARE STEP
  echo "--set circuit.log_n=$1 --set setup.key=backend"
  [ "$2" = porep ] || echo "--set circuit.boolean_share=$2"
  echo "--set output.tags.experiment=gpu-bench --set output.tags.step=$3 --set output.tags.shape=$(shape_of "$1" "$2")"
}

step_proofs() {
  local entries=() log_n share shape failed=0
  for log_n in ${GPU_BENCH_LOG_NS:-24 26 27}; do
    for share in ${GPU_BENCH_BOOLEAN_SHARES:-0 0.9}; do
      shape=$(shape_of "$log_n" "$share")
      # shellcheck disable=SC2046,SC2086  # word lists of arguments
      zk_run proofs "$shape" "$(job_of "$share")" --backend cuda-pinned $(proof_args "$log_n" "$share" proofs) \
        --set job.name="proofs-$shape" --set job.partitions="$(partitions_for "$log_n")" \
        --set pipeline.replay_inputs=1 --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1 \
        --set pipeline.finalize_workers=1 --set pipeline.prove_workers=1 \
        --set backend.options.cuda-pinned.pool_sets=2 --set backend.options.cuda-pinned.msm_tables=auto \
        --set backend.options.cuda-pinned.msm_affine_rounds=auto --set output.tags.arm=pinned \
        --set output.tags.inputs=replayed ${GPU_BENCH_PROOF_ARGS:-}
      if [ "$run_status" -ne 0 ] && ! refused_for_memory; then failed=1; fi
    done
  done
  {
    md_head proofs "whole Groth16 proofs, cuda-pinned, one prove worker, replayed inputs, key made on the device"
    summarize proofs "$OUT_DIR/proofs.db" "${entries[@]}"
  } >"$OUT_DIR/proofs.md"
  [ "$failed" -eq 0 ] || fail proofs
}

step_ab() {
  local entries=() log_n share shape workers arm ids status failed=0 lean sizes kept=() entry
  for log_n in ${GPU_BENCH_AB_LOG_NS:-24 26}; do
    for share in ${GPU_BENCH_BOOLEAN_SHARES:-0 0.9}; do
      shape=$(shape_of "$log_n" "$share")
      workers=2 lean=0
      [ "$log_n" -ge 27 ] && workers=1 lean=1
      while :; do
        ids=() status=0
        for arm in pinned pageable; do
          sizes=(--set pipeline.prove_workers="$workers" --set pipeline.replay_inputs=2
                 --set pipeline.synthesis_workers=2 --set pipeline.queue_depth=2
                 --set backend.options.cuda-pinned.pool_sets=$((workers + 2)))
          [ "$lean" = 1 ] && sizes=(--set pipeline.prove_workers=1 --set pipeline.replay_inputs=1
                                    --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1
                                    --set pipeline.finalize_workers=1 --set backend.options.cuda-pinned.pool_sets=2)
          # shellcheck disable=SC2046,SC2086  # word lists of arguments
          zk_run ab "$shape/$arm" "$(job_of "$share")" --backend "cuda-$arm" $(proof_args "$log_n" "$share" ab) \
            --set job.name="ab-$shape" --set job.partitions="${GPU_BENCH_AB_PARTITIONS:-12}" "${sizes[@]}" \
            --set output.tags.arm="$arm" --set output.tags.inputs=replayed ${GPU_BENCH_PROOF_ARGS:-}
          if refused_for_memory && [ "$workers" -gt 1 ] && [[ $run_message == *"device memory"* ]]; then
            status=retry
            break
          fi
          [ -n "$run_id" ] && [ "$run_status" -eq 0 ] && ids+=("$run_id")
          if [ "$run_status" -ne 0 ] && ! refused_for_memory; then failed=1; fi
        done
        [ "$status" = retry ] || break
        say "ab $shape: two prove workers do not fit beside the key; again with one"
        entries+=("$shape/note"$'\t\t'"two prove workers did not fit beside the key: one")
        workers=1
      done
      if [ ${#ids[@]} -eq 2 ]; then
        echo "### zkbatch compare ${ids[0]} ${ids[1]}" >>"$OUT_DIR/ab.log"
        "$zkbatch" compare "${ids[0]}" "${ids[1]}" --db "$OUT_DIR/ab.db" --format markdown >>"$OUT_DIR/ab.log" 2>&1
        case $? in
          0) entries+=("$shape/compare"$'\t\t'"same proofs") ;;
          5) entries+=("$shape/compare"$'\t\t'"DIFFERENT results (exit 5)"); failed=1 ;;
          *) entries+=("$shape/compare"$'\t\t'"compare failed (ab.log)"); failed=1 ;;
        esac
      fi
    done
  done
  # The retries' notes go below the table.
  for entry in "${entries[@]}"; do [[ ${entry%%$'\t'*} == */note ]] || kept+=("$entry"); done
  {
    md_head ab "whole proofs, pinned against pageable host memory (replayed inputs, key made on the device)"
    summarize ab "$OUT_DIR/ab.db" "${kept[@]}"
    for entry in "${entries[@]}"; do
      [[ ${entry%%$'\t'*} == */note ]] && echo "- ${entry%%/*}: ${entry##*$'\t'}"
    done
  } >"$OUT_DIR/ab.md"
  [ "$failed" -eq 0 ] || fail ab
}

step_snarkjs() {
  local entries=() cache=${ZKBATCH_CIRCOM_CACHE:-tools/js/cache/circom} fixture folder name backend db ids line
  local failed=0 checked=()
  # BLS12-381's fixtures, then BN254's (bn128/NAME, run as circom-bn128-NAME)
  for fixture in "$cache"/*/wtns "$cache"/bn128/*/wtns; do
    [ -d "$fixture" ] || continue
    folder=$(dirname "$fixture")
    name=${folder#"$cache"/}
    name=${name//\//-}
    for backend in cuda-pinned cuda-pageable; do
      zk_run snarkjs "circom-$name/$backend" jobs/circom.toml --backend "$backend" --set job.name="circom-$name" \
        --set circuit.zkey="$folder/$(basename "$folder").zkey" --set circuit.witnesses="$folder/wtns/*.wtns" \
        --set proof.randomness=derived --set output.tags.step=snarkjs --set output.tags.shape="circom-$name"
      [ "$run_status" -eq 0 ] || failed=1
    done
  done
  if ! command -v node >/dev/null || [ ! -x tools/js/node_modules/.bin/snarkjs ] || ! command -v sqlite3 >/dev/null; then
    skip snarkjs "the check needs node, tools/js/node_modules (npm ci --prefix tools/js) and sqlite3; on any machine that has them, run tools/verify-exported-proofs.sh on each database of $OUT_DIR (for snarkjs.db's circom runs, with CIRCOM_CACHE set to a copy of $cache there)"
    [ "$failed" -eq 0 ] || fail snarkjs
    return
  fi
  {
    md_head snarkjs "every proof of $OUT_DIR's databases checked by snarkjs groth16 verify"
    echo "| database | runs | snarkjs |"
    echo "|---|---|---|"
  } >"$OUT_DIR/snarkjs.md"
  for db in "$OUT_DIR"/*.db; do
    [ -f "$db" ] || continue
    ids=$(sqlite3 "$db" "SELECT id FROM run WHERE status = 'ok' AND workload = 'groth16' AND partitions_ok > 0 ORDER BY id" 2>/dev/null | tr '\n' ' ')
    [ -n "${ids// }" ] || continue
    say "snarkjs: $(basename "$db") runs $ids"
    echo "### tools/verify-exported-proofs.sh $db $ids" >>"$OUT_DIR/snarkjs.log"
    # shellcheck disable=SC2086  # ids is a list of run ids
    line=$(ZKBATCH=$zkbatch CIRCOM_CACHE=$cache tools/verify-exported-proofs.sh "$db" $ids 2>&1 |
           tee -a "$OUT_DIR/snarkjs.log" | grep '^snarkjs accepted' | tail -n 1)
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
    echo "| $(basename "$db") | $ids | ${line:-no verdict (snarkjs.log)} |" >>"$OUT_DIR/snarkjs.md"
    checked+=("$db")
  done
  [ ${#checked[@]} -gt 0 ] || echo "| - | - | no proofs to check in $OUT_DIR |" >>"$OUT_DIR/snarkjs.md"
  [ "$failed" -eq 0 ] || fail snarkjs
}

step_copies() {
  local bench=$bin_dir/copy_overlap_bench status
  need copies "$bench" || return
  say "copies: copy_overlap_bench"
  {
    "$bench" --mib 2048
    echo
    CUDA_DEVICE_MAX_CONNECTIONS=32 "$bench" --mib 2048
  } >"$OUT_DIR/copies.log" 2>&1
  status=$?
  { md_head copies "uploads and downloads, alone and at once (copy_overlap_bench)"; sed 's/^# //' "$OUT_DIR/copies.log"; } \
    >"$OUT_DIR/copies.md"
  [ "$status" -eq 0 ] || fail copies
}

step_multigpu() {
  local entries=() round arm devices all last=() common
  if [ "$gpu_count" -lt 2 ]; then skip multigpu "one GPU on this host"; return; fi
  all=$(seq -s, 0 $((gpu_count - 1)))
  # The job keeps the host out of the way, so the ratio measures the GPUs: one input set
  # replayed into a pinned pool per device (no host copies once each set holds it), 3 prove
  # workers a device (uploads, kernels and downloads of three partitions overlap), h
  # digested on the device, no identity checks (the arms' digests are compared instead).
  common=(jobs/gpu-replay.toml --backend cuda-pinned --set proof.system=quotient --set job.name=multigpu-log24
          --set job.partitions="${GPU_BENCH_MULTIGPU_PARTITIONS:-640}" --set circuit.log_n=24
          --set pipeline.synthesis_workers=4 --set pipeline.prove_workers=3 --set pipeline.queue_depth=8
          --set pipeline.finalize_workers=$(( $(nproc) / 2 )) --set pipeline.replay_inputs=1
          --set backend.options.pool_sets=10 --set verify.mode=none --set finalize.malloc_trim=false
          --set output.tags.experiment=gpu-bench --set output.tags.step=multigpu)
  for round in $(seq 1 "${GPU_BENCH_MULTIGPU_ROUNDS:-2}"); do
    for arm in 1gpu "${gpu_count}gpu"; do
      devices='[0]'
      [ "$arm" = 1gpu ] || devices="[$all]"
      zk_run multigpu "$arm" "${common[@]}" --set "pipeline.devices=$devices" --set output.tags.arm="$arm" \
        --set output.tags.shape="log24-$arm"
      [ "$run_status" -eq 0 ] || fail multigpu
      [ -n "$run_id" ] && last[${#last[@]}]=$run_id
    done
  done
  if [ ${#last[@]} -ge 2 ]; then
    echo "### zkbatch compare ${last[-2]} ${last[-1]}" >>"$OUT_DIR/multigpu.log"
    if "$zkbatch" compare "${last[-2]}" "${last[-1]}" --db "$OUT_DIR/multigpu.db" >>"$OUT_DIR/multigpu.log" 2>&1; then
      entries+=("compare"$'\t\t'"same results")
    else
      entries+=("compare"$'\t\t'"DIFFERENT or failed (multigpu.log)")
      fail multigpu
    fi
    python3 -c "import sqlite3, sys; sys.path.insert(0, 'tools'); from run_timing import print_table
print_table(sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True), map(int, sys.argv[2:]))" "$OUT_DIR/multigpu.db" "${last[@]}" \
      >>"$OUT_DIR/multigpu.log" 2>&1
  fi
  {
    md_head multigpu "one replay job (2^24 quotients) on GPU 0 against all $gpu_count GPUs"
    summarize multigpu "$OUT_DIR/multigpu.db" "${entries[@]}"
  } >"$OUT_DIR/multigpu.md"
}

step_replay() {
  local entries=() log_n arm partitions pool_sets finalizers lean_from=27 arm_partitions arm_finalizers
  local synthesizers queue kernels_md=/dev/null
  [ "$small_host" = 1 ] && lean_from=26
  for log_n in ${GPU_BENCH_REPLAY_LOG_NS:-24 26 27}; do
    case $log_n in
      24) partitions=128 pool_sets=10 finalizers=8 ;;
      26) partitions=24 pool_sets=8 finalizers=6 ;;
      *) partitions=16 pool_sets=8 finalizers=5 ;;  # 16 GiB a set at 2^27: 128 GiB pinned
    esac
    [ "$small_host" = 1 ] && [ "$log_n" -ge 27 ] && pool_sets=5 finalizers=3
    for arm in pinned pageable; do
      if [ "$log_n" -ge 27 ] && [ "$arm" = pageable ] && [ "$small_host" = 1 ]; then
        say "replay 2^$log_n pageable skipped: $available_gib GiB of host memory available, under 200"
        echo "2^$log_n pageable: skipped, $available_gib GiB of host memory available (it needs more than 200)" \
          >>"$OUT_DIR/replay.notes.tmp"
        continue
      fi
      arm_partitions=$partitions arm_finalizers=$finalizers synthesizers=4 queue=8
      # At 2^27 the sampled check of partition 0 holds its pinned set for seconds: 64
      # partitions reach the steady state.
      [ "$arm" = pinned ] && [ "$log_n" -ge 27 ] && arm_partitions=64
      # The pageable arm has no pool to bound its buffers: lean where host memory is short.
      [ "$arm" = pageable ] && [ "$log_n" -ge "$lean_from" ] && arm_finalizers=2 synthesizers=1 queue=2
      zk_run replay "log$log_n/$arm" jobs/gpu-replay.toml --backend "cuda-$arm" --set proof.system=quotient \
        --set job.name="e2e-log$log_n" \
        --set circuit.log_n="$log_n" --set job.partitions="$arm_partitions" --set pipeline.replay_inputs=1 \
        --set pipeline.synthesis_workers="$synthesizers" --set pipeline.prove_workers=3 \
        --set pipeline.queue_depth="$queue" --set 'pipeline.devices=[0]' \
        --set pipeline.finalize_workers="$arm_finalizers" --set backend.options.cuda-pinned.pool_sets="$pool_sets" \
        --set verify.every=1000 --set finalize.malloc_trim=false --set output.tags.experiment=gpu-bench \
        --set output.tags.step=replay --set output.tags.shape="log$log_n" --set output.tags.arm="$arm"
      if [ "$run_status" -ne 0 ] && ! refused_for_memory; then fail replay; fi
      [ "$run_status" -eq 0 ] || echo "2^$log_n $arm: $run_message" >>"$OUT_DIR/replay.notes.tmp"
    done
  done
  [ -f "$OUT_DIR/kernels.md" ] && kernels_md=$OUT_DIR/kernels.md
  {
    md_head replay "the quotient workload, pinned against pageable (one input set replayed, 3 prove workers)"
    [ -f "$OUT_DIR/replay.db" ] && python3 tools/run_timing.py "$OUT_DIR/replay.db" --bound "$kernels_md" 2>&1
    [ -f "$OUT_DIR/replay.notes.tmp" ] && sed 's/^/- /' "$OUT_DIR/replay.notes.tmp"
    echo
    echo "Steady state: the spacing of downloads over the middle half of each run; bound: the larger of the"
    echo "upload at 55 GB/s and the quotient's kernel time$([ "$kernels_md" = /dev/null ] && echo " (run the kernels step first to have it)")."
  } >"$OUT_DIR/replay.md"
  rm -f "$OUT_DIR/replay.notes.tmp"
}

step_profile() {
  local ncu ntt=$bin_dir/ntt_kernel_bench msm=$bin_dir/msm_kernel_bench log=$OUT_DIR/profile.log plan passes curve
  local log_n=${GPU_BENCH_PROFILE_LOG_N:-24}
  ncu=$(command -v ncu || compgen -G '/usr/local/cuda*/bin/ncu' | head -n 1)
  if [ -z "$ncu" ]; then skip profile "no ncu (Nsight Compute) on this host"; return; fi
  need profile "$ntt" || return
  need profile "$msm" || return
  say "profile: $ncu"
  {
    for plan in $(echo "${GPU_BENCH_KERNEL_PLANS:-10:10}" | tr ',' ' '); do
      echo "## NTT plan $plan, 2^$log_n: the third forward NN (DIF passes), then forward RN (DIT)"
      passes=$(( (log_n + ${plan%%:*} - 1) / ${plan%%:*} ))  # two warm-ups' passes skipped
      "$ncu" --cache-control none --kernel-name regex:ntt_pass --launch-skip $((2 * passes)) \
        --launch-count $((2 * passes)) --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --section Occupancy --section WarpStateStats \
        "$ntt" --log-n "$log_n" --repetitions 1 --plans "$plan" 2>&1
    done
    for curve in G1 G2; do
      echo "## MSM $curve, 2^22: accumulate_kernel, level 0"
      "$ncu" --clock-control none --nvtx --nvtx-include "table 2^22/" --kernel-name-base demangled \
        --kernel-name "regex:accumulate_kernel<.*${curve}Params" --launch-count 1 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
        --section SchedulerStats --section WarpStateStats --section InstructionStats \
        "$msm" --log-n 22 --repetitions 1 2>&1
      # The pipes apart: IMAD.WIDE issues to the FMA-heavy pipe alone, so "SM Busy" can sit
      # near its peak while the FMA pipe as a whole reads half of that.
      echo "## MSM $curve, 2^22: accumulate_kernel, level 0, pipe utilization"
      "$ncu" --clock-control none --nvtx --nvtx-include "table 2^22/" --kernel-name-base demangled \
        --kernel-name "regex:accumulate_kernel<.*${curve}Params" --launch-count 1 \
        --metrics sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active,sm__warps_active.avg.per_cycle_active \
        "$msm" --log-n 22 --repetitions 1 2>&1
    done
    if [ -n "$cuobjdump" ]; then
      echo "## SASS of the NTT pass kernels"
      tools/sass-opcodes.sh "$ntt" summary 2>&1
      tools/sass-opcodes.sh "$ntt" 2>&1 | sort -k2,2 -k1,1nr
      echo "## SASS of the MSM kernels"
      SASS_KERNELS='accumulate_kernel|reduce_buckets|tree_sum|combine_windows' tools/sass-opcodes.sh "$msm" summary 2>&1
    fi
  } >"$log" 2>&1
  {
    md_head profile "Nsight Compute on the NTT passes (2^$log_n) and the MSM's level-0 accumulation (2^22)"
    summarize profile "$log"
    echo
    grep -E 'instructions, IMAD' "$log" | sed 's/^/- /'
  } >"$OUT_DIR/profile.md"
}

step_variants() {
  local rounds=${GPU_BENCH_VARIANT_ROUNDS:-2} round bench header=1 status=0
  # shellcheck disable=SC2206  # GPU_BENCH_VARIANTS is a list of paths
  local benches=(${GPU_BENCH_VARIANTS:-})
  if [ ${#benches[@]} -eq 0 ]; then skip variants "GPU_BENCH_VARIANTS names no ntt_kernel_bench builds"; return; fi
  {
    md_head variants "ntt_kernel_bench builds side by side, $rounds rounds"
    for round in $(seq 1 "$rounds"); do
      for bench in "${benches[@]}"; do
        "$bench" --log-n "${GPU_BENCH_KERNEL_LOG_NS:-20,22,24,26,27}" --repetitions 15 2>&1 |
          tee -a "$OUT_DIR/variants.log" |
          awk -v build="$(basename "$bench")" -v round="$round" -v header="$header" '
            /^\| log n/ && header {print "| build | round " $0}
            /^\|---/ && header {print "|---|---" $0}
            /^\| [0-9]/ {print "| " build " | " round " " $0}'
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        header=0
      done
    done
    echo
    for bench in "${benches[@]}"; do
      [ -n "$cuobjdump" ] || { echo "(no cuobjdump here: no SASS summaries)"; break; }
      echo "- $(basename "$bench"): $(tools/sass-opcodes.sh "$bench" summary 2>&1 | tr '\n' ' ')"
    done
  } >"$OUT_DIR/variants.md"
  [ "$status" -eq 0 ] || fail variants
}

step_fp_product() {
  local bench=$bin_dir/fp_product_bench status
  need fp-product "$bench" || return
  say "fp-product: fp_product_bench"
  { "$bench"; echo; "$bench" --inversions; } >"$OUT_DIR/fp-product.log" 2>&1
  status=$?
  { md_head fp-product "Fp products and inversions on the device (fp_product_bench)"; sed 's/^# //' "$OUT_DIR/fp-product.log"; } \
    >"$OUT_DIR/fp-product.md"
  [ "$status" -eq 0 ] || fail fp-product
}

# --- the run ----------------------------------------------------------------------------
{
  echo "# gpu-bench on $(hostname), $(date -u '+%Y-%m-%d %H:%M') UTC"
  echo
  echo "- host: $(nproc) cores, $(awk '/MemTotal/ {printf "%d", $2 / 1048576}' /proc/meminfo) GiB of memory ($available_gib GiB available)"
  echo "- binaries: $binaries, zkbatch $version; checkout $revision; plugins from $ZKBATCH_PLUGIN_PATH"
  echo "- steps: ${steps[*]}"
  echo
  echo "| GPU | name | memory | driver | PCIe |"
  echo "|---|---|---|---|---|"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,pcie.link.gen.max,pcie.link.width.max \
    --format=csv,noheader 2>&1 | awk -F', ' '{printf "| %s | %s | %s | %s | Gen%s x%s |\n", $1, $2, $3, $4, $5, $6}'
  echo
  echo '```'
  "$zkbatch" backends 2>&1
  echo '```'
} >"$OUT_DIR/host.md"
say "gpu-bench: ${steps[*]} into $OUT_DIR ($binaries)"

for step in "${steps[@]}"; do
  entries=()
  "step_${step//-/_}"
done

# Each database one self-contained file: its write-ahead log folded in.
for db in "$OUT_DIR"/*.db; do
  [ -f "$db" ] || continue
  python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)')
c.execute('PRAGMA journal_mode=DELETE'); c.close()" "$db" || say "could not fold the WAL of $db into it: keep its -wal file"
done

echo
cat "$OUT_DIR/host.md"
for step in "${steps[@]}"; do
  echo
  [ -f "$OUT_DIR/$step.md" ] && cat "$OUT_DIR/$step.md"
done
echo
if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "gpu-bench: FAILED: ${failed_steps[*]} (their summaries above; logs in $OUT_DIR)"
  exit 1
fi
echo "gpu-bench: done; logs, databases and summaries in $OUT_DIR"
