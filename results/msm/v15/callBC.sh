#!/usr/bin/env bash
# Call BC (v15: tables of every s-th window for H and L; bundle of this version's sources,
# .gpu-carry/bundleBC.txz, made by BUNDLE_BUILD_DIR=build-bundle tools/make-bundle.sh).
# 1. msm_kernel_bench at 2^26: G1 plain, then over tables of strides 1, 2, 3, 4 and 6
#    (core/cuda/MSM-NOTES.md v15's table of predictions, row for row).
# 2. Whole proofs as call BB's: 2^26 full density with msm_tables = auto (the plan may
#    now give H and L strided tables: by the corrected count of MSM-NOTES v15 and its
#    step 2, h=22/4 and ~2,707 ms), then 2^24 over tables (H at 22/3 if it fits, ~662).
# The GPU suite runs in a call of its own on the same bundle:
#   BUNDLE=.gpu-carry/bundleBC.txz CALL=BC bash results/msm/v12/callAR.sh
set -u
tar -xJf .gpu-carry/bundleBC.txz && export LD_LIBRARY_PATH=$PWD/.bundle/lib
f=$OUT/msm-26-callBC.md
args="--log-n 26 --g2-max-log-n 24 --affine 0 --affine-log-n '' --sweep-log-n '' --infinity-share 0.041"
args="$args --tables 1 --table-strides 1,2,3,4,6 --repetitions 3"
echo "## msm_kernel_bench $args" > $f
eval timeout 240 .bundle/bin/msm_kernel_bench $args >> $f 2>&1
echo "rc=$?" >> $f
grep -E '^\| G1|^\| 26 |rc=' $f
db=$OUT/groth16-callBC.db
BUNDLE=.gpu-carry/bundleBC.txz . results/msm/v10/e2e.sh
e2e 26:0 6 auto auto 200
e2e 24:0 8 auto auto 200
summarize 2 | tee $OUT/partitions-callBC.txt
