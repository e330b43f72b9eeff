#!/usr/bin/env bash
# Call BJ (v17's bundle, .gpu-carry/bundleBG.txz, and .gpu-carry/circom.txz): all of what
# v17 needs on the H200 in one call, for a session whose device comes rarely (calls BG and
# BH split it in two, 2026-12-05's sessions got no H200 for either). In order of what issue
# 20 lacks, each bounded so the call ends inside its 600 s (call BE's times: 2^27 x 3 took
# 143 s with its key made on the device, 2^26 x 6 94 s, 2^24 x 8 52 s, the suite 172 s):
# 1. 2^27 whole proofs (5), as call BG's v17 half (predicted ~5,350 ms), in a database of
#    their own;
# 2. the divsteps inversion against Fermat's (fp_product_bench --inversions);
# 3. 2^26 (6) and 2^24 (8) whole proofs, as call BH's (~2,630 and ~641 ms);
# 4. the GPU suite (results/msm/v12/callAR.sh's filter) in the time left.
# Call BG's head half (827e2e7) and call BH's G2 row over 4096 are left to a later call.
# At most 8 files come back: two databases, evidence.log, partitions, shows, inversions
# and the suite's log. (The device machine adds summary.txt and logs.tar.gz of its own,
# so the suite's log was left out when this ran; call BK ran the suite again.)
set -u
BUNDLE=.gpu-carry/bundleBG.txz . results/msm/v10/e2e.sh
record() {  # append this database's partitions and shows to the call's two files
  summarize "$1" >> $OUT/partitions-callBJ.txt 2>&1
  cat $OUT/shows.txt >> $OUT/shows-callBJ.txt && rm -f $OUT/shows.txt
}
db=$OUT/groth16-callBJ-27.db
timeout 200 bash -c "$(declare -f e2e); db=$db; e2e 27:0 5 auto auto 200"
record 1
tail -n 12 $OUT/partitions-callBJ.txt
timeout 60 .bundle/bin/fp_product_bench --inversions > $OUT/fp-inversions-callBJ.txt 2>&1
echo "fp_product_bench rc=$?" >> $OUT/fp-inversions-callBJ.txt
tail -n 15 $OUT/fp-inversions-callBJ.txt
db=$OUT/groth16-callBJ.db
e2e 26:0 6 auto auto 200
e2e 24:0 8 auto auto 200
record 2
tail -n 30 $OUT/partitions-callBJ.txt
echo "== suite: $((585 - SECONDS)) s left"
BUNDLE=.gpu-carry/bundleBG.txz CALL=BJ timeout $((585 - SECONDS)) bash results/msm/v12/callAR.sh | tail -12
