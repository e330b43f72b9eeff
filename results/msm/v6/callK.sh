#!/usr/bin/env bash
# Call K (bundle H: the v6 library code): whole proofs at 2^22, full density, one prove
# worker, msm_tables off then auto (the prove phase is a partition's GPU time).
set -u
tar -xJf .gpu-carry/bundleH.txz
db=$OUT/groth16-tables-log22.db
for tables in off auto; do
  EVIDENCE_SECONDS=100 EVIDENCE_DB=$db G16_SHAPES=22:0 G16_KEY=backend G16_ARMS=pinned G16_REPLAY=2 \
    G16_ARGS="--set job.partitions=32 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.pool_sets=6 --set backend.options.cuda-pinned.msm_tables=$tables --set output.tags.msm_tables=$tables" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence-runs.log 2>&1
  echo "h200-evidence.sh rc=$?" >> $OUT/evidence-runs.log
  tail -4 $OUT/evidence-runs.log
done
z=.bundle/bin/zkbatch
export LD_LIBRARY_PATH=$PWD/.bundle/lib ZKBATCH_PLUGIN_PATH=$PWD/.bundle/plugins
for run in 1 2; do $z show $run --db $db; done > $OUT/shows.txt 2>&1
grep -h "msm_table\|wall \|GPU busy\|  prove \|  msm\.\|  quotient " $OUT/shows.txt
$z compare 1 2 --db $db > $OUT/compare.txt 2>&1
grep -h "^prove\|^msm\|^quotient\|results:" $OUT/compare.txt
