#!/usr/bin/env bash
# Call BB (v14, steps 1 and 2; bundle of this version's sources, .gpu-carry/bundleBB.txz):
# Fp2's lazy product only in the rounds' slope (call BA had it in every Fp2 product, and
# the XYZZ loops lost 33-59%), and a b - c d in one pass in the XYZZ formulas' Y3.
# msm_kernel_bench as in call BA; whole proofs as v13's call AU (2^26 full density, 2^24
# over tables, 2^27 in chunks); then the GPU suite.
set -u
tar -xJf .gpu-carry/bundleBB.txz && export LD_LIBRARY_PATH=$PWD/.bundle/lib
for log_n in 24 26; do
  f=$OUT/msm-$log_n-callBB.md
  args="--log-n $log_n --g2-max-log-n $log_n --affine-log-n $log_n --sweep-log-n '' --infinity-share 0.041"
  [ $log_n = 24 ] && args="$args --tables 1 --repetitions 5"
  [ $log_n = 26 ] && args="$args --tables 0 --repetitions 3 --g2-affine-segment 6144"
  echo "## msm_kernel_bench $args" > $f
  eval timeout 150 .bundle/bin/msm_kernel_bench $args >> $f 2>&1
  echo "rc=$?" >> $f
  grep -E '^\| G[12] 2\^|^\| 2[46] |rc=' $f
done
db=$OUT/groth16-callBB.db
BUNDLE=.gpu-carry/bundleBB.txz . results/msm/v10/e2e.sh
e2e 26:0 6 off auto 200
e2e 24:0 8 auto auto 200
e2e 27:0 3 off auto 200
summarize 3 | tee $OUT/partitions-callBB.txt
BUNDLE=.gpu-carry/bundleBB.txz CALL=BB bash results/msm/v12/callAR.sh
