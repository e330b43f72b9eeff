#!/usr/bin/env bash
# Call I (bundle of a89677d, the code of v6): the whole GPU suite.
set -u
tar -xJf .gpu-carry/bundleH.txz
tar -xJf .gpu-carry/circom.txz   # tools/js/cache/circom
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
log=$OUT/gpu-tests-all.log
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $log
echo "gpu_tests (all)" >> $log
timeout 560 .bundle/tests/gpu_tests --gtest_brief=1 >> $log 2>&1
echo "gpu_tests rc=$?" >> $log
tail -15 $log
