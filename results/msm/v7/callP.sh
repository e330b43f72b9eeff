#!/usr/bin/env bash
# Call P (bundle of 6d31bc9, HEAD's code): whether B2's MSM beside A's and B1's (its own
# stream, as now) costs the whole proof time. The variant plugin (.exp3/plugins, built
# from proof_msms.cpp with B2 on the prove stream: plan, B2, A, B1, L, H one after
# another) at 2^26 full density; then 2^24 full density over tables, as now and the
# variant. One prove worker: the prove phase is a partition's GPU time.
set -u
tar -xJf .gpu-carry/bundleP.txz
tar -xJf .gpu-carry/serial.txz   # .exp3/plugins/libzkbatch-cuda-pinned.so
export LD_LIBRARY_PATH=$PWD/.bundle/lib
db=$OUT/groth16-serial.db
e2e() {  # e2e PLUGINS SHAPE PARTITIONS TABLES TAG SECONDS
  ZKBATCH_PLUGIN_PATH=$1 EVIDENCE_SECONDS=$6 EVIDENCE_DB=$db G16_SHAPES=$2 G16_KEY=backend G16_ARMS=pinned G16_REPLAY=1 \
    G16_ARGS="--set job.partitions=$3 --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1 --set pipeline.finalize_workers=1 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.pool_sets=2 --set backend.options.cuda-pinned.msm_tables=$4 --set output.tags.b_g2=$5" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence-serial.log 2>&1
  tail -3 $OUT/evidence-serial.log
}
e2e $PWD/.exp3/plugins 26:0 4 off serial 130
e2e $PWD/.bundle/plugins 24:0 8 auto beside 95
e2e $PWD/.exp3/plugins 24:0 8 auto serial 95
z=.bundle/bin/zkbatch
$z runs --db $db
for run in 1 2 3; do $z show $run --db $db; done > $OUT/shows-serial.txt 2>&1
python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute("select run_id, partition_index, round(prove_ms), round(msm_a_ms), round(msm_b_g1_ms), round(msm_b_g2_ms), round(quotient_ms,1), round(msm_l_ms), round(msm_h_ms) from partition order by run_id, partition_index"):
    print(row)
PY
