// The timeline layout and the trace-event JSON, from hand-made intervals.
#include "report/trace.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace zkbatch {
namespace {

TimelineInterval make(std::string lane, std::string phase, int64_t start_ns, int64_t end_ns,
                      uint64_t partition = 0) {
    TimelineInterval interval;
    interval.lane = std::move(lane);
    interval.phase = std::move(phase);
    interval.start_ns = start_ns;
    interval.end_ns = end_ns;
    interval.partition_index = partition;
    interval.partition_status = "ok";
    return interval;
}

// What a placed interval is, for comparing layouts: (track name, phase, start, end, partition).
using Placement = std::tuple<std::string, std::string, int64_t, int64_t, uint64_t>;
std::vector<Placement> placements(const TimelineLayout& layout) {
    std::vector<Placement> out;
    for (const auto& p : layout.intervals) {
        out.emplace_back(layout.tracks.at(p.track).name, p.interval.phase, p.interval.start_ns,
                         p.interval.end_ns, p.interval.partition_index);
    }
    return out;
}

// The oracle for "well nested", pair by pair: two intervals on one track are disjoint
// or one contains the other.
bool well_nested_pairwise(const TimelineLayout& layout, std::string* why) {
    for (size_t i = 0; i < layout.intervals.size(); ++i) {
        for (size_t j = i + 1; j < layout.intervals.size(); ++j) {
            const auto& a = layout.intervals[i];
            const auto& b = layout.intervals[j];
            if (a.track != b.track) continue;
            const auto& x = a.interval;
            const auto& y = b.interval;
            const bool disjoint = x.end_ns <= y.start_ns || y.end_ns <= x.start_ns;
            const bool x_in_y = y.start_ns <= x.start_ns && x.end_ns <= y.end_ns;
            const bool y_in_x = x.start_ns <= y.start_ns && y.end_ns <= x.end_ns;
            if (!disjoint && !x_in_y && !y_in_x) {
                *why = "[" + std::to_string(x.start_ns) + ", " + std::to_string(x.end_ns) + ") and [" +
                       std::to_string(y.start_ns) + ", " + std::to_string(y.end_ns) + ") on " +
                       layout.tracks[a.track].name;
                return false;
            }
        }
    }
    return true;
}

TEST(TimelineLayout, PartialOverlapsOnALaneGoToAnOverflowTrack) {
    // A prove worker: prove 0, then partition 1's queue wait (it was synthesized while
    // partition 0 proved), the idle gap, and prove 1.
    const auto layout = layout_timeline({make("prove.0", "prove", 0, 100, 0),
                                         make("prove.0", "queue_wait", 50, 120, 1),
                                         make("prove.0", "idle_gap", 100, 120, 1),
                                         make("prove.0", "prove", 120, 200, 1)});
    ASSERT_EQ(layout.tracks.size(), 2u);
    EXPECT_EQ(layout.tracks[0].name, "prove.0");
    EXPECT_EQ(layout.tracks[1].name, "prove.0 (overlap 1)");
    EXPECT_EQ(layout.tracks[1].overflow, 1u);
    const std::vector<Placement> expected = {
        {"prove.0", "prove", 0, 100, 0},
        {"prove.0", "idle_gap", 100, 120, 1},
        {"prove.0", "prove", 120, 200, 1},
        {"prove.0 (overlap 1)", "queue_wait", 50, 120, 1},
    };
    EXPECT_EQ(placements(layout), expected);
    EXPECT_EQ(layout.end_ns, 200);
}

TEST(TimelineLayout, NestedIntervalsShareATrackWithTheirDepth) {
    const auto layout = layout_timeline({make("finalize", "verify", 10, 60, 3),
                                         make("finalize", "finalize", 10, 80, 3),
                                         make("finalize", "malloc_trim", 80, 90, 3)});
    ASSERT_EQ(layout.tracks.size(), 1u);
    ASSERT_EQ(layout.intervals.size(), 3u);
    // The enclosing finalize comes first (same start, longer), verify inside it.
    EXPECT_EQ(layout.intervals[0].interval.phase, "finalize");
    EXPECT_EQ(layout.intervals[0].depth, 0u);
    EXPECT_EQ(layout.intervals[1].interval.phase, "verify");
    EXPECT_EQ(layout.intervals[1].depth, 1u);
    EXPECT_EQ(layout.intervals[2].interval.phase, "malloc_trim");
    EXPECT_EQ(layout.intervals[2].depth, 0u);
}

TEST(TimelineLayout, TwoOverlappingCopiesOnOneStreamSplit) {
    const auto layout = layout_timeline({make("gpu0.w1.copy", "h2d", 0, 30, 0),
                                         make("gpu0.w1.copy", "h2d", 20, 50, 1),
                                         make("gpu0.w1.copy", "d2h", 60, 70, 0)});
    ASSERT_EQ(layout.tracks.size(), 2u);
    const std::vector<Placement> expected = {
        {"gpu0.w1.copy", "h2d", 0, 30, 0},
        {"gpu0.w1.copy", "d2h", 60, 70, 0},
        {"gpu0.w1.copy (overlap 1)", "h2d", 20, 50, 1},
    };
    EXPECT_EQ(placements(layout), expected);
}

TEST(TimelineLayout, TracksAreOrderedByKindThenNaturally) {
    std::vector<TimelineInterval> intervals;
    for (const char* lane : {"finalize", "gpu0.w1.copy", "prove.1", "synth.10", "synth.2", "prove.0",
                             "gpu0.w0.compute", "cpu.worker0"}) {
        intervals.push_back(make(lane, "x", 0, 1));
    }
    const auto layout = layout_timeline(intervals);
    std::vector<std::string> names;
    for (const auto& track : layout.tracks) names.push_back(track.name);
    const std::vector<std::string> expected = {"synth.2",      "synth.10",        "prove.0",
                                               "prove.1",      "cpu.worker0",     "gpu0.w0.compute",
                                               "gpu0.w1.copy", "finalize"};
    EXPECT_EQ(names, expected);
    EXPECT_EQ(lane_kind("synth.3"), LaneKind::synthesis);
    EXPECT_EQ(lane_kind("prove.0"), LaneKind::prove);
    EXPECT_EQ(lane_kind("finalize"), LaneKind::finalize);
    EXPECT_EQ(lane_kind("stream0.copy"), LaneKind::backend);
}

// Random intervals, many of them overlapping partly: every track is well nested by the
// pairwise oracle, nothing is lost, and the layout does not depend on input order.
TEST(TimelineLayout, RandomIntervalsAreWellNestedCompleteAndOrderIndependent) {
    std::mt19937_64 rng(20240601);
    for (int round = 0; round < 40; ++round) {
        std::vector<TimelineInterval> intervals;
        const int count = 5 + static_cast<int>(rng() % 60);
        for (int i = 0; i < count; ++i) {
            const int64_t start = static_cast<int64_t>(rng() % 1000);
            const int64_t length = static_cast<int64_t>(rng() % 300);
            const char* lanes[] = {"synth.0", "prove.0", "gpu0.w0.copy", "finalize"};
            const char* phases[] = {"a", "b", "c"};
            intervals.push_back(make(lanes[rng() % 4], phases[rng() % 3], start, start + length,
                                     rng() % 8));
        }
        const auto layout = layout_timeline(intervals);
        std::string why;
        ASSERT_TRUE(well_nested_pairwise(layout, &why)) << "round " << round << ": " << why;

        // Complete: the same multiset of intervals, each on a track of its own lane.
        std::multiset<std::tuple<std::string, std::string, int64_t, int64_t, uint64_t>> in, out;
        for (const auto& i : intervals) in.emplace(i.lane, i.phase, i.start_ns, i.end_ns, i.partition_index);
        for (const auto& p : layout.intervals) {
            EXPECT_EQ(layout.tracks.at(p.track).lane, p.interval.lane);
            out.emplace(p.interval.lane, p.interval.phase, p.interval.start_ns, p.interval.end_ns,
                        p.interval.partition_index);
        }
        EXPECT_EQ(in, out);

        auto shuffled = intervals;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        const auto again = layout_timeline(shuffled);
        EXPECT_EQ(placements(again), placements(layout)) << "round " << round;
    }
}

TEST(TimelineLayout, LanesWithoutPartialOverlapsKeepOneTrack) {
    // Sequential and nested intervals only: no overflow tracks.
    const auto layout = layout_timeline({make("synth.0", "pool_wait", 0, 5), make("synth.0", "synth", 5, 40),
                                         make("synth.0", "pool_wait", 40, 41), make("synth.0", "synth", 41, 90),
                                         make("synth.0", "inner", 50, 60)});
    ASSERT_EQ(layout.tracks.size(), 1u);
    EXPECT_EQ(layout.tracks[0].name, "synth.0");
}

TEST(TraceJson, MetadataEventsAndMicrosecondTimes) {
    TimelineInterval copy = make("gpu0.w0.copy", "h2d", 1'234'567, 2'000'000, 4);
    copy.bytes = 1'531'733;  // over 765'433 ns
    copy.device_index = 0;
    copy.on_device = true;
    TimelineInterval failed = make("prove.0", "prove", 0, 3'000'000, 5);
    failed.partition_status = "failed";
    const RunLabel label{7, "nightly", "cuda-pinned"};
    const auto trace = nlohmann::json::parse(trace_event_json(label, layout_timeline({copy, failed})));

    ASSERT_TRUE(trace.contains("traceEvents"));
    std::map<std::string, nlohmann::json> metadata;  // "name/tid" -> args
    std::vector<nlohmann::json> complete;
    for (const auto& event : trace["traceEvents"]) {
        EXPECT_EQ(event["pid"], 7);
        if (event["ph"] == "M") {
            metadata[event["name"].get<std::string>() + "/" + std::to_string(event["tid"].get<int>())] =
                event["args"];
        } else {
            EXPECT_EQ(event["ph"], "X");
            complete.push_back(event);
        }
    }
    EXPECT_EQ(metadata.at("process_name/0")["name"], "nightly / cuda-pinned / run 7");
    // prove.0 sorts before the backend's copy lane.
    EXPECT_EQ(metadata.at("thread_name/1")["name"], "prove.0");
    EXPECT_EQ(metadata.at("thread_name/2")["name"], "gpu0.w0.copy");
    EXPECT_EQ(metadata.at("thread_sort_index/1")["sort_index"], 1);
    EXPECT_EQ(metadata.at("thread_sort_index/2")["sort_index"], 2);

    ASSERT_EQ(complete.size(), 2u);
    const auto& prove = complete[0];
    EXPECT_EQ(prove["name"], "prove");
    EXPECT_EQ(prove["tid"], 1);
    EXPECT_EQ(prove["args"]["partition"], 5);
    EXPECT_EQ(prove["args"]["status"], "failed");
    EXPECT_FALSE(prove["args"].contains("bytes"));
    const auto& h2d = complete[1];
    EXPECT_EQ(h2d["tid"], 2);
    EXPECT_EQ(h2d["cat"], "backend");
    EXPECT_DOUBLE_EQ(h2d["ts"].get<double>(), 1234.567);
    EXPECT_DOUBLE_EQ(h2d["dur"].get<double>(), 765.433);
    EXPECT_EQ(h2d["args"]["partition"], 4);
    EXPECT_EQ(h2d["args"]["bytes"], 1'531'733);
    EXPECT_NEAR(h2d["args"]["GB/s"].get<double>(), 1'531'733.0 / 765'433.0, 1e-12);
    EXPECT_EQ(h2d["args"]["device"], 0);
    EXPECT_FALSE(h2d["args"].contains("status"));
}

TEST(TraceJson, TextFromTheDatabaseIsEscapedJson) {
    const RunLabel label{1, "job\"with\\quotes", "back\nend"};
    const auto text = trace_event_json(label, layout_timeline({make("lane \"x\"", "phase\t<1>", 0, 10)}));
    const auto trace = nlohmann::json::parse(text);  // throws on invalid JSON
    EXPECT_EQ(trace["traceEvents"][0]["args"]["name"], "job\"with\\quotes / back\nend / run 1");
    bool found = false;
    for (const auto& event : trace["traceEvents"])
        if (event["ph"] == "X") found = event["name"] == "phase\t<1>";
    EXPECT_TRUE(found);
}

TEST(TraceJson, EmptyRunIsAValidTraceWithItsProcessName) {
    const auto trace = nlohmann::json::parse(trace_event_json({3, "j", "b"}, layout_timeline({})));
    ASSERT_EQ(trace["traceEvents"].size(), 2u);  // process name and sort index
    EXPECT_EQ(trace["traceEvents"][0]["name"], "process_name");
}

}  // namespace
}  // namespace zkbatch
