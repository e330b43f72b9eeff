#!/usr/bin/env bash
# Call O (bundle of a89677d, whose proving code is HEAD's): whole full-density proofs at
# 2^27 and 2^26 with one prove worker (its prove phase is a partition's GPU time), keys
# made on the device, inputs replayed; too large for the key's base tables (v6).
set -u
tar -xJf .gpu-carry/bundleH.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
db=$OUT/groth16-log26-27.db
e2e() {  # e2e SHAPE PARTITIONS SECONDS
  EVIDENCE_SECONDS=$3 EVIDENCE_DB=$db G16_SHAPES=$1 G16_KEY=backend G16_ARMS=pinned G16_REPLAY=1 \
    G16_ARGS="--set job.partitions=$2 --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1 --set pipeline.finalize_workers=1 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.pool_sets=2" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence-log26-27.log 2>&1
  tail -4 $OUT/evidence-log26-27.log
}
e2e 27:0 3 240
e2e 26:0 4 170
z=.bundle/bin/zkbatch
$z runs --db $db
for run in 1 2; do $z show $run --db $db; done > $OUT/shows-log26-27.txt 2>&1
grep -h "log_n  \|wall \|GPU busy\|  prove \|msm\.\|quotient \|key_made\|msm_chunk" $OUT/shows-log26-27.txt
