#!/usr/bin/env bash
# Call U (v9): whole full-density 2^24 proofs, one prove worker, over the key's tables
# (msm_tables = auto), with B2's affine rounds (msm_affine_rounds = auto: z's tables and
# the rounds fit, H and L run plain) and without (off: v8's five tables), then the GPU
# suite's device MSM, arithmetic, fixed-base and Groth16 tests.
set -u
tar -xJf .gpu-carry/bundleU.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
db=$OUT/groth16-callU.db
e2e() {  # e2e SHAPE PARTITIONS TABLES ROUNDS SECONDS
  EVIDENCE_PLUGINS=$PWD/.bundle/plugins EVIDENCE_SECONDS=$5 EVIDENCE_DB=$db G16_SHAPES=$1 G16_KEY=backend \
    G16_ARMS=pinned G16_REPLAY=1 \
    G16_ARGS="--set job.partitions=$2 --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1 --set pipeline.finalize_workers=1 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.pool_sets=2 --set backend.options.cuda-pinned.msm_tables=$3 --set backend.options.cuda-pinned.msm_affine_rounds=$4 --set output.tags.rounds=$4" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence.log 2>&1
  tail -2 $OUT/evidence.log
}
e2e 24:0 8 auto auto 100
e2e 24:0 8 auto off 100
z=.bundle/bin/zkbatch
for run in 1 2; do $z show $run --db $db; done > $OUT/shows.txt 2>&1
python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute("select run_id, partition_index, round(prove_ms), round(quotient_ms,1), round(msm_a_ms), round(msm_b_g1_ms), round(msm_b_g2_ms), round(msm_l_ms), round(msm_h_ms) from partition order by run_id, partition_index"):
    print(row)
for row in c.execute("select run_id, key, value from run_fact where key like 'cuda.msm%' order by run_id, key"):
    print(row)
PY
filter='MsmDevice.*:DeviceField.*:DeviceCurve.*:FixedBaseDevice.*:CudaGroth16.*:MsmMemory.*:MsmCapacity.*'
echo "gpu_tests --gtest_filter=$filter" > $OUT/tests.log
timeout 280 .bundle/tests/gpu_tests --gtest_filter="$filter" >> $OUT/tests.log 2>&1
echo "gpu_tests rc=$?" >> $OUT/tests.log
grep -E "^\[       OK|FAILED|SKIPPED|PASSED|rc=" $OUT/tests.log | cut -c1-120
