#!/usr/bin/env bash
# Call AU (v13; bundle of this version's sources, .gpu-carry/bundleAU.txz): whole proofs
# with z's upload and the MSMs of z ahead of the quotient. Full density 2^26 without
# tables (4 partitions; v12's call AQ: 2,968 ms), 2^24 over tables (8; 716.5), and 2^27
# in chunks (3; v10's call AA: 6,366), all rounds auto.
set -u
db=$OUT/groth16-callAU.db
BUNDLE=.gpu-carry/bundleAU.txz . results/msm/v10/e2e.sh
e2e 26:0 4 off auto 200
e2e 24:0 8 auto auto 200
e2e 27:0 3 off auto 200
summarize 3 | tee $OUT/partitions-callAU.txt
