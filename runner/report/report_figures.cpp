// SVG figures of the HTML report: the timeline and the per-phase distributions.
#include "report/report_figures.hpp"

#include "analysis/stats.hpp"
#include "report/show.hpp"
#include "store/phases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

namespace zkbatch {
namespace {

constexpr double kFigureWidth = 1200;
constexpr double kLabelWidth = 180;  // track / run labels left of the plot
constexpr double kRightMargin = 24;

// Runs are told apart by these colors in the distributions (Tableau 10).
constexpr std::array<const char*, 10> kRunColors = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                    "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                                                    "#9c755f", "#bab0ac"};

// Every number written into the SVG: short, locale-free.
std::string num(double value) { return fmt::format("{:.2f}", value); }

// A tick step of 1, 2 or 5 times a power of ten giving about `target` ticks over `span`.
double nice_step(double span, int target) {
    if (!(span > 0)) return 1;
    const double raw = span / target;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double factor : {1.0, 2.0, 5.0}) {
        if (raw <= factor * magnitude) return factor * magnitude;
    }
    return 10 * magnitude;
}

// "12", "2.5", "0.05": as many decimals as the tick step needs.
std::string tick_label(double value, double step) {
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    return fmt::format("{:.{}f}", value, decimals);
}

// A legend of the given phases, wrapping at the figure width; returns its height.
double legend(std::string& svg, const std::vector<std::string>& phases, double top) {
    double x = kLabelWidth, y = top;
    for (const std::string& phase : phases) {
        const double item_width = 24 + 7.5 * static_cast<double>(phase.size());
        if (x + item_width > kFigureWidth - kRightMargin) {
            x = kLabelWidth;
            y += 18;
        }
        svg += fmt::format(R"(<rect x="{}" y="{}" width="12" height="12" fill="{}"/>)"
                           R"(<text x="{}" y="{}" class="legend">{}</text>)",
                           num(x), num(y), phase_color(phase), num(x + 16), num(y + 10),
                           html_escape(phase));
        x += item_width;
    }
    return y + 18 - top;
}

}  // namespace

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

int phase_rank(std::string_view phase) {
    // The phase table's order (store/phases.hpp); a phase it lacks comes after them all.
    const auto known = PhaseKey::find(phase);
    return static_cast<int>(known ? known->index() : kPhaseCount);
}

std::string phase_color(std::string_view phase) {
    // Waiting is grey, idle red, copies warm, kernels green, CPU work blue/purple.
    static const std::map<std::string_view, const char*> kColors = {
        {"pool_wait", "#9d9d9d"}, {"synth", "#4e79a7"},    {"queue_wait", "#cfcfcf"},
        {"h2d", "#f28e2b"},       {"compute", "#59a14f"},  {"d2h", "#edc948"},
        {"prove", "#a0cbe8"},     {"finalize", "#b07aa1"}, {"verify", "#d4a6c8"},
        {"malloc_trim", "#9c755f"}, {"idle_gap", "#e15759"}, {"partition", "#bab0ac"}};
    if (const auto it = kColors.find(phase); it != kColors.end()) return it->second;
    // FNV-1a of the name picks a hue: stable across runs and machines.
    uint32_t hash = 2166136261u;
    for (const char c : phase) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return fmt::format("hsl({},55%,55%)", hash % 360);
}

std::string format_ms_short(double ms) {
    const double magnitude = std::fabs(ms);
    if (magnitude >= 100) return fmt::format("{:.0f}", ms);
    if (magnitude >= 10) return fmt::format("{:.1f}", ms);
    if (magnitude >= 1) return fmt::format("{:.2f}", ms);
    return fmt::format("{:.3f}", ms);
}

std::string timeline_svg(const TimelineLayout& layout) {
    constexpr double kRowHeight = 16, kRowGap = 3, kAxisHeight = 26;
    const double plot_width = kFigureWidth - kLabelWidth - kRightMargin;
    const double rows_height = static_cast<double>(layout.tracks.size()) * (kRowHeight + kRowGap);

    std::set<std::string> phase_set;
    for (const auto& placed : layout.intervals) phase_set.insert(placed.interval.phase);
    std::vector<std::string> phases(phase_set.begin(), phase_set.end());
    std::stable_sort(phases.begin(), phases.end(), [](const std::string& a, const std::string& b) {
        return phase_rank(a) < phase_rank(b);
    });
    if (layout.intervals.empty()) {
        return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="figure timeline" )"
                           R"(width="{0}" height="40" viewBox="0 0 {0} 40">)"
                           R"(<text x="10" y="24">no intervals recorded for this run</text></svg>)",
                           num(kFigureWidth));
    }

    // Seconds for runs of 10 s and more, else milliseconds.
    const double span_ns = static_cast<double>(std::max<int64_t>(layout.end_ns, 1));
    const bool in_seconds = span_ns >= 1e10;
    const double unit_ns = in_seconds ? 1e9 : 1e6;
    const double span_units = span_ns / unit_ns;
    const auto x_of = [&](double ns) { return kLabelWidth + ns / span_ns * plot_width; };

    std::string body;
    // Rows: zebra stripes and track names.
    for (size_t row = 0; row < layout.tracks.size(); ++row) {
        const double y = kAxisHeight + static_cast<double>(row) * (kRowHeight + kRowGap);
        if (row % 2 == 0) {
            body += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" class="stripe"/>)",
                                num(kLabelWidth), num(y - kRowGap / 2), num(plot_width),
                                num(kRowHeight + kRowGap));
        }
        const TimelineTrack& track = layout.tracks[row];
        body += fmt::format(R"(<text x="{}" y="{}" class="track {}">{}</text>)", num(kLabelWidth - 8),
                            num(y + kRowHeight - 4), to_string(track.kind), html_escape(track.name));
    }
    // Time axis on top, grid lines through the rows.
    const double step = nice_step(span_units, 10);
    for (int i = 0; i * step <= span_units + step * 1e-9; ++i) {
        const double tick = i * step;
        const double x = x_of(tick * unit_ns);
        body += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="grid"/>)"
                            R"(<text x="{0}" y="{3}" class="tick">{4}</text>)",
                            num(x), num(kAxisHeight - 4), num(kAxisHeight + rows_height), num(kAxisHeight - 8),
                            tick_label(tick, step));
    }
    body += fmt::format(R"(<text x="{}" y="{}" class="axis-unit">{}</text>)", num(kLabelWidth - 8),
                        num(kAxisHeight - 8), in_seconds ? "time (s)" : "time (ms)");
    // Intervals: nested ones inset, so a verify shows inside its finalize.
    for (const PlacedInterval& placed : layout.intervals) {
        const TimelineInterval& interval = placed.interval;
        const double inset = std::min(2.0 + 2.5 * placed.depth, kRowHeight / 2 - 1.5);
        const double y = kAxisHeight + static_cast<double>(placed.track) * (kRowHeight + kRowGap) + inset - 2;
        const double height = kRowHeight - 2 * (inset - 2);
        const double x = x_of(static_cast<double>(interval.start_ns));
        const double width = std::max(0.5, x_of(static_cast<double>(interval.end_ns)) - x);
        const double duration_ms = static_cast<double>(interval.end_ns - interval.start_ns) / 1e6;
        std::string tooltip = fmt::format("partition {} · {} on {}\n{} ms, from {} to {} ms",
                                          interval.partition_index, interval.phase, interval.lane,
                                          format_ms_short(duration_ms),
                                          format_ms_short(static_cast<double>(interval.start_ns) / 1e6),
                                          format_ms_short(static_cast<double>(interval.end_ns) / 1e6));
        if (interval.bytes && *interval.bytes > 0) {
            tooltip += "\n" + format_bytes(*interval.bytes);
            if (interval.end_ns > interval.start_ns)
                tooltip += fmt::format(", {:.2f} GB/s", static_cast<double>(*interval.bytes) /
                                                            static_cast<double>(interval.end_ns - interval.start_ns));
        }
        if (interval.partition_status != "ok") tooltip += "\npartition " + interval.partition_status;
        body += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}><title>{}</title></rect>)",
                            num(x), num(y), num(width), num(height), phase_color(interval.phase),
                            interval.partition_status == "ok" ? "" : R"( class="failed")",
                            html_escape(tooltip));
    }
    const double legend_top = kAxisHeight + rows_height + 10;
    const double height = legend_top + legend(body, phases, legend_top) + 6;
    return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="figure timeline" )"
                       R"(width="{0}" height="{1}" viewBox="0 0 {0} {1}">{2}</svg>)",
                       num(kFigureWidth), num(height), body);
}

std::string distributions_svg(const std::vector<RunSamples>& runs) {
    constexpr double kRowHeight = 18, kHeaderHeight = 20, kAxisHeight = 22, kGroupGap = 10;
    constexpr double kStatsWidth = 230;  // "median … ms, n …" right of the plot
    const double plot_left = kLabelWidth;
    const double plot_width = kFigureWidth - kLabelWidth - kStatsWidth - kRightMargin;

    // phase -> per run: the sorted samples and the (partition, ms) points.
    struct Series {
        std::vector<double> sorted_ms;
        std::vector<std::pair<uint64_t, double>> points;
    };
    std::map<std::string, std::vector<Series>> by_phase;
    for (size_t r = 0; r < runs.size(); ++r) {
        for (const PhaseSample& sample : runs[r].samples) {
            if (sample.partition_status == "failed") continue;  // as phase_summary
            auto& series = by_phase[sample.phase];
            series.resize(runs.size());
            series[r].sorted_ms.push_back(sample.ms);
            series[r].points.emplace_back(sample.partition_index, sample.ms);
        }
    }
    std::vector<std::string> phases;
    for (auto& [phase, series] : by_phase) {
        for (auto& s : series) std::sort(s.sorted_ms.begin(), s.sorted_ms.end());
        phases.push_back(phase);
    }
    std::stable_sort(phases.begin(), phases.end(), [](const std::string& a, const std::string& b) {
        return phase_rank(a) < phase_rank(b);
    });
    if (phases.empty()) {
        return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="figure distributions" )"
                           R"(width="{0}" height="40" viewBox="0 0 {0} 40">)"
                           R"(<text x="10" y="24">no phases measured</text></svg>)",
                           num(kFigureWidth));
    }

    std::string body;
    double top = 4;
    for (const std::string& phase : phases) {
        const auto& series = by_phase[phase];
        double max_ms = 0;
        for (const auto& s : series)
            if (!s.sorted_ms.empty()) max_ms = std::max(max_ms, s.sorted_ms.back());
        const double step = nice_step(max_ms > 0 ? max_ms : 1e-3, 6);
        const double scale_max = std::max(step, std::ceil(max_ms / step - 1e-9) * step);
        const auto x_of = [&](double ms) { return plot_left + ms / scale_max * plot_width; };

        body += fmt::format(R"(<rect x="{}" y="{}" width="14" height="14" fill="{}"/>)"
                            R"(<text x="{}" y="{}" class="phase">{} (ms)</text>)",
                            num(plot_left - 170), num(top + 2), phase_color(phase), num(plot_left - 152),
                            num(top + 14), html_escape(phase));
        top += kHeaderHeight;
        // The phase's axis and grid, shared by its runs, under the boxes.
        const double rows_bottom = top + static_cast<double>(runs.size()) * kRowHeight;
        for (int i = 0; i * step <= scale_max + step * 1e-9; ++i) {
            const double tick = i * step;
            body += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="grid"/>)"
                                R"(<text x="{0}" y="{3}" class="tick">{4}</text>)",
                                num(x_of(tick)), num(top), num(rows_bottom + 5), num(rows_bottom + 16),
                                tick_label(tick, step));
        }
        body += fmt::format(R"(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" class="axis"/>)", num(plot_left),
                            num(plot_left + plot_width), num(rows_bottom + 2));
        for (size_t r = 0; r < runs.size(); ++r) {
            const double middle = top + kRowHeight / 2;
            const char* color = kRunColors[r % kRunColors.size()];
            body += fmt::format(R"(<text x="{}" y="{}" class="run-label">{}</text>)", num(plot_left - 8),
                                num(middle + 4), html_escape(runs[r].label));
            const Series& s = series[r];
            if (s.sorted_ms.empty()) {
                body += fmt::format(R"(<text x="{}" y="{}" class="stats">not measured</text>)",
                                    num(plot_left + plot_width + 10), num(middle + 4));
                top += kRowHeight;
                continue;
            }
            const double q1 = stats::quantile(s.sorted_ms, 0.25), median = stats::median(s.sorted_ms),
                         q3 = stats::quantile(s.sorted_ms, 0.75);
            const double low = s.sorted_ms.front(), high = s.sorted_ms.back();
            const std::string summary = fmt::format(
                "{}, {}: {} partitions; min {}, q1 {}, median {}, q3 {}, max {} ms", runs[r].label,
                phase, s.sorted_ms.size(), format_ms_short(low), format_ms_short(q1),
                format_ms_short(median), format_ms_short(q3), format_ms_short(high));
            body += fmt::format(R"(<g class="box"><title>{}</title>)", html_escape(summary));
            body += fmt::format(R"(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" stroke="{3}"/>)", num(x_of(low)),
                                num(x_of(high)), num(middle), color);
            for (const double end : {low, high}) {
                body += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}"/>)", num(x_of(end)),
                                    num(middle - 4), num(middle + 4), color);
            }
            body += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" fill-opacity="0.25" stroke="{}"/>)",
                                num(x_of(q1)), num(middle - 6), num(std::max(1.0, x_of(q3) - x_of(q1))), num(12.0),
                                color, color);
            body += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" stroke-width="3"/>)",
                                num(x_of(median)), num(middle - 7), num(middle + 7), color);
            body += "</g>";
            for (const auto& [partition, ms] : s.points) {
                // A fixed vertical offset per partition spreads equal values apart.
                const double jitter = static_cast<double>((partition * 7919) % 11) / 10.0 - 0.5;
                body += fmt::format(R"(<circle cx="{}" cy="{}" r="2" fill="{}" fill-opacity="0.7"><title>partition {}: {} ms</title></circle>)",
                                    num(x_of(ms)), num(middle + jitter * 10), color, partition,
                                    format_ms_short(ms));
            }
            body += fmt::format(R"(<text x="{}" y="{}" class="stats">median {} ms, n {}</text>)",
                                num(plot_left + plot_width + 10), num(middle + 4), format_ms_short(median),
                                s.sorted_ms.size());
            top += kRowHeight;
        }
        top += kAxisHeight + kGroupGap;
    }
    return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="figure distributions" )"
                       R"(width="{0}" height="{1}" viewBox="0 0 {0} {1}">{2}</svg>)",
                       num(kFigureWidth), num(top), body);
}

}  // namespace zkbatch
