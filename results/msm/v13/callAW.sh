#!/usr/bin/env bash
# Call AW (v13, call AU's bundle): a PoRep-like witness (90% boolean) at 2^24 over
# tables, rounds auto and off, 8 partitions each (v10's call Y: 277.9 and 260.0 ms).
set -u
db=$OUT/groth16-callAW.db
BUNDLE=.gpu-carry/bundleAU.txz . results/msm/v10/e2e.sh
e2e 24:0.9 8 auto auto 90
e2e 24:0.9 8 auto off 90
summarize 2 | tee $OUT/partitions-callAW.txt
