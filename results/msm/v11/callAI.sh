#!/usr/bin/env bash
# Call AI (v11; the v10 bundle, .gpu-carry/bundleY.txz, of 0a39735's sources: the backends
# have not changed since): why B2 inside a 2^26 proof takes ~87 ms more than the
# benchmark's G2 of the same shape (v10). The SM clock, power and the clock-event reasons
# are sampled every 50 ms through call AA's run (full density 2^26, no tables, rounds
# auto, 4 partitions) and then through the benchmark's plain G2 at 2^26 (call AE's
# command): if the proofs run at a lower clock, that is the difference.
set -u
tar -xJf .gpu-carry/bundleY.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib
reasons=clocks_event_reasons.active
nvidia-smi --query-gpu=$reasons --format=csv >/dev/null 2>&1 || reasons=clocks_throttle_reasons.active
sample() {  # sample FILE: the GPU's state every 50 ms until killed
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,$reasons \
    --format=csv,noheader -lms 50 > "$1" 2>&1 &
  sampler=$!
}
db=$OUT/groth16-callAI.db
. results/msm/v10/e2e.sh
sample $OUT/clocks-proofs.csv
e2e 26:0 4 off auto 200
kill $sampler
summarize 1 | tee $OUT/partitions-callAI.txt
sample $OUT/clocks-bench.csv
timeout 150 .bundle/bin/msm_kernel_bench --log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n '' \
  --sweep-log-n '' --repetitions 5 --g2-affine-segment 6144 > $OUT/msm-callAI.md 2>&1
echo "rc=$?" >> $OUT/msm-callAI.md
kill $sampler
grep -E "^\| 26 " $OUT/msm-callAI.md
for f in proofs bench; do
  echo "== $f: samples, SM MHz min/median/max, W max, reasons seen"
  awk -F', ' '{print $2+0, $4+0, $6}' $OUT/clocks-$f.csv | sort -n | awk '
    {c[NR]=$1; if ($2>w) w=$2; r[$3]++} END {printf "%d %d/%d/%d %.0f ", NR, c[1], c[int(NR/2)+1], c[NR], w;
    for (k in r) printf "%s:%d ", k, r[k]; print ""}'
done | tee $OUT/clocks-summary.txt
