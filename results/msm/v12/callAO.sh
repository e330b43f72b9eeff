#!/usr/bin/env bash
# Call AO (v12): call AN again on the bundle's build (build-bundle/msm_kernel_bench,
# device code inlined as shipped; call AN's binary came from the CI tree, which outlines
# it, so its times are 1.5x a shipped build's and only its ratios mean anything), and
# plain at 2^24 too (call AK's proofs: B2 3.7% over the benchmark there).
set -u
call=${CALL:-AO}  # CALL=AP: call AP, the same on the rounds of v12
for log_n in 26 24; do
  for share in 0.041 0; do
    f=$OUT/msm-$log_n-infinity-$share-call$call.md
    args="--log-n $log_n --g2-max-log-n $log_n --tables 0 --affine-log-n $log_n --sweep-log-n '' --repetitions 3 --infinity-share $share"
    [ $log_n = 26 ] && args="$args --g2-affine-segment 6144"
    echo "## msm_kernel_bench $args" > $f
    eval timeout 200 build-bundle/msm_kernel_bench $args >> $f 2>&1
    echo "rc=$?" >> $f
    grep -E '^\| G[12] 2\^|^\| 2[46] |rc=|infinity' $f
  done
done
