#!/usr/bin/env python3
"""Steady-state and copy-engine figures of zkbatch runs, read from a run database.

    tools/run_timing.py DB RUN [RUN ...]      a table, one row per run and device

Used by tools/h200-evidence.sh (e2e steps) and tools/h200-multigpu.sh, and on its own
to look at any run. Needs only Python's sqlite3.

- steady ms/partition: the spacing of d2h completions over the middle half of the run,
  so filling and draining the pipeline do not count.
- copies ms/partition: how long the device's copies kept a copy engine busy, counted as
  if they were served one at a time in the order they finished (each from the later of
  its recorded start and the previous copy's end). A copy's recorded start is when its
  stream reached it, so copies queued behind others would otherwise count their wait.
  About (uploads + download) per partition when uploads and downloads never overlap;
  less when they do.
"""
import sqlite3
import sys


def steady_ms(db, run_id):
    ends = [row[0] for row in db.execute(
        "SELECT i.end_ns FROM phase_interval i JOIN partition p ON p.id = i.partition_id "
        "WHERE p.run_id = ? AND i.phase = 'd2h' ORDER BY i.end_ns", (run_id,))]
    lo, hi = len(ends) // 4, 3 * len(ends) // 4
    return (ends[hi] - ends[lo]) / (hi - lo) / 1e6 if hi > lo else float("nan")


def copies_ms(db, run_id, device_index):
    """Copy-engine milliseconds per partition proved on `device_index` (see above)."""
    rows = db.execute(
        "SELECT i.start_ns, i.end_ns FROM phase_interval i JOIN partition p ON p.id = i.partition_id "
        "WHERE p.run_id = ? AND p.device_index IS ? AND i.phase IN ('h2d', 'd2h') ORDER BY i.end_ns",
        (run_id, device_index)).fetchall()
    partitions = db.execute("SELECT count(*) FROM partition WHERE run_id = ? AND device_index IS ?",
                            (run_id, device_index)).fetchone()[0]
    busy_ns, previous_end = 0, 0
    for start, end in rows:
        busy_ns += end - max(start, previous_end)
        previous_end = end
    return busy_ns / 1e6 / partitions if partitions else float("nan")


def devices(db, run_id):
    return [row[0] for row in db.execute(
        "SELECT DISTINCT device_index FROM partition WHERE run_id = ? ORDER BY device_index", (run_id,))]


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: run_timing.py DB RUN [RUN ...]")
    db = sqlite3.connect(f"file:{argv[1]}?mode=ro", uri=True)
    print("| run | device | partitions | steady ms/partition (run) | copies ms/partition (device) |")
    print("|---|---|---|---|---|")
    for run_id in map(int, argv[2:]):
        steady = steady_ms(db, run_id)
        for device in devices(db, run_id):
            count = db.execute("SELECT count(*) FROM partition WHERE run_id = ? AND device_index IS ?",
                               (run_id, device)).fetchone()[0]
            print(f"| {run_id} | {device} | {count} | {steady:.1f} | {copies_ms(db, run_id, device):.1f} |")


if __name__ == "__main__":
    main(sys.argv)
