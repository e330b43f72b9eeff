-- Which runs does this database hold, and how did each go? One row per run, oldest
-- first: outcome, wall time, throughput, median host-to-device copy rate, GPU busy
-- share and peak memory. Empty cells: not measured (no GPU) or run not finished.
--
--   sqlite3 -header -column results/zkbatch.db < results/queries/runs.sql
--
-- The numbers come from the run_summary view, as in `zkbatch runs` / `zkbatch show`.
SELECT run_id,
       started_at,
       job_name AS job,
       backend_name AS backend,
       status,
       partitions_ok AS ok,
       partitions_failed AS failed,
       round(wall_ms / 1000.0, 1)                AS wall_s,
       round(partitions_per_hour, 1)             AS partitions_per_hour,
       round(median_h2d_gb_per_s, 2)             AS h2d_gb_per_s,
       round(100.0 * gpu_busy_fraction, 1)       AS gpu_busy_pct,
       round(peak_rss_bytes / 1048576.0, 1)      AS peak_rss_mib
FROM run_summary
ORDER BY run_id;
