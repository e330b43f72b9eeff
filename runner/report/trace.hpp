// A run's timeline: its phase intervals laid out on tracks, and the Chrome/Perfetto
// trace-event JSON that `zkbatch trace` writes. The HTML report (report.hpp) draws the
// same layout, so both show the same tracks in the same order.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zkbatch {

// Where a lane's work ran. Tracks are shown in this order, then by lane name with
// numbers compared by value (synth.2 before synth.10).
enum class LaneKind { synthesis, prove, backend, finalize };

// "synth.N" -> synthesis, "prove.N" -> prove, "finalize[.N]" -> finalize; any other lane
// was reported by the backend (device streams such as "gpu0.w1.copy", "cpu0.worker0").
LaneKind lane_kind(std::string_view lane);
const char* to_string(LaneKind kind);

// One horizontal track: a lane, or one of its overflow tracks. Intervals on one track
// are well nested (two intervals are either disjoint or one contains the other), as
// trace viewers require; an interval that overlaps another on its lane only partially
// (a queue_wait starting while the previous prove runs, two overlapping copies on one
// stream) goes to the lane's first overflow track where it nests.
struct TimelineTrack {
    std::string lane;
    uint32_t overflow = 0;  // 0: the lane's own track; k: its k-th overflow track
    std::string name;       // "prove.0", or "prove.0 (overlap 1)"
    LaneKind kind = LaneKind::backend;
};

// An interval on its track. `depth` counts the intervals on the same track that
// contain it (0: outermost), for drawing nested intervals inside their parents.
struct PlacedInterval {
    TimelineInterval interval;
    size_t track = 0;  // index into TimelineLayout::tracks
    uint32_t depth = 0;
};

struct TimelineLayout {
    std::vector<TimelineTrack> tracks;      // display order
    std::vector<PlacedInterval> intervals;  // by track, then start (longest first)
    int64_t end_ns = 0;                     // the latest interval end; 0 when empty
};

// Deterministic: the same intervals, in any order, give the same layout.
TimelineLayout layout_timeline(std::vector<TimelineInterval> intervals);

// Names a run in trace and report titles: "job / backend / run N".
struct RunLabel {
    int64_t run_id = 0;
    std::string job_name;
    std::string backend_name;
    std::string text() const;
};
RunLabel read_run_label(const Store& store, int64_t run_id);

// The trace-event JSON ("traceEvents" array form, loadable by ui.perfetto.dev and
// chrome://tracing): one process for the run (pid = run id), one thread per track
// with thread_name and thread_sort_index metadata, and one complete event ("ph": "X")
// per interval with ts/dur in microseconds since the run started and args
// {partition, bytes and GB/s for copies, status when the partition did not succeed}.
std::string trace_event_json(const RunLabel& run, const TimelineLayout& layout);

}  // namespace zkbatch
