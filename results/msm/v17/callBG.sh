#!/usr/bin/env bash
# Call BG (v17: B2's rounds' scratch in a, b and c's block; z up in the MSMs' chunks; H's
# and L's tables chosen together; the entries' bound). Two bundles, side by side in one
# call, whole 2^27 proofs as call BE's (one prove worker, replayed inputs, keys made on
# the device, tables and rounds auto), each into a database of its own:
#   .gpu-carry/bundleBG-head.txz  827e2e7 (v16 with 2048 in kG2AffineSegments: B2's rounds
#                                 over 14 waves of 1,986, by count; predicted ~5,777 ms)
#   .gpu-carry/bundleBG.txz       this version (by count 4096 in a, b and c: 7 waves of
#                                 3,689; predicted ~5,500 ms)
# then the new Fp inversion against Fermat (fp_product_bench --inversions) on the new one.
set -u
run27() {  # BUNDLE NAME PARTITIONS
  rm -rf .bundle
  db=$OUT/groth16-call$2.db
  BUNDLE=$1 . results/msm/v10/e2e.sh
  timeout 200 bash -c "$(declare -f e2e); db=$db; e2e 27:0 $3 auto auto 200"
  summarize 1 > $OUT/partitions-call$2.txt 2>&1
  tail -n 12 $OUT/partitions-call$2.txt
}
run27 .gpu-carry/bundleBG.txz BG 5
run27 .gpu-carry/bundleBG-head.txz BG-head 4
rm -rf .bundle && tar -xJf .gpu-carry/bundleBG.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib
timeout 60 .bundle/bin/fp_product_bench --inversions > $OUT/fp-inversions-callBG.txt 2>&1
echo "fp_product_bench rc=$?" >> $OUT/fp-inversions-callBG.txt
tail -n 15 $OUT/fp-inversions-callBG.txt
