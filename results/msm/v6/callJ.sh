#!/usr/bin/env bash
# Call J: the Groth16 device tests after the test helpers' refactor (gpu_tests of 021bb09;
# libraries and plugins of bundle H, the same library code).
set -u
tar -xJf .gpu-carry/bundleH.txz
xz -dc .gpu-carry/gpu_tests_J.xz > .bundle/tests/gpu_tests && chmod +x .bundle/tests/gpu_tests
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
log=$OUT/tests-groth16-callJ.log
filter='CudaGroth16.*:KeyTables.*:-CudaGroth16.CircomFixturesProveAsOnCpuRef'
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $log
echo "gpu_tests --gtest_filter=$filter" >> $log
timeout 400 .bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter="$filter" >> $log 2>&1
echo "gpu_tests rc=$?" >> $log
tail -6 $log
