#include "store/sqlite_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <type_traits>

namespace zkbatch::sqlite {

namespace {

// How many times a lock-taking statement is tried after a BUSY that SQLite returns
// without waiting. Partition transactions last milliseconds, so reaching this bound
// means something is wrong.
constexpr int kBusyAttempts = 10;

}  // namespace

std::string advice(int rc, const fs::path& path) {
    const std::string file = path.string();
    switch (rc & 0xff) {
        case SQLITE_FULL:
            return fmt::format("Free disk space on the file system holding {} or write to "
                               "another database (output.db in the manifest, or --db).", file);
        case SQLITE_READONLY:
            return fmt::format("The database is read-only here: check the permissions of {0} and "
                               "of its folder (SQLite also writes {0}-wal and {0}-shm beside it).",
                               file);
        case SQLITE_IOERR:
            return fmt::format("An I/O error: check the disk and file system holding {} (WAL "
                               "databases must not live on a network file system).", file);
        case SQLITE_CANTOPEN:
            return fmt::format("Check that {} is a file (not a folder), that its folder exists "
                               "and that you may read and write both.", file);
        case SQLITE_NOTADB:
            return fmt::format("{} is not a SQLite database: pass a zkbatch database "
                               "(output.db in the manifest, or --db).", file);
        case SQLITE_CORRUPT:
            return fmt::format("The database is damaged: restore {0} from a backup, or salvage "
                               "it with `sqlite3 {0} .recover | sqlite3 recovered.db`.", file);
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return fmt::format("Another process held {} locked for too long; check for a stuck "
                               "zkbatch or sqlite3 process using it, then retry.", file);
        default:
            return {};
    }
}

[[noreturn]] void fail(sqlite3* db, const fs::path& path, int rc, std::string_view doing) {
    const char* message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    std::string text = fmt::format("{}: {}: {}", path.string(), doing, message);
    if (std::string what_to_do = advice(rc, path); !what_to_do.empty()) text += ". " + what_to_do;
    throw StoreError(text);
}

void Cursor::check_bind(int rc) const {
    if (rc != SQLITE_OK) fail(db_, *path_, rc, "cannot bind a value");
}

void Cursor::bind_int(int i, int64_t value) { check_bind(sqlite3_bind_int64(stmt_, i, value)); }
void Cursor::bind_real(int i, double value) { check_bind(sqlite3_bind_double(stmt_, i, value)); }
void Cursor::bind_null(int i) { check_bind(sqlite3_bind_null(stmt_, i)); }
void Cursor::bind_text(int i, std::string_view value) {
    check_bind(sqlite3_bind_text64(stmt_, i, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}
void Cursor::bind_blob(int i, std::span<const uint8_t> bytes) {
    if (bytes.empty()) return bind_null(i);
    check_bind(sqlite3_bind_blob64(stmt_, i, bytes.data(), bytes.size(), SQLITE_TRANSIENT));
}
void Cursor::bind_value(int i, const sqlite3_value* value) { check_bind(sqlite3_bind_value(stmt_, i, value)); }

int Cursor::parameter(std::string_view name) const {
    const int index = sqlite3_bind_parameter_index(stmt_, std::string(name).c_str());
    if (index == 0) {
        throw StoreError(fmt::format("{}: the statement has no parameter {} (a zkbatch bug; please report "
                                     "it):\n{}", path_->string(), name, sqlite3_sql(stmt_)));
    }
    return index;
}

bool Cursor::step(std::string_view doing) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, *path_, rc, doing);
}

void Cursor::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::vector<uint8_t> Cursor::blob_at(int column) const {
    const auto* bytes = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, column));
    return bytes ? std::vector<uint8_t>(bytes, bytes + sqlite3_column_bytes(stmt_, column)) : std::vector<uint8_t>();
}

std::string Cursor::text_at(int column) const {
    const auto* text = sqlite3_column_text(stmt_, column);
    return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt_, column)))
                : std::string();
}

std::string ColumnValues::insert_sql(std::string_view table) const {
    std::string columns, parameters;
    for (size_t i = 0; i < entries_.size(); ++i) {
        columns += fmt::format("{}{}", i == 0 ? "" : ", ", entries_[i].first);
        parameters += fmt::format("{}?{}", i == 0 ? "" : ", ", i + 1);
    }
    return fmt::format("INSERT INTO {} ({}) VALUES ({})", table, columns, parameters);
}

void ColumnValues::bind(Cursor& cursor) const {
    for (size_t i = 0; i < entries_.size(); ++i) {
        const int parameter = static_cast<int>(i + 1);
        std::visit(
            [&](const auto& value) {
                using T = std::decay_t<decltype(value)>;
                if constexpr (std::is_same_v<T, std::nullptr_t>) cursor.bind_null(parameter);
                else if constexpr (std::is_same_v<T, int64_t>) cursor.bind_int(parameter, value);
                else if constexpr (std::is_same_v<T, double>) cursor.bind_real(parameter, value);
                else if constexpr (std::is_same_v<T, std::string>) cursor.bind_text(parameter, value);
                else cursor.bind_blob(parameter, value);
            },
            entries_[i].second);
    }
}

Statement::Statement(sqlite3* db, fs::path path, std::string_view sql, std::string_view doing)
    : Cursor(db, &path_copy_, nullptr), path_copy_(std::move(path)) {
    const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                      &stmt_, nullptr);
    if (rc != SQLITE_OK) fail(db, path_copy_, rc, doing);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void exec(sqlite3* db, const fs::path& path, const char* sql, std::string_view doing) {
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(db, path, rc, doing);
}

void exec_with_busy_retry(sqlite3* db, const fs::path& path, const char* sql, std::string_view doing,
                          int (*on_row)(void*, int, char**, char**), void* row_context) {
    std::minstd_rand jitter(std::random_device{}());
    for (int attempt = 1;; ++attempt) {
        const int rc = sqlite3_exec(db, sql, on_row, row_context, nullptr);
        if (rc == SQLITE_OK) return;
        const int primary = rc & 0xff;
        if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || attempt == kBusyAttempts) fail(db, path, rc, doing);
        const int pause_ms = std::min(10 << attempt, 500) + static_cast<int>(jitter() % 20);
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
    }
}

Transaction::Transaction(sqlite3* db, const fs::path& path, Mode mode, std::string_view doing)
    : db_(db), path_(path), doing_(doing) {
    exec_with_busy_retry(db, path, mode == Mode::write ? "BEGIN IMMEDIATE" : "BEGIN", doing);
}

Transaction::~Transaction() {
    if (!committed_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
    exec(db_, path_, "COMMIT", doing_);
    committed_ = true;
}

}  // namespace zkbatch::sqlite
