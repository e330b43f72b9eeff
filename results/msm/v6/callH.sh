#!/usr/bin/env bash
# Call H (bundle of the freed tabled queries): the Groth16 device suite with and without
# msm_tables, then whole proofs at 2^24: full density with tables on two workers, then
# off and on with one worker (its prove phase is a partition's GPU time); PoRep-like
# (90% boolean) off and on with two workers.
set -u
tar -xJf .gpu-carry/bundleH.txz
tar -xJf .gpu-carry/circom.txz   # tools/js/cache/circom
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
tests=$OUT/tests-tables.log
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $tests
filter='CudaGroth16.*:KeyTables.*:CudaPlugins.Refuse*:-CudaGroth16.ProofsAreByteEqualToCpuRefForEveryLogNUpTo20'
echo "gpu_tests --gtest_filter=$filter" >> $tests
timeout 200 .bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter="$filter" >> $tests 2>&1
echo "gpu_tests rc=$?" >> $tests
tail -4 $tests
db=$OUT/groth16-tables-log24.db
e2e() {  # e2e SHAPE TABLES WORKERS SECONDS
  EVIDENCE_SECONDS=$4 EVIDENCE_DB=$db G16_SHAPES=$1 G16_KEY=backend G16_ARMS=pinned G16_REPLAY=2 \
    G16_ARGS="--set job.partitions=16 --set pipeline.prove_workers=$3 --set backend.options.cuda-pinned.msm_tables=$2 --set output.tags.msm_tables=$2 --set output.tags.prove_workers=$3" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence-runs.log 2>&1
  tail -3 $OUT/evidence-runs.log
}
e2e 24:0 auto 2 110
e2e 24:0 off 1 90
e2e 24:0 auto 1 110
e2e 24:0.9 off 2 75
e2e 24:0.9 auto 2 100
z=.bundle/bin/zkbatch
$z runs --db $db
for run in 1 2 3 4 5; do $z show $run --db $db; done > $OUT/shows.txt 2>&1
grep -h "msm_table\|overrides\|wall \|GPU busy\|  prove \|partitions per" $OUT/shows.txt
{ $z compare 2 3 --db $db; $z compare 4 5 --db $db; } > $OUT/compare.txt 2>&1
grep -h "^prove\|^msm\|^A:\|^B:\|results:" $OUT/compare.txt
