#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (CUDA toolkit in /usr/local/cuda optional):
#   tools/setup.sh run    install what is missing, build, run jobs/default.toml
#   tools/setup.sh test   install what is missing, build, run every test; then the same
#                         tests under ASan+UBSan and (the threaded suites) TSan, and each
#                         fuzz target for a bounded time (ZKBATCH_FUZZ_SECONDS, default 25)
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
  clang libclang-rt-14-dev
  # tests/report opens `zkbatch report`'s page in a real headless browser
  chromium
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build_dir=${ZKBATCH_BUILD_DIR:-build}
jobs=$(nproc)
# Wall time of each stage of `test`, printed at the end (CI's budget is 30 minutes).
timings=()
stage_start=0  # the script's start: the first stage includes the install
stage_done() {
  timings+=("$(printf '%-38s %4d s' "$1" $((SECONDS - stage_start)))")
  stage_start=$SECONDS
}

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZKBATCH_WERROR=ON
cmake --build "$build_dir" --parallel "$jobs"

if [ "$mode" = run ]; then
  exec "$build_dir/zkbatch" run jobs/default.toml "$@"
fi
stage_done "install + build"
ctest --test-dir "$build_dir" --output-on-failure --parallel "$jobs"
stage_done "tests"

# Sanitizer trees (README "Sanitizers and fuzzing"): CPU-only, no benchmarks. Their
# ctest sets ASAN/UBSAN/TSAN_OPTIONS so any report, in a test or in a zkbatch process
# it starts, fails the test.
sanitizer_tree() {  # DIR CMAKE-ARGS...
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZKBATCH_WERROR=ON \
    -DZKBATCH_CUDA=OFF -DZKBATCH_BENCHMARKS=OFF "$@"
}

# ASan + UBSan: every test (the GPU suite is not built without CUDA).
sanitizer_tree "$build_dir-asan" -DZKBATCH_SANITIZE=address,undefined
cmake --build "$build_dir-asan" --parallel "$jobs"
stage_done "ASan+UBSan build"
ctest --test-dir "$build_dir-asan" --output-on-failure --parallel "$jobs"
stage_done "ASan+UBSan tests"

# TSan: the suites that run threads (the pipeline, the plugins, the zkbatch binary).
tsan_suites=(pipeline plugins cli)
sanitizer_tree "$build_dir-tsan" -DZKBATCH_SANITIZE=thread
cmake --build "$build_dir-tsan" --parallel "$jobs" --target pipeline_tests plugin_tests cli_tests
stage_done "TSan build"
for suite in "${tsan_suites[@]}"; do
  ctest --test-dir "$build_dir-tsan/tests/$suite" --output-on-failure --parallel "$jobs"
done
stage_done "TSan tests"

# libFuzzer (clang): each target for a bounded time; a crash, hang, leak or broken
# invariant fails, and the input is kept in $build_dir-fuzz/tests/fuzz/findings/.
sanitizer_tree "$build_dir-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DZKBATCH_FUZZ=ON \
  -DZKBATCH_FUZZ_SECONDS="${ZKBATCH_FUZZ_SECONDS:-25}"
cmake --build "$build_dir-fuzz" --parallel "$jobs" \
  --target fuzz_manifest fuzz_set_override fuzz_plugin_options fuzz_run_selector
stage_done "fuzz build"
ctest --test-dir "$build_dir-fuzz/tests/fuzz" --output-on-failure --parallel "$jobs"
stage_done "fuzz runs"

echo "setup: every stage passed; wall time per stage:"
printf '  %s\n' "${timings[@]}"
