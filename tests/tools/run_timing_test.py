#!/usr/bin/env python3
"""tools/run_timing.py's copy-engine figures on intervals small enough to count by hand."""
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import run_timing  # noqa: E402

MS = 1_000_000  # ns


def database(intervals):
    """One run (id 1) on device 0; `intervals` = [(partition, phase, start_ms, end_ms)]."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE partition (id INTEGER PRIMARY KEY, run_id INTEGER, device_index INTEGER)")
    db.execute("CREATE TABLE phase_interval (partition_id INTEGER, phase TEXT, start_ns INTEGER, end_ns INTEGER)")
    for partition in sorted({row[0] for row in intervals}):
        db.execute("INSERT INTO partition VALUES (?, 1, 0)", (partition,))
    db.executemany("INSERT INTO phase_interval VALUES (?, ?, ?, ?)",
                   [(p, phase, start * MS, end * MS) for p, phase, start, end in intervals])
    return db


class CopiesTest(unittest.TestCase):
    def test_a_download_inside_an_upload_counts_once(self):
        # Two partitions: uploads back to back (0-10, 10-20 ms), each with a 1 ms
        # download during the other's upload. Upload engine busy 20 ms, download 2 ms,
        # some engine busy 20 ms: 10, 1 and 10 ms per partition.
        db = database([(1, "h2d", 0, 10), (2, "h2d", 10, 20), (1, "d2h", 12, 13), (2, "d2h", 5, 6)])
        self.assertAlmostEqual(run_timing.copies_ms(db, 1, 0, ("h2d",)), 10.0)
        self.assertAlmostEqual(run_timing.copies_ms(db, 1, 0, ("d2h",)), 1.0)
        self.assertAlmostEqual(run_timing.copies_ms(db, 1, 0), 10.0)

    def test_copies_that_queue_add_up(self):
        # A download after each upload on one engine: 10 + 5 ms per partition.
        db = database([(1, "h2d", 0, 10), (1, "d2h", 10, 15), (2, "h2d", 15, 25), (2, "d2h", 25, 30)])
        self.assertAlmostEqual(run_timing.copies_ms(db, 1, 0), 15.0)

    def test_a_copy_queued_behind_another_counts_from_its_end(self):
        # Both uploads recorded as starting at 0 (their streams reached them together);
        # the engine served them one after the other: 20 ms in all, 10 per partition.
        db = database([(1, "h2d", 0, 10), (2, "h2d", 0, 20)])
        self.assertAlmostEqual(run_timing.copies_ms(db, 1, 0), 10.0)


if __name__ == "__main__":
    unittest.main()
