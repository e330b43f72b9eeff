#!/usr/bin/env bash
# Call AA (v10, same bundle as call Y): full-density 2^26 without tables, rounds auto (one
# wave structure unchanged by v10: five of 5,561), 4 partitions.
set -u
db=$OUT/groth16-callAA.db
. results/msm/v10/e2e.sh
e2e 26:0 4 off auto 200
summarize 1
