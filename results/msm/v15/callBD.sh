#!/usr/bin/env bash
# Call BD (v15, optional, after call BC; same bundle): does the planner's greedy pick
# (H first at the smallest stride that fits, then L: predicted l=22/4,h=24/2) beat the
# strides asked for by hand? 2^26 full density with msm_table_stride = 3 (by count both
# at 24/3: -28 ms each, -56 against the pick's -70) and = 4 (both at 22/4, -58).
set -u
db=$OUT/groth16-callBD.db
BUNDLE=.gpu-carry/bundleBC.txz . results/msm/v10/e2e.sh
e2e 26:0 4 auto auto 200 "--set backend.options.cuda-pinned.msm_table_stride=3 --set output.tags.stride=3"
e2e 26:0 4 auto auto 200 "--set backend.options.cuda-pinned.msm_table_stride=4 --set output.tags.stride=4"
summarize 2 | tee $OUT/partitions-callBD.txt
