#!/usr/bin/env bash
# Call AK (v11; the v10 bundle .gpu-carry/bundleY.txz): does B2 lose to the benchmark's G2
# at 2^24 too? Full density 2^24 with no tables and the rounds (auto), 6 partitions, so
# B2 runs plain as at 2^26, beside the benchmark's plain G2 at 2^24 in the same call. A
# gap like 2^26's (~9.5%) points at B2's bases; none, at the 2^26 run's memory (nearly
# all of the device's taken).
set -u
tar -xJf .gpu-carry/bundleY.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib
db=$OUT/groth16-callAK.db
. results/msm/v10/e2e.sh
e2e 24:0 6 off auto 150
summarize 1 | tee $OUT/partitions-callAK.txt
timeout 150 .bundle/bin/msm_kernel_bench --log-n 24 --g2-max-log-n 24 --tables 0 --affine-log-n '' \
  --sweep-log-n '' --repetitions 5 > $OUT/msm-callAK.md 2>&1
echo "rc=$?" >> $OUT/msm-callAK.md
grep -E "set-up|^\| 24 |^\| G[12] 2\^24 " $OUT/msm-callAK.md
