#!/usr/bin/env bash
# Call BG (v17: B2's rounds' scratch in a, b and c's block; z up in the MSMs' chunks; H's
# and L's tables chosen together; the entries' bound). Two bundles, side by side in one
# call, whole 2^27 proofs as call BE's (one prove worker, replayed inputs, keys made on
# the device, tables and rounds auto), each into a database of its own:
#   head/  (bundleBG-head.txz)    827e2e7 (v16 with 2048 in kG2AffineSegments: B2's rounds
#                                 over 14 waves of 1,986, by count; predicted ~5,777 ms)
#   v17/   (bundleBG.txz)         this version (by count 4096 in a, b and c: 7 waves of
#                                 3,689; predicted ~5,350 ms, MSM-NOTES.md v17)
# Both travel as one archive, .gpu-carry/bundlesBG.txz (v17/.bundle and head/.bundle: the
# shared libraries compress once), to keep the call under the 64 MiB it carries; each is
# repacked here with xz -0 for e2e.sh. Then the new Fp inversion against Fermat's
# (fp_product_bench --inversions) on the new one.
set -u
mkdir -p /tmp/bundles && tar -C /tmp/bundles -xJf .gpu-carry/bundlesBG.txz
run27() {  # DIR NAME PARTITIONS
  rm -rf .bundle
  tar -C /tmp/bundles/$1 -cf - .bundle | xz -0 -T16 > /tmp/bundle-$2.txz
  db=$OUT/groth16-call$2.db
  BUNDLE=/tmp/bundle-$2.txz . results/msm/v10/e2e.sh
  timeout 200 bash -c "$(declare -f e2e); db=$db; e2e 27:0 $3 auto auto 200"
  summarize 1 > $OUT/partitions-call$2.txt 2>&1
  tail -n 12 $OUT/partitions-call$2.txt
}
run27 v17 BG 5
run27 head BG-head 4
rm -rf .bundle && cp -a /tmp/bundles/v17/.bundle .bundle
export LD_LIBRARY_PATH=$PWD/.bundle/lib
timeout 60 .bundle/bin/fp_product_bench --inversions > $OUT/fp-inversions-callBG.txt 2>&1
echo "fp_product_bench rc=$?" >> $OUT/fp-inversions-callBG.txt
tail -n 15 $OUT/fp-inversions-callBG.txt
