// The HTML report page and the `zkbatch report` command.
#include "report/report.hpp"

#include "analysis/selectors.hpp"
#include "analysis/stats.hpp"
#include "report/report_figures.hpp"
#include "report/show.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <map>
#include <optional>
#include <set>

namespace zkbatch {
namespace {

// Inline only: the page must open with no network, so nothing is fetched (the
// Content-Security-Policy below enforces it). The system font stack needs no files.
constexpr const char* kStyle = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 24px auto; max-width: 1240px; color: #222; padding: 0 12px; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 1.05em; margin-top: 1.2em; }
p.meta, p.note { color: #555; margin-top: 0.2em; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.differs { background: #fff4d6; }
table.environment td { max-width: 480px; overflow-wrap: anywhere; }
td.slower { color: #b00020; }
td.faster { color: #1b7a2a; }
.figure { display: block; max-width: 100%; height: auto; margin: 8px 0; }
.figure text { font-size: 11px; fill: #333; }
.figure text.track, .figure text.run-label, .figure text.axis-unit { text-anchor: end; }
.figure text.tick { text-anchor: middle; fill: #666; font-size: 10px; }
.figure text.phase { font-weight: 600; font-size: 12px; }
.figure text.stats { fill: #444; }
.figure .stripe { fill: #f7f7f7; }
.figure .grid { stroke: #e2e2e2; stroke-width: 1; }
.figure .axis { stroke: #999; stroke-width: 1; }
.figure rect.failed { stroke: #b00020; stroke-width: 1.5; }
)css";

// Marks the page with data-page-status="ok" once it has loaded without an error (a
// script error, or a resource that failed to load), so a headless browser test can
// tell; the page itself needs no script.
constexpr const char* kStatusScript = R"js(
(function () {
  var errors = [];
  window.addEventListener('error', function (event) {
    errors.push(String(event.message || (event.target && event.target.tagName) || 'error'));
  }, true);
  window.addEventListener('load', function () {
    document.documentElement.setAttribute('data-page-status',
        errors.length ? 'error: ' + errors.join('; ') : 'ok');
  });
})();
)js";

std::string value_of(const std::vector<std::pair<std::string, std::string>>& pairs,
                     const std::string& key) {
    for (const auto& [k, v] : pairs)
        if (k == key) return v;
    return {};
}

std::string cell(const std::string& text, const char* css_class = nullptr) {
    return css_class ? fmt::format(R"(<td class="{}">{}</td>)", css_class, html_escape(text))
                     : fmt::format("<td>{}</td>", html_escape(text));
}

std::string run_heading(const ReportRun& run) { return "run " + std::to_string(run.label.run_id); }

// Outcome and headline rates, one column per run.
std::string outcome_table(const std::vector<ReportRun>& runs) {
    using Getter = std::string (*)(const ReportRun&);
    const std::vector<std::pair<const char*, Getter>> rows = {
        {"job", [](const ReportRun& r) { return r.label.job_name; }},
        {"backend", [](const ReportRun& r) { return r.label.backend_name; }},
        {"started", [](const ReportRun& r) { return value_of(r.environment, "started_at"); }},
        {"status", [](const ReportRun& r) { return r.overview.status; }},
        {"partitions ok / failed",
         [](const ReportRun& r) {
             return fmt::format("{} / {}", r.overview.partitions_ok, r.overview.partitions_failed);
         }},
        {"wall",
         [](const ReportRun& r) {
             return r.overview.wall_ms ? format_duration_ms(*r.overview.wall_ms) : std::string("-");
         }},
        {"partitions per hour",
         [](const ReportRun& r) {
             return r.overview.partitions_per_hour ? fmt::format("{:.1f}", *r.overview.partitions_per_hour)
                                                   : std::string("-");
         }},
        {"GPU busy",
         [](const ReportRun& r) {
             return r.overview.gpu_busy_fraction
                        ? fmt::format("{:.1f} %", *r.overview.gpu_busy_fraction * 100)
                        : std::string("not measured (no GPU)");
         }},
        {"GPU busy per device",  // several devices: GPU busy above is their mean
         [](const ReportRun& r) {
             if (r.devices.size() < 2) return std::string("-");
             std::string text;
             for (const DeviceStats& device : r.devices) {
                 text += fmt::format("{}device {}: {} ({} partitions)", text.empty() ? "" : "; ", device.device_index,
                                     device.busy_fraction ? fmt::format("{:.1f} %", *device.busy_fraction * 100)
                                                          : std::string("not measured"),
                                     device.partitions);
             }
             return text;
         }},
        {"h2d median",
         [](const ReportRun& r) {
             return r.overview.median_h2d_gb_per_s ? fmt::format("{:.2f} GB/s", *r.overview.median_h2d_gb_per_s)
                                                   : std::string("-");
         }},
        {"peak RSS",
         [](const ReportRun& r) {
             return r.overview.peak_rss_bytes ? format_bytes(*r.overview.peak_rss_bytes) : std::string("-");
         }},
        {"error", [](const ReportRun& r) { return r.overview.error; }},
    };
    std::string html = "<table class=\"outcome\"><tr><th></th>";
    for (const auto& run : runs) html += "<th>" + html_escape(run_heading(run)) + "</th>";
    html += "</tr>";
    for (const auto& [name, get] : rows) {
        html += fmt::format("<tr><th>{}</th>", name);
        for (const auto& run : runs) html += cell(get(run));
        html += "</tr>";
    }
    return html + "</table>";
}

// Environment and tags, one column per run; with several runs, the cells that differ
// from the first run are highlighted: they are what an A/B changed, or what explains it.
std::string environment_table(const std::vector<ReportRun>& runs) {
    std::vector<std::string> keys;
    std::set<std::string> seen;
    std::vector<std::map<std::string, std::string>> values(runs.size());
    for (size_t r = 0; r < runs.size(); ++r) {
        auto add = [&](const std::string& key, const std::string& value) {
            if (seen.insert(key).second) keys.push_back(key);
            values[r][key] = value;
        };
        for (const auto& [key, value] : runs[r].environment) add(key, value);
        for (const auto& [key, value] : runs[r].tags) add("tag " + key, value);
    }
    std::string html = "<table class=\"environment\"><tr><th>key</th>";
    for (const auto& run : runs) html += "<th>" + html_escape(run_heading(run)) + "</th>";
    html += "</tr>";
    for (const std::string& key : keys) {
        html += "<tr><th>" + html_escape(key) + "</th>";
        const auto first = values[0].find(key);
        for (size_t r = 0; r < runs.size(); ++r) {
            const auto it = values[r].find(key);
            const std::string text = it == values[r].end() ? "" : it->second;
            const bool differs = r > 0 && (first == values[0].end() ? !text.empty() : text != first->second);
            html += cell(text, differs ? "differs" : nullptr);
        }
        html += "</tr>";
    }
    return html + "</table>";
}

std::string idle_gap_table(const ReportRun& run) {
    if (run.idle_gaps.empty()) {
        return "<p class=\"note\">No idle gaps between partitions recorded (each prove worker "
               "proved at most one partition that did not fail).</p>";
    }
    std::string html =
        "<table class=\"idle-gaps\"><tr><th>prove worker</th><th>gaps</th><th>total ms</th>"
        "<th>median ms</th><th>p95 ms</th><th>max ms</th></tr>";
    for (const IdleGapStats& gap : run.idle_gaps) {
        html += fmt::format(
            "<tr><td>prove.{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            gap.prove_worker, gap.count, format_ms_short(gap.total_ms), format_ms_short(gap.median_ms),
            format_ms_short(gap.p95_ms), format_ms_short(gap.max_ms));
    }
    return html + "</table>";
}

// A phase's values in one run, over the partitions that did not fail (as phase_summary).
std::map<std::string, std::vector<double>> samples_by_phase(const ReportRun& run) {
    std::map<std::string, std::vector<double>> by_phase;
    for (const PhaseSample& sample : run.samples)
        if (sample.partition_status != "failed") by_phase[sample.phase].push_back(sample.ms);
    return by_phase;
}

std::string percent(double fraction) {
    return std::isfinite(fraction) ? fmt::format("{:+.1f} %", fraction * 100) : "-";
}

// Every later run against the first, phase by phase: the medians, the relative change
// with its 95% confidence interval (Hodges-Lehmann), the Mann-Whitney p-value and the
// verdict, all from stats.hpp, as `zkbatch compare` computes them.
std::string comparison_tables(const std::vector<ReportRun>& runs) {
    const ReportRun& base = runs[0];
    const auto base_samples = samples_by_phase(base);
    std::string html;
    for (size_t r = 1; r < runs.size(); ++r) {
        const ReportRun& other = runs[r];
        const auto other_samples = samples_by_phase(other);
        html += fmt::format("<h3>{} (A) against {} (B)</h3>", html_escape(run_heading(base)),
                            html_escape(run_heading(other)));
        std::vector<std::string> phases;
        for (const auto& [phase, values] : base_samples) phases.push_back(phase);
        for (const auto& [phase, values] : other_samples)
            if (!base_samples.count(phase)) phases.push_back(phase);
        std::stable_sort(phases.begin(), phases.end(), [](const std::string& x, const std::string& y) {
            return phase_rank(x) < phase_rank(y);
        });
        html += "<table class=\"comparison\"><tr><th>phase</th><th>n A</th><th>n B</th>"
                "<th>median A (ms)</th><th>median B (ms)</th><th>change B vs A</th>"
                "<th>95% interval of the change</th><th>p (Mann-Whitney)</th><th>verdict</th></tr>";
        const std::vector<double> none;
        for (const std::string& phase : phases) {
            const auto a = base_samples.find(phase), b = other_samples.find(phase);
            const std::vector<double>& values_a = a == base_samples.end() ? none : a->second;
            const std::vector<double>& values_b = b == other_samples.end() ? none : b->second;
            const stats::SampleComparison c = stats::compare_samples(values_a, values_b);
            const bool tested = !values_a.empty() && !values_b.empty();
            const char* verdict_class = c.verdict == stats::Verdict::slower   ? " slower"
                                        : c.verdict == stats::Verdict::faster ? " faster"
                                                                              : "";
            html += fmt::format(
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                "<td class=\"num\">{}</td><td class=\"verdict{}\">{}</td></tr>",
                html_escape(phase), values_a.size(), values_b.size(),
                values_a.empty() ? "-" : format_ms_short(c.median_a),
                values_b.empty() ? "-" : format_ms_short(c.median_b), percent(c.relative_change),
                tested && std::isfinite(c.relative_ci_low) && std::isfinite(c.relative_ci_high)
                    ? fmt::format("{} .. {}", percent(c.relative_ci_low), percent(c.relative_ci_high))
                    : "-",
                tested ? fmt::format("{:.3g}", c.test.p_value) : "-", verdict_class,
                html_escape(stats::to_string(c.verdict)));
        }
        html += "</table>";
    }
    html += "<p class=\"note\">Over the partitions that did not fail; medians as <code>zkbatch show</code> "
            "prints them. The interval is the Hodges-Lehmann shift of B against A relative to A's median; "
            "a verdict needs at least " + std::to_string(stats::kMinSamplesForVerdict) +
            " partitions on each side, p &lt; " + fmt::format("{}", stats::kSignificance) +
            " and an interval clear of 0, as in <code>zkbatch compare</code>.</p>";
    return html;
}

}  // namespace

ReportRun read_report_run(const Store& store, int64_t run_id) {
    ReportRun run;
    run.label = read_run_label(store, run_id);
    run.environment = store.run_environment(run_id);
    run.tags = store.run_tags(run_id);
    run.overview = store.run_overview(run_id);
    run.samples = store.phase_samples(run_id);
    run.idle_gaps = store.idle_gap_stats(run_id);
    run.devices = store.device_stats(run_id);
    run.timeline = layout_timeline(store.run_timeline(run_id));
    return run;
}

std::string render_report(const std::vector<ReportRun>& runs, const std::string& source) {
    std::string ids;
    for (const auto& run : runs) ids += (ids.empty() ? "" : ", ") + std::to_string(run.label.run_id);
    const std::string title = fmt::format("zkbatch report: run{} {}", runs.size() == 1 ? "" : "s", ids);
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());

    std::string html = "<!DOCTYPE html>\n<html lang=\"en\" data-page-status=\"loading\">\n<head>\n"
                       "<meta charset=\"utf-8\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                       "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    html += fmt::format("<title>{}</title>\n<style>{}</style>\n<script>{}</script>\n</head>\n<body>\n",
                        html_escape(title), kStyle, kStatusScript);
    html += fmt::format("<h1>{}</h1>\n<p class=\"meta\">From {}, written {:%Y-%m-%d %H:%M:%S} UTC by zkbatch.</p>\n",
                        html_escape(title), html_escape(source), now);

    html += "<h2 id=\"outcome\">Outcome</h2>\n" + outcome_table(runs) + "\n";
    html += "<h2 id=\"environment\">Environment</h2>\n";
    if (runs.size() > 1) html += "<p class=\"note\">Highlighted: differs from the first run.</p>\n";
    html += environment_table(runs) + "\n";

    html += "<h2 id=\"timelines\">Timelines</h2>\n<p class=\"note\">One row per synthesis worker, "
            "prove worker, backend lane (device stream) and the finalize thread; where intervals on one "
            "lane overlap only partly, the later ones move to an extra row. Hover an interval for its "
            "partition and duration. Failed partitions are outlined in red.</p>\n";
    for (const auto& run : runs) {
        html += fmt::format("<h3 id=\"timeline-{}\">{}</h3>\n", run.label.run_id, html_escape(run.label.text()));
        html += timeline_svg(run.timeline) + "\n";
        html += "<p class=\"note\">Idle gaps of each prove worker before its partitions (all but its first):</p>\n";
        html += idle_gap_table(run) + "\n";
    }

    html += "<h2 id=\"distributions\">Phase distributions</h2>\n<p class=\"note\">Per phase, one row per "
            "run on a shared scale from 0: the box spans the quartiles, the thick line is the median, the "
            "whiskers reach min and max, each dot is a partition. Failed partitions are left out.</p>\n";
    std::vector<RunSamples> samples;
    for (const auto& run : runs) samples.push_back({run_heading(run), run.samples});
    html += distributions_svg(samples) + "\n";

    if (runs.size() > 1) {
        html += "<h2 id=\"comparison\">A/B comparison</h2>\n" + comparison_tables(runs) + "\n";
    }
    html += "</body>\n</html>\n";
    return html;
}


}  // namespace zkbatch
