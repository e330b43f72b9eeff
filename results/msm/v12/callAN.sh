#!/usr/bin/env bash
# Call AN (v12): does a base share of infinity slow G2's rounds? A full-density synthetic
# key's B query holds ~4.1% infinity (variables no B term references; counted over the
# circuit at 2^16-2^22), the benchmark's bases none. Plain G2 at 2^26 as in call AE, with
# 4.1% of the bases infinity, then with none, in one call. Binary: build/msm_kernel_bench
# of this commit's sources (links only system libraries), carried.
set -u
for share in 0.041 0; do
  f=$OUT/msm-infinity-$share-callAN.md
  echo "## msm_kernel_bench --log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n 26 --sweep-log-n '' --repetitions 3 --g2-affine-segment 6144 --infinity-share $share" > $f
  timeout 250 build/msm_kernel_bench --log-n 26 --g2-max-log-n 26 --tables 0 --affine-log-n 26 \
    --sweep-log-n '' --repetitions 3 --g2-affine-segment 6144 --infinity-share $share >> $f 2>&1
  echo "rc=$?" >> $f
  cat $f
done
