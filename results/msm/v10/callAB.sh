#!/usr/bin/env bash
# Call AB (v10, same bundle as call Y): full-density 2^27 in chunks of 2^25 without B2's
# rounds, call Y's run 4 without them: what the rounds over 2048-entry scratch bought.
set -u
db=$OUT/groth16-callAB.db
. results/msm/v10/e2e.sh
e2e 27:0 3 off off 180 "--set backend.options.cuda-pinned.msm_chunk_log=25 --set output.tags.chunk_log=25"
summarize 1
