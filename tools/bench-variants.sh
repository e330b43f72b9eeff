#!/usr/bin/env bash
# Side-by-side A/B of kernel builds, on the GPU machine:
#   tools/bench-variants.sh LOG_NS ROUNDS BENCH...
# runs each ntt_kernel_bench binary (built here from patched sources and carried in the
# bundle) at LOG_NS (e.g. 24,26), round-robin ROUNDS times so drift hits every build alike,
# and prints every table row prefixed with the binary's name, then each binary's SASS
# summary (tools/sass-opcodes.sh). Kernel notes quote these rows.
set -euo pipefail
cd "$(dirname "$0")/.."
log_ns=$1 rounds=$2
shift 2
export LD_LIBRARY_PATH=$PWD/.bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
header=1  # the bench's own table header, widened by two columns, before its first rows
for round in $(seq 1 "$rounds"); do
  for bench in "$@"; do
    "$bench" --log-n "$log_ns" --repetitions 15 | awk -v build="$(basename "$bench")" -v round="$round" \
      -v header="$header" '
        /^\| log n/ && header {print "| build | round " $0}
        /^\|---/ && header {print "|---|---" $0}
        /^\| [0-9]/ {print "| " build " | " round " " $0}'
    header=0
  done
done
for bench in "$@"; do
  echo
  echo "## $(basename "$bench")"
  tools/sass-opcodes.sh "$bench" summary || true
done
