#!/usr/bin/env bash
# Call BK (v17's bundle, .gpu-carry/bundleBG.txz, and .gpu-carry/circom.txz), on the
# machine calls BJ and BG's head half left warm: the GPU suite again, since call BJ's log
# did not come back, then call BH's G2 row (2^26 plain, scratch for segments of up to
# 4096 entries a slot; call BF: 1,033.1 ms with Fermat's inversions). Run as one command
# line; this file keeps it.
BUNDLE=.gpu-carry/bundleBG.txz CALL=BJ2 timeout 200 bash results/msm/v12/callAR.sh | tail -3
export LD_LIBRARY_PATH=$PWD/.bundle/lib
f=$OUT/msm-26-callBJ-4096.md
a="--log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n '' --sweep-log-n '' --infinity-share 0.041 --repetitions 3 --affine 1 --g2-affine-segment 4096"
echo "## msm_kernel_bench $a" > $f
eval timeout 110 .bundle/bin/msm_kernel_bench $a >> $f 2>&1
echo "rc=$?" >> $f
grep -E '^# set-up|^\| 26 |^\| G2 2\^26|rc=' $f
