#!/usr/bin/env bash
# Call AR (v12, call AQ's bundle): the GPU suite's device MSM, arithmetic, fixed-base,
# rounds and Groth16 tests (every proof byte-equal to cpu-ref's), the circom fixtures
# included (the CI run's tools/js/cache/circom, carried as .gpu-carry/circom.txz).
# Later calls run it on their own bundle: BUNDLE=.gpu-carry/bundleX.txz CALL=X.
set -u
call=${CALL:-AR}
tar -xJf ${BUNDLE:-.gpu-carry/bundleAQ.txz}
mkdir -p $OUT/cache && tar -xJf .gpu-carry/circom.txz -C $OUT/cache
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_CIRCOM_CACHE=$OUT/cache/circom
filter='MsmDevice.*:DeviceField.*:DeviceCurve.*:FixedBaseDevice.*:CudaGroth16.*:MsmMemory.*:MsmCapacity.*:MsmAffineRounds.*'
log=$OUT/tests-call$call.log
echo "gpu_tests --gtest_filter=$filter" > $log
timeout 420 .bundle/tests/gpu_tests --gtest_filter="$filter" >> $log 2>&1
echo "gpu_tests rc=$?" >> $log
rm -rf $OUT/cache
grep -E "^\[       OK|FAILED|SKIPPED|PASSED|rc=" $log | cut -c1-120
