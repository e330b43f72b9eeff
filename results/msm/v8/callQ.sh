#!/usr/bin/env bash
# Call Q (v8, bundle of 344ea5a): the MSM benchmark at 2^20..2^26 (tables, plain, G2's
# affine rounds at 2^24), then the GPU suite's MSM, device-arithmetic and Groth16 tests.
set -u
tar -xJf .gpu-carry/bundleQ.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
args="--log-n 20,22,24,26 --affine-log-n 24 --repetitions 7 --sweep-log-n ''"
echo "## msm_kernel_bench $args" > $OUT/msm-callQ.md
timeout 290 .bundle/bin/msm_kernel_bench --log-n 20,22,24,26 --affine-log-n 24 --repetitions 7 --sweep-log-n '' >> $OUT/msm-callQ.md 2>&1
echo "rc=$?" >> $OUT/msm-callQ.md
grep -E "^\| (20|22|24|26) |G2 2\^24|rc=" $OUT/msm-callQ.md | head -30
filter='Msm*:Device*:CudaGroth16.*:KeyTables.*'
echo "gpu_tests --gtest_filter=$filter" > $OUT/tests-callQ.log
timeout 250 .bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter="$filter" >> $OUT/tests-callQ.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests-callQ.log
tail -4 $OUT/tests-callQ.log
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n 1)
$cuobjdump --dump-resource-usage .bundle/bin/msm_kernel_bench | grep -A1 "reduce_buckets_kernel\|accumulate_kernel\|accumulate_affine" |
  grep -o "Function [^ ]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | cut -c1-220 > $OUT/resources-callQ.txt 2>&1
cat $OUT/resources-callQ.txt
