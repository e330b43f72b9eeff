#!/usr/bin/env bash
# Call BA (v14, step 1): Fp2 products summed before two reductions (fp32::fp2_mul).
# msm_kernel_bench of this version's bundle (bundleBA), G1 and G2 at 2^24 (over tables and
# plain) and plain at 2^26 with the key's share of infinity, as v12's calls AP and AS ran
# them on the kernels v13 still has; then the GPU suite on this version (every MSM and
# proof equal to the CPU's).
set -u
bench() {  # bench TAG: both sizes on the unpacked .bundle
  for log_n in 24 26; do
    f=$OUT/msm-$log_n-$1-callBA.md
    args="--log-n $log_n --g2-max-log-n $log_n --affine-log-n $log_n --sweep-log-n '' --infinity-share 0.041"
    [ $log_n = 24 ] && args="$args --tables 1 --repetitions 5"
    [ $log_n = 26 ] && args="$args --tables 0 --repetitions 3 --g2-affine-segment 6144"
    echo "## msm_kernel_bench $args" > $f
    eval timeout 150 .bundle/bin/msm_kernel_bench $args >> $f 2>&1
    echo "rc=$?" >> $f
    grep -E '^\| G[12] 2\^|^\| 2[46] |rc=' $f
  done
}
tar -xJf .gpu-carry/bundleBA.txz && export LD_LIBRARY_PATH=$PWD/.bundle/lib && bench v14
BUNDLE=.gpu-carry/bundleBA.txz CALL=BA bash results/msm/v12/callAR.sh
