-- How fast do uploads run on each backend? Per backend and circuit size: the runs,
-- the partitions whose host-to-device copy was measured, and the median, min and max
-- of the per-partition h2d rate in GB/s (bytes / ms / 1e6, as phase_summary computes
-- it), over all recorded runs that did not fail part-way. Pinned host memory should
-- show PCIe line rate; pageable memory a fraction of it. A backend without a GPU
-- (cpu-ref) is listed with no measured uploads.
--
--   sqlite3 -header -column results/zkbatch.db < results/queries/upload_rates.sql
WITH rates AS (
    SELECT r.backend_name, r.log_n, p.h2d_bytes / p.h2d_ms / 1e6 AS gb_per_s
    FROM partition AS p JOIN run AS r ON r.id = p.run_id
    WHERE p.status <> 'failed' AND p.h2d_ms > 0 AND p.h2d_bytes IS NOT NULL
), ranked AS (
    SELECT backend_name, log_n, gb_per_s,
           COUNT(*) OVER per_backend AS n,
           ROW_NUMBER() OVER (per_backend ORDER BY gb_per_s) AS rate_rank
    FROM rates
    WINDOW per_backend AS (PARTITION BY backend_name, log_n)
), medians AS (
    SELECT backend_name, log_n, MAX(n) AS partitions,
           AVG(gb_per_s) FILTER (WHERE rate_rank IN ((n + 1) / 2, (n + 2) / 2)) AS median_gb_per_s,
           MIN(gb_per_s) AS min_gb_per_s,
           MAX(gb_per_s) AS max_gb_per_s
    FROM ranked
    GROUP BY backend_name, log_n
), backends AS (
    SELECT backend_name, log_n, COUNT(*) AS runs,
           MAX(gpu_name) AS gpu_name, MAX(pcie_gen) AS pcie_gen, MAX(pcie_width) AS pcie_width
    FROM run
    GROUP BY backend_name, log_n
)
SELECT b.backend_name AS backend,
       b.log_n,
       b.runs,
       COALESCE(m.partitions, 0) AS partitions_measured,
       round(m.median_gb_per_s, 2) AS median_h2d_gb_per_s,
       round(m.min_gb_per_s, 2) AS min_h2d_gb_per_s,
       round(m.max_gb_per_s, 2) AS max_h2d_gb_per_s,
       b.gpu_name,
       b.pcie_gen,
       b.pcie_width
FROM backends AS b
LEFT JOIN medians AS m ON m.backend_name = b.backend_name AND m.log_n = b.log_n
ORDER BY b.backend_name, b.log_n;
