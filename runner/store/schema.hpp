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

#include <span>

namespace zkbatch::schema {

// SQL, one block per version.
std::span<const char* const> migrations();

}  // namespace zkbatch::schema
