#!/usr/bin/env bash
# Call AE (v10, same bundle as call Y): plain G2 at 2^26 (B2's shape at 2^26: no table)
# with the rounds over segments of up to 6144 at min_pairs 0, 16, 50 and 100: whether
# min_pairs 16, 7% faster than 50 for plain G2 at 2^24 in four calls (v8, v9), also is at
# 2^26. Bounded to 200 s: the benchmark prints the rounds' table first.
set -u
tar -xJf .gpu-carry/bundleY.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib
args="--log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n 26 --sweep-log-n '' --repetitions 3 --g2-affine-segment 6144"
echo "## msm_kernel_bench $args" > $OUT/msm-callAE.md
timeout 200 .bundle/bin/msm_kernel_bench --log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n 26 \
  --sweep-log-n '' --repetitions 3 --g2-affine-segment 6144 >> $OUT/msm-callAE.md 2>&1
echo "rc=$?" >> $OUT/msm-callAE.md
cat $OUT/msm-callAE.md
