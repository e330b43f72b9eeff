// The timing store's schema: the ordered list of migrations that builds it, one per
// schema version (store/schema.cpp; docs/schema.md describes the tables and views).
//
// migrations()[v] takes a database from PRAGMA user_version v to v + 1; Store::migrate
// runs the ones a database lacks inside one write transaction. To change the schema:
// append one migration, bump Store::kSchemaVersion, describe the change in
// docs/schema.md, and add a fixture of the previous version that a test migrates
// (tests/store/fixtures). Never edit a migration that has shipped: databases in the
// field were built by it.
#pragma once

#include <filesystem>
#include <span>
#include <string>

struct sqlite3;

namespace zkbatch::schema {

// One version's step: SQL, then (where SQL alone cannot do it) a function run in the
// same transaction.
struct Migration {
    const char* sql;
    void (*then)(sqlite3* db, const std::filesystem::path& path) = nullptr;
};
std::span<const Migration> migrations();

// SQL that rebuilds, from the phase table (store/phases.hpp), what derives from it:
// phase_name's rows and the partition_phase view (phase_summary and run_summary read
// that view by name and follow it). Store::migrate runs it after the migrations, in the
// same transaction: a phase added to the table reaches a database together with the
// migration that adds its partition column.
std::string phase_objects_sql();

}  // namespace zkbatch::schema
