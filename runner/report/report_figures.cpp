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
#include <string_view>
#include <utility>
#include <vector>

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

// Sorts phase names into pipeline order (phase_rank), names of one rank by name.
void sort_by_phase_rank(std::vector<std::string>& phases) {
    std::stable_sort(phases.begin(), phases.end(), [](const std::string& a, const std::string& b) {
        return phase_rank(a) < phase_rank(b);
    });
}

// A figure: the <svg> element of class "figure <kind>" around `body`.
std::string figure(std::string_view kind, double height, const std::string& body) {
    return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="figure {0}" )"
                       R"(width="{1}" height="{2}" viewBox="0 0 {1} {2}">{3}</svg>)",
                       kind, num(kFigureWidth), num(height), body);
}

// A figure with nothing to draw: a line saying why.
std::string empty_figure(std::string_view kind, std::string_view message) {
    return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="figure {0}" )"
                       R"(width="{1}" height="40" viewBox="0 0 {1} 40">)"
                       R"(<text x="10" y="24">{2}</text></svg>)",
                       kind, num(kFigureWidth), message);
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
    sort_by_phase_rank(phases);
    if (layout.intervals.empty()) return empty_figure("timeline", "no intervals recorded for this run");

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
    return figure("timeline", legend_top + legend(body, phases, legend_top) + 6, body);
}

namespace {

// One run's measurements of one phase: sorted for the quartiles, and by partition.
struct PhaseSeries {
    std::vector<double> sorted_ms;
    std::vector<std::pair<uint64_t, double>> points;  // (partition, ms)
};
// Per phase, one series per run, in the runs' order.
using SeriesByPhase = std::map<std::string, std::vector<PhaseSeries>>;

SeriesByPhase series_by_phase(const std::vector<RunSamples>& runs) {
    SeriesByPhase by_phase;
    for (size_t r = 0; r < runs.size(); ++r) {
        for (const PhaseSample& sample : runs[r].samples) {
            if (sample.partition_status == "failed") continue;  // as phase_summary
            auto& series = by_phase[sample.phase];
            series.resize(runs.size());
            series[r].sorted_ms.push_back(sample.ms);
            series[r].points.emplace_back(sample.partition_index, sample.ms);
        }
    }
    for (auto& [phase, series] : by_phase)
        for (PhaseSeries& s : series) std::sort(s.sorted_ms.begin(), s.sorted_ms.end());
    return by_phase;
}

// The distributions figure, drawn top to bottom: a group per phase, a row per run.
class DistributionsFigure {
public:
    explicit DistributionsFigure(const std::vector<RunSamples>& runs) : runs_(runs) {}

    // The phase's header, its axis and grid (shared by its runs, under the boxes), and
    // a row per run.
    void add_phase(const std::string& phase, const std::vector<PhaseSeries>& series) {
        double max_ms = 0;
        for (const PhaseSeries& s : series)
            if (!s.sorted_ms.empty()) max_ms = std::max(max_ms, s.sorted_ms.back());
        const double step = nice_step(max_ms > 0 ? max_ms : 1e-3, 6);
        const double scale_max = std::max(step, std::ceil(max_ms / step - 1e-9) * step);
        const auto x_of = [&](double ms) { return kPlotLeft + ms / scale_max * kPlotWidth; };

        body_ += fmt::format(R"(<rect x="{}" y="{}" width="14" height="14" fill="{}"/>)"
                             R"(<text x="{}" y="{}" class="phase">{} (ms)</text>)",
                             num(kPlotLeft - 170), num(top_ + 2), phase_color(phase), num(kPlotLeft - 152),
                             num(top_ + 14), html_escape(phase));
        top_ += kHeaderHeight;
        const double rows_bottom = top_ + static_cast<double>(runs_.size()) * kRowHeight;
        for (int i = 0; i * step <= scale_max + step * 1e-9; ++i) {
            const double tick = i * step;
            body_ += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="grid"/>)"
                                 R"(<text x="{0}" y="{3}" class="tick">{4}</text>)",
                                 num(x_of(tick)), num(top_), num(rows_bottom + 5), num(rows_bottom + 16),
                                 tick_label(tick, step));
        }
        body_ += fmt::format(R"(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" class="axis"/>)", num(kPlotLeft),
                             num(kPlotLeft + kPlotWidth), num(rows_bottom + 2));
        for (size_t r = 0; r < runs_.size(); ++r) {
            add_run_row(r, phase, series[r], x_of);
            top_ += kRowHeight;
        }
        top_ += kAxisHeight + kGroupGap;
    }

    std::string svg() const { return figure("distributions", top_, body_); }

private:
    static constexpr double kRowHeight = 18, kHeaderHeight = 20, kAxisHeight = 22, kGroupGap = 10;
    static constexpr double kStatsWidth = 230;  // "median … ms, n …" right of the plot
    static constexpr double kPlotLeft = kLabelWidth;
    static constexpr double kPlotWidth = kFigureWidth - kLabelWidth - kStatsWidth - kRightMargin;

    // Run r's row: its label, a box from q1 to q3 with the median, whiskers from min to
    // max, every partition as a dot, and the median and count beside it.
    template <class XOf>
    void add_run_row(size_t r, const std::string& phase, const PhaseSeries& s, const XOf& x_of) {
        const double middle = top_ + kRowHeight / 2;
        const char* color = kRunColors[r % kRunColors.size()];
        body_ += fmt::format(R"(<text x="{}" y="{}" class="run-label">{}</text>)", num(kPlotLeft - 8),
                             num(middle + 4), html_escape(runs_[r].label));
        if (s.sorted_ms.empty()) {
            body_ += fmt::format(R"(<text x="{}" y="{}" class="stats">not measured</text>)",
                                 num(kPlotLeft + kPlotWidth + 10), num(middle + 4));
            return;
        }
        const double q1 = stats::quantile(s.sorted_ms, 0.25), median = stats::median(s.sorted_ms),
                     q3 = stats::quantile(s.sorted_ms, 0.75);
        const double low = s.sorted_ms.front(), high = s.sorted_ms.back();
        const std::string summary = fmt::format(
            "{}, {}: {} partitions; min {}, q1 {}, median {}, q3 {}, max {} ms", runs_[r].label,
            phase, s.sorted_ms.size(), format_ms_short(low), format_ms_short(q1),
            format_ms_short(median), format_ms_short(q3), format_ms_short(high));
        body_ += fmt::format(R"(<g class="box"><title>{}</title>)", html_escape(summary));
        body_ += fmt::format(R"(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" stroke="{3}"/>)", num(x_of(low)),
                             num(x_of(high)), num(middle), color);
        for (const double end : {low, high}) {
            body_ += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}"/>)", num(x_of(end)),
                                 num(middle - 4), num(middle + 4), color);
        }
        body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" fill-opacity="0.25" stroke="{}"/>)",
                             num(x_of(q1)), num(middle - 6), num(std::max(1.0, x_of(q3) - x_of(q1))), num(12.0),
                             color, color);
        body_ += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" stroke-width="3"/>)",
                             num(x_of(median)), num(middle - 7), num(middle + 7), color);
        body_ += "</g>";
        for (const auto& [partition, ms] : s.points) {
            // A fixed vertical offset per partition spreads equal values apart.
            const double jitter = static_cast<double>((partition * 7919) % 11) / 10.0 - 0.5;
            body_ += fmt::format(R"(<circle cx="{}" cy="{}" r="2" fill="{}" fill-opacity="0.7"><title>partition {}: {} ms</title></circle>)",
                                 num(x_of(ms)), num(middle + jitter * 10), color, partition, format_ms_short(ms));
        }
        body_ += fmt::format(R"(<text x="{}" y="{}" class="stats">median {} ms, n {}</text>)",
                             num(kPlotLeft + kPlotWidth + 10), num(middle + 4), format_ms_short(median),
                             s.sorted_ms.size());
    }

    const std::vector<RunSamples>& runs_;
    std::string body_;
    double top_ = 4;
};

}  // namespace

std::string distributions_svg(const std::vector<RunSamples>& runs) {
    const SeriesByPhase by_phase = series_by_phase(runs);
    std::vector<std::string> phases;
    for (const auto& [phase, series] : by_phase) phases.push_back(phase);
    sort_by_phase_rank(phases);
    if (phases.empty()) return empty_figure("distributions", "no phases measured");
    DistributionsFigure drawing(runs);
    for (const std::string& phase : phases) drawing.add_phase(phase, by_phase.at(phase));
    return drawing.svg();
}

}  // namespace zkbatch
