-- Where does the GPU sit idle? For each prove worker of a run: how many idle gaps it
-- had between its partitions (all but its first), their total, median, p95 and max in
-- ms, next to the run's wall time and GPU busy share (union of device-active intervals
-- over wall time; empty without a GPU). Large gaps mean the workers waited for
-- synthesis or host buffers: look at synth and pool_wait in phase_medians.sql.
--
-- Set the run in the first line (params; by default the latest run), then:
--   sqlite3 -header -column results/zkbatch.db < results/queries/gpu_idle.sql
--
-- Over the partitions that did not fail, with phase_summary's median and p95, so the
-- numbers match the "idle gaps per prove worker" block of `zkbatch show`.
WITH params(run_id) AS (VALUES ((SELECT max(id) FROM run))),
gaps AS (
    SELECT run_id, prove_worker, idle_gap_ms AS ms,
           COUNT(*) OVER per_worker AS n,
           ROW_NUMBER() OVER (per_worker ORDER BY idle_gap_ms) AS ms_rank
    FROM partition
    WHERE run_id = (SELECT run_id FROM params) AND idle_gap_ms IS NOT NULL AND status <> 'failed'
    WINDOW per_worker AS (PARTITION BY prove_worker)
), per_worker AS (
    SELECT run_id, prove_worker, COUNT(*) AS gaps, SUM(ms) AS total_ms,
           AVG(ms) FILTER (WHERE ms_rank IN ((n + 1) / 2, (n + 2) / 2)) AS median_ms,
           MAX(ms) FILTER (WHERE ms_rank = (95 * n + 99) / 100) AS p95_ms,
           MAX(ms) AS max_ms
    FROM gaps
    GROUP BY run_id, prove_worker
)
SELECT w.run_id,
       'prove.' || w.prove_worker AS worker,
       w.gaps,
       round(w.total_ms, 3) AS total_ms,
       round(w.median_ms, 3) AS median_ms,
       round(w.p95_ms, 3) AS p95_ms,
       round(w.max_ms, 3) AS max_ms,
       round(r.wall_ms, 3) AS run_wall_ms,
       round(100.0 * r.gpu_busy_fraction, 1) AS gpu_busy_pct
FROM per_worker AS w JOIN run AS r ON r.id = w.run_id
ORDER BY w.prove_worker;
