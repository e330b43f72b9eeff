#!/usr/bin/env bash
# Call BI (v17's bundle, .gpu-carry/bundleBG.txz, and .gpu-carry/circom.txz), for a
# session whose H200 would not start: what needs a GPU but not the H200's memory or its
# timings. The GPU suite (results/msm/v12/callAR.sh's filter: every device MSM, the
# lent rounds' cases, CudaGroth16's proofs byte-equal to cpu-ref's, the circom fixtures),
# then the divsteps inversion against Fermat's (fp_product_bench --inversions), whose
# ratio, not its nanoseconds, carries over to the H200.
set -u
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > $OUT/device-callBI.txt
BUNDLE=.gpu-carry/bundleBG.txz CALL=BI bash results/msm/v12/callAR.sh | tail -12
export LD_LIBRARY_PATH=$PWD/.bundle/lib
timeout 60 .bundle/bin/fp_product_bench --inversions > $OUT/fp-inversions-callBI.txt 2>&1
echo "fp_product_bench rc=$?" >> $OUT/fp-inversions-callBI.txt
tail -n 15 $OUT/fp-inversions-callBI.txt
