-- Is one arm of an A/B experiment faster, and in which phase? The runs of one
-- experiment side by side: for each phase, one row per arm with its partition count,
-- median and p95, and the relative change of the median against the experiment's
-- first arm (its first run). Arms ran on the same inputs (same seed and partitions).
--
-- Set the experiment id in the first line (params; by default the latest experiment),
-- then:
--   sqlite3 -header -column results/zkbatch.db < results/queries/experiment_ab.sql
--
-- A difference of medians is not yet a verdict: `zkbatch compare experiment=ID` adds
-- the Mann-Whitney p-value and a confidence interval. Medians come from phase_summary.
WITH params(experiment_id) AS (VALUES ((SELECT max(id) FROM experiment))),
arms AS (
    SELECT r.id AS run_id, COALESCE(r.arm, r.backend_name) AS arm,
           ROW_NUMBER() OVER (ORDER BY r.id) AS arm_order
    FROM run AS r
    WHERE r.experiment_id = (SELECT experiment_id FROM params)
), phases AS (
    SELECT a.arm, a.arm_order, a.run_id, s.phase, s.count, s.median_ms, s.p95_ms,
           s.median_gb_per_s
    FROM arms AS a JOIN phase_summary AS s ON s.run_id = a.run_id
)
SELECT (SELECT experiment_id FROM params) AS experiment_id,
       p.phase,
       p.arm,
       p.run_id,
       p.count AS n,
       round(p.median_ms, 3) AS median_ms,
       round(p.p95_ms, 3) AS p95_ms,
       round(p.median_gb_per_s, 2) AS median_gb_per_s,
       CASE WHEN p.arm_order > 1 AND first.median_ms > 0
            THEN round(100.0 * (p.median_ms - first.median_ms) / first.median_ms, 1)
       END AS change_vs_first_arm_pct
FROM phases AS p
LEFT JOIN phases AS first ON first.phase = p.phase AND first.arm_order = 1
LEFT JOIN phase_name AS n ON n.phase = p.phase
ORDER BY n.sort_order, p.phase, p.arm_order;
