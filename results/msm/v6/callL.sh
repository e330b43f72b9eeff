#!/usr/bin/env bash
# Call L (msm_kernel_bench of 7716998, the affine comparison's cells from one lambda):
# the bench's affine comparison at 2^20, which checks every sum against the first.
set -u
tar -xJf .gpu-carry/benchL.txz
export LD_LIBRARY_PATH=$PWD/.bundle/lib
log=$OUT/msm-affine-callL.md
echo "msm_kernel_bench --log-n 20 --affine-log-n 20 --repetitions 3 --sweep-log-n ''" > $log
timeout 200 .bundle/bin/msm_kernel_bench --log-n 20 --affine-log-n 20 --repetitions 3 --sweep-log-n '' >> $log 2>&1
echo "msm_kernel_bench rc=$?" >> $log
cat $log | head -40
