#!/usr/bin/env bash
# Call AL (v11, bundle of the slot_layout change: .gpu-carry/bundleAL.txz): the rounds'
# scratch in per-warp blocks. The GPU suite's MSM and proof tests, then G1's and G2's
# rounds against none at 2^24 (over a table and plain) and at 2^26 (plain), as calls AC,
# AG, AE and AJ ran them with the old layout.
set -u
tar -xJf .gpu-carry/bundleAL.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib
timeout 200 .bundle/tests/gpu_tests --gtest_brief=1 \
  --gtest_filter='MsmDevice.*:MsmAffineRounds.*:MsmEmulation*:CudaGroth16.*:MsmMemory.*:MsmCapacity.*' \
  > $OUT/tests-callAL.log 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $OUT/tests-callAL.log
timeout 150 .bundle/bin/msm_kernel_bench --log-n 24 --g2-max-log-n 24 --affine-log-n 24 --repetitions 5 \
  --sweep-log-n '' --g1-affine-segment 6144 > $OUT/msm-24-callAL.md 2>&1
echo "rc=$?" >> $OUT/msm-24-callAL.md
timeout 200 .bundle/bin/msm_kernel_bench --log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n 26 --repetitions 3 \
  --sweep-log-n '' --g1-affine-segment 6144 > $OUT/msm-26-callAL.md 2>&1
echo "rc=$?" >> $OUT/msm-26-callAL.md
grep -hE "set-up|^\| G[12] 2\^2[46] \| [0-9]+ \||^\| 2[46] |rc=" $OUT/msm-24-callAL.md $OUT/msm-26-callAL.md
