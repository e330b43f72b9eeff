#!/usr/bin/env bash
# Call E (bundle of the batched affine rounds): device tests of the rounds, then the MSM
# benchmark with the affine comparison.
set -u
tar -xJf .gpu-carry/bundleE.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
filter='MsmDevice.*:MsmAffine*'
echo "gpu_tests --gtest_filter=$filter" > $OUT/tests-affine.log
timeout 200 .bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter="$filter" >> $OUT/tests-affine.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests-affine.log
tail -8 $OUT/tests-affine.log
args="--log-n 22,24 --affine-log-n 22,24 --repetitions 9 --sweep-log-n ''"
echo "msm_kernel_bench --log-n 22,24 --affine-log-n 22,24 --repetitions 9 --sweep-log-n ''" > $OUT/msm-affine.md
timeout 330 .bundle/bin/msm_kernel_bench --log-n 22,24 --affine-log-n 22,24 --repetitions 9 --sweep-log-n '' >> $OUT/msm-affine.md 2>&1
echo "msm_kernel_bench rc=$?" >> $OUT/msm-affine.md
cat $OUT/msm-affine.md
