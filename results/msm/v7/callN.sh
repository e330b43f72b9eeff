#!/usr/bin/env bash
# Call N (bundle of G2's level 0 on lane pairs, g2_lanes.hpp): the field/curve and MSM
# device tests; then the MSM benchmark of the lanes build beside the base build of call M
# (dc13007) and lanes3 (lanes with __launch_bounds__(128, 3) on the lanes' kernel); then a whole 2^24 full-density proof run over tables with one prove worker
# (its prove phase is a partition's GPU time).
set -u
tar -xJf .gpu-carry/bundleN.txz
tar -xJf .gpu-carry/benchbase.txz   # .exp2/msm_kernel_bench_{base,lanes3}
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
tests=$OUT/tests-lanes.log
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $tests
rc=0
for filter in 'DeviceCurve.*' 'MsmDevice.*'; do  # apart: a sticky CUDA error stays in its process
  echo "gpu_tests --gtest_filter=$filter" >> $tests
  timeout 150 .bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter="$filter" >> $tests 2>&1
  r=$?; echo "gpu_tests rc=$r" >> $tests; [ $r -eq 0 ] || rc=$r
done
tail -12 $tests
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n 1)
for b in .exp2/msm_kernel_bench_base .bundle/bin/msm_kernel_bench .exp2/msm_kernel_bench_lanes3; do
  echo "## $b"; $cuobjdump --dump-resource-usage $b | grep -A1 "accumulate_kernel.*G2\|sum_runs.*G2" | grep -o "Function [^ ]*\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste - - - - | cut -c1-200
done > $OUT/resources.txt 2>&1
cat $OUT/resources.txt
args="--log-n 22,24 --affine 0 --repetitions 7 --sweep-log-n ''"
for v in base lanes lanes3; do
  bench=.exp2/msm_kernel_bench_$v; [ $v = lanes ] && bench=.bundle/bin/msm_kernel_bench
  echo "## $v: msm_kernel_bench $args" > $OUT/msm-$v.md
  timeout 150 $bench --log-n 22,24 --affine 0 --repetitions 7 --sweep-log-n '' >> $OUT/msm-$v.md 2>&1
  echo "rc=$?" >> $OUT/msm-$v.md
  grep -E "G2 table|\| 2[24] \||rc=" $OUT/msm-$v.md
done
g2_table_24() { awk -F'|' '$2 ~ /^ 24 $/ && $5 ~ /22 \(12\)/ {gsub(/ /, "", $4); print $4}' "$1"; }
base=$(g2_table_24 $OUT/msm-base.md); lanes=$(g2_table_24 $OUT/msm-lanes.md)
echo "G2 over a table at 2^24: base $base ms, lanes $lanes ms, lanes3 $(g2_table_24 $OUT/msm-lanes3.md) ms"
[ $rc -eq 0 ] || exit 1
python3 -c "import sys; sys.exit(0 if float('$lanes') < float('$base') else 1)" || exit 0
db=$OUT/groth16-lanes-log24.db
EVIDENCE_SECONDS=110 EVIDENCE_DB=$db G16_SHAPES=24:0 G16_KEY=backend G16_ARMS=pinned G16_REPLAY=2 \
  G16_ARGS="--set job.partitions=16 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.msm_tables=auto --set output.tags.msm_tables=auto --set output.tags.prove_workers=1" \
  tools/h200-evidence.sh groth16-e2e > $OUT/evidence-lanes.log 2>&1
tail -3 $OUT/evidence-lanes.log
.bundle/bin/zkbatch show 1 --db $db > $OUT/show-lanes.txt 2>&1
grep -h "msm_table\|wall \|GPU busy\|  prove \|msm\.\|partitions per" $OUT/show-lanes.txt
