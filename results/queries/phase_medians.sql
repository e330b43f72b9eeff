-- Which phase got slower? The median of each phase in milliseconds, one row per run,
-- oldest run first. Partitions that failed are left out; an empty cell means the
-- phase was not measured in that run (no GPU, verification off, ...).
--
--   sqlite3 -header -column results/zkbatch.db < results/queries/phase_medians.sql
--
-- The medians come from the phase_summary view: the same numbers `zkbatch show` prints.
SELECT r.id AS run_id,
       r.started_at,
       r.job_name AS job,
       r.backend_name AS backend,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'pool_wait'), 3)   AS pool_wait_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'synth'), 3)       AS synth_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'queue_wait'), 3)  AS queue_wait_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'h2d'), 3)         AS h2d_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'compute'), 3)     AS compute_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'quotient'), 3)    AS quotient_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'msm.a'), 3)       AS "msm.a_ms",
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'msm.b_g1'), 3)    AS "msm.b_g1_ms",
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'msm.b_g2'), 3)    AS "msm.b_g2_ms",
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'msm.l'), 3)       AS "msm.l_ms",
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'msm.h'), 3)       AS "msm.h_ms",
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'd2h'), 3)         AS d2h_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'prove'), 3)       AS prove_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'finalize'), 3)    AS finalize_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'verify'), 3)      AS verify_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'malloc_trim'), 3) AS malloc_trim_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'idle_gap'), 3)    AS idle_gap_ms,
       round(MAX(s.median_ms) FILTER (WHERE s.phase = 'partition'), 3)   AS partition_ms
FROM run AS r
LEFT JOIN phase_summary AS s ON s.run_id = r.id
GROUP BY r.id
ORDER BY r.id;
