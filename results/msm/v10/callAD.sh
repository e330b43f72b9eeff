#!/usr/bin/env bash
# Call AD (v10, same bundle as call Y): the GPU suite's circom test, with the fixtures the
# CI run built here (tools/js/cache/circom, carried as .gpu-carry/circom.txz): every real
# circom/snarkjs circuit (.zkey + .wtns) proved on both GPU backends, byte-equal to cpu-ref.
set -u
tar -xJf .gpu-carry/bundleY.txz
mkdir -p $OUT/cache && tar -xJf .gpu-carry/circom.txz -C $OUT/cache
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_CIRCOM_CACHE=$OUT/cache/circom
filter='CudaGroth16.CircomFixturesProveAsOnCpuRef'
echo "gpu_tests --gtest_filter=$filter (fixtures: $(ls $ZKBATCH_CIRCOM_CACHE | tr '\n' ' '))" > $OUT/tests.log
timeout 150 .bundle/tests/gpu_tests --gtest_filter="$filter" >> $OUT/tests.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests.log
rm -rf $OUT/cache
tail -20 $OUT/tests.log
