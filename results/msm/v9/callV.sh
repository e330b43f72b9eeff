#!/usr/bin/env bash
# Call V (v9, same bundle as call U): whole full-density 2^26 proofs, one prove worker,
# no tables (they do not fit): B2 plain with its affine rounds (msm_affine_rounds = auto)
# and without; then the benchmark's own G2 segment choice (first run on a GPU).
set -u
tar -xJf .gpu-carry/bundleU.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
db=$OUT/groth16-callV.db
e2e() {  # e2e SHAPE PARTITIONS TABLES ROUNDS SECONDS
  EVIDENCE_PLUGINS=$PWD/.bundle/plugins EVIDENCE_SECONDS=$5 EVIDENCE_DB=$db G16_SHAPES=$1 G16_KEY=backend \
    G16_ARMS=pinned G16_REPLAY=1 \
    G16_ARGS="--set job.partitions=$2 --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1 --set pipeline.finalize_workers=1 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.pool_sets=2 --set backend.options.cuda-pinned.msm_tables=$3 --set backend.options.cuda-pinned.msm_affine_rounds=$4 --set output.tags.rounds=$4" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence.log 2>&1
  tail -2 $OUT/evidence.log
}
e2e 26:0 4 off auto 140
e2e 26:0 4 off off 140
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
args="--log-n 20,22,24 --repetitions 5 --sweep-log-n ''"
echo "## msm_kernel_bench $args" > $OUT/msm-callV.md
timeout 200 .bundle/bin/msm_kernel_bench --log-n 20,22,24 --repetitions 5 --sweep-log-n '' >> $OUT/msm-callV.md 2>&1
echo "rc=$?" >> $OUT/msm-callV.md
grep -E "set-up|G2 2\^24|^\| 2[024] |rc=" $OUT/msm-callV.md
