#!/usr/bin/env bash
# Call BE (v16: G2's level-0 spills sized for B2's rounds; bundle of this version's
# sources, .gpu-carry/bundleBE.txz, made by BUNDLE_BUILD_DIR=build-bundle tools/make-bundle.sh).
# 1. Whole proofs as call BC's: 2^26 full density with msm_tables = auto (by
#    core/cuda/MSM-NOTES.md v16's count, L now gets 22/6 beside H's 22/4: ~2,662 ms),
#    then 2^24 over tables (unchanged, ~650). The fact cuda.msm_worker_bytes says what
#    one worker holds.
# 2. The GPU suite on the same bundle (results/msm/v12/callAR.sh's filter), with
#    MsmDevice.PlainRunsLengthenSegmentsToFitSpillsSizedForRounds.
set -u
db=$OUT/groth16-callBE.db
BUNDLE=.gpu-carry/bundleBE.txz . results/msm/v10/e2e.sh
e2e 26:0 6 auto auto 200
e2e 24:0 8 auto auto 200
summarize 2 | tee $OUT/partitions-callBE.txt
BUNDLE=.gpu-carry/bundleBE.txz CALL=BE bash results/msm/v12/callAR.sh | tail -8
# 3. Last (cut at 170 s, inside the call's 600): 2^27 in chunks, for its cuda.msm_worker_bytes
#    (what leaves B2's rounds no room there), into a database of its own.
db=$OUT/groth16-callBE-27.db
timeout 170 bash -c "$(declare -f e2e); db=$db; e2e 27:0 3 auto auto 200"
summarize 1 | tee $OUT/partitions-callBE-27.txt
