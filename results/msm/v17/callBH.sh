#!/usr/bin/env bash
# Call BH (v17's bundle, .gpu-carry/bundleBG.txz): what v17 does where the lines are met.
# 1. Whole proofs as call BE's: 2^26 full density (6), then 2^24 over tables (8), tables
#    and rounds auto (2^26 predicted ~2,630 ms, the plan h=22/4,l=22/6 or better; 2^24
#    ~641).
# 2. The GPU suite on the same bundle (results/msm/v12/callAR.sh's filter), with the lent
#    rounds' cases and CudaGroth16.ProofsWithTheRoundsScratchInTheVectorsAreTheSame.
# 3. G2 at 2^26 plain with scratch for 4096 (call BF's row, 1,033.1 ms with Fermat's
#    inversions): what the divsteps buy a chunk of a 2^27 proof's B2.
set -u
db=$OUT/groth16-callBH.db
BUNDLE=.gpu-carry/bundleBG.txz . results/msm/v10/e2e.sh
e2e 26:0 6 auto auto 200
e2e 24:0 8 auto auto 200
summarize 2 > $OUT/partitions-callBH.txt 2>&1
tail -n 30 $OUT/partitions-callBH.txt
BUNDLE=.gpu-carry/bundleBG.txz CALL=BH bash results/msm/v12/callAR.sh | tail -8
base="--log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n '' --sweep-log-n '' --infinity-share 0.041 --repetitions 3"
f=$OUT/msm-26-callBH-4096.md
echo "## msm_kernel_bench $base --affine 1 --g2-affine-segment 4096" > $f
eval timeout 120 .bundle/bin/msm_kernel_bench $base --affine 1 --g2-affine-segment 4096 >> $f 2>&1
echo "rc=$?" >> $f
grep -E '^# set-up|^\| 26 |^\| G2 2\^26|rc=' $f
