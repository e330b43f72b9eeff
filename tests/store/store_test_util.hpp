// Helpers shared by the store tests: a temporary folder, raw SQL on a separate
// connection (an oracle independent of the Store's own queries), and sample records.
#pragma once

#include "store/store.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch::test {

namespace fs = std::filesystem;

// Rows of a query run on its own connection, every cell as text ("NULL" for NULL).
inline std::vector<std::vector<std::string>> sql_rows(const fs::path& db, const std::string& sql) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        std::string message = sqlite3_errmsg(handle);
        sqlite3_close(handle);
        throw std::runtime_error("open " + db.string() + ": " + message);
    }
    sqlite3_busy_timeout(handle, 10'000);
    std::vector<std::vector<std::string>> rows;
    sqlite3_stmt* statement = nullptr;
    int rc = sqlite3_prepare_v2(handle, sql.c_str(), -1, &statement, nullptr);
    while (statement && (rc = sqlite3_step(statement)) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(statement); ++c) {
            const auto* text = sqlite3_column_text(statement, c);
            row.emplace_back(text ? reinterpret_cast<const char*>(text) : "NULL");
        }
        rows.push_back(std::move(row));
    }
    const std::string message = sqlite3_errmsg(handle);
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    if (rc != SQLITE_DONE) throw std::runtime_error(sql + ": " + message);
    return rows;
}

// The first cell of the first row.
inline std::string sql_value(const fs::path& db, const std::string& sql) {
    const auto rows = sql_rows(db, sql);
    if (rows.empty()) throw std::runtime_error(sql + ": no rows");
    return rows[0][0];
}

// A run as the pipeline would begin it. 1700000000 s is 2023-11-14T22:13:20Z.
inline RunRecord sample_run(const std::string& job_name = "nightly") {
    RunRecord run;
    run.job_name = job_name;
    run.backend_name = "cuda-pinned";
    run.backend_version = "0.1.0";
    run.zkbatch_version = "0.1.0";
    run.git_revision = "abc1234";
    run.hostname = "host-a";
    run.cpu_model = "Test CPU @ 3 GHz";
    run.cpu_cores = 16;
    run.manifest_path = "jobs/nightly.toml";
    run.manifest_text = "[job]\nname = \"nightly\"\n";
    run.manifest_sha256 = std::string(64, 'a');
    run.overrides = "circuit.log_n=12\njob.partitions=3";
    run.log_n = 12;
    run.partitions = 3;
    run.seed = 42;
    run.terms_per_row = 4;
    run.synthesis_workers = 2;
    run.prove_workers = 1;
    run.queue_depth = 2;
    run.verify_mode = "identity";
    run.tags = {{"night", "2025-03-01"}, {"purpose", "a/b"}};
    run.facts = {{"device.name", "NVIDIA H200"},     {"device.sm_count", "132"},
                 {"pcie.gen", "5"},                  {"pcie.width", "16"},
                 {"pool.setup_ms", "812.5"},         {"driver.version", "580.159.04"},
                 {"device.memory_bytes", "unknown"}};
    run.started_unix_ns = 1'700'000'000'123'456'789;
    run.started_steady_ns = 5'000'000'000;
    return run;
}

// A partition with every phase measured; intervals on the runner's clock.
inline PartitionRecord sample_partition(uint64_t index, int64_t run_start_ns) {
    PartitionRecord partition;
    partition.partition_index = index;
    partition.synth_worker = static_cast<uint32_t>(index % 2);
    partition.prove_worker = 0;
    partition.phases["synth"].ms = 10;
    partition.phases["pool_wait"].ms = 0.5;
    partition.phases["queue_wait"].ms = 1;
    partition.phases["h2d"].ms = 2;
    partition.phases["h2d"].bytes = 100'000'000;
    partition.phases["compute"].ms = 3;
    partition.phases["d2h"].ms = 1;
    partition.phases["d2h"].bytes = 20'000'000;
    partition.phases["prove"].ms = 7;
    partition.phases["finalize"].ms = 4;
    partition.phases["verify"].ms = 3;
    partition.verified = true;
    partition.h_digest = std::string(32, static_cast<char>('0' + index % 10));
    const int64_t base_ns = run_start_ns + static_cast<int64_t>(index) * 1'000'000'000;
    partition.intervals = {
        {"synth", "synth.0", base_ns, base_ns + 10'000'000, 0, false, -1},
        {"h2d", "stream0.copy", base_ns + 20'000'000, base_ns + 22'000'000, 100'000'000, true, 0},
        {"finalize", "finalize", base_ns + 50'000'000, base_ns + 60'000'000, 0, false, -1},
    };
    return partition;
}

}  // namespace zkbatch::test
