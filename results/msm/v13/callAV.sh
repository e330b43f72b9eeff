#!/usr/bin/env bash
# Call AV (v13, call AU's bundle): v12's call AR (the GPU suite's device MSM, arithmetic,
# fixed-base, rounds and Groth16 tests, the circom fixtures included), whose circom
# proofs' snarkjs-convention quotient is now made on the host under the MSMs of z.
BUNDLE=.gpu-carry/bundleAU.txz CALL=AV exec bash results/msm/v12/callAR.sh
