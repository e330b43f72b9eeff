#!/usr/bin/env bash
# Call Y (v10): a 90%-boolean 2^24 witness over the key's tables, msm_affine_rounds auto
# (step 1: no rounds under 1,280 entries a slot) and off, 8 partitions each; then
# full-density 2^27 (3 partitions) in the default chunks (2^26: step 2 plans rounds, ~4
# GB predicted free) and in chunks of 2^25 (msm_chunk_log = 25, room for rounds).
set -u
db=$OUT/groth16-callY.db
. results/msm/v10/e2e.sh
e2e 24:0.9 8 auto auto 90
e2e 24:0.9 8 auto off 90
e2e 27:0 3 off auto 180
e2e 27:0 3 off auto 180 "--set backend.options.cuda-pinned.msm_chunk_log=25 --set output.tags.chunk_log=25"
summarize 4
