#!/usr/bin/env python3
"""Steady-state and copy-engine figures of zkbatch runs, read from a run database.

    tools/run_timing.py DB RUN [RUN ...]      a table, one row per run and device
    tools/run_timing.py DB --bound KERNELS.md the e2e runs (job e2e-log*) against their bound

Used by tools/gpu-bench.sh (its replay and multigpu steps), and on its own to look at
any run. Needs only Python's sqlite3.

- steady ms/partition: the spacing of d2h completions over the middle half of the run,
  so filling and draining the pipeline do not count.
- uploads, downloads ms/partition: how long the device's copies of one direction kept a
  copy engine busy, counted as if they were served one at a time in the order they
  finished (each from the later of its recorded start and the previous copy's end). A
  copy's recorded start is when its stream reached it, so copies queued behind others
  would otherwise count their wait.
- copies ms/partition: the time either direction was busy (the union of the two). When
  the directions overlap, it is near the larger of them; when they queue, near their sum.
- first upload waited ms: the median, over partitions, of the time from the prove call
  to its first upload's start: queueing behind other copies. With copy_streams = device
  that includes other workers' uploads ahead on the shared upload stream (a queue that
  keeps the engine busy, not idle time); with a copy stream per worker, whole
  downloads of other workers (docs/ntt.md#copies-and-streams).
- --bound: each e2e run's steady state against its bound, the larger of the upload (3
  vectors of 32 bytes per element at 55 GB/s) and the quotient's kernel time from
  ntt_kernel_bench's table (KERNELS.md, first row of each log n).
"""
import statistics
import sqlite3
import sys


def steady_ms(db, run_id):
    ends = [row[0] for row in db.execute(
        "SELECT i.end_ns FROM phase_interval i JOIN partition p ON p.id = i.partition_id "
        "WHERE p.run_id = ? AND i.phase = 'd2h' ORDER BY i.end_ns", (run_id,))]
    lo, hi = len(ends) // 4, 3 * len(ends) // 4
    return (ends[hi] - ends[lo]) / (hi - lo) / 1e6 if hi > lo else float("nan")


def busy_intervals(db, run_id, device_index, phase):
    """The copies of one direction as a copy engine served them: one at a time in the
    order they finished, each from the later of its recorded start and the previous end."""
    rows = db.execute(
        "SELECT i.start_ns, i.end_ns FROM phase_interval i JOIN partition p ON p.id = i.partition_id "
        "WHERE p.run_id = ? AND p.device_index IS ? AND i.phase = ? ORDER BY i.end_ns",
        (run_id, device_index, phase)).fetchall()
    served, previous_end = [], 0
    for start, end in rows:
        served.append((max(start, previous_end), end))
        previous_end = end
    return served


def copies_ms(db, run_id, device_index, phases=("h2d", "d2h")):
    """Copy-engine milliseconds per partition proved on `device_index`, for the copies
    of `phases`: the union of each direction's busy intervals (see above)."""
    intervals = sorted(piece for phase in phases for piece in busy_intervals(db, run_id, device_index, phase))
    partitions = db.execute("SELECT count(*) FROM partition WHERE run_id = ? AND device_index IS ?",
                            (run_id, device_index)).fetchone()[0]
    busy_ns, covered_until = 0, 0
    for start, end in intervals:
        start = max(start, covered_until)
        if end > start:
            busy_ns += end - start
            covered_until = end
    return busy_ns / 1e6 / partitions if partitions else float("nan")


def first_upload_wait_ms(db, run_id, device_index):
    """Median ms from the start of a partition's `prove` to its first upload's start (see above)."""
    waits = [row[0] / 1e6 for row in db.execute(
        "SELECT min(u.start_ns) - v.start_ns FROM partition p "
        "JOIN phase_interval v ON v.partition_id = p.id AND v.phase = 'prove' "
        "JOIN phase_interval u ON u.partition_id = p.id AND u.phase = 'h2d' "
        "WHERE p.run_id = ? AND p.device_index IS ? GROUP BY p.id", (run_id, device_index))]
    return statistics.median(waits) if waits else float("nan")


def devices(db, run_id):
    return [row[0] for row in db.execute(
        "SELECT DISTINCT device_index FROM partition WHERE run_id = ? ORDER BY device_index", (run_id,))]


def print_table(db, run_ids):
    """One row per run and device (the module's docstring says what each column is)."""
    print("| run | device | partitions | steady ms/partition (run) | copies ms/partition (device) "
          "| uploads | downloads | first upload waited ms |")
    print("|---|---|---|---|---|---|---|---|")
    for run_id in run_ids:
        steady = steady_ms(db, run_id)
        for device in devices(db, run_id):
            count = db.execute("SELECT count(*) FROM partition WHERE run_id = ? AND device_index IS ?",
                               (run_id, device)).fetchone()[0]
            uploads, downloads = (copies_ms(db, run_id, device, (phase,)) for phase in ("h2d", "d2h"))
            print(f"| {run_id} | {device} | {count} | {steady:.1f} | {copies_ms(db, run_id, device):.1f} "
                  f"| {uploads:.1f} | {downloads:.1f} | {first_upload_wait_ms(db, run_id, device):.2f} |")


def kernel_ms_by_log_n(kernels_md):
    """The quotient's kernel ms per log n from ntt_kernel_bench's markdown table."""
    kernel_ms = {}
    for line in open(kernels_md):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 8 and cells[0].isdigit():
            kernel_ms.setdefault(int(cells[0]), float(cells[7]))
    return kernel_ms


def print_bound_table(db, kernel_ms):
    """The e2e runs (job e2e-log*, tag arm) against their bound (see above)."""
    runs = db.execute(
        "SELECT r.id, r.log_n, r.wall_ms, r.partitions_ok, t.value, "
        "coalesce((SELECT value FROM run_fact f WHERE f.run_id = r.id AND f.key = 'cuda.copy_streams'), 'worker') "
        "FROM run r JOIN run_tag t ON t.run_id = r.id AND t.key = 'arm' WHERE r.job_name LIKE 'e2e-log%' "
        "ORDER BY r.id").fetchall()
    print("| log n | arm | copy streams | run | steady ms/partition | copies ms/partition | upload bound ms "
          "| kernel ms | share of bound | wall partitions/h |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    first_rate = {}  # (log n, arm) -> partitions/h of its first run, for the ratio below
    for run_id, log_n, wall_ms, ok, arm, copy_streams in runs:
        upload_ms = 3 * (32 << log_n) / 55e9 * 1e3
        bound_ms = max(upload_ms, kernel_ms.get(log_n, 0.0))
        steady = steady_ms(db, run_id)
        rate = ok * 3.6e6 / wall_ms
        first_rate.setdefault((log_n, arm), rate)
        share = f"{100 * bound_ms / steady:.0f}%" if arm.startswith("pinned") and log_n in kernel_ms else "-"
        print(f"| {log_n} | {arm} | {copy_streams} | {run_id} | {steady:.1f} | {copies_ms(db, run_id, 0):.1f} "
              f"| {upload_ms:.1f} | {kernel_ms.get(log_n, float('nan')):.1f} | {share} | {rate:.0f} |")
    for log_n in sorted({key[0] for key in first_rate}):
        if (log_n, "pinned") in first_rate and (log_n, "pageable") in first_rate:
            print(f"2^{log_n}: pinned / pageable partitions per hour (wall) = "
                  f"{first_rate[(log_n, 'pinned')] / first_rate[(log_n, 'pageable')]:.1f}x")


def main(argv):
    bound = len(argv) > 2 and argv[2] == "--bound"
    if len(argv) < 3 or (bound and len(argv) != 4):
        sys.exit("usage: run_timing.py DB RUN [RUN ...]\n       run_timing.py DB --bound KERNELS.md")
    db = sqlite3.connect(f"file:{argv[1]}?mode=ro", uri=True)
    if bound:
        print_bound_table(db, kernel_ms_by_log_n(argv[3]))
    else:
        print_table(db, map(int, argv[2:]))


if __name__ == "__main__":
    main(sys.argv)
