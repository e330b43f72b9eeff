#!/usr/bin/env bash
# Call AX (v13, call AU's bundle): two prove workers, so that one partition's z upload
# and quotient can run under the other's MSMs: full density 2^26 without tables (6
# partitions) and 2^24 over tables (8), rounds auto. What the memory plan leaves for B2's
# rounds and tables with two workers is part of the question (the facts say).
set -u
db=$OUT/groth16-callAX.db
BUNDLE=.gpu-carry/bundleAU.txz . results/msm/v10/e2e.sh
two="--set pipeline.prove_workers=2 --set backend.options.cuda-pinned.pool_sets=3 --set output.tags.prove_workers=2"
e2e 26:0 6 off auto 200 "$two"
e2e 24:0 8 auto auto 200 "$two"
summarize 2 | tee $OUT/partitions-callAX.txt
