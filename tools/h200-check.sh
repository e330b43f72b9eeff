#!/usr/bin/env bash
# The GPU test suite on the GPU machine, from the repository root, with the bundle made
# by tools/make-bundle.sh (carried as .bundle). Everything goes to $OUT; the last lines
# printed are the summary.
#
#   OUT=/some/folder tools/h200-check.sh [gtest arguments...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/zkbatch-h200-check}
mkdir -p "$OUT"
bundle=$PWD/.bundle
if [ ! -x "$bundle/tests/gpu_tests" ]; then
  echo "h200-check: $bundle/tests/gpu_tests not found; run tools/make-bundle.sh and carry .bundle" >&2
  exit 2
fi
export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ZKBATCH_PLUGIN_PATH=$bundle/plugins

nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1
"$bundle/bin/zkbatch" backends >"$OUT/backends.txt" 2>&1

start_s=$(date +%s)
"$bundle/tests/gpu_tests" --gtest_output="xml:$OUT/gpu_tests.xml" "$@" >"$OUT/gpu_tests.log" 2>&1
status=$?
elapsed_s=$(( $(date +%s) - start_s ))

echo "== GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max \
  --format=csv,noheader 2>&1 | head -1)"
echo "== backends:"
sed 's/^/   /' "$OUT/backends.txt"
echo "== gpu_tests: exit $status after ${elapsed_s} s; failures and skips:"
grep -E '^\[  (FAILED|SKIPPED) ' "$OUT/gpu_tests.log" | sort -u | sed 's/^/   /'
grep -E -B2 -A8 'Failure$' "$OUT/gpu_tests.log" | head -60 | sed 's/^/   /'
grep -E '^\[  (PASSED|FAILED|SKIPPED)  \] [0-9]+ test' "$OUT/gpu_tests.log" | sed 's/^/   /'
exit $status
