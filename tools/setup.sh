#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (CUDA toolkit in /usr/local/cuda optional):
#   tools/setup.sh run    install what is missing, build, run jobs/default.toml
#   tools/setup.sh test   install what is missing, build, run every test; then every test
#                         (GPU ones aside) under ASan+UBSan, the threaded suites under
#                         TSan, and each fuzz target for ZKBATCH_FUZZ_SECONDS (default 5)
# Extra arguments after `run` go to `zkbatch run` (e.g. --set job.partitions=2).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  run|test) shift ;;
  *) echo "usage: tools/setup.sh run|test [zkbatch run arguments]" >&2; exit 2 ;;
esac

# Debian packages zkbatch builds and tests with. Keep in step with the README.
packages=(
  build-essential cmake ninja-build pkg-config git python3
  libsqlite3-dev sqlite3 libboost-dev libboost-filesystem-dev libtomlplusplus-dev
  libspdlog-dev libfmt-dev libcli11-dev libxxhash-dev libssl-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libgmp-dev
  # the fuzzing tree (libFuzzer ships with clang's runtime libraries)
  clang libclang-rt-14-dev
  # tests/report opens `zkbatch report`'s page in a real headless browser
  chromium
  # tests/slurm starts a one-node Slurm cluster (slurmctld, slurmd, munged) for zkbatch slurm
  slurm-wlm munge
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
apt_install() {  # PACKAGE...
  echo "setup: installing $*"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: $*" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}
((${#missing[@]} == 0)) || apt_install "${missing[@]}"

# The JavaScript zk toolchain the interop tests, fixtures and side-by-side benchmarks run
# (tools/js: snarkjs, circom2, circomlib, @noble/curves), exactly as its package-lock pins
# it. Node.js and npm come from Debian (18.x on Debian 12) when none is on PATH.
command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
js_lock_stamp=tools/js/node_modules/.zkbatch-package-lock.sha256
js_lock_hash=$(sha256sum tools/js/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$js_lock_stamp" 2>/dev/null)" != "$js_lock_hash" ]; then
  echo "setup: installing tools/js (npm ci)"
  npm ci --prefix tools/js --no-audit --no-fund --loglevel=error
  echo "$js_lock_hash" >"$js_lock_stamp"
fi

build_dir=${ZKBATCH_BUILD_DIR:-build}
jobs=$(nproc)

# Each stage of `test` prints its wall time, the CPU time it used and the load average
# at its end (CI's budget is 30 minutes on 2 cores; CPU time shows what a busy machine
# stretched). Printed at the end, or where a stage failed.
timings=()
times_file=$(mktemp)
children_cpu_s() {  # sets cpu_s: user + system seconds of every finished child so far
  times >"$times_file"  # in this shell: `times` in a $(...) subshell counts other children
  cpu_s=$(awk 'NR == 2 { for (i = 1; i <= 2; ++i) { split($i, t, /[ms]/); total += t[1] * 60 + t[2] }
                         printf "%d", total + 0.5 }' "$times_file")
}
stage() {  # NAME COMMAND...
  local name=$1 start=$SECONDS cpu_before
  shift
  children_cpu_s
  cpu_before=$cpu_s
  "$@"
  children_cpu_s
  timings+=("$(printf '%-24s %5d s wall %6d s CPU   load %s' "$name" $((SECONDS - start)) \
    $((cpu_s - cpu_before)) "$(cut -d' ' -f1-3 /proc/loadavg)")")
}
print_timings() {
  rm -f "$times_file"
  ((${#timings[@]})) || return 0
  echo "setup: wall time per stage (total $SECONDS s):"
  printf '  %s\n' "${timings[@]}"
}

# Kernels that no GPU here can run compile with the device arithmetic outlined (minutes
# instead of tens of minutes on 2 cores; util/host_device.hpp); with a GPU they are
# inlined, as measured.
cuda_outline=ON
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then cuda_outline=OFF; fi
release_build() {  # [TARGET]
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZKBATCH_WERROR=ON \
    -DZKBATCH_CUDA_OUTLINE="$cuda_outline"
  cmake --build "$build_dir" --parallel "$jobs" ${1:+--target "$1"}
}
if [ "$mode" = run ]; then
  release_build
  exec "$build_dir/zkbatch" run jobs/default.toml "$@"
fi
trap print_timings EXIT
# The product, the benchmarks and the suites with tests that run in this tree (the
# top-level CMakeLists.txt's release_stage); the others build in the sanitizer trees.
stage "Release build" release_build release_stage

# Each test runs once, in the tree that checks it most: under ASan+UBSan (below), except
# those whose time goes to programs ASan does not instrument (snarkjs and circom in
# Node.js, Chromium, Slurm's daemons) or that repeat, run after run, code other tests
# run under ASan: the README's blocks (commands other suites run), the SIGKILL loop
# (its recovery paths run in the other reliability and resume tests), the suites'
# longest orchestration tests (whole runs compared for digests, arms and the gate; the
# smoke run, which TSan runs too), and the two largest circom fixtures' proofs (the
# small ones run the same code under ASan).
# Those run here, with the GPU suite, which only this tree builds. They mostly wait (on
# child processes, sleeps of the fault plugin, fsync): twice as many as there are cores
# keep the cores busy.
release_only='^(Readme\.|(Bn254)?Fixtures/CircomProofs\.|ProofsAgainstSnarkjs\.|EndToEnd\.ReportOpensInHeadlessChromium|slurm_|noble_verifier_'
release_only+='|Fixtures/CircomCircuits\.EveryWitnessProvesAndVerifies/(chain_4000|merkle_poseidon)'
release_only+='|ReliabilityTest\.SigkillAtRandomMoments|CliTest\.(DigestsDoNotDependOnWorkerCounts|ListsMakeAnExperiment'
release_only+='|SmokeRunRecordsEveryPartitionVerified)'
release_only+='|CliCompareTest\.(GatePassesOnHonestBaseline|KnownFinalizeShift))'
# The GPU suite (its CPU emulation of the kernels is most of its time) runs beside them,
# its output printed after theirs.
release_tests() {
  local gpu_log=$build_dir/gpu-tests.log gpu_pid=""
  if [ -d "$build_dir/tests/gpu" ]; then
    ctest --test-dir "$build_dir/tests/gpu" --output-on-failure --parallel "$jobs" >"$gpu_log" 2>&1 &
    gpu_pid=$!
  fi
  local status=0
  ctest --test-dir "$build_dir" --output-on-failure --parallel $((jobs * 2)) -R "$release_only" || status=1
  if [ -n "$gpu_pid" ]; then
    wait "$gpu_pid" || status=1
    cat "$gpu_log"
  fi
  return "$status"
}
stage "Release tests" release_tests

# Sanitizer trees (docs/development.md#sanitizers-and-fuzzing): CPU-only, no benchmarks,
# -Og with line tables only (-g1): reports keep file:line, and core's arithmetic builds in
# about half of -O1's time for tests about 10% slower. Their ctest sets
# ASAN/UBSAN/TSAN_OPTIONS (cmake/sanitizers.cmake) so any report, in a test or in a
# zkbatch process it starts, fails the test.
sanitizer_flags="-Og -g1 -DNDEBUG"
sanitizer_tree() {  # DIR CMAKE-ARGS...
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZKBATCH_WERROR=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$sanitizer_flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$sanitizer_flags" \
    -DZKBATCH_CUDA=OFF -DZKBATCH_BENCHMARKS=OFF "$@"
}

# ASan + UBSan: every test (the GPU suite is not built without CUDA).
asan_build() {
  sanitizer_tree "$build_dir-asan" -DZKBATCH_SANITIZE=address,undefined
  cmake --build "$build_dir-asan" --parallel "$jobs"
}
stage "ASan+UBSan build" asan_build
# A release_only test in a suite release_stage leaves out would run in neither tree.
release_only_count() { ctest --test-dir "$1" -N -R "$release_only" | sed -n 's/^Total Tests: //p'; }
if [ "$(release_only_count "$build_dir")" != "$(release_only_count "$build_dir-asan")" ]; then
  echo "setup: release_only names tests of a suite the Release tree does not build: add its folder to release_stage (CMakeLists.txt)" >&2
  exit 1
fi
stage "ASan+UBSan tests" ctest --test-dir "$build_dir-asan" --output-on-failure --parallel "$jobs" -E "$release_only"

# TSan: the suites that run threads (the pipeline, the plugins, the zkbatch binary).
tsan_suites=(pipeline plugins cli)
tsan_build() {
  sanitizer_tree "$build_dir-tsan" -DZKBATCH_SANITIZE=thread
  cmake --build "$build_dir-tsan" --parallel "$jobs" --target pipeline_tests plugin_tests cli_tests
}
# Left out: the Readme blocks (they replay commands these suites run), the key-file tests
# and the .zkey input tests but its whole run (files read and checked on one thread; the
# loops that make a key or check a .zkey's points run in the other runs too), and the two
# runs of many runs (the worker counts' digests, an experiment's arms: the threads of
# each run are the smoke run's, which runs here).
tsan_skipped='^(Readme|KeyInputTest)\.|^ZkeyInputTest\.(Truncated|FileThat|Witness|Damage|Validate|Inputs|Points|Resume)'
tsan_skipped+='|^CliTest\.(DigestsDoNotDependOnWorkerCounts|ListsMakeAnExperiment)'
tsan_tests() {
  local suite
  for suite in "${tsan_suites[@]}"; do
    ctest --test-dir "$build_dir-tsan/tests/$suite" --output-on-failure --parallel "$jobs" -E "$tsan_skipped"
  done
}
stage "TSan build" tsan_build
stage "TSan tests" tsan_tests

# libFuzzer (clang): each target for a bounded time; a crash, hang, leak or broken
# invariant fails, and the input is kept in $build_dir-fuzz/tests/fuzz/findings/.
fuzz_build() {
  sanitizer_tree "$build_dir-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DZKBATCH_FUZZ=ON \
    -DZKBATCH_FUZZ_SECONDS="${ZKBATCH_FUZZ_SECONDS:-5}"
  cmake --build "$build_dir-fuzz" --parallel "$jobs" \
    --target fuzz_manifest fuzz_set_override fuzz_plugin_options fuzz_run_selector fuzz_zkey fuzz_wtns fuzz_key_file \
             fuzz_snarkjs_json
}
stage "fuzz build" fuzz_build
stage "fuzz runs" ctest --test-dir "$build_dir-fuzz/tests/fuzz" --output-on-failure --parallel "$jobs"
echo "setup: every stage passed"
