// `zkbatch merge SHARD.db... --into HISTORY.db`: folds the databases that shards of a
// job wrote (one per host or Slurm task) into one history.
//
// Every table of the schema is copied; none is named here except the two identity
// roots. Rows get new ids in HISTORY.db and every foreign key is remapped:
//   experiment   deduplicated by uuid (shards of one job share it, shard.hpp);
//   run          deduplicated by uuid: a run already in HISTORY.db is left alone when
//                its copy is unchanged, and replaced (keeping its HISTORY.db id) when
//                the shard's copy differs, e.g. it was resumed or finished since;
//   owned rows   tables whose foreign keys lead to run (partitions, intervals, tags,
//                facts, ...) are copied with the runs that are added or replaced;
//   reference    tables without ids or foreign keys (phase_name) gain missing rows.
// A table that fits none of these is refused, naming it, rather than dropped.
//
// Runs are merged whatever their status ('running' ones as far as they got; merging
// again after they finish or resume replaces them). Each shard is merged in one
// transaction: a failure or a kill leaves HISTORY.db as it was before that shard.
// A shard must have this zkbatch's schema version: an older one is refused, with the
// advice to upgrade it by opening it with `zkbatch runs --db SHARD.db`.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

struct sqlite3;

namespace zkbatch {

// How merge treats one table; see the file comment.
enum class MergeRole { reference, experiment, run, owned };
const char* to_string(MergeRole role);

struct ForeignKeyColumn {
    std::string column;        // in this table
    std::string parent_table;  // whose id column it refers to
    bool owning = false;       // leads to run: the row belongs to that run
};

struct TableMergePlan {
    std::string table;
    MergeRole role = MergeRole::reference;
    std::string id_column;  // the INTEGER PRIMARY KEY renumbered on insert; empty if none
    std::vector<ForeignKeyColumn> foreign_keys;
};

// The plan for every table of `db`, parents before children. Throws StoreError naming
// a table merge cannot handle (no rule fits it, a composite foreign key, an owned row
// that would outlive its run because its key lacks ON DELETE CASCADE).
std::vector<TableMergePlan> plan_merge(sqlite3* db, const std::filesystem::path& path);

// What merging one shard did.
struct MergeCounts {
    uint64_t runs_added = 0, runs_replaced = 0, runs_unchanged = 0;
    uint64_t experiments_added = 0, experiments_known = 0;
    std::map<std::string, uint64_t> rows_added;  // per owned or reference table
};

// Folds `shard_path` into `history` in one transaction. Throws UsageError when the shard
// is the history itself, and StoreError when the shard cannot be read, has another
// schema version, holds a value no zkbatch records (a timing that is not finite, a proof
// or verifying key of the wrong size), or a row cannot be written; HISTORY.db is then
// unchanged.
MergeCounts merge_shard(Store& history, const std::filesystem::path& shard_path);

}  // namespace zkbatch
