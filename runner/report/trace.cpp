// Timeline layout and the `zkbatch trace` command.
#include "report/trace.hpp"

#include "analysis/selectors.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace zkbatch {
namespace {

// Natural order: "synth.2" < "synth.10", text compared as text, digit runs by value.
bool natural_less(std::string_view a, std::string_view b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool a_digit = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
        const bool b_digit = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (a_digit && b_digit) {
            size_t a_end = i, b_end = j;
            while (a_end < a.size() && std::isdigit(static_cast<unsigned char>(a[a_end]))) ++a_end;
            while (b_end < b.size() && std::isdigit(static_cast<unsigned char>(b[b_end]))) ++b_end;
            // Compare digit runs by value without overflow: strip leading zeros, then
            // the longer run is larger, else compare as text.
            std::string_view a_num = a.substr(i, a_end - i), b_num = b.substr(j, b_end - j);
            a_num.remove_prefix(std::min(a_num.find_first_not_of('0'), a_num.size()));
            b_num.remove_prefix(std::min(b_num.find_first_not_of('0'), b_num.size()));
            if (a_num.size() != b_num.size()) return a_num.size() < b_num.size();
            if (a_num != b_num) return a_num < b_num;
            i = a_end;
            j = b_end;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
    return a < b;  // equal by value ("p01" vs "p1"): any fixed order
}

bool lane_less(const std::string& a, const std::string& b) {
    const LaneKind kind_a = lane_kind(a), kind_b = lane_kind(b);
    if (kind_a != kind_b) return kind_a < kind_b;
    return natural_less(a, b);
}

// The order intervals are placed in: by start, enclosing (longer) ones first, then
// any fixed order, so that equal input sets give equal layouts.
bool placement_less(const TimelineInterval& a, const TimelineInterval& b) {
    return std::tie(a.start_ns, b.end_ns, a.phase, a.partition_index, a.bytes, a.on_device,
                    a.device_index, a.partition_status) <
           std::tie(b.start_ns, a.end_ns, b.phase, b.partition_index, b.bytes, b.on_device,
                    b.device_index, b.partition_status);
}

}  // namespace

LaneKind lane_kind(std::string_view lane) {
    if (lane.starts_with("synth.")) return LaneKind::synthesis;
    if (lane.starts_with("prove.")) return LaneKind::prove;
    if (lane == "finalize" || lane.starts_with("finalize.")) return LaneKind::finalize;
    return LaneKind::backend;
}

const char* to_string(LaneKind kind) {
    switch (kind) {
        case LaneKind::synthesis: return "synthesis";
        case LaneKind::prove: return "prove";
        case LaneKind::backend: return "backend";
        case LaneKind::finalize: return "finalize";
    }
    return "backend";
}

TimelineLayout layout_timeline(std::vector<TimelineInterval> intervals) {
    std::map<std::string, std::vector<TimelineInterval>, decltype(&lane_less)> by_lane(&lane_less);
    for (auto& interval : intervals) by_lane[interval.lane].push_back(std::move(interval));

    TimelineLayout layout;
    for (auto& [lane, lane_intervals] : by_lane) {
        std::sort(lane_intervals.begin(), lane_intervals.end(), placement_less);
        // Each track of this lane keeps the ends of its open intervals as a stack:
        // an interval nests on a track when every open interval there either ended
        // by its start (popped) or contains it (the top ends no earlier than it).
        std::vector<std::vector<int64_t>> open_ends;
        std::vector<PlacedInterval> placed;
        for (auto& interval : lane_intervals) {
            size_t track = 0;
            for (;; ++track) {
                if (track == open_ends.size()) open_ends.emplace_back();
                auto& stack = open_ends[track];
                while (!stack.empty() && stack.back() <= interval.start_ns) stack.pop_back();
                if (stack.empty() || stack.back() >= interval.end_ns) break;
            }
            layout.end_ns = std::max(layout.end_ns, interval.end_ns);
            const auto depth = static_cast<uint32_t>(open_ends[track].size());
            open_ends[track].push_back(interval.end_ns);
            placed.push_back({std::move(interval), layout.tracks.size() + track, depth});
        }
        for (uint32_t overflow = 0; overflow < open_ends.size(); ++overflow) {
            TimelineTrack track;
            track.lane = lane;
            track.overflow = overflow;
            track.name = overflow == 0 ? lane : fmt::format("{} (overlap {})", lane, overflow);
            track.kind = lane_kind(lane);
            layout.tracks.push_back(std::move(track));
        }
        // Within a lane, placement order is by start; keep tracks together.
        std::stable_sort(placed.begin(), placed.end(),
                         [](const PlacedInterval& a, const PlacedInterval& b) { return a.track < b.track; });
        for (auto& p : placed) layout.intervals.push_back(std::move(p));
    }
    return layout;
}

std::string RunLabel::text() const {
    return fmt::format("{} / {} / run {}", job_name, backend_name, run_id);
}

RunLabel read_run_label(const Store& store, int64_t run_id) {
    RunLabel label;
    label.run_id = run_id;
    for (const auto& [key, value] : store.run_environment(run_id)) {
        if (key == "job_name") label.job_name = value;
        if (key == "backend_name") label.backend_name = value;
    }
    return label;
}

std::string trace_event_json(const RunLabel& run, const TimelineLayout& layout) {
    using Json = nlohmann::ordered_json;
    // Microseconds with nanosecond resolution: ns / 1000 is exact to 3 decimals.
    const auto us = [](int64_t ns) { return static_cast<double>(ns) / 1000.0; };

    Json events = Json::array();
    const int64_t pid = run.run_id;
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                      {"args", {{"name", run.text()}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                      {"args", {{"sort_index", pid}}}});
    for (size_t index = 0; index < layout.tracks.size(); ++index) {
        const auto tid = static_cast<int64_t>(index + 1);  // tid 0 is the process itself
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                          {"args", {{"name", layout.tracks[index].name}}}});
        events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                          {"args", {{"sort_index", tid}}}});
    }
    for (const PlacedInterval& placed : layout.intervals) {
        const TimelineInterval& interval = placed.interval;
        Json args = {{"partition", interval.partition_index}};
        if (interval.partition_status != "ok") args["status"] = interval.partition_status;
        if (interval.bytes && *interval.bytes > 0) {
            args["bytes"] = *interval.bytes;
            const int64_t duration_ns = interval.end_ns - interval.start_ns;
            // bytes per ns is GB/s.
            if (duration_ns > 0) args["GB/s"] = static_cast<double>(*interval.bytes) / duration_ns;
        }
        if (interval.device_index) args["device"] = *interval.device_index;
        events.push_back({{"name", interval.phase},
                          {"cat", to_string(lane_kind(interval.lane))},
                          {"ph", "X"},
                          {"ts", us(interval.start_ns)},
                          {"dur", us(interval.end_ns - interval.start_ns)},
                          {"pid", pid},
                          {"tid", static_cast<int64_t>(placed.track + 1)},
                          {"args", std::move(args)}});
    }
    const Json other_data = {{"run_id", run.run_id}, {"job_name", run.job_name},
                             {"backend_name", run.backend_name}};
    // One event per line: compact, yet readable and diffable.
    std::string text = "{\"traceEvents\": [\n";
    for (size_t i = 0; i < events.size(); ++i) text += events[i].dump() + (i + 1 < events.size() ? ",\n" : "\n");
    text += "],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": " + other_data.dump() + "}\n";
    return text;
}

}  // namespace zkbatch
