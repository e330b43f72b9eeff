#!/usr/bin/env bash
# Call AS (v12, call AQ's bundle): the evidence script's MSM step as an independent
# checker would run it (the GPU suite's MSM tests, the benchmark at 2^16..2^24 with its
# sweeps and its own G2 segment choice, then 2^26 in a run of its own, the SASS counts),
# on the rounds of v12.
set -u
tar -xJf .gpu-carry/bundleAQ.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib
start=$(date +%s)
EVIDENCE_SECONDS=560 timeout 580 tools/h200-evidence.sh msm > $OUT/stdout.log 2>&1
echo "h200-evidence.sh msm rc=$? in $(( $(date +%s) - start )) s" | tee -a $OUT/evidence.log
grep -E "^== |G2 2\^24 \|" $OUT/evidence.log | cut -c1-160 | tail -20
grep -E "^\| (16|18|20|22|24|26) " $OUT/msm.md
