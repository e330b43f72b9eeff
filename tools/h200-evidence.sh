#!/usr/bin/env bash
# The H200 evidence run for the CUDA backends (issue 3), executed ON the GPU machine
# from the repository root with the bundle made by tools/make-bundle.sh:
#
#   here:      tools/make-bundle.sh
#   GPU host:  tools/h200-evidence.sh [STEP...]     (device tool: carry .bundle, $OUT set)
#
# Steps (default: all, in this order): tests, kernels, smoke, ab20, ab24, busy, ab26.
# Also: e2e24, e2e26, e2e27 (issue 7: replayed partitions, pinned and pageable arms, each
# arm's throughput against its bound) and copies (copy_overlap_bench: whether uploads and
# downloads overlap, alone and in the prove workers' pattern, with the driver's default
# work queues and with 32; copies.md), and profile (Nsight Compute per pass and the pass
# kernels' SASS opcode counts at 2^PROFILE_LOG_N for each of KERNEL_PLANS; profile.md), and
# msm (issues 19 and 20: the device MSM's tests, msm_tests.log; msm_kernel_bench, msm.md;
# the SASS summary of the MSM kernels, msm-sass.txt; MSM_LOG_NS (default 2^16..2^24,
# then 2^26 alone), MSM_REPETITIONS and MSM_BENCH_ARGS adjust the bench,
# MSM_TEST_FILTER the tests), msm-profile (issue 20:
# Nsight Compute on the MSM's hot kernel, msm-profile.md), fp-product (issue 20, v11: Fp
# products on the integer and FP64 pipes, fp-product.md and its SASS counts), and groth16 and
# groth16-e2e (issue 19: whole proofs on the GPU; see those steps).
# Each step's log and the
# databases land in $OUT; the last lines printed are the summary, produced by zkbatch's
# own `runs` and `show` from the database.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/zkbatch-evidence}
# Per-step logs go to a scratch folder and come back as one tarball: the device tool
# returns at most 8 files.
logs=$(mktemp -d)
mkdir -p "$OUT"
bundle=${ZKBATCH_BUNDLE:-.bundle}  # another folder when the carried bundle lives elsewhere
export LD_LIBRARY_PATH=$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# EVIDENCE_PLUGINS: a folder of other plugin builds to run instead of the bundle's (a
# variant to compare); the caller's ZKBATCH_PLUGIN_PATH is replaced either way.
export ZKBATCH_PLUGIN_PATH=${EVIDENCE_PLUGINS:-$PWD/$bundle/plugins}
zkbatch=$bundle/bin/zkbatch
db=${EVIDENCE_DB:-$OUT/h200.db}  # an existing database is added to
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests kernels smoke ab20 ab24 busy ab26)

log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$OUT/evidence.log"; }
# EVIDENCE_SECONDS bounds the whole script (the device tool stops a command at 600 s):
# a run that would pass it gets SIGINT (zkbatch records it cancelled, exit 6, with the
# partitions it finished) and later runs are skipped, so the logs and databases still
# come back.
deadline=$(( $(date +%s) + ${EVIDENCE_SECONDS:-86400} ))
run_job() {  # run_job NAME ARGS...: one zkbatch run, its log in $OUT/NAME.log
  local name=$1; shift
  local left=$(( deadline - $(date +%s) ))
  if [ "$left" -le 10 ]; then
    log "skipped (EVIDENCE_SECONDS spent): zkbatch run $*"
    return
  fi
  log "zkbatch run $*"
  timeout -s INT -k 30 "$left" "$zkbatch" --log-level info run "$@" --db "$db" >"$logs/$name.log" 2>&1
  local status=$?
  tail -n 4 "$logs/$name.log" | tee -a "$OUT/evidence.log"
  log "exit $status"
}

log "host $(hostname), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current \
  --format=csv,noheader | tee -a "$OUT/evidence.log"
"$zkbatch" backends | tee -a "$OUT/evidence.log"

for step in "${steps[@]}"; do
  case $step in
    tests)
      log "gpu_tests"
      $bundle/tests/gpu_tests --gtest_brief=1 >"$logs/gpu_tests.log" 2>&1
      log "gpu_tests exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$logs/gpu_tests.log" | tr '\n' ' ')" ;;
    kernels)  # issue 7's table: NTT and quotient kernels on device-resident data.
              # KERNEL_PLANS adds pass plans to compare (STAGES:TILE_LOG,...).
      log "ntt_kernel_bench"
      $bundle/bin/ntt_kernel_bench --log-n "${KERNEL_LOG_NS:-20,22,24,26,27}" --repetitions 15 \
        --plans "${KERNEL_PLANS:-10:10}" | tee "$OUT/kernels.md" | tee -a "$OUT/evidence.log" ;;
    profile)  # Nsight Compute on each pass of one 2^PROFILE_LOG_N forward NN and RN per plan
              # (duration, pipes, occupancy; caches not flushed), and the SASS histogram of
              # the pass kernels: profile.md.
      ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
      log_n=${PROFILE_LOG_N:-24}
      log "ncu ${ncu:-missing}"
      {
        for plan in $(echo "${KERNEL_PLANS:-10:10}" | tr ',' ' '); do
          echo "## plan $plan, 2^$log_n: the third forward NN (DIF passes), then forward RN (DIT)"
          # Three runs of the DIF passes (two warm-ups and one measured) come first.
          passes=$(( (log_n + ${plan%%:*} - 1) / ${plan%%:*} ))
          [ -n "$ncu" ] && "$ncu" --cache-control none --kernel-name regex:ntt_pass \
            --launch-skip $((2 * passes)) --launch-count $((2 * passes)) \
            --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats \
            $bundle/bin/ntt_kernel_bench --log-n "$log_n" --repetitions 1 --plans "$plan" 2>&1
        done
        echo "## SASS of the pass kernels"
        tools/sass-opcodes.sh $bundle/bin/ntt_kernel_bench summary
        tools/sass-opcodes.sh $bundle/bin/ntt_kernel_bench | sort -k2,2 -k1,1nr
      } >"$OUT/profile.md" 2>&1
      log "profile: $(grep -c 'gpu__time_duration\|Duration' "$OUT/profile.md") durations" ;;
    msm)
      log "gpu_tests --gtest_filter=${MSM_TEST_FILTER:-Msm*:Device*}"
      $bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter="${MSM_TEST_FILTER:-Msm*:Device*}" \
        >"$OUT/msm_tests.log" 2>&1
      log "msm tests exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/msm_tests.log" | tr '\n' ' ')"
      msm_bench() {  # msm_kernel_bench ARGS..., appended to msm.md
        # shellcheck disable=SC2086  # MSM_BENCH_ARGS is a list of arguments
        $bundle/bin/msm_kernel_bench "$@" --repetitions "${MSM_REPETITIONS:-11}" ${MSM_BENCH_ARGS:-} 2>&1 |
          tee -a "$OUT/msm.md" | tee -a "$OUT/evidence.log"
        log "msm_kernel_bench $* exit ${PIPESTATUS[0]}"
      }
      : >"$OUT/msm.md"
      if [ -n "${MSM_LOG_NS:-}" ]; then
        msm_bench --log-n "$MSM_LOG_NS"
      else
        # 2^26 in a run of its own: G2's affine rounds take scratch for segments of 6144
        # entries (47 GB) only in a run without a G1 table at 2^26 (66 GB), which leaves no
        # room for it (msm_kernel_bench, g2_affine_segment).
        msm_bench --log-n 16,18,20,22,24
        msm_bench --log-n 26 --sweep-log-n '' --affine-log-n ''
      fi
      SASS_KERNELS='accumulate_kernel|reduce_buckets|tree_sum|combine_windows' \
        tools/sass-opcodes.sh $bundle/bin/msm_kernel_bench summary >"$OUT/msm-sass.txt" 2>&1
      tee -a "$OUT/evidence.log" <"$OUT/msm-sass.txt" ;;
    fp-product)
      log "fp_product_bench"
      "$bundle"/bin/fp_product_bench 2>&1 | tee "$OUT/fp-product.md" | tee -a "$OUT/evidence.log"
      log "fp_product_bench exit ${PIPESTATUS[0]}"
      SASS_KERNELS='chains_kernel|pipes_kernel' tools/sass-opcodes.sh "$bundle"/bin/fp_product_bench summary \
        >"$OUT/fp-product-sass.txt" 2>&1 ;;
    msm-profile)  # Nsight Compute on the first level-0 accumulation (the MSM's hot kernel) of
                  # the table's first G1 and G2 rows at 2^PROFILE_LOG_N (default 22): where
                  # its warps stall, pipe use, occupancy (msm-profile.md; the pipes apart,
                  # msm-profile-pipes.md).
      ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
      log_n=${PROFILE_LOG_N:-22}
      log "ncu ${ncu:-missing}"
      {
        for curve in G1 G2; do
          echo "## $curve, 2^$log_n: accumulate_kernel, level 0"
          [ -n "$ncu" ] && "$ncu" --clock-control none --nvtx --nvtx-include "table 2^$log_n/" \
            --kernel-name-base demangled --kernel-name "regex:accumulate_kernel<.*${curve}Params" --launch-count 1 \
            --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
            --section SchedulerStats --section WarpStateStats --section InstructionStats \
            $bundle/bin/msm_kernel_bench --log-n "$log_n" --repetitions 1 2>&1
        done
      } >"$OUT/msm-profile.md" 2>&1
      # The pipes apart (a second pass, so a metric this ncu lacks loses only this part):
      # IMAD.WIDE issues to the FMA-heavy pipe alone, so "SM Busy" can sit near its peak
      # while the FMA pipe as a whole reads half of that.
      {
        for curve in G1 G2; do
          echo "## $curve, 2^$log_n: accumulate_kernel, level 0, pipe utilization"
          [ -n "$ncu" ] && "$ncu" --clock-control none --nvtx --nvtx-include "table 2^$log_n/" \
            --kernel-name-base demangled --kernel-name "regex:accumulate_kernel<.*${curve}Params" --launch-count 1 \
            --metrics sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active,sm__warps_active.avg.per_cycle_active \
            $bundle/bin/msm_kernel_bench --log-n "$log_n" --repetitions 1 2>&1
        done
      } >"$OUT/msm-profile-pipes.md" 2>&1
      log "msm-profile: $(grep -c 'Duration' "$OUT/msm-profile.md") durations" ;;
    copies)
      log "copy_overlap_bench"
      {
        $bundle/bin/copy_overlap_bench --mib 2048
        echo
        CUDA_DEVICE_MAX_CONNECTIONS=32 $bundle/bin/copy_overlap_bench --mib 2048
      } 2>&1 | tee "$OUT/copies.md" | tee -a "$OUT/evidence.log" ;;
    smoke)
      for backend in cuda-pinned cuda-pageable; do
        run_job "smoke-$backend" jobs/smoke.toml --backend "$backend" --set job.partitions=8 --set circuit.log_n=16
      done ;;
    ab20|ab24)  # both arms interleaved in one experiment
      run_job "$step" "jobs/ab-log${step#ab}.toml" ;;
    ab26)  # one arm at a time: both alive at once would need ~100 GiB of host memory
      for arm in pinned pageable; do
        run_job "$step-$arm" jobs/ab-log26.toml --backend "cuda-$arm"
      done ;;
    busy)  # GPU busy fraction: 20 replayed partitions of 2^24, cuda-pinned, 2 workers. One
           # input set: once each of the 8 pinned sets holds it, no partition copies inputs
           # (keeps_contents), so the host's memory bandwidth goes to digests and uploads.
      run_job busy jobs/ab-log24.toml --backend cuda-pinned --set job.name=busy-log24 \
        --set job.partitions=20 --set pipeline.prove_workers=2 --set pipeline.replay_inputs=1 ;;
    groth16)  # Whole proofs on the GPU: the Groth16 device tests (byte-equal to cpu-ref,
              # log_n 1..20, and the circom fixtures in $ZKBATCH_CIRCOM_CACHE, default
              # tools/js/cache/circom: NAME/NAME.zkey and NAME/wtns/*.wtns, carried to the
              # GPU machine), then the smoke job and each circom fixture's witnesses proved
              # and verified through zkbatch run on both CUDA backends.
      export ZKBATCH_CIRCOM_CACHE=${ZKBATCH_CIRCOM_CACHE:-tools/js/cache/circom}
      log "gpu_tests --gtest_filter=CudaGroth16*:CudaPlugins*"
      $bundle/tests/gpu_tests --gtest_brief=1 --gtest_filter='CudaGroth16*:CudaPlugins*' >"$OUT/groth16_tests.log" 2>&1
      log "groth16 tests exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/groth16_tests.log" | tr '\n' ' ')"
      for backend in cuda-pinned cuda-pageable; do
        run_job "groth16-smoke-$backend" jobs/smoke.toml --backend "$backend" --set job.partitions=8 \
          --set circuit.log_n=16 --set verify.mode=proof --set verify.every=1
        for fixture in "$ZKBATCH_CIRCOM_CACHE"/*/wtns; do
          name=$(basename "$(dirname "$fixture")")
          run_job "circom-$name-$backend" jobs/circom.toml --backend "$backend" --set job.name="circom-$name" \
            --set circuit.zkey="$ZKBATCH_CIRCOM_CACHE/$name/$name.zkey" \
            --set circuit.witnesses="$ZKBATCH_CIRCOM_CACHE/$name/wtns/*.wtns" --set proof.randomness=derived
        done
      done ;;
    groth16-e2e)  # Whole proofs, pinned vs pageable (jobs/groth16-gpu.toml): for each
                  # G16_SHAPES entry LOG_N:BOOLEAN_SHARE (default a PoRep-like 2^24 witness,
                  # 90% of rows boolean, and a full-density 2^22 one), the seeded key made
                  # once (zkbatch setup, timed), then each arm with replayed inputs (the GPU's
                  # side alone) and with synthesized ones (the whole pipeline).
                  # G16_KEY=backend: no key file; each run's backend makes the key on the GPU
                  # (setup.key = "backend", timed as run_device.key_load_ms): what 2^26 and
                  # 2^27 need (a 2^27 key is ~77 GB, more than this disk). G16_REPLAY lists
                  # the pipeline.replay_inputs of each arm ("2 0": replayed, then synthesized);
                  # G16_ARGS adds --set arguments to every run (sizes for large shapes);
                  # G16_ARMS the arms (default "pinned pageable").
      for shape in ${G16_SHAPES:-24:0.9 22:0}; do
        log_n=${shape%%:*} share=${shape#*:}
        shape_args=(--set circuit.log_n="$log_n" --set circuit.boolean_share="$share"
                    --set job.name="groth16-log$log_n-bool$share" --set setup.key="${G16_KEY:-cache}")
        # shellcheck disable=SC2206  # G16_ARGS is a list of arguments
        shape_args+=(${G16_ARGS:-})
        if [ "${G16_KEY:-cache}" = cache ]; then
          log "zkbatch setup jobs/groth16-gpu.toml ${shape_args[*]}"
          "$zkbatch" --log-level info setup jobs/groth16-gpu.toml "${shape_args[@]}" 2>&1 | tail -n 2 | tee -a "$OUT/evidence.log"
        fi
        for arm in ${G16_ARMS:-pinned pageable}; do
          for replay in ${G16_REPLAY:-2 0}; do
            inputs=$([ "$replay" = 0 ] && echo synthesized || echo replayed)
            run_job "groth16-log$log_n-bool$share-$arm-$inputs" jobs/groth16-gpu.toml --backend "cuda-$arm" \
              "${shape_args[@]}" --set pipeline.replay_inputs="$replay" \
              --set output.tags.arm="$arm" --set output.tags.inputs="$inputs"
          done
        done
      done ;;
    e2e24|e2e26|e2e27)  # One input set replayed (keeps_contents: no host copies into pinned
                        # sets), 3 prove workers (one partition's upload, another's kernels
                        # and a third's download may overlap), 4 synthesis workers and a
                        # queue of 8 (as tools/h200-multigpu.sh, whose 1-GPU arm reached
                        # 99% of the bound at 2^24), one arm at a time (both at 2^27 would
                        # not fit in host memory); only partition 0 verified: a 2^27 check
                        # is ~10 s of CPU. Enough pinned sets that the provers rarely wait
                        # for a free set; the finalizers verify (the CUDA backends digest
                        # h on the device, ABI v4) and, with v3, hashed 4 GiB of h in 1.2 s.
                        # The pageable arm has no pool to bound its sets, so at 2^27 it
                        # runs with 2 finalizers (the host-memory estimate refuses 5).
                        # E2E_ARMS picks the arms; E2E_COPY_STREAMS the CUDA backends'
                        # copy_streams for each (default "device"; "device worker" A/Bs).
                        # These counts were sized for the 2 x H200 host (250 GiB of memory);
                        # on a host with less than 200 GiB available (the 1 x H200 machine:
                        # 125 GiB) the 2^26 pageable arm runs as the 2^27 one does, the 2^27
                        # pinned arm with 5 sets and 3 finalizers, and the 2^27 pageable arm
                        # is skipped (even 1 synthesis worker and a queue of 2 need 160 GiB).
      log_n=${step#e2e}
      small_host=$(awk '/MemAvailable/ {print ($2 < 200 * 1024 * 1024)}' /proc/meminfo)
      case $log_n in
        24) partitions=128 pool_sets=10 finalizers=8 ;;
        26) partitions=24 pool_sets=8 finalizers=6 ;;
        *) partitions=16 pool_sets=8 finalizers=5 ;;  # 16 GiB per set: 128 GiB pinned
      esac
      lean_pageable_from=27  # the log n from which the pageable arm runs lean
      if [ "$small_host" = 1 ]; then
        lean_pageable_from=26
        [ "$log_n" -ge 27 ] && pool_sets=5 finalizers=3
      fi
      for arm in ${E2E_ARMS:-pinned pageable}; do
        if [ "$log_n" -ge 27 ] && [ "$arm" = pageable ] && [ "$small_host" = 1 ]; then
          log "$step $arm skipped: under 200 GiB of host memory available"
          continue
        fi
        for copy_streams in ${E2E_COPY_STREAMS:-device}; do
          arm_finalizers=$finalizers synthesizers=4 queue=8 arm_partitions=$partitions
          # The sampled identity check of partition 0 holds its pinned set for ~7 s at
          # 2^27, most of a 16-partition run: the pinned arm runs 64 to reach its steady
          # state (results/h200/README.md, kernels v9).
          [ "$arm" = pinned ] && [ "$log_n" -ge 27 ] && arm_partitions=64
          if [ "$arm" = pageable ] && [ "$log_n" -ge "$lean_pageable_from" ]; then
            arm_finalizers=2 synthesizers=1 queue=2
          fi
          run_job "$step-$arm-$copy_streams" jobs/gpu-replay.toml --backend "cuda-$arm" --set job.name="e2e-log$log_n" \
            --set circuit.log_n="$log_n" --set job.partitions="$arm_partitions" --set pipeline.replay_inputs=1 \
            --set pipeline.synthesis_workers="$synthesizers" --set pipeline.prove_workers=3 \
            --set pipeline.queue_depth="$queue" --set 'pipeline.devices=[0]' \
            --set pipeline.finalize_workers="$arm_finalizers" --set backend.options.cuda-pinned.pool_sets="$pool_sets" \
            --set backend.options.copy_streams="$copy_streams" \
            --set verify.every=1000 --set finalize.malloc_trim=false \
            --set output.tags.experiment="${E2E_EXPERIMENT:-kernels-e2e}" --set output.tags.arm="$arm"
        done
      done
      e2e_ran=1 ;;
    *) log "unknown step $step" ;;
  esac
done

# The runs' summary, when a step made any (tests, kernels and msm alone make none).
has_runs() {
  [ -x "$zkbatch" ] && [ -f "$db" ] && python3 -c "import sqlite3, sys
sys.exit(0 if sqlite3.connect(sys.argv[1]).execute('SELECT 1 FROM run LIMIT 1').fetchone() else 1)" "$db" 2>/dev/null
}
has_runs && {
  echo "# zkbatch on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%Y-%m-%d)"
  echo
  echo '$ zkbatch runs'
  "$zkbatch" runs --db "$db"
  for id in $(sqlite3 "$db" 'SELECT id FROM run ORDER BY id' 2>/dev/null || "$zkbatch" runs --db "$db" | awk 'NR>1 {print $1}'); do
    echo
    echo "\$ zkbatch show $id"
    "$zkbatch" show "$id" --db "$db"
  done
} >"$OUT/summary.txt" 2>&1
# End to end against the bound (issue 7): steady state = spacing of d2h completions over
# the middle half of each run; bound = the larger of the upload at 55 GB/s and the
# quotient's kernel time from this call's kernels step (kernels.md), when it ran.
if [ -n "${e2e_ran:-}" ]; then
  if [ -f "$OUT/kernels.md" ]; then kernels_md=$OUT/kernels.md; else kernels_md=/dev/null; fi
  python3 tools/run_timing.py "$db" --bound "$kernels_md" | tee "$OUT/e2e.md" | tee -a "$OUT/evidence.log"
fi
# One self-contained database file: fold the WAL back in.
[ ! -f "$db" ] || python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.execute('PRAGMA journal_mode=DELETE'); c.close()" "$db" ||
  log "could not checkpoint $db: fetch its -wal file too"
tar -czf "$OUT/logs.tar.gz" -C "$logs" .
if has_runs; then "$zkbatch" runs --db "$db"; fi
