#include "cluster/merge.hpp"

#include "store/sqlite_support.hpp"
#include "util/usage_error.hpp"

#include "core/groth16/any_curve.hpp"
#include "core/groth16/proof.hpp"
#include "core/util/input_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

namespace zkbatch {
namespace fs = std::filesystem;

namespace {

using sqlite::Statement;
using sqlite::Transaction;

// The identity roots: rows of these tables are matched across databases by uuid.
constexpr std::string_view kExperimentTable = "experiment";
constexpr std::string_view kRunTable = "run";
constexpr std::string_view kIdentityColumn = "uuid";

// "name" as an SQL identifier.
std::string sql_name(std::string_view name) {
    std::string text = "\"";
    for (const char c : name) text += c == '"' ? std::string("\"\"") : std::string(1, c);
    return text + "\"";
}

// Two stored values are the same value (type and content).
bool same_value(sqlite3_value* a, sqlite3_value* b) {
    const int type = sqlite3_value_type(a);
    if (type != sqlite3_value_type(b)) return false;
    switch (type) {
        case SQLITE_NULL: return true;
        case SQLITE_INTEGER: return sqlite3_value_int64(a) == sqlite3_value_int64(b);
        case SQLITE_FLOAT: return sqlite3_value_double(a) == sqlite3_value_double(b);
        default: {
            const void* bytes_a = type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_value_text(a)) : sqlite3_value_blob(a);
            const void* bytes_b = type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_value_text(b)) : sqlite3_value_blob(b);
            const int size = sqlite3_value_bytes(a);
            return size == sqlite3_value_bytes(b) && (size == 0 || std::memcmp(bytes_a, bytes_b, static_cast<size_t>(size)) == 0);
        }
    }
}

// Why a shard's stored value cannot be merged, or nothing: a value no zkbatch records,
// which every reader of the history would refuse after the merge (a time that is not
// finite or no measurement gives, a proof, public inputs or a verifying key of the
// wrong size).
std::optional<std::string> unrecordable(std::string_view table, std::string_view column, sqlite3_value* value) {
    const int type = sqlite3_value_type(value);
    if (type == SQLITE_FLOAT && !std::isfinite(sqlite3_value_double(value))) return "is not a finite number";
    if (column.ends_with("_ms") && (type == SQLITE_FLOAT || type == SQLITE_INTEGER) &&
        !is_measured_ms(sqlite3_value_double(value)))
        return fmt::format("is {} ms, a time no measurement gives", sqlite3_value_double(value));
    if (type != SQLITE_BLOB) return std::nullopt;
    const auto* bytes = static_cast<const uint8_t*>(sqlite3_value_blob(value));
    const auto size = static_cast<size_t>(sqlite3_value_bytes(value));
    // A value is checked alone: a proof or a verifying key of either curve passes (the
    // run's curve is another column).
    constexpr curve::CurveId kCurves[] = {curve::CurveId::bls12_381, curve::CurveId::bn254};
    if (table == "partition" && column == "proof" &&
        std::none_of(std::begin(kCurves), std::end(kCurves), [size](curve::CurveId c) { return size == groth16::proof_bytes(c); }))
        return fmt::format("is {} bytes where a proof takes {} (BLS12-381) or {} (BN254)", size,
                           groth16::proof_bytes(curve::CurveId::bls12_381), groth16::proof_bytes(curve::CurveId::bn254));
    if (table == "partition" && column == "public_inputs" && size % 32 != 0)
        return fmt::format("is {} bytes, not 32 per input", size);
    if (table == "run" && column == "verifying_key") {
        std::string why;
        groth16::AnyVerifyingKey key;
        for (const curve::CurveId c : kCurves)
            if (groth16::verifying_key_from_bytes(c, bytes, size, key, &why)) return std::nullopt;
        return why;
    }
    return std::nullopt;
}

// What a shard's row is, for messages: its id, run and partition where it has them.
std::string row_name(std::string_view table, const sqlite::Statement& row) {
    std::string name(table);
    for (int column = 0; column < row.column_count(); ++column) {
        const std::string column_name = row.column_name(column);
        const bool names_it = column_name == "id" || column_name == "run_id" || column_name == "partition_index";
        if (names_it && !row.is_null(column)) name += fmt::format(" {} {}", column_name, row.int_at(column));
    }
    return name;
}

// What the schema says about one table.
struct TableShape {
    std::string name;
    bool without_rowid = false;
    std::vector<std::string> columns;
    std::string id_column;  // an INTEGER PRIMARY KEY (a rowid alias)
    struct Key {
        std::string column, parent, parent_column, on_delete;
        int seq = 0;
    };
    std::vector<Key> keys;
};

std::vector<TableShape> read_shapes(sqlite3* db, const fs::path& path) {
    std::vector<TableShape> shapes;
    Statement tables(db, path,
                     "SELECT name, upper(sql) FROM sqlite_schema WHERE type = 'table' "
                     "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    while (tables.step("cannot list the tables")) {
        TableShape shape;
        shape.name = tables.text_at(0);
        shape.without_rowid = tables.text_at(1).find("WITHOUT ROWID") != std::string::npos;
        shapes.push_back(std::move(shape));
    }
    for (TableShape& shape : shapes) {
        Statement info(db, path, fmt::format("PRAGMA table_info({})", sql_name(shape.name)));
        std::vector<std::pair<std::string, std::string>> key_columns;  // (name, type)
        while (info.step("cannot read a table's columns")) {
            shape.columns.push_back(info.text_at(1));
            if (info.int_at(5) > 0) key_columns.emplace_back(info.text_at(1), info.text_at(2));
        }
        std::string type = key_columns.size() == 1 ? key_columns.front().second : "";
        std::transform(type.begin(), type.end(), type.begin(), ::toupper);
        if (!shape.without_rowid && type == "INTEGER") shape.id_column = key_columns.front().first;
        Statement keys(db, path, fmt::format("PRAGMA foreign_key_list({})", sql_name(shape.name)));
        while (keys.step("cannot read a table's foreign keys")) {
            shape.keys.push_back({keys.text_at(3), keys.text_at(2), keys.text_at(4), keys.text_at(6),
                                  static_cast<int>(keys.int_at(1))});
        }
    }
    return shapes;
}

[[noreturn]] void cannot_handle(const fs::path& path, const std::string& table, const std::string& why) {
    throw StoreError(fmt::format(
        "{}: zkbatch merge cannot handle table '{}': {}. Merging would lose its rows, so nothing was "
        "merged. This is a zkbatch bug: runner/merge.cpp must learn the table (please report it).",
        path.string(), table, why));
}

}  // namespace

const char* to_string(MergeRole role) {
    switch (role) {
        case MergeRole::reference: return "reference";
        case MergeRole::experiment: return "experiment";
        case MergeRole::run: return "run";
        case MergeRole::owned: return "owned";
    }
    return "unknown";
}

namespace {

bool is_identity_root(std::string_view table) { return table == kRunTable || table == kExperimentTable; }

// The owned tables: those with a foreign key that leads, through owned tables, to run.
std::set<std::string> owned_tables(const std::vector<TableShape>& shapes) {
    std::set<std::string> owned;
    for (bool grew = true; grew;) {
        grew = false;
        for (const TableShape& shape : shapes) {
            if (is_identity_root(shape.name) || owned.contains(shape.name)) continue;
            for (const auto& key : shape.keys)
                if (key.parent == kRunTable || owned.contains(key.parent)) {
                    owned.insert(shape.name);
                    grew = true;
                    break;
                }
        }
    }
    return owned;
}

// What the schema says about the tables as merge sees them.
struct SchemaView {
    const fs::path& path;
    std::map<std::string, const TableShape*> by_name;
    std::set<std::string> owned;
};

MergeRole role_of(const TableShape& shape, const SchemaView& schema) {
    if (is_identity_root(shape.name)) {
        if (shape.id_column.empty() ||
            std::find(shape.columns.begin(), shape.columns.end(), kIdentityColumn) == shape.columns.end())
            cannot_handle(schema.path, shape.name, "it has no INTEGER PRIMARY KEY or no uuid column");
        return shape.name == kRunTable ? MergeRole::run : MergeRole::experiment;
    }
    if (schema.owned.contains(shape.name)) return MergeRole::owned;
    if (shape.keys.empty() && shape.id_column.empty()) return MergeRole::reference;
    cannot_handle(schema.path, shape.name,
                  shape.keys.empty() ? "it has row ids but no foreign key to run and no uuid"
                                     : "its foreign keys do not lead to run");
}

// A foreign key of a table of `role`, checked: merge can remap it only when it refers
// to a renumbered row id, and an owned row must go with its run.
ForeignKeyColumn remapped_key(const TableShape& shape, MergeRole role, const TableShape::Key& key,
                              const SchemaView& schema) {
    if (key.seq > 0) cannot_handle(schema.path, shape.name, "it has a foreign key of several columns");
    const auto parent = schema.by_name.find(key.parent);
    if (parent == schema.by_name.end())
        cannot_handle(schema.path, shape.name, fmt::format("its foreign key names a missing table '{}'", key.parent));
    const TableShape& target = *parent->second;
    const bool parent_renumbered = is_identity_root(target.name) || schema.owned.contains(target.name);
    if (!parent_renumbered || target.id_column.empty() ||
        (!key.parent_column.empty() && key.parent_column != target.id_column))
        cannot_handle(schema.path, shape.name,
                      fmt::format("its foreign key {} refers to {}, which is not a renumbered row id", key.column,
                                  key.parent));
    const bool owning = role == MergeRole::owned && (key.parent == kRunTable || schema.owned.contains(key.parent));
    // A replaced run is deleted and copied again; its rows must go with it.
    if (owning && key.on_delete != "CASCADE")
        cannot_handle(schema.path, shape.name,
                      fmt::format("its foreign key {} to {} lacks ON DELETE CASCADE", key.column, key.parent));
    if (role == MergeRole::run && schema.owned.contains(key.parent))
        cannot_handle(schema.path, shape.name, fmt::format("run refers to the owned table {}", key.parent));
    return {key.column, key.parent, owning};
}

TableMergePlan plan_table(const TableShape& shape, const SchemaView& schema) {
    TableMergePlan plan;
    plan.table = shape.name;
    plan.id_column = shape.id_column;
    plan.role = role_of(shape, schema);
    for (const auto& key : shape.keys) plan.foreign_keys.push_back(remapped_key(shape, plan.role, key, schema));
    return plan;
}

// Parents before children: reference tables, experiment, run, then owned tables once
// every table they refer to is placed.
std::vector<TableMergePlan> parents_first(const std::map<std::string, TableMergePlan>& plans, const fs::path& path) {
    std::vector<TableMergePlan> ordered;
    std::set<std::string> placed;
    const auto place = [&](const std::string& name) {
        ordered.push_back(plans.at(name));
        placed.insert(name);
    };
    for (const auto& [name, plan] : plans)
        if (plan.role == MergeRole::reference) place(name);
    place(std::string(kExperimentTable));
    place(std::string(kRunTable));
    while (placed.size() < plans.size()) {
        bool progressed = false;
        for (const auto& [table, plan] : plans) {
            if (placed.contains(table)) continue;
            // A plain reference: clang 14 cannot capture a structured binding in a lambda.
            const std::string& name = table;
            const bool ready = std::all_of(plan.foreign_keys.begin(), plan.foreign_keys.end(),
                                           [&](const ForeignKeyColumn& key) {
                                               return key.parent_table == name || placed.contains(key.parent_table);
                                           });
            if (ready) {
                place(name);
                progressed = true;
            }
        }
        if (!progressed) {
            std::vector<std::string> rest;
            for (const auto& [name, plan] : plans)
                if (!placed.contains(name)) rest.push_back(name);
            cannot_handle(path, rest.front(), fmt::format("the foreign keys of {} form a cycle", fmt::join(rest, ", ")));
        }
    }
    return ordered;
}

}  // namespace

std::vector<TableMergePlan> plan_merge(sqlite3* db, const fs::path& path) {
    const std::vector<TableShape> shapes = read_shapes(db, path);
    SchemaView schema{path, {}, owned_tables(shapes)};
    for (const TableShape& shape : shapes) schema.by_name[shape.name] = &shape;
    std::map<std::string, TableMergePlan> plans;
    for (const TableShape& shape : shapes) plans[shape.name] = plan_table(shape, schema);
    std::vector<TableMergePlan> ordered = parents_first(plans, path);
    for (const TableMergePlan& plan : ordered)
        for (const ForeignKeyColumn& key : plan.foreign_keys)
            if (key.parent_table == plan.table) cannot_handle(path, plan.table, "it refers to itself");
    return ordered;
}

namespace {

using IdMap = std::unordered_map<int64_t, int64_t>;  // shard row id -> HISTORY.db row id

// Merges one shard into the history; both connections are inside their transactions.
class ShardMerger {
public:
    ShardMerger(sqlite3* history, const fs::path& history_path, sqlite3* shard, const fs::path& shard_path,
                std::vector<TableMergePlan> plan)
        : history_(history), history_path_(history_path), shard_(shard), shard_path_(shard_path),
          plan_(std::move(plan)) {}

    MergeCounts run() {
        for (const TableMergePlan& table : plan_) {
            switch (table.role) {
                case MergeRole::reference: copy_reference(table); break;
                case MergeRole::experiment: merge_experiments(table); break;
                case MergeRole::run: merge_runs(table); break;
                case MergeRole::owned: copy_owned(table); break;
            }
        }
        return counts_;
    }

private:
    // The shard's rows of a table, by row id where it has one.
    Statement read_all(const TableMergePlan& table) const {
        std::string sql = "SELECT * FROM " + sql_name(table.table);
        if (!table.id_column.empty()) sql += " ORDER BY " + sql_name(table.id_column);
        return Statement(shard_, shard_path_, sql);
    }

    // INSERT of the given columns, in the shard's column order.
    Statement insert_into(const std::string& table, const std::vector<std::string>& columns,
                          const char* verb = "INSERT") const {
        std::vector<std::string> names, slots;
        for (size_t i = 0; i < columns.size(); ++i) {
            names.push_back(sql_name(columns[i]));
            slots.push_back(fmt::format("?{}", i + 1));
        }
        return Statement(history_, history_path_,
                         fmt::format("{} INTO {} ({}) VALUES ({})", verb, sql_name(table), fmt::join(names, ", "),
                                     fmt::join(slots, ", ")));
    }

    // Binds the shard row's columns (all but `skip_column`) to `insert`, foreign keys
    // remapped. Returns false when the row belongs to a run not being copied.
    bool bind_row(const TableMergePlan& table, const Statement& row, Statement& insert, const std::string& skip_column,
                  const std::string& doing) {
        int slot = 1;
        for (int column = 0; column < row.column_count(); ++column) {
            const std::string name = row.column_name(column);
            if (const auto why = unrecordable(table.table, name, row.value_at(column)))
                throw StoreError(fmt::format("{}: {}: {}.{} {}: the shard is damaged (no zkbatch records such a "
                                             "value); nothing of it was merged.",
                                             shard_path_.string(), row_name(table.table, row), table.table, name,
                                             *why));
            if (name == skip_column) continue;
            const auto key = std::find_if(table.foreign_keys.begin(), table.foreign_keys.end(),
                                          [&](const ForeignKeyColumn& k) { return k.column == name; });
            if (key == table.foreign_keys.end() || row.is_null(column)) {
                insert.bind_value(slot++, row.value_at(column));
                continue;
            }
            const IdMap& ids = maps_[key->parent_table];
            const auto found = ids.find(row.int_at(column));
            if (found == ids.end()) {
                if (key->owning) return false;
                throw StoreError(fmt::format("{}: {}: {}.{} = {} refers to no row of {}. The shard "
                                             "database is inconsistent; nothing of it was merged.",
                                             shard_path_.string(), doing, table.table, name, row.int_at(column),
                                             key->parent_table));
            }
            insert.bind_int(slot++, found->second);
        }
        return true;
    }

    void copy_reference(const TableMergePlan& table) {
        const std::string doing = fmt::format("cannot merge table {}", table.table);
        auto rows = read_all(table);
        std::vector<std::string> columns;
        for (int c = 0; c < rows.column_count(); ++c) columns.push_back(rows.column_name(c));
        auto insert = insert_into(table.table, columns, "INSERT OR IGNORE");
        uint64_t& added = counts_.rows_added[table.table];
        while (rows.step(doing)) {
            bind_row(table, rows, insert, "", doing);
            insert.step(doing);
            added += static_cast<uint64_t>(sqlite3_changes(history_));
            insert.reset();
        }
    }

    // Columns of `rows` except `skip`.
    static std::vector<std::string> columns_except(const Statement& rows, const std::string& skip) {
        std::vector<std::string> columns;
        for (int c = 0; c < rows.column_count(); ++c)
            if (rows.column_name(c) != skip) columns.push_back(rows.column_name(c));
        return columns;
    }

    static int column_index(const Statement& rows, std::string_view name) {
        for (int c = 0; c < rows.column_count(); ++c)
            if (rows.column_name(c) == name) return c;
        return -1;
    }

    // Finds HISTORY.db's id of the row whose uuid is parameter 1.
    Statement id_by_uuid(const TableMergePlan& table) const {
        return Statement(history_, history_path_,
                         fmt::format("SELECT {} FROM {} WHERE uuid = ?1", sql_name(table.id_column), sql_name(table.table)));
    }

    void merge_experiments(const TableMergePlan& table) {
        const std::string doing = "cannot merge the experiments";
        auto rows = read_all(table);
        auto insert = insert_into(table.table, columns_except(rows, table.id_column));
        Statement known = id_by_uuid(table);
        const int id_at = column_index(rows, table.id_column), uuid_at = column_index(rows, kIdentityColumn);
        IdMap& ids = maps_[table.table];
        while (rows.step(doing)) {
            known.bind_text(1, rows.text_at(uuid_at));
            if (known.step(doing)) {
                ids[rows.int_at(id_at)] = known.int_at(0);
                ++counts_.experiments_known;
            } else {
                bind_row(table, rows, insert, table.id_column, doing);
                insert.step(doing);
                insert.reset();
                ids[rows.int_at(id_at)] = sqlite3_last_insert_rowid(history_);
                ++counts_.experiments_added;
            }
            known.reset();
        }
    }

    // Tables whose rows hang directly off a run, with the column naming it.
    std::vector<std::pair<std::string, std::string>> run_children() const {
        std::vector<std::pair<std::string, std::string>> children;
        for (const TableMergePlan& table : plan_)
            for (const ForeignKeyColumn& key : table.foreign_keys)
                if (key.owning && key.parent_table == kRunTable) children.emplace_back(table.table, key.column);
        return children;
    }

    // True when HISTORY.db's copy of a run equals the shard's: the same values in every
    // column (ids aside, foreign keys compared after remapping) and as many rows in
    // each table hanging off it. Partitions are written whole with their intervals,
    // so a run that gained, lost or re-proved partitions differs here.
    bool unchanged(const TableMergePlan& table, const Statement& shard_row, int64_t history_id, const std::string& doing) {
        const std::string select =
            fmt::format("SELECT * FROM {} WHERE {} = ?1", sql_name(table.table), sql_name(table.id_column));
        Statement history_row(history_, history_path_, select);
        history_row.bind_int(1, history_id);
        if (!history_row.step(doing)) return false;
        for (int column = 0; column < shard_row.column_count(); ++column) {
            const std::string name = shard_row.column_name(column);
            if (name == table.id_column) continue;
            const int other = column_index(history_row, name);
            if (other < 0) return false;
            const auto key = std::find_if(table.foreign_keys.begin(), table.foreign_keys.end(),
                                          [&](const ForeignKeyColumn& k) { return k.column == name; });
            if (key != table.foreign_keys.end() && !shard_row.is_null(column)) {
                const IdMap& ids = maps_[key->parent_table];
                const auto found = ids.find(shard_row.int_at(column));
                if (history_row.is_null(other) || found == ids.end() || found->second != history_row.int_at(other))
                    return false;
            } else if (!same_value(shard_row.value_at(column), history_row.value_at(other))) {
                return false;
            }
        }
        const int64_t shard_id = shard_row.int_at(column_index(shard_row, table.id_column));
        for (const auto& [child, column] : run_children()) {
            const std::string count = fmt::format("SELECT count(*) FROM {} WHERE {} = ?1", sql_name(child), sql_name(column));
            Statement in_shard(shard_, shard_path_, count), in_history(history_, history_path_, count);
            in_shard.bind_int(1, shard_id);
            in_history.bind_int(1, history_id);
            in_shard.step(doing);
            in_history.step(doing);
            if (in_shard.int_at(0) != in_history.int_at(0)) return false;
        }
        return true;
    }

    void merge_runs(const TableMergePlan& table) {
        const std::string doing = "cannot merge the runs";
        auto rows = read_all(table);
        auto insert = insert_into(table.table, columns_except(rows, table.id_column));
        auto replace = insert_into(table.table, columns_except(rows, ""));
        Statement known = id_by_uuid(table);
        const std::string delete_run =
            fmt::format("DELETE FROM {} WHERE {} = ?1", sql_name(table.table), sql_name(table.id_column));
        Statement remove(history_, history_path_, delete_run);
        const int id_at = column_index(rows, table.id_column), uuid_at = column_index(rows, kIdentityColumn);
        IdMap& ids = maps_[table.table];
        while (rows.step(doing)) {
            const int64_t shard_id = rows.int_at(id_at);
            known.bind_text(1, rows.text_at(uuid_at));
            const std::optional<int64_t> history_id =
                known.step(doing) ? std::optional<int64_t>(known.int_at(0)) : std::nullopt;
            known.reset();
            if (!history_id) {
                bind_row(table, rows, insert, table.id_column, doing);
                insert.step(doing);
                insert.reset();
                ids[shard_id] = sqlite3_last_insert_rowid(history_);
                ++counts_.runs_added;
            } else if (unchanged(table, rows, *history_id, doing)) {
                ++counts_.runs_unchanged;  // its rows are already there: not mapped, not copied
            } else {
                // Deleting cascades to every row owned by the run; it comes back whole,
                // under the id HISTORY.db already gave it.
                remove.bind_int(1, *history_id);
                remove.step(doing);
                remove.reset();
                bind_row(table, rows, replace, "", doing);
                replace.bind_int(id_at + 1, *history_id);
                replace.step(doing);
                replace.reset();
                ids[shard_id] = *history_id;
                ++counts_.runs_replaced;
            }
        }
    }

    void copy_owned(const TableMergePlan& table) {
        const std::string doing = fmt::format("cannot merge table {}", table.table);
        auto rows = read_all(table);
        auto insert = insert_into(table.table, columns_except(rows, table.id_column));
        const int id_at = table.id_column.empty() ? -1 : column_index(rows, table.id_column);
        IdMap* ids = table.id_column.empty() ? nullptr : &maps_[table.table];
        uint64_t& added = counts_.rows_added[table.table];
        while (rows.step(doing)) {
            const bool copied = bind_row(table, rows, insert, table.id_column, doing);
            if (copied) {
                insert.step(doing);
                if (ids) (*ids)[rows.int_at(id_at)] = sqlite3_last_insert_rowid(history_);
                ++added;
            }
            insert.reset();
        }
    }

    sqlite3* history_;
    const fs::path& history_path_;
    sqlite3* shard_;
    const fs::path& shard_path_;
    std::vector<TableMergePlan> plan_;
    std::map<std::string, IdMap> maps_;
    MergeCounts counts_;
};

// The tables' definitions, to check that two databases have the same schema.
std::map<std::string, std::string> table_definitions(sqlite3* db, const fs::path& path) {
    std::map<std::string, std::string> definitions;
    Statement tables(db, path, "SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name");
    while (tables.step("cannot read the schema")) definitions[tables.text_at(0)] = tables.text_at(1);
    return definitions;
}

int schema_version(sqlite3* db, const fs::path& path) {
    Statement version(db, path, "PRAGMA user_version");
    version.step("cannot read the schema version");
    return static_cast<int>(version.int_at(0));
}

}  // namespace

MergeCounts merge_shard(Store& history, const fs::path& shard_path) {
    for (const fs::path& file : history.files())
        if (util::same_file(shard_path, file))
            throw UsageError(fmt::format("{}: this is the history database itself (--into), or one of its files; "
                                         "name only shard databases before --into.",
                                         shard_path.string()));
    // An older shard is upgraded in place, as `zkbatch runs` would; a newer one is refused.
    Store shard = Store::open_existing(shard_path);
    const int version = schema_version(shard.handle(), shard_path);
    if (version != Store::kSchemaVersion)
        throw StoreError(fmt::format("{}: schema version {}, but this zkbatch writes version {}: use the "
                                     "zkbatch that wrote it, or open it with `zkbatch runs --db {}` to upgrade it.",
                                     shard_path.string(), version, Store::kSchemaVersion, shard_path.string()));
    // A read transaction: one consistent snapshot even while a shard still writes.
    Transaction reading(shard.handle(), shard_path, Transaction::Mode::read, "cannot read the shard database");
    if (table_definitions(shard.handle(), shard_path) != table_definitions(history.handle(), history.path()))
        throw StoreError(fmt::format("{}: its tables differ from those of {}, although both have schema version {} "
                                     "(a development build?). Merge with the zkbatch that wrote both.",
                                     shard_path.string(), history.path().string(), version));
    std::vector<TableMergePlan> plan = plan_merge(history.handle(), history.path());
    Transaction writing(history.handle(), history.path(), Transaction::Mode::write,
                        fmt::format("cannot write the merge of {} into the history database", shard_path.string()));
    ShardMerger merger(history.handle(), history.path(), shard.handle(), shard_path, std::move(plan));
    MergeCounts counts;
    try {
        counts = merger.run();
    } catch (const StoreError& e) {
        throw StoreError(fmt::format("{} (while merging {}; nothing of it was merged)", e.what(), shard_path.string()));
    }
    writing.commit();
    return counts;
}


}  // namespace zkbatch
