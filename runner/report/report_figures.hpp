// The SVG figures of the HTML report (report.hpp), and the escaping every text on the
// page goes through. Each figure is a complete inline <svg> element with explicit
// width/height and a viewBox, drawn from data alone (no script).
#pragma once

#include "report/trace.hpp"
#include "store/store.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace zkbatch {

// Text for HTML element content and attribute values: & < > " ' escaped.
std::string html_escape(std::string_view text);

// The fill color of a phase ("#4e79a7"); phases the runner does not know (a backend's
// own) get a fixed color derived from their name.
std::string phase_color(std::string_view phase);

// The phases in pipeline order (as the phase_name table orders them); a phase not in
// this list sorts after them, by name.
int phase_rank(std::string_view phase);

// A run's timeline: one row per track, labelled with the track name, intervals colored
// by phase (nested ones drawn thinner inside their parent), a time axis, a legend, and
// a <title> tooltip per interval (partition, phase, duration, bytes and rate).
std::string timeline_svg(const TimelineLayout& layout);

// One run's partition samples of each phase, for distributions_svg.
struct RunSamples {
    std::string label;                 // "run 7"
    std::vector<PhaseSample> samples;  // failed partitions are left out, as in phase_summary
};

// Per-phase distributions: for each phase, one row per run on a scale shared by the
// runs (from 0): a box from the first to the third quartile, the median as a thick
// line, whiskers from min to max, and every partition as a dot; the median and count
// written beside it.
std::string distributions_svg(const std::vector<RunSamples>& runs);

// A number of milliseconds with 3 significant decimals at most: "0.012", "12.3", "1234".
std::string format_ms_short(double ms);

}  // namespace zkbatch
