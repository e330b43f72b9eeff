// Run selectors (see selectors.hpp).
#include "analysis/selectors.hpp"

#include "util/parse_number.hpp"
#include "util/usage_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace zkbatch {
namespace {

constexpr const char* kSyntaxHelp =
    "use a run id, latest, latest~K, job=NAME, backend=NAME, status=STATUS, experiment=ID or "
    "arm=ARM, several joined by ',' (job=nightly,backend=cuda-pinned)";

// A run id or a count of runs: a whole number within SQLite's integers, not negative.
std::optional<int64_t> parse_count(std::string_view text) {
    const auto value = parse_number<int64_t>(text);
    return value && *value >= 0 ? value : std::nullopt;
}

// The terms of a selector, parsed.
struct Terms {
    std::optional<int64_t> run_id;
    std::optional<int64_t> back;  // latest~K
    std::optional<std::string> job, backend, status, experiment, arm;
};

[[noreturn]] void malformed(const std::string& selector, const std::string& why) {
    throw UsageError(fmt::format("'{}' is not a run selector: {}; {}.", selector, why, kSyntaxHelp));
}

Terms parse(const std::string& selector) {
    if (selector.empty()) malformed(selector, "it is empty");
    // Split on ','; a piece that is no term, or that comes inside a '[' of an arm= value,
    // continues that value (arm names hold ',': "backend.name=x,circuit.log_n=20",
    // "pipeline.devices=[0,1]").
    std::vector<std::string> pieces;
    size_t start = 0;
    for (;;) {
        const size_t comma = selector.find(',', start);
        pieces.push_back(selector.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    Terms terms;
    bool last_was_arm = false;
    const auto set_once = [&](auto& slot, auto value, std::string_view name) {
        if (slot) malformed(selector, fmt::format("{} is given twice", name));
        slot = std::move(value);
    };
    for (const std::string& piece : pieces) {
        const size_t equals = piece.find('=');
        const std::string key = equals == std::string::npos ? piece : piece.substr(0, equals);
        const std::string value = equals == std::string::npos ? "" : piece.substr(equals + 1);
        const bool is_term = equals != std::string::npos &&
                             (key == "job" || key == "backend" || key == "status" ||
                              key == "experiment" || key == "arm");
        const bool inside_list = last_was_arm && std::count(terms.arm->begin(), terms.arm->end(), '[') >
                                                     std::count(terms.arm->begin(), terms.arm->end(), ']');
        if (inside_list || (last_was_arm && equals != std::string::npos && !is_term)) {
            *terms.arm += "," + piece;
            continue;
        }
        if (equals != std::string::npos && !is_term) {
            malformed(selector, fmt::format("unknown term '{}'", key));
        }
        last_was_arm = false;
        if (is_term) {
            if (value.empty()) malformed(selector, fmt::format("{}= needs a value", key));
            if (key == "job") set_once(terms.job, value, "job=");
            if (key == "backend") set_once(terms.backend, value, "backend=");
            if (key == "status") set_once(terms.status, value, "status=");
            if (key == "experiment") set_once(terms.experiment, value, "experiment=");
            if (key == "arm") set_once(terms.arm, value, "arm="), last_was_arm = true;
        } else if (piece == "latest") {
            set_once(terms.back, int64_t{0}, "latest");
        } else if (piece.starts_with("latest~")) {
            const auto back = parse_count(std::string_view(piece).substr(7));
            if (!back) malformed(selector, fmt::format("'{}' needs a count: latest~1, latest~2, ...", piece));
            set_once(terms.back, *back, "latest");
        } else if (const auto id = parse_count(piece); id && *id > 0) {
            set_once(terms.run_id, *id, "a run id");
        } else {
            malformed(selector, fmt::format("'{}' is not a term", piece));
        }
    }
    if (terms.run_id && terms.back) malformed(selector, "a run id and latest cannot be combined");
    return terms;
}

// Merges a selector's term with the caller's constraint on the same field.
template <class T>
void merge(std::optional<T>& field, const std::optional<T>& term, std::string_view name,
           const std::string& selector) {
    if (!term) return;
    if (field && *field != *term) {
        throw UsageError(fmt::format("'{}' asks for {} {}, but this command is limited to {} {}.",
                                     selector, name, *term, name, *field));
    }
    field = term;
}

std::string joined_ids(const std::vector<int64_t>& ids) { return fmt::format("{}", fmt::join(ids, ", ")); }

// Why nothing matched: the first term that matches no run on its own, with the values
// that do exist, or else that the terms do not hold together.
std::string why_no_match(const Store& store, const RunFilter& filter) {
    const auto rows = store.list_runs();
    if (rows.empty()) return "the database holds no runs yet";
    const auto known = [&](auto field) {
        std::set<std::string> values;
        for (const auto& row : rows) values.insert(row.*field);
        return fmt::format("{}", fmt::join(values, ", "));
    };
    RunFilter alone;
    if (filter.job_name) {
        alone.job_name = filter.job_name;
        if (store.find_runs(alone).empty())
            return fmt::format("no run of job '{}' (jobs here: {})", *filter.job_name, known(&RunListRow::job_name));
        alone = {};
    }
    if (filter.backend_name) {
        alone.backend_name = filter.backend_name;
        if (store.find_runs(alone).empty())
            return fmt::format("no run on backend '{}' (backends here: {})", *filter.backend_name,
                               known(&RunListRow::backend_name));
        alone = {};
    }
    if (filter.status) {
        alone.status = filter.status;
        if (store.find_runs(alone).empty())
            return fmt::format("no run with status '{}' (statuses here: {})", *filter.status, known(&RunListRow::status));
        alone = {};
    }
    if (filter.arm) {
        alone.arm = filter.arm;
        if (store.find_runs(alone).empty()) return fmt::format("no run of arm '{}'", *filter.arm);
    }
    return "each term matches some run, but no run matches them all";
}

}  // namespace

RunSelection select_runs(const Store& store, const std::string& selector, const RunFilter& within) {
    const Terms terms = parse(selector);
    RunFilter filter = within;
    merge(filter.job_name, terms.job, "job", selector);
    merge(filter.backend_name, terms.backend, "backend", selector);
    merge(filter.status, terms.status, "status", selector);
    merge(filter.arm, terms.arm, "arm", selector);

    const std::string where = store.path().string();
    if (terms.experiment) {
        const auto experiments = store.find_experiments(*terms.experiment);
        if (experiments.empty()) {
            throw StoreError(fmt::format("{}: '{}': there is no experiment '{}' (by id, uuid or name) in "
                                         "this database. `zkbatch runs` lists the runs it holds.",
                                         where, selector, *terms.experiment));
        }
        if (experiments.size() > 1) {
            std::vector<int64_t> ids;
            for (const auto& e : experiments) ids.push_back(e.id);
            throw StoreError(fmt::format("{}: '{}' is ambiguous: {} experiments are named '{}' (ids {}); "
                                         "select one by its id or uuid: experiment={}.",
                                         where, selector, experiments.size(), *terms.experiment,
                                         joined_ids(ids), ids.back()));
        }
        filter.experiment_id = experiments.front().id;
    }

    const std::vector<int64_t> ids = store.find_runs(filter);
    if (terms.run_id) {
        if (std::find(ids.begin(), ids.end(), *terms.run_id) != ids.end()) return {selector, {*terms.run_id}};
        if (std::ranges::count(store.find_runs(RunFilter{}), *terms.run_id) == 0) {
            throw StoreError(fmt::format("{}: there is no run {} in this database. `zkbatch runs` lists "
                                         "the runs it holds.", where, *terms.run_id));
        }
        throw StoreError(fmt::format("{}: run {} does not match '{}'{}: {}.", where, *terms.run_id, selector,
                                     within.job_name ? fmt::format(" and job {}", *within.job_name) : "",
                                     why_no_match(store, filter)));
    }
    if (ids.empty()) {
        throw StoreError(fmt::format("{}: no run matches '{}'{}: {}. `zkbatch runs` lists the runs.", where,
                                     selector,
                                     within.job_name && !terms.job ? fmt::format(" of job {}", *within.job_name) : "",
                                     why_no_match(store, filter)));
    }
    if (terms.experiment && !terms.back) return {selector, ids};
    const int64_t back = terms.back.value_or(0);
    if (back >= static_cast<int64_t>(ids.size())) {
        throw StoreError(fmt::format("{}: '{}' asks for the run {} before the latest, but only {} run{} "
                                     "match{}.", where, selector, back, ids.size(), ids.size() == 1 ? "" : "s",
                                     ids.size() == 1 ? "es" : ""));
    }
    return {selector, {ids[ids.size() - 1 - static_cast<size_t>(back)]}};
}

std::vector<int64_t> select_runs_of(const Store& store, const std::vector<std::string>& selectors) {
    std::vector<int64_t> ids;
    for (const std::string& selector : selectors)
        for (const int64_t id : select_runs(store, selector).run_ids)
            if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    return ids;
}

int64_t select_one_run(const Store& store, const std::string& selector, const RunFilter& within) {
    const RunSelection selection = select_runs(store, selector, within);
    if (selection.run_ids.size() != 1) {
        throw StoreError(fmt::format("{}: '{}' selects {} runs ({}), but one run is needed here; add "
                                     "arm=, backend= or latest to choose one.",
                                     store.path().string(), selector, selection.run_ids.size(),
                                     joined_ids(selection.run_ids)));
    }
    return selection.run_ids.front();
}

}  // namespace zkbatch
