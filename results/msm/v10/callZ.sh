#!/usr/bin/env bash
# Call Z (v10, same bundle as call Y): full-density 2^24 over the key's tables with the
# rounds (unchanged by v10: one wave of 5,958), 8 partitions; then the GPU suite's device
# MSM, arithmetic, fixed-base and Groth16 tests.
set -u
db=$OUT/groth16-callZ.db
. results/msm/v10/e2e.sh
e2e 24:0 8 auto auto 100
summarize 1
filter='MsmDevice.*:DeviceField.*:DeviceCurve.*:FixedBaseDevice.*:CudaGroth16.*:MsmMemory.*:MsmCapacity.*'
echo "gpu_tests --gtest_filter=$filter" > $OUT/tests.log
timeout 330 .bundle/tests/gpu_tests --gtest_filter="$filter" >> $OUT/tests.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests.log
grep -E "^\[       OK|FAILED|SKIPPED|PASSED|rc=" $OUT/tests.log | cut -c1-120
