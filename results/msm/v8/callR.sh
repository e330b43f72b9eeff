#!/usr/bin/env bash
# Call R (v8 step 3): whole full-density proofs with B2 on the prove stream (this tree,
# .bundle/plugins) against B2 beside the G1 MSMs on its own stream (.exp/plugins: c11cc2d's
# backend.cpp and proof_msms.cpp over this tree's kernels), one prove worker (its prove
# phase is a partition's GPU time): 2^24 over the key's base tables (msm_tables = auto),
# then 2^26 without (they do not fit).
set -u
tar -xJf .gpu-carry/bundleQ.txz
tar -xJf .gpu-carry/beside.txz   # .exp/plugins/libzkbatch-cuda-pinned.so, .exp/msm_kernel_bench_noinv
export LD_LIBRARY_PATH=$PWD/.bundle/lib
db=$OUT/groth16-callR.db
e2e() {  # e2e PLUGINS SHAPE PARTITIONS TABLES TAG SECONDS
  EVIDENCE_PLUGINS=$1 EVIDENCE_SECONDS=$6 EVIDENCE_DB=$db G16_SHAPES=$2 G16_KEY=backend G16_ARMS=pinned G16_REPLAY=1 \
    G16_ARGS="--set job.partitions=$3 --set pipeline.synthesis_workers=1 --set pipeline.queue_depth=1 --set pipeline.finalize_workers=1 --set pipeline.prove_workers=1 --set backend.options.cuda-pinned.pool_sets=2 --set backend.options.cuda-pinned.msm_tables=$4 --set output.tags.b_g2=$5" \
    tools/h200-evidence.sh groth16-e2e >> $OUT/evidence-callR.log 2>&1
  tail -2 $OUT/evidence-callR.log
}
# The ceiling of a faster inversion in G2's affine rounds: the benchmark built with the
# rounds' one inversion a round left out (its sums are wrong; only its times count).
args="--log-n 24 --affine-log-n 24 --repetitions 5 --sweep-log-n ''"
echo "## msm_kernel_bench_noinv $args" > $OUT/msm-callR-noinv.md
timeout 150 .exp/msm_kernel_bench_noinv --log-n 24 --affine-log-n 24 --repetitions 5 --sweep-log-n '' >> $OUT/msm-callR-noinv.md 2>&1
echo "rc=$?" >> $OUT/msm-callR-noinv.md
grep -E "G2 2\^24|rc=" $OUT/msm-callR-noinv.md
e2e $PWD/.exp/plugins 24:0 8 auto beside 100
e2e $PWD/.bundle/plugins 24:0 8 auto serial 100
e2e $PWD/.exp/plugins 26:0 4 off beside 130
e2e $PWD/.bundle/plugins 26:0 4 off serial 130
z=.bundle/bin/zkbatch
$z runs --db $db
for run in 1 2 3 4; do $z show $run --db $db; done > $OUT/shows-callR.txt 2>&1
python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute("select run_id, partition_index, round(prove_ms), round(msm_a_ms), round(msm_b_g1_ms), round(msm_b_g2_ms), round(quotient_ms,1), round(msm_l_ms), round(msm_h_ms) from partition order by run_id, partition_index"):
    print(row)
PY
