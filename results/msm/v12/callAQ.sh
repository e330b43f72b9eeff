#!/usr/bin/env bash
# Call AQ (v12; bundle of ea6d1ed's sources, .gpu-carry/bundleAQ.txz): whole proofs with
# the rounds of v12. Full density 2^26 without tables, rounds auto, 4 partitions (v10's
# call AA: 3,057 ms, B2 1,186); full density 2^24, tables and rounds auto, 8 partitions
# (v10's call Z: 717.4, B2 ~247).
set -u
db=$OUT/groth16-callAQ.db
BUNDLE=.gpu-carry/bundleAQ.txz . results/msm/v10/e2e.sh
e2e 26:0 4 off auto 200
e2e 24:0 8 auto auto 200
summarize 2 | tee $OUT/partitions-callAQ.txt
