#!/usr/bin/env bash
# Call S (v8 step 4, bundle of be56cf0): G2's affine rounds in longer segments (scratch
# for 4096 and 6144 entries a slot against 1024: one inversion shared by more pairs),
# then the GPU suite's device MSM, arithmetic, fixed-base and Groth16 tests.
set -u
tar -xJf .gpu-carry/bundleS.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
for segment in 4096 6144; do
  args="--log-n 24 --affine-log-n 24 --repetitions 5 --sweep-log-n '' --g2-affine-segment $segment"
  echo "## msm_kernel_bench $args" > $OUT/msm-callS-$segment.md
  timeout 100 .bundle/bin/msm_kernel_bench --log-n 24 --affine-log-n 24 --repetitions 5 --sweep-log-n '' \
    --g2-affine-segment $segment >> $OUT/msm-callS-$segment.md 2>&1
  echo "rc=$?" >> $OUT/msm-callS-$segment.md
  grep -E "set-up|G2 2\^24|^\| 24 |rc=" $OUT/msm-callS-$segment.md
done
filter='MsmDevice.*:DeviceField.*:DeviceCurve.*:FixedBaseDevice.*:CudaGroth16.*:KeyTables.*'
echo "gpu_tests --gtest_filter=$filter" > $OUT/tests-callS.log
timeout 290 .bundle/tests/gpu_tests --gtest_filter="$filter" >> $OUT/tests-callS.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests-callS.log
grep -E "^\[       OK|FAILED|SKIPPED|PASSED|rc=" $OUT/tests-callS.log | cut -c1-120
