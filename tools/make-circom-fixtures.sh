#!/usr/bin/env bash
# Regenerates the committed powers-of-tau fixtures in tests/fixtures/circom/ptau/ with the
# real snarkjs commands, and says how long each step took:
#   tools/make-circom-fixtures.sh [--curve bls12381|bn128] [POWER...]   (default: bls12381, 8 12)
# writes CURVE-pKK.ptau (bn128 is snarkjs's and circom's name for BN254).
# Each file is `powersoftau new`, one `powersoftau beacon` and `prepare phase2`. The
# contribution is a beacon, not `contribute -e=...`: snarkjs mixes 64 random bytes into
# any entropy given to `contribute` (misc.getRandomRng), so only a beacon is reproducible.
# The same commands give the same bytes; SHA256SUMS beside the files says which: a file
# it lists must match, a file it does not list is added to it.
# INSECURE: the beacon is public, so anyone can recompute tau. For tests only.
set -euo pipefail
cd "$(dirname "$0")/.."

snarkjs=tools/js/node_modules/.bin/snarkjs
out_dir=tests/fixtures/circom/ptau
# A fixed, public beacon (sha256 of "zkbatch test ceremony"), snarkjs's smallest iteration
# count and the contribution's name: tools/js/ptau-known-tau.mjs uses the same three by
# default, and the end of this script checks that it writes the same bytes.
beacon=$(printf '%s' "zkbatch test ceremony" | sha256sum | cut -d' ' -f1)
beacon_iterations_exp=10
contribution_name="zkbatch test fixture"

[ -x "$snarkjs" ] || { echo "make-circom-fixtures: $snarkjs missing; run: npm ci --prefix tools/js" >&2; exit 1; }
curve=bls12381
if [ "${1-}" = --curve ]; then
  curve=${2-}
  shift 2 || true
fi
case "$curve" in
  bls12381 | bn128) ;;
  *) echo "make-circom-fixtures: --curve must be bls12381 or bn128, not '$curve'" >&2; exit 2 ;;
esac
powers=("$@")
((${#powers[@]})) || powers=(8 12)
for power in "${powers[@]}"; do
  case "$power" in
    [1-9] | 1[0-9] | 2[0-8]) ;;
    *) echo "make-circom-fixtures: power must be 1..28, not '$power'" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() {  # NAME COMMAND...: runs it quietly, prints its wall time and the load average
  local name=$1 start end
  shift
  start=$EPOCHREALTIME
  "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; echo "make-circom-fixtures: $name failed" >&2; exit 1; }
  end=$EPOCHREALTIME
  awk -v name="$name" -v s="$start" -v e="$end" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
    'BEGIN { printf "  %-28s %8.1f s   load %s\n", name, e - s, load }'
}

mkdir -p "$out_dir"
for power in "${powers[@]}"; do
  name=$(printf '%s-p%02d.ptau' "$curve" "$power")
  echo "make-circom-fixtures: $out_dir/$name ($(nproc) cores)"
  step "powersoftau new" "$snarkjs" powersoftau new "$curve" "$power" "$work/0.ptau"
  step "powersoftau beacon" "$snarkjs" powersoftau beacon "$work/0.ptau" "$work/1.ptau" \
    "$beacon" "$beacon_iterations_exp" -n="$contribution_name"
  # snarkjs's CLI exits 0 even when beacon refuses its arguments: check the file.
  [ -s "$work/1.ptau" ] || { cat "$work/log" >&2; exit 1; }
  step "powersoftau prepare phase2" "$snarkjs" powersoftau prepare phase2 "$work/1.ptau" "$work/2.ptau"
  mv "$work/2.ptau" "$out_dir/$name"
  rm -f "$work"/*.ptau
  echo "  $(du -h "$out_dir/$name" | cut -f1)  $(sha256sum "$out_dir/$name" | cut -d' ' -f1)"
  # The known-tau writer must reproduce snarkjs's file exactly (its only full check).
  step "ptau-known-tau.mjs (check)" node tools/js/ptau-known-tau.mjs --curve "$curve" --power "$power" \
    --out "$work/known.ptau"
  cmp "$work/known.ptau" "$out_dir/$name" ||
    { echo "make-circom-fixtures: tools/js/ptau-known-tau.mjs differs from snarkjs ($curve, power $power)" >&2; exit 1; }
  rm -f "$work"/known.ptau*
done
echo "make-circom-fixtures: done in $SECONDS s"

# Compare with the committed sums: the same commands must give the same bytes. A file
# SHA256SUMS does not list yet (a new curve or power) is added to it.
sums=$out_dir/SHA256SUMS
touch "$sums"
for power in "${powers[@]}"; do
  name=$(printf '%s-p%02d.ptau' "$curve" "$power")
  if grep -q "  $name\$" "$sums"; then
    (cd "$out_dir" && grep "  $name\$" SHA256SUMS | sha256sum --check) ||
      { echo "make-circom-fixtures: $name differs from SHA256SUMS (another snarkjs?); update it if intended" >&2; exit 1; }
  else
    (cd "$out_dir" && sha256sum "$name" >>SHA256SUMS && LC_ALL=C sort -k2 -o SHA256SUMS SHA256SUMS)
    echo "make-circom-fixtures: added $name to $sums"
  fi
done
