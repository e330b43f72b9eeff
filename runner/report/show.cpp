// Text rendering for `zkbatch runs` and `zkbatch show`.
#include "report/show.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace zkbatch {
namespace {

// A text table: columns padded to their widest cell, two spaces apart, no
// trailing blanks. Numbers are right-aligned so their digits line up.
class Table {
public:
    struct Column {
        std::string header;
        bool right_aligned = false;
    };
    explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

    void add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

    std::string render(const std::string& indent, bool with_header) const {
        std::vector<size_t> widths(columns_.size(), 0);
        for (size_t c = 0; c < columns_.size(); ++c) {
            if (with_header) widths[c] = columns_[c].header.size();
            for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
        }
        std::string out;
        auto line = [&](const std::vector<std::string>& cells) {
            std::string text = indent;
            for (size_t c = 0; c < cells.size(); ++c) {
                if (c > 0) text += "  ";
                text += columns_[c].right_aligned ? fmt::format("{:>{}}", cells[c], widths[c])
                                                  : fmt::format("{:<{}}", cells[c], widths[c]);
            }
            text.erase(text.find_last_not_of(' ') + 1);
            out += text + '\n';
        };
        if (with_header) {
            std::vector<std::string> headers;
            for (const auto& column : columns_) headers.push_back(column.header);
            line(headers);
        }
        for (const auto& row : rows_) line(row);
        return out;
    }

private:
    std::vector<Column> columns_;
    std::vector<std::vector<std::string>> rows_;
};

std::string key_values(const std::vector<std::pair<std::string, std::string>>& pairs) {
    Table table({{"key"}, {"value"}});
    for (const auto& [key, value] : pairs) {
        // Multi-line values (overrides) stay readable on one line.
        std::string flat = value;
        std::replace(flat.begin(), flat.end(), '\n', ' ');
        table.add({key, flat});
    }
    return table.render("  ", false);
}

std::string format_ms(double ms) { return fmt::format("{:.3f}", ms); }

}  // namespace

std::string format_bytes(uint64_t bytes) {
    constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(kUnits)) {
        value /= 1024;
        ++unit;
    }
    return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string format_duration_ms(double ms) {
    if (ms < 1000) return fmt::format("{:.0f} ms", ms);
    const double seconds = ms / 1000;
    if (seconds < 60) return fmt::format("{:.1f} s", seconds);
    const auto whole_seconds = static_cast<int64_t>(std::llround(seconds));
    if (whole_seconds < 3600) {
        return fmt::format("{} min {:02} s", whole_seconds / 60, whole_seconds % 60);
    }
    const int64_t whole_minutes = whole_seconds / 60;
    return fmt::format("{} h {:02} min", whole_minutes / 60, whole_minutes % 60);
}

std::string format_run_list(const std::vector<RunListRow>& rows) {
    if (rows.empty()) return "no runs recorded\n";
    Table table({{"id", true},
                 {"started"},
                 {"job"},
                 {"backend"},
                 {"status"},
                 {"ok/failed", true},
                 {"wall", true}});
    for (const RunListRow& row : rows) {
        table.add({std::to_string(row.run_id), row.started, row.job_name, row.backend_name,
                   row.status, fmt::format("{}/{}", row.partitions_ok, row.partitions_failed),
                   row.wall_ms ? format_duration_ms(*row.wall_ms) : "-"});
    }
    return table.render("", true);
}

std::string format_run_details(const Store& store, int64_t run_id) {
    const auto environment = store.run_environment(run_id);
    const RunOverview overview = store.run_overview(run_id);
    const auto tags = store.run_tags(run_id);
    const auto facts = store.run_facts(run_id);
    const auto phases = store.phase_stats(run_id);

    std::string out = fmt::format("run {} in {}\n", run_id, store.path().string());
    out += "\nenvironment\n" + key_values(environment);
    if (!tags.empty()) out += "\ntags\n" + key_values(tags);
    if (!facts.empty()) out += "\nbackend facts\n" + key_values(facts);

    std::vector<std::pair<std::string, std::string>> outcome;
    outcome.emplace_back("status", overview.status);
    outcome.emplace_back("partitions", fmt::format("{} ok, {} failed", overview.partitions_ok,
                                                   overview.partitions_failed));
    if (overview.wall_ms) outcome.emplace_back("wall", format_duration_ms(*overview.wall_ms));
    if (overview.partitions_per_hour) {
        outcome.emplace_back("partitions per hour",
                             fmt::format("{:.1f}", *overview.partitions_per_hour));
    }
    if (overview.gpu_busy_fraction) {
        // With several devices: the mean of the devices' busy fractions.
        outcome.emplace_back("GPU busy", fmt::format("{:.1f} %", *overview.gpu_busy_fraction * 100));
    }
    if (overview.median_h2d_gb_per_s) {
        outcome.emplace_back("h2d median", fmt::format("{:.2f} GB/s", *overview.median_h2d_gb_per_s));
    }
    if (overview.peak_rss_bytes) outcome.emplace_back("peak RSS", format_bytes(*overview.peak_rss_bytes));
    if (!overview.error.empty()) outcome.emplace_back("error", overview.error);
    out += "\noutcome\n" + key_values(outcome);

    out += "\nphases (ms, over the partitions that did not fail)\n";
    if (phases.empty()) {
        out += "  none recorded\n";
    } else {
        // The copy-rate column only when some phase moved bytes (not on cpu-ref).
        const bool with_rates = std::any_of(phases.begin(), phases.end(), [](const PhaseStats& p) {
            return p.median_gb_per_s.has_value();
        });
        std::vector<Table::Column> columns = {{"phase"},      {"count", true}, {"median", true},
                                              {"p95", true},  {"min", true},   {"max", true}};
        if (with_rates) columns.push_back({"median GB/s", true});
        Table table(std::move(columns));
        for (const PhaseStats& phase : phases) {
            std::vector<std::string> cells = {phase.phase,           std::to_string(phase.count),
                                              format_ms(phase.median_ms), format_ms(phase.p95_ms),
                                              format_ms(phase.min_ms),    format_ms(phase.max_ms)};
            if (with_rates) {
                cells.push_back(phase.median_gb_per_s ? fmt::format("{:.2f}", *phase.median_gb_per_s)
                                                      : "");
            }
            table.add(std::move(cells));
        }
        out += table.render("  ", true);
    }

    // Several devices: what each one did. (One device says no more than the above.)
    const auto devices = store.device_stats(run_id);
    if (devices.size() > 1) {
        out += "\ndevices (partitions proved, busy % of wall, medians in ms)\n";
        Table table({{"device"}, {"name"}, {"partitions", true}, {"busy %", true}, {"compute", true}, {"prove", true}});
        for (const DeviceStats& device : devices) {
            table.add({std::to_string(device.device_index), device.name.empty() ? "-" : device.name,
                       std::to_string(device.partitions),
                       device.busy_fraction ? fmt::format("{:.1f}", *device.busy_fraction * 100) : "-",
                       device.median_compute_ms ? format_ms(*device.median_compute_ms) : "-",
                       device.median_prove_ms ? format_ms(*device.median_prove_ms) : "-"});
        }
        out += table.render("  ", true);
    }

    // Where a GPU sits idle: each prove worker's gaps between its partitions.
    const auto idle_gaps = store.idle_gap_stats(run_id);
    if (!idle_gaps.empty()) {
        out += "\nidle gaps per prove worker (ms, before each partition but the worker's first)\n";
        Table table({{"worker"}, {"gaps", true}, {"total", true}, {"median", true}, {"p95", true}, {"max", true}});
        for (const IdleGapStats& gap : idle_gaps) {
            table.add({fmt::format("prove.{}", gap.prove_worker), std::to_string(gap.count),
                       format_ms(gap.total_ms), format_ms(gap.median_ms), format_ms(gap.p95_ms),
                       format_ms(gap.max_ms)});
        }
        out += table.render("  ", true);
    }
    return out;
}

}  // namespace zkbatch
