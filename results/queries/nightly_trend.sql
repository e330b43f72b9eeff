-- How has one job done night after night, and when did it change? One row per run
-- of the job, oldest first: outcome, throughput, the median of the whole partition
-- and of its main phases, the median upload rate, and the change of the partition
-- median against the job's previous successful run.
--
-- Set the job in the first line (params), then:
--   sqlite3 -header -column results/zkbatch.db < results/queries/nightly_trend.sql
--
-- Medians come from the phase_summary view (the numbers `zkbatch show` prints). A run
-- with another backend or circuit size is a different series: compare like with like
-- (the backend and log_n columns say which).
WITH params(job) AS (VALUES ('nightly')),
runs AS (
    SELECT r.id, r.started_at, r.status, r.backend_name, r.log_n, r.git_revision,
           s.partitions_ok, s.partitions_failed, s.partitions_per_hour, s.gpu_busy_fraction
    FROM run AS r JOIN run_summary AS s ON s.run_id = r.id
    WHERE r.job_name = (SELECT job FROM params)
), medians AS (
    SELECT runs.id AS run_id,
           MAX(p.median_ms) FILTER (WHERE p.phase = 'partition') AS partition_ms,
           MAX(p.median_ms) FILTER (WHERE p.phase = 'synth')     AS synth_ms,
           MAX(p.median_ms) FILTER (WHERE p.phase = 'prove')     AS prove_ms,
           MAX(p.median_ms) FILTER (WHERE p.phase = 'finalize')  AS finalize_ms,
           MAX(p.median_gb_per_s) FILTER (WHERE p.phase = 'h2d') AS h2d_gb_per_s
    FROM runs LEFT JOIN phase_summary AS p ON p.run_id = runs.id
    GROUP BY runs.id
), trend AS (
    SELECT runs.*, m.partition_ms, m.synth_ms, m.prove_ms, m.finalize_ms, m.h2d_gb_per_s,
           -- the previous successful run of the same backend and size
           LAG(m.partition_ms) OVER (PARTITION BY runs.backend_name, runs.log_n,
                                                  runs.status = 'ok'
                                     ORDER BY runs.id) AS previous_partition_ms
    FROM runs JOIN medians AS m ON m.run_id = runs.id
)
SELECT id AS run_id,
       started_at,
       status,
       backend_name AS backend,
       log_n,
       git_revision,
       partitions_ok AS ok,
       partitions_failed AS failed,
       round(partitions_per_hour, 1)      AS partitions_per_hour,
       round(partition_ms, 3)             AS partition_ms,
       round(synth_ms, 3)                 AS synth_ms,
       round(prove_ms, 3)                 AS prove_ms,
       round(finalize_ms, 3)              AS finalize_ms,
       round(h2d_gb_per_s, 2)             AS h2d_gb_per_s,
       round(100.0 * gpu_busy_fraction, 1) AS gpu_busy_pct,
       CASE WHEN status = 'ok' AND previous_partition_ms > 0
            THEN round(100.0 * (partition_ms - previous_partition_ms) / previous_partition_ms, 1)
       END AS partition_change_pct
FROM trend
ORDER BY id;
