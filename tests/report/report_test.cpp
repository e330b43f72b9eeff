// The HTML report and its figures, from hand-made runs.
#include "html_scan.hpp"
#include "report/report.hpp"
#include "report/report_figures.hpp"

#include <gtest/gtest.h>

namespace zkbatch {
namespace {

using html_scan::count_of;

// A run with `partitions` partitions whose synth takes synth_ms[i] and prove 10 ms.
ReportRun make_run(int64_t id, const std::vector<double>& synth_ms) {
    ReportRun run;
    run.label = {id, "nightly", "cpu-ref"};
    run.environment = {{"job_name", "nightly"}, {"backend_name", "cpu-ref"}, {"log_n", "12"}};
    run.overview.status = "ok";
    run.overview.partitions_ok = synth_ms.size();
    run.overview.wall_ms = 1000;
    std::vector<TimelineInterval> intervals;
    int64_t t = 0;
    for (size_t i = 0; i < synth_ms.size(); ++i) {
        run.samples.push_back({"synth", i, "ok", synth_ms[i]});
        run.samples.push_back({"prove", i, "ok", 10.0});
        const auto synth_ns = static_cast<int64_t>(synth_ms[i] * 1e6);
        TimelineInterval synth;
        synth.partition_index = i;
        synth.partition_status = "ok";
        synth.phase = "synth";
        synth.lane = "synth.0";
        synth.start_ns = t;
        synth.end_ns = t + synth_ns;
        TimelineInterval prove = synth;
        prove.phase = "prove";
        prove.lane = "prove.0";
        prove.start_ns = synth.end_ns;
        prove.end_ns = synth.end_ns + 10'000'000;
        intervals.push_back(synth);
        intervals.push_back(prove);
        t = synth.end_ns;
    }
    run.timeline = layout_timeline(intervals);
    return run;
}

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
    EXPECT_EQ(html_escape(R"(<a href="x">Tom & 'Jerry'</a>)"),
              "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
    EXPECT_EQ(html_escape("plain text 1.5"), "plain text 1.5");
    EXPECT_EQ(html_escape(""), "");
}

TEST(PhaseColor, KnownPhasesHaveFixedColorsOthersAStableOne) {
    EXPECT_EQ(phase_color("synth"), "#4e79a7");
    EXPECT_EQ(phase_color("idle_gap"), "#e15759");
    // A phase without a fixed color gets the hue FNV-1a-32(name) mod 360, the same in every
    // run and on every machine; known answers from Python:
    // h = 2166136261; for b in name.encode(): h = ((h ^ b) * 16777619) % 2**32; h % 360
    EXPECT_EQ(phase_color("kernel.msm"), "hsl(325,55%,55%)");
    EXPECT_EQ(phase_color("kernel.ntt"), "hsl(180,55%,55%)");
    EXPECT_LT(phase_rank("synth"), phase_rank("prove"));
    EXPECT_LT(phase_rank("partition"), phase_rank("kernel.msm"));
}

TEST(Report, EscapesEveryTextFromTheDatabase) {
    ReportRun run = make_run(1, {5, 6, 7});
    run.tags = {{"note", "<script>alert('tag')</script>"}};
    run.overview.error = "</td><img src=x onerror=alert(1)>";
    run.environment.push_back({"overrides", "output.tags.x=\"<b>\""});
    run.samples.push_back({"<phase>", 0, "ok", 1.0});
    const std::string html = render_report({run}, "/tmp/<db>.db");
    EXPECT_EQ(html.find("<script>alert"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_EQ(html.find("<b>"), std::string::npos);
    EXPECT_EQ(html.find("<phase>"), std::string::npos);
    EXPECT_EQ(html.find("<db>"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(&#39;tag&#39;)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(html.find("&lt;/td&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
    // The page's own script is the only one, and nothing is fetched.
    EXPECT_EQ(count_of(html, "<script"), 1u);
    EXPECT_FALSE(html_scan::has_remote_reference(html));
}

TEST(Report, OneRunHasNoComparisonSeveralHaveOneTableEachAgainstTheFirst) {
    const std::string one = render_report({make_run(1, {5, 6, 7})}, "db");
    EXPECT_EQ(one.find("A/B comparison"), std::string::npos);
    EXPECT_EQ(count_of(one, "class=\"figure timeline\""), 1u);
    EXPECT_EQ(count_of(one, "class=\"figure distributions\""), 1u);

    const std::string three =
        render_report({make_run(1, {5, 6, 7}), make_run(2, {5, 6, 7}), make_run(3, {1, 2, 3})}, "db");
    EXPECT_NE(three.find("A/B comparison"), std::string::npos);
    EXPECT_NE(three.find("run 1 (A) against run 2 (B)"), std::string::npos);
    EXPECT_NE(three.find("run 1 (A) against run 3 (B)"), std::string::npos);
    EXPECT_EQ(three.find("run 2 (A) against run 3 (B)"), std::string::npos);
    EXPECT_EQ(count_of(three, "class=\"figure timeline\""), 3u);
    EXPECT_EQ(count_of(three, "class=\"figure distributions\""), 1u);
}

TEST(Report, ComparisonShowsMediansChangeAndTheVerdictOfTheStatistics) {
    // B's synth is twice A's on every partition, with 8 partitions each: clearly slower.
    const std::vector<double> a = {10, 10.5, 11, 9.5, 10.2, 9.8, 10.1, 9.9};
    std::vector<double> b;
    for (const double ms : a) b.push_back(2 * ms);
    const std::string html = render_report({make_run(1, a), make_run(2, b)}, "db");
    // median of A: (10 + 10.1) / 2 = 10.05 -> "10.1" (3 significant), B: 20.1 -> "20.1".
    const std::string synth = html_scan::row_starting_with(html, "synth");
    EXPECT_TRUE(synth.starts_with("<tr><td>synth</td><td class=\"num\">8</td><td class=\"num\">8</td>"
                                  "<td class=\"num\">10.1</td><td class=\"num\">20.1</td>"
                                  "<td class=\"num\">+100.0 %</td>"))
        << synth;
    EXPECT_TRUE(synth.ends_with("<td class=\"verdict slower\">slower</td></tr>")) << synth;
    // prove is 10 ms on both sides: no change, no difference.
    const std::string prove = html_scan::row_starting_with(html, "prove");
    EXPECT_NE(prove.find("<td class=\"num\">+0.0 %</td>"), std::string::npos) << prove;
    EXPECT_TRUE(prove.ends_with("<td class=\"verdict\">no difference</td></tr>")) << prove;
}

TEST(Report, TooFewPartitionsAreInconclusive) {
    const std::string html = render_report({make_run(1, {1, 2}), make_run(2, {5, 6})}, "db");
    EXPECT_NE(html.find("inconclusive: too few samples"), std::string::npos);
}

TEST(TimelineSvg, OneRectWithATooltipPerInterval) {
    const ReportRun run = make_run(1, {5, 6, 7, 8});
    const std::string svg = timeline_svg(run.timeline);
    EXPECT_TRUE(svg.starts_with("<svg"));
    EXPECT_EQ(count_of(svg, "<title>partition "), run.timeline.intervals.size());
    EXPECT_NE(svg.find("<title>partition 2 · synth on synth.0\n7.00 ms, from 11.0 to 18.0 ms</title>"),
              std::string::npos);
    // Track labels, and a legend entry per phase.
    EXPECT_NE(svg.find(">synth.0</text>"), std::string::npos);
    EXPECT_NE(svg.find(">prove.0</text>"), std::string::npos);
    EXPECT_NE(svg.find("class=\"legend\">synth</text>"), std::string::npos);
    EXPECT_NE(svg.find("class=\"legend\">prove</text>"), std::string::npos);
}

TEST(TimelineSvg, FailedPartitionsAreMarkedAndEmptyRunsSaySo) {
    ReportRun run = make_run(1, {5});
    run.timeline.intervals[0].interval.partition_status = "failed";
    const std::string svg = timeline_svg(run.timeline);
    EXPECT_EQ(count_of(svg, "class=\"failed\""), 1u);
    EXPECT_NE(svg.find("partition failed"), std::string::npos);
    EXPECT_NE(timeline_svg(TimelineLayout{}).find("no intervals recorded"), std::string::npos);
}

TEST(DistributionsSvg, MedianAndCountPerRunAndPhaseFailedLeftOut) {
    RunSamples a{"run 1", {{"synth", 0, "ok", 1}, {"synth", 1, "ok", 2}, {"synth", 2, "ok", 3},
                           {"synth", 3, "ok", 4}, {"synth", 4, "failed", 100}}};
    RunSamples b{"run 2", {{"synth", 0, "ok", 8}, {"verify", 0, "verify_failed", 2}}};
    const std::string svg = distributions_svg({a, b});
    EXPECT_NE(svg.find("median 2.50 ms, n 4"), std::string::npos);  // the failed 100 ms left out
    EXPECT_NE(svg.find("median 8.00 ms, n 1"), std::string::npos);
    EXPECT_NE(svg.find("median 2.00 ms, n 1"), std::string::npos);  // verify_failed partitions count
    EXPECT_NE(svg.find("not measured"), std::string::npos);         // run 1 has no verify
    EXPECT_LT(svg.find(">synth (ms)</text>"), svg.find(">verify (ms)</text>"));  // pipeline order
    EXPECT_EQ(count_of(svg, "<circle"), 6u);  // one dot per partition that did not fail
}

}  // namespace
}  // namespace zkbatch
