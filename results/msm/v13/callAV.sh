#!/usr/bin/env bash
# Call AV (v13, call AU's bundle): the GPU suite's device MSM, arithmetic, fixed-base,
# rounds and Groth16 tests (every proof byte-equal to cpu-ref's), the circom fixtures
# included (snarkjs's H convention: the quotient on the host, now under the MSMs of z).
set -u
tar -xJf .gpu-carry/bundleAU.txz
mkdir -p $OUT/cache && tar -xJf .gpu-carry/circom.txz -C $OUT/cache
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_CIRCOM_CACHE=$OUT/cache/circom
filter='MsmDevice.*:DeviceField.*:DeviceCurve.*:FixedBaseDevice.*:CudaGroth16.*:MsmMemory.*:MsmCapacity.*:MsmAffineRounds.*'
echo "gpu_tests --gtest_filter=$filter" > $OUT/tests-callAV.log
timeout 420 .bundle/tests/gpu_tests --gtest_filter="$filter" >> $OUT/tests-callAV.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests-callAV.log
rm -rf $OUT/cache
grep -E "^\[       OK|FAILED|SKIPPED|PASSED|rc=" $OUT/tests-callAV.log | cut -c1-120
