#!/usr/bin/env bash
# Call AY (v13, call AU's bundle): call AX's two-worker throughput measured over more
# partitions, each beside one worker in the same call: full density 2^26 without tables
# (12 partitions) and 2^24 over tables (24), rounds auto, one then two prove workers.
set -u
db=$OUT/groth16-callAY.db
BUNDLE=.gpu-carry/bundleAU.txz . results/msm/v10/e2e.sh
two="--set pipeline.prove_workers=2 --set backend.options.cuda-pinned.pool_sets=3 --set output.tags.prove_workers=2"
e2e 26:0 12 off auto 560
e2e 26:0 12 off auto 560 "$two"
e2e 24:0 24 auto auto 560
e2e 24:0 24 auto auto 560 "$two"
summarize 4 > $OUT/partitions-callAY.txt
