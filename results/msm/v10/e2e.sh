# Sourced by the v10 call scripts on the GPU machine: the carried bundle unpacked, and
# e2e SHAPE PARTITIONS TABLES ROUNDS SECONDS [EXTRA --set ARGS]: one pinned arm of
# `tools/h200-evidence.sh groth16-e2e`, one prove worker, replayed inputs, the key made on
# the device, into $db; the options and a tag per run so the database says which is which.
tar -xJf ${BUNDLE:-.gpu-carry/bundleY.txz}  # v12 calls pass their own
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
e2e() {
  EVIDENCE_PLUGINS=$PWD/.bundle/plugins EVIDENCE_SECONDS=$5 EVIDENCE_DB=$db G16_SHAPES=$1 G16_KEY=backend \
    G16_ARMS=pinned G16_REPLAY=1 \
    G16_ARGS="--set job.partitions=$2 --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1 --set pipeline.finalize_workers=1 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.pool_sets=2 --set backend.options.cuda-pinned.msm_tables=$3 --set backend.options.cuda-pinned.msm_affine_rounds=$4 --set output.tags.rounds=$4 ${6:-}" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence.log 2>&1
  tail -2 $OUT/evidence.log
}
# Every partition's phases and the MSM facts of $db's runs.
summarize() {
  for run in $(sqlite3 "$db" 'select id from run order by id' 2>/dev/null || seq 1 "$1"); do
    .bundle/bin/zkbatch show "$run" --db "$db"
  done > $OUT/shows.txt 2>&1
  python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute("select run_id, partition_index, round(prove_ms), round(quotient_ms,1), round(msm_a_ms), round(msm_b_g1_ms), round(msm_b_g2_ms), round(msm_l_ms), round(msm_h_ms) from partition order by run_id, partition_index"):
    print(row)
for row in c.execute("select run_id, key, value from run_fact where key like 'cuda.msm%' order by run_id, key"):
    print(row)
PY
}
