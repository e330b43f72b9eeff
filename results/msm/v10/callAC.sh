#!/usr/bin/env bash
# Call AC (v10, same bundle as call Y): the evidence script's MSM step as an independent
# checker would run it (the GPU suite's MSM tests, the benchmark at 2^16..2^24 with its
# sweeps and its own G2 segment choice, then 2^26 in a run of its own, the SASS counts),
# with v10's rounds floor (the benchmark's G2 beside the 2^26 table now has scratch for 1280).
set -u
tar -xJf ${BUNDLE:-.gpu-carry/bundleY.txz}  # call AS (v12) passed its own
export LD_LIBRARY_PATH=$PWD/.bundle/lib
start=$(date +%s)
EVIDENCE_SECONDS=560 timeout 580 tools/h200-evidence.sh msm > $OUT/stdout.log 2>&1
echo "h200-evidence.sh msm rc=$? in $(( $(date +%s) - start )) s" | tee -a $OUT/evidence.log
grep -E "^== |G2 2\^24 \|" $OUT/evidence.log | cut -c1-160 | tail -20
grep -E "^\| (16|18|20|22|24|26) " $OUT/msm.md
