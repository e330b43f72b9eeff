// `zkbatch export` (see export.hpp).
#include "analysis/export.hpp"

#include "analysis/selectors.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <set>

namespace zkbatch {
namespace {

// Everything exported about one run.
struct RunExport {
    StoredRow run;
    std::vector<std::pair<std::string, std::string>> tags, facts;
    std::vector<StoredRow> partitions;  // without id and run_id, with partition_ms appended
};

bool is_hidden_partition_column(const std::string& name) { return name == "id" || name == "run_id"; }

RunExport gather(const Store& store, int64_t run_id) {
    RunExport out;
    out.run = store.run_row(run_id);
    out.tags = store.run_tags(run_id);
    out.facts = store.run_facts(run_id);
    std::map<uint64_t, double> partition_ms;
    for (const PhaseSample& sample : store.phase_samples(run_id))
        if (sample.phase == "partition") partition_ms[sample.partition_index] = sample.ms;
    for (StoredRow& row : store.partition_rows(run_id)) {
        StoredRow kept;
        std::optional<uint64_t> index;
        for (auto& [column, value] : row) {
            if (column == "partition_index" && std::holds_alternative<int64_t>(value))
                index = static_cast<uint64_t>(std::get<int64_t>(value));
            if (!is_hidden_partition_column(column)) kept.emplace_back(column, std::move(value));
        }
        const auto ms = index ? partition_ms.find(*index) : partition_ms.end();
        kept.emplace_back("partition_ms", ms == partition_ms.end() ? StoredValue{} : StoredValue{ms->second});
        out.partitions.push_back(std::move(kept));
    }
    return out;
}

nlohmann::ordered_json to_json(const StoredValue& value) {
    if (const auto* i = std::get_if<int64_t>(&value)) return *i;
    if (const auto* d = std::get_if<double>(&value)) return *d;
    if (const auto* s = std::get_if<std::string>(&value)) return *s;
    return nullptr;
}

std::string export_json(const std::vector<RunExport>& runs) {
    nlohmann::ordered_json out = {{"format", "zkbatch-export"}, {"version", 1}};
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const RunExport& run : runs) {
        // ordered_json keeps the table's column order, which people reading the file expect.
        nlohmann::ordered_json run_object = nlohmann::ordered_json::object();
        for (const auto& [column, value] : run.run) run_object[column] = to_json(value);
        nlohmann::ordered_json tags = nlohmann::ordered_json::object(), facts = nlohmann::ordered_json::object();
        for (const auto& [key, value] : run.tags) tags[key] = value;
        for (const auto& [key, value] : run.facts) facts[key] = value;
        run_object["tags"] = tags;
        run_object["facts"] = facts;
        nlohmann::ordered_json partitions = nlohmann::ordered_json::array();
        for (const StoredRow& row : run.partitions) {
            nlohmann::ordered_json partition = nlohmann::ordered_json::object();
            for (const auto& [column, value] : row) partition[column] = to_json(value);
            partitions.push_back(std::move(partition));
        }
        list.push_back({{"run", std::move(run_object)}, {"partitions", std::move(partitions)}});
    }
    out["runs"] = std::move(list);
    return out.dump(2) + "\n";
}

// RFC 4180: quote fields holding a comma, quote or line break; double the quotes.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + "\"";
}

std::string csv_value(const StoredValue& value) {
    if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&value)) return fmt::format("{}", *d);  // shortest round-trip form
    if (const auto* s = std::get_if<std::string>(&value)) return csv_field(*s);
    return "";
}

// The value under `key` in a list of (key, value) pairs; null when absent.
template <class Value>
const Value* lookup(const std::vector<std::pair<std::string, Value>>& pairs, const std::string& key) {
    for (const auto& [name, value] : pairs)
        if (name == key) return &value;
    return nullptr;
}

std::string export_csv(const std::vector<RunExport>& runs) {
    // Columns: run_<run columns>, partition columns, run_tag_<key>..., run_fact_<key>...
    std::vector<std::string> run_columns, partition_columns;
    std::set<std::string> tag_keys, fact_keys;
    const auto add_unique = [](std::vector<std::string>& columns, const std::string& name) {
        if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
    };
    for (const RunExport& run : runs) {
        for (const auto& [column, value] : run.run) add_unique(run_columns, column);
        for (const StoredRow& row : run.partitions)
            for (const auto& [column, value] : row) add_unique(partition_columns, column);
        for (const auto& [key, value] : run.tags) tag_keys.insert(key);
        for (const auto& [key, value] : run.facts) fact_keys.insert(key);
    }
    std::vector<std::string> header;
    for (const auto& column : run_columns) header.push_back(csv_field("run_" + column));
    for (const auto& column : partition_columns) header.push_back(csv_field(column));
    for (const auto& key : tag_keys) header.push_back(csv_field("run_tag_" + key));
    for (const auto& key : fact_keys) header.push_back(csv_field("run_fact_" + key));
    std::string out = fmt::format("{}\n", fmt::join(header, ","));

    for (const RunExport& run : runs) {
        std::vector<std::string> run_cells;
        for (const auto& column : run_columns) {
            const auto* value = lookup(run.run, column);
            run_cells.push_back(value ? csv_value(*value) : "");
        }
        std::vector<std::string> label_cells;
        for (const auto& key : tag_keys) {
            const auto* value = lookup(run.tags, key);
            label_cells.push_back(value ? csv_field(*value) : "");
        }
        for (const auto& key : fact_keys) {
            const auto* value = lookup(run.facts, key);
            label_cells.push_back(value ? csv_field(*value) : "");
        }
        for (const StoredRow& row : run.partitions) {
            std::vector<std::string> cells = run_cells;
            for (const auto& column : partition_columns) {
                const auto* value = lookup(row, column);
                cells.push_back(value ? csv_value(*value) : "");
            }
            cells.insert(cells.end(), label_cells.begin(), label_cells.end());
            out += fmt::format("{}\n", fmt::join(cells, ","));
        }
    }
    return out;
}

}  // namespace

std::string export_runs(const Store& store, const std::vector<int64_t>& run_ids, ExportFormat format) {
    std::vector<RunExport> runs;
    for (const int64_t id : run_ids) runs.push_back(gather(store, id));
    return format == ExportFormat::json ? export_json(runs) : export_csv(runs);
}


}  // namespace zkbatch
