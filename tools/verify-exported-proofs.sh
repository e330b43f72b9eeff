#!/usr/bin/env bash
# Verifies every proof of a zkbatch database's runs with snarkjs (tools/js), as a user
# would: zkbatch proofs exports each run's pP.proof.json, pP.public.json and
# verification_key.json; snarkjs groth16 verify checks each proof against the run's
# verifying key, or, for a circom run whose job is named circom-NAME, against the
# fixture's own verification_key.json from snarkjs (CIRCOM_CACHE/NAME/; circom-bn128-NAME:
# CIRCOM_CACHE/bn128/NAME/).
#
#   tools/verify-exported-proofs.sh DB [RUN...]      (default: every run in DB)
#
# Prints one line per proof and a total; exits 1 if any proof is refused.
set -uo pipefail
cd "$(dirname "$0")/.."
db=$1; shift
zkbatch=${ZKBATCH:-build/zkbatch}
snarkjs=tools/js/node_modules/.bin/snarkjs
circom_cache=${CIRCOM_CACHE:-tools/js/cache/circom}
runs=("$@")
[ ${#runs[@]} -gt 0 ] || mapfile -t runs < <(sqlite3 "$db" 'SELECT id FROM run ORDER BY id')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$zkbatch" proofs "${runs[@]}" --out "$out" --db "$db" >/dev/null || exit 1
accepted=0 refused=0
for run in "${runs[@]}"; do
  folder=$out/run$run
  [ ${#runs[@]} -eq 1 ] && folder=$out
  job=$(sqlite3 "$db" "SELECT job_name || ' on ' || backend_name FROM run WHERE id = $run")
  name=$(sqlite3 "$db" "SELECT job_name FROM run WHERE id = $run")
  vk=$folder/verification_key.json
  fixture=${name#circom-}
  fixture=${fixture/#bn128-/bn128/}
  if [[ $name == circom-* ]] && [ -f "$circom_cache/$fixture/verification_key.json" ]; then
    vk=$circom_cache/$fixture/verification_key.json
  fi
  for proof in "$folder"/p*.proof.json; do
    public=${proof%.proof.json}.public.json
    if "$snarkjs" groth16 verify "$vk" "$public" "$proof" 2>&1 | grep -q 'OK!'; then
      accepted=$((accepted + 1)); verdict=OK
    else
      refused=$((refused + 1)); verdict=REFUSED
    fi
    echo "run $run ($job) $(basename "$proof" .proof.json) against $(basename "$(dirname "$vk")")/$(basename "$vk"): $verdict"
  done
done
echo "snarkjs accepted $accepted proof(s), refused $refused"
[ "$refused" -eq 0 ]
