#!/usr/bin/env bash
# Call G (bundle of the key tables in the backends): the Groth16 device suite with and
# without msm_tables, then whole proofs at 2^24 full density, tables off and auto.
set -u
tar -xJf .gpu-carry/bundleG.txz
tar -xJf .gpu-carry/circom.txz   # tools/js/cache/circom
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
filter='CudaGroth16.*:KeyTables.*:CudaPlugins.Refuse*:-CudaGroth16.ProofsAreByteEqualToCpuRefForEveryLogNUpTo20'
echo "gpu_tests --gtest_filter=$filter" > $OUT/tests-tables.log
timeout 200 .bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter="$filter" >> $OUT/tests-tables.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests-tables.log
tail -8 $OUT/tests-tables.log
for tables in off auto; do
  EVIDENCE_SECONDS=170 EVIDENCE_DB=$OUT/groth16-tables-log24.db G16_SHAPES=24:0 G16_KEY=backend G16_ARMS=pinned \
    G16_REPLAY=2 G16_ARGS="--set job.partitions=16 --set backend.options.cuda-pinned.msm_tables=$tables --set output.tags.msm_tables=$tables" \
    tools/h200-evidence.sh groth16-e2e > $OUT/evidence-$tables.log 2>&1
  tail -5 $OUT/evidence-$tables.log
done
.bundle/bin/zkbatch runs --db $OUT/groth16-tables-log24.db
for run in 1 2; do .bundle/bin/zkbatch show $run --db $OUT/groth16-tables-log24.db > $OUT/show-$run.txt 2>&1; done
grep -h "msm_table\|wall \|GPU busy\|msm\.\|quotient \|key_load\|partitions per" $OUT/show-*.txt
.bundle/bin/zkbatch compare 1 2 --db $OUT/groth16-tables-log24.db > $OUT/compare.txt 2>&1; head -40 $OUT/compare.txt
