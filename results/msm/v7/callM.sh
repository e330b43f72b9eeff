#!/usr/bin/env bash
# Call M: G2's level-0 kernels under register caps (launch bounds), three builds of
# msm_kernel_bench that differ only in msm_g2.cu: base (no minimum of blocks, 255
# registers), mb3 (__launch_bounds__(128, 3): 168), mb4 ((128, 4): 128).
set -u
tar -xJf .gpu-carry/benchM.txz
export LD_LIBRARY_PATH=$PWD/.exp/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
for v in base mb3 mb4; do
  echo "## $v: msm_kernel_bench --log-n 22,24 --affine-log-n 24 --repetitions 7 --sweep-log-n ''" > $OUT/msm-$v.md
  timeout 170 .exp/msm_kernel_bench_$v --log-n 22,24 --affine-log-n 24 --repetitions 7 --sweep-log-n '' >> $OUT/msm-$v.md 2>&1
  echo "rc=$?" >> $OUT/msm-$v.md
  grep -E "G2|rc=" $OUT/msm-$v.md | head -20
done
