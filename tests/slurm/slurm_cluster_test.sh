#!/usr/bin/env bash
# A real Slurm, on this machine: starts munged, slurmctld and slurmd for a one-node
# cluster in a scratch folder, submits a 4-shard cpu-ref job through
# `zkbatch slurm --submit`, waits for its merge job, and checks the merged history:
# every partition exactly once, digests equal to a single-process run of the same
# manifest, shard rows 0/4..3/4, one experiment (and `zkbatch compare` agrees).
# Exits 77 (a visible ctest skip) with the reason when the daemons cannot be started
# here; stops everything it started, also on failure.
#
#   tests/slurm/slurm_cluster_test.sh PATH/TO/zkbatch
set -u -o pipefail

zkbatch=$(realpath "${1:?usage: slurm_cluster_test.sh PATH/TO/zkbatch}")
readonly skip_code=77 start_limit_s=30 job_limit_s=150

skip() { echo "SKIP: $*"; exit "$skip_code"; }

[ "$(id -u)" -eq 0 ] || skip "starting munged, slurmctld and slurmd needs root (CI runs as root)"
for program in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo sqlite3 python3; do
  command -v "$program" >/dev/null ||
    skip "$program is not installed (tools/setup.sh installs slurm-wlm, munge and sqlite3)"
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/zkbatch-slurm.XXXXXX")
chmod 700 "$dir"
daemon_pids=()
status=1

dump_logs() {
  for log in "$dir"/*.log "$dir"/out/logs/*.log; do
    [ -f "$log" ] || continue
    echo "----- $log (last 30 lines)"
    tail -n 30 "$log"
  done
}

cleanup() {
  # Jobs first (their slurmstepd processes belong to slurmd), then the daemons we started, by pid.
  if [ -f "$dir/slurm.conf" ]; then SLURM_CONF=$dir/slurm.conf timeout 10 scancel --full --quiet --user=root 2>/dev/null; fi
  for pid in "${daemon_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for pid in "${daemon_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${daemon_pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  [ "$status" -eq 0 ] || dump_logs
  rm -rf "$dir"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; exit 1; }

# Two free TCP ports for slurmctld and slurmd (nothing here may use the defaults).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])')
node=$(hostname -s)
cpus=$(nproc)

# munge: a private key and socket, so no system munged is needed or disturbed.
head -c 1024 /dev/urandom >"$dir/munge.key"
chmod 400 "$dir/munge.key"
munged --foreground --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" >>"$dir/munged.out.log" 2>&1 &
daemon_pids+=($!)

mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=zkbatchtest
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=zkbatch Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf

for _ in $(seq 20); do [ -S "$dir/munge.socket" ] && break; sleep 0.1; done
[ -S "$dir/munge.socket" ] || { dump_logs; skip "munged did not start (see its log above)"; }
slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.log" 2>&1 &
daemon_pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$dir/slurmd.log" 2>&1 &
daemon_pids+=($!)

deadline=$((SECONDS + start_limit_s))
until [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    dump_logs
    skip "slurmctld and slurmd did not bring node $node up within ${start_limit_s} s (logs above)"
  fi
  sleep 0.5
done
echo "one-node Slurm cluster up: node $node, $cpus CPUs, slurmctld port $ctld_port"

# The job: 8 small partitions, proved by 4 shards (2 partitions each).
cat >"$dir/job.toml" <<'TOML'
[job]
name = "slurm-e2e"
partitions = 8
seed = 11
[circuit]
log_n = 11
[backend]
name = "cpu-ref"
TOML
"$zkbatch" run "$dir/job.toml" --db "$dir/single.db" --log-level warn >/dev/null ||
  fail "the single-process reference run failed"

submit_output=$("$zkbatch" slurm "$dir/job.toml" --shards 4 --out "$dir/out" --into "$dir/history.db" \
  --submit -- --time=10) || { echo "$submit_output"; fail "zkbatch slurm --submit failed"; }
echo "$submit_output"
shards_job=$(sed -n 's/^shards: job \([0-9]*\).*/\1/p' <<<"$submit_output")
merge_job=$(sed -n 's/^merge: job \([0-9]*\).*/\1/p' <<<"$submit_output")
[ -n "$shards_job" ] && [ -n "$merge_job" ] || fail "no job ids in zkbatch slurm's output"
scontrol show job "$merge_job" | grep -q "Dependency=afterok:${shards_job}" ||
  fail "the merge job does not depend (afterok) on the shards' array job"

deadline=$((SECONDS + job_limit_s))
while :; do
  state=$(scontrol show job "$merge_job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  reason=$(squeue -h -j "$merge_job" -o %r 2>/dev/null)
  case "$state" in
    COMPLETED) break ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) fail "the merge job ended $state" ;;
  esac
  [ "$reason" = DependencyNeverSatisfied ] && fail "a shard failed, so the merge job can never start"
  [ "$SECONDS" -ge "$deadline" ] && fail "the merge job did not finish within ${job_limit_s} s (state $state, $reason)"
  sleep 1
done
echo "merge job $merge_job completed"

history=$dir/history.db
q() { sqlite3 "$1" "$2"; }
[ "$(q "$history" 'SELECT count(*) || " " || count(DISTINCT partition_index) FROM partition')" = "8 8" ] ||
  fail "the history does not hold each of the 8 partitions exactly once: $(q "$history" 'SELECT partition_index FROM partition')"
digests='SELECT group_concat(partition_index || ":" || h_digest, " ") FROM (SELECT * FROM partition ORDER BY partition_index)'
[ "$(q "$history" "$digests")" = "$(q "$dir/single.db" "$digests")" ] ||
  fail "digests differ from the single-process run: $(q "$history" "$digests") vs $(q "$dir/single.db" "$digests")"
[ "$(q "$history" 'SELECT count(*) FROM partition WHERE status <> "ok" OR verified <> 1')" = 0 ] ||
  fail "some partitions are not ok and verified"
shards='SELECT group_concat(shard_index || "/" || shard_count, " ") FROM (SELECT * FROM run ORDER BY shard_index)'
[ "$(q "$history" "$shards")" = "0/4 1/4 2/4 3/4" ] || fail "shard rows: $(q "$history" "$shards")"
[ "$(q "$history" 'SELECT count(*) || " " || (SELECT count(DISTINCT experiment_id) FROM run) FROM experiment')" = "1 1" ] ||
  fail "the shards do not form one experiment"
[ "$(q "$history" 'SELECT count(DISTINCT hostname) FROM run')" = 1 ] || fail "unexpected hostnames"
uuid=$(q "$history" 'SELECT uuid FROM experiment')

# compare pools the shards' runs against the single-process run.
"$zkbatch" merge "$dir/single.db" --into "$history" >/dev/null || fail "merging the single-process run failed"
single_run=$(q "$history" 'SELECT id FROM run WHERE shard_count IS NULL')
compare_output=$("$zkbatch" compare "experiment=$uuid" "$single_run" --db "$history") ||
  { echo "$compare_output"; fail "zkbatch compare failed"; }
grep -q "same proofs (8 partitions compared)" <<<"$compare_output" ||
  { echo "$compare_output"; fail "compare does not find the same proofs"; }

echo "PASS: 4 shards under Slurm, merged: 8 partitions once each, digests equal to the single run"
status=0
