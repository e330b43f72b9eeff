#!/usr/bin/env bash
# Call AS (v12, call AQ's bundle): v10's call AC again, the evidence script's MSM step as
# an independent checker would run it (the GPU suite's MSM tests, the benchmark at
# 2^16..2^24 with its sweeps and its own G2 segment choice, then 2^26 in a run of its own,
# the SASS counts), on the rounds of v12.
BUNDLE=.gpu-carry/bundleAQ.txz exec bash results/msm/v10/callAC.sh
