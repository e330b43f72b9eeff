-- Which partitions took longest, and why? The 10 slowest partitions of a run by the
-- derived 'partition' phase (first synth start to last finalize end), with the phase
-- breakdown behind each, the workers that handled it, and the largest of its
-- sequential parts (pool wait, synthesis, queue wait, prove, finalize, malloc_trim)
-- with that part's share of the partition's time.
--
-- Set the run in the first line (params; by default the latest run), then:
--   sqlite3 -header -column results/zkbatch.db < results/queries/slowest_partitions.sql
--
-- Empty cells: the phase was not measured (no GPU, malloc_trim off, ...). A large
-- queue_wait means proving could not keep up with synthesis; a large pool_wait, that
-- the backend's host buffers ran out; a large idle_gap before it, that the prove worker
-- waited for synthesis.
WITH params(run_id) AS (VALUES ((SELECT max(id) FROM run))),
partition_ms AS (
    SELECT run_id, partition_index, status, ms
    FROM partition_phase
    WHERE run_id = (SELECT run_id FROM params) AND phase = 'partition'
    ORDER BY ms DESC
    LIMIT 10
), largest_part AS (
    SELECT pp.partition_index, pp.phase, pp.ms,
           ROW_NUMBER() OVER (PARTITION BY pp.partition_index ORDER BY pp.ms DESC, pp.phase) AS part_rank
    FROM partition_phase AS pp
    WHERE pp.run_id = (SELECT run_id FROM params)
      AND pp.partition_index IN (SELECT partition_index FROM partition_ms)
      AND pp.phase IN ('pool_wait', 'synth', 'queue_wait', 'prove', 'finalize', 'malloc_trim')
)
SELECT s.run_id,
       s.partition_index AS partition,
       s.status,
       round(s.ms, 3) AS partition_ms,
       l.phase AS largest_part,
       round(100.0 * l.ms / NULLIF(s.ms, 0), 1) AS largest_part_pct,
       p.synth_worker,
       p.prove_worker,
       round(p.pool_wait_ms, 3)   AS pool_wait_ms,
       round(p.synth_ms, 3)       AS synth_ms,
       round(p.queue_wait_ms, 3)  AS queue_wait_ms,
       round(p.h2d_ms, 3)         AS h2d_ms,
       round(p.compute_ms, 3)     AS compute_ms,
       round(p.d2h_ms, 3)         AS d2h_ms,
       round(p.prove_ms, 3)       AS prove_ms,
       round(p.finalize_ms, 3)    AS finalize_ms,
       round(p.malloc_trim_ms, 3) AS malloc_trim_ms,
       round(p.idle_gap_ms, 3)    AS idle_gap_ms,
       p.error
FROM partition_ms AS s
JOIN partition AS p ON p.run_id = s.run_id AND p.partition_index = s.partition_index
LEFT JOIN largest_part AS l ON l.partition_index = s.partition_index AND l.part_rank = 1
ORDER BY s.ms DESC, s.partition_index;
