#!/usr/bin/env bash
# Call BF (v16's bundle, .gpu-carry/bundleBE.txz): what B2's rounds buy per GB of scratch
# at 2^26 plain, the size of one chunk of a 2^27 proof's B2 (MSM-NOTES v16, "2^27").
# msm_kernel_bench at 2^26, G1 and G2 plain, no tables: G2 without rounds, then with
# scratch for segments of up to 4096, 3072, 2048 and 6144 entries a slot (31, 23.5, 15.6
# and 47 GB on the H200's 33,792 slots), then without rounds (call BB measured 6144 and
# none: 1,014.3 and 1,344.2 ms), as long as the call's device time lasts.
set -u
tar -xJf .gpu-carry/bundleBE.txz && export LD_LIBRARY_PATH=$PWD/.bundle/lib
base="--log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n '' --sweep-log-n '' --infinity-share 0.041 --repetitions 3"
for arm in "--affine 1 --g2-affine-segment 4096" "--affine 1 --g2-affine-segment 3072" \
           "--affine 1 --g2-affine-segment 2048" "--affine 1 --g2-affine-segment 6144" "--affine 0"; do
  f=$OUT/msm-26-callBF-$(echo "$arm" | tr -dc '0-9' ).md
  echo "## msm_kernel_bench $base $arm" > $f
  eval timeout 100 .bundle/bin/msm_kernel_bench $base $arm >> $f 2>&1
  echo "rc=$?" >> $f
  echo "== $arm"; grep -E '^# set-up|^\| 26 |^\| G2 2\^26|rc=' $f
done
