// SQLite access shared by the store and `zkbatch merge`: prepared statements, plain and
// lock-retrying exec, transactions that roll back unless committed. Every failure is a
// StoreError that names the database file, says what was being done, and says what to
// do about it (a full disk, a read-only folder, a damaged file, a lock held too long).
#pragma once

#include "store/store.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace zkbatch::sqlite {

namespace fs = std::filesystem;

// What to do about a failure, by SQLite's primary result code; empty when there is
// nothing to add to SQLite's own message.
std::string advice(int rc, const fs::path& path);

// Throws "<db>: <doing>: <SQLite's message>. <advice>".
[[noreturn]] void fail(sqlite3* db, const fs::path& path, int rc, std::string_view doing);

// Binds parameters to, steps and reads one prepared statement it does not own.
// Parameters are 1-based, columns 0-based, as in SQLite. A parameter is given by its
// number (?1) or, in statements with more than a few, by its name (":job_name").
class Cursor {
public:
    void bind_int(int i, int64_t value);
    void bind_real(int i, double value);
    void bind_null(int i);
    void bind_text(int i, std::string_view value);
    void bind_blob(int i, std::span<const uint8_t> bytes);  // an empty span binds NULL
    void bind_value(int i, const sqlite3_value* value);
    // Empty text is stored as NULL ("none").
    void bind_text_or_null(int i, std::string_view value) { value.empty() ? bind_null(i) : bind_text(i, value); }
    // A duration of -1 means "not measured" and is stored as NULL.
    void bind_ms(int i, double ms) { ms < 0 ? bind_null(i) : bind_real(i, ms); }
    void bind_optional(int i, const std::optional<double>& value) { value ? bind_real(i, *value) : bind_null(i); }
    template <class Integer>
    void bind_optional_int(int i, const std::optional<Integer>& value) {
        value ? bind_int(i, static_cast<int64_t>(*value)) : bind_null(i);
    }
    template <class Text>
    void bind_optional_text(int i, const std::optional<Text>& value) {
        value ? bind_text(i, *value) : bind_null(i);
    }

    // The number of the parameter called `name` (":job_name"); throws StoreError when
    // the statement has none of that name (a zkbatch bug: the SQL and the binds differ).
    int parameter(std::string_view name) const;
    // The binds above by parameter name.
    void bind_int(std::string_view name, int64_t value) { bind_int(parameter(name), value); }
    void bind_real(std::string_view name, double value) { bind_real(parameter(name), value); }
    void bind_null(std::string_view name) { bind_null(parameter(name)); }
    void bind_text(std::string_view name, std::string_view value) { bind_text(parameter(name), value); }
    void bind_blob(std::string_view name, std::span<const uint8_t> bytes) { bind_blob(parameter(name), bytes); }
    void bind_text_or_null(std::string_view name, std::string_view value) { bind_text_or_null(parameter(name), value); }
    void bind_ms(std::string_view name, double ms) { bind_ms(parameter(name), ms); }
    void bind_optional(std::string_view name, const std::optional<double>& value) { bind_optional(parameter(name), value); }
    template <class Integer>
    void bind_optional_int(std::string_view name, const std::optional<Integer>& value) {
        bind_optional_int(parameter(name), value);
    }
    template <class Text>
    void bind_optional_text(std::string_view name, const std::optional<Text>& value) {
        bind_optional_text(parameter(name), value);
    }

    // Returns true while there is a row; throws on error, saying what it was `doing`.
    bool step(std::string_view doing);
    // Back to before the first step, with no parameters bound.
    void reset();

    bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
    bool is_blob(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_BLOB; }
    int64_t int_at(int column) const { return sqlite3_column_int64(stmt_, column); }
    double real_at(int column) const { return sqlite3_column_double(stmt_, column); }
    std::string text_at(int column) const;
    std::vector<uint8_t> blob_at(int column) const;
    std::optional<double> optional_real_at(int column) const {
        return is_null(column) ? std::nullopt : std::optional<double>(real_at(column));
    }
    // The column's value as stored (type and content), valid until the next step or reset.
    sqlite3_value* value_at(int column) const { return sqlite3_column_value(stmt_, column); }
    int column_count() const { return sqlite3_column_count(stmt_); }
    std::string column_name(int column) const { return sqlite3_column_name(stmt_, column); }

protected:
    Cursor(sqlite3* db, const fs::path* path, sqlite3_stmt* stmt) : db_(db), path_(path), stmt_(stmt) {}
    Cursor(const Cursor&) = default;
    Cursor& operator=(const Cursor&) = delete;
    ~Cursor() = default;

    sqlite3* db_;
    const fs::path* path_;
    sqlite3_stmt* stmt_;

private:
    void check_bind(int rc) const;
};

// The values of one row to insert, each beside its column, in order: the INSERT's column
// list and the values bound to it come from the same entries, so they cannot drift
// apart. The adders store what the Cursor binds of the same name would bind (NULL for
// empty text, an empty blob or an absent value).
class ColumnValues {
public:
    using Value = std::variant<std::nullptr_t, int64_t, double, std::string, std::vector<uint8_t>>;

    ColumnValues& null(std::string_view column) { return add(column, nullptr); }
    ColumnValues& integer(std::string_view column, int64_t value) { return add(column, value); }
    ColumnValues& real(std::string_view column, double value) { return add(column, value); }
    ColumnValues& text(std::string_view column, std::string_view value) { return add(column, std::string(value)); }
    ColumnValues& text_or_null(std::string_view column, std::string_view value) {
        return value.empty() ? null(column) : text(column, value);
    }
    ColumnValues& blob(std::string_view column, std::span<const uint8_t> bytes) {
        return bytes.empty() ? null(column) : add(column, std::vector<uint8_t>(bytes.begin(), bytes.end()));
    }
    ColumnValues& optional_real(std::string_view column, const std::optional<double>& value) {
        return value ? real(column, *value) : null(column);
    }
    template <class Integer>
    ColumnValues& optional_int(std::string_view column, const std::optional<Integer>& value) {
        return value ? integer(column, static_cast<int64_t>(*value)) : null(column);
    }
    template <class Text>
    ColumnValues& optional_text(std::string_view column, const std::optional<Text>& value) {
        return value ? text(column, *value) : null(column);
    }

    // "INSERT INTO table (c1, c2, ...) VALUES (?1, ?2, ...)", the columns in the order added.
    std::string insert_sql(std::string_view table) const;
    // Binds the values to ?1, ?2, ... of a statement from insert_sql.
    void bind(Cursor& cursor) const;

private:
    ColumnValues& add(std::string_view column, Value value) {
        entries_.emplace_back(std::string(column), std::move(value));
        return *this;
    }

    std::vector<std::pair<std::string, Value>> entries_;
};

// One prepared statement, finalized in the destructor. Prepared as persistent: the
// store caches its statements for the life of the connection.
class Statement : public Cursor {
public:
    Statement(sqlite3* db, fs::path path, std::string_view sql, std::string_view doing = "cannot prepare a statement");
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

private:
    fs::path path_copy_;  // a copy: a moved Store takes its statements along
};

void exec(sqlite3* db, const fs::path& path, const char* sql, std::string_view doing);

// Runs `sql` until it does not report BUSY/LOCKED, a bounded number of times, with
// growing, jittered pauses between tries; throws on any other error or when the tries
// run out. The busy timeout already makes SQLite wait for most locks; this covers the
// cases where SQLite reports BUSY at once to avoid a deadlock (two connections
// switching a new file to WAL, WAL recovery, a reader upgrading to a writer), so
// several zkbatch processes can share one database. `on_row` receives result rows.
void exec_with_busy_retry(sqlite3* db, const fs::path& path, const char* sql, std::string_view doing,
                          int (*on_row)(void*, int, char**, char**) = nullptr, void* row_context = nullptr);

// Rolled back by the destructor unless committed: a failure half-way leaves the database
// as it was. A write transaction begins IMMEDIATE, taking the write lock up front so it
// cannot fail half-way on a lock; a read transaction holds one snapshot throughout.
class Transaction {
public:
    enum class Mode { read, write };
    Transaction(sqlite3* db, const fs::path& path, Mode mode, std::string_view doing);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    void commit();

private:
    sqlite3* db_;
    const fs::path& path_;
    std::string doing_;
    bool committed_ = false;
};

}  // namespace zkbatch::sqlite
