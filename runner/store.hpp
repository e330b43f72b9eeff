// The SQLite timing store: one database file holds the history of many runs.
//
// Invariants (see docs/schema.md): WAL mode, busy timeout, STRICT tables, foreign
// keys on, schema version in PRAGMA user_version with forward migrations; every
// partition is written in one short transaction together with its phase intervals,
// so a killed process leaves whole partitions or none. Several processes (or
// threads, each with its own Store) may write one database at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;

namespace zkbatch {

// A storage problem: cannot open, full disk, read-only, newer schema, unknown run, ...
// The message says what went wrong, names the database file and what to do.
struct StoreError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class RunStatus { running, ok, failed, interrupted, cancelled };
enum class PartitionStatus { ok, failed, verify_failed };
const char* to_string(RunStatus status);
const char* to_string(PartitionStatus status);

// Everything known about a run when it starts: enough to compare and explain it later.
struct RunRecord {
    std::string job_name;
    std::string backend_name;
    std::string backend_version;
    std::string zkbatch_version;
    std::string git_revision;
    std::string hostname;
    std::string cpu_model;
    uint32_t cpu_cores = 0;
    std::string manifest_path;
    std::string manifest_text;    // the file as read
    std::string manifest_sha256;  // hex, of manifest_text plus the applied overrides
    std::string overrides;        // the --set arguments, one per line
    uint32_t log_n = 0;
    uint32_t partitions = 0;
    uint64_t seed = 0;
    uint32_t terms_per_row = 0;
    uint32_t synthesis_workers = 0;
    uint32_t prove_workers = 0;
    uint32_t queue_depth = 0;
    std::string verify_mode;
    std::map<std::string, std::string> tags;
    // Backend/device facts (zkb_facts): well-known keys also fill the run row's GPU
    // columns (device.name, device.sm_count, device.memory_bytes, driver.version,
    // cuda.runtime_version, pcie.gen, pcie.width, pool.pinned_bytes, pool.setup_ms).
    std::map<std::string, std::string> facts;
    int64_t started_unix_ns = 0;   // wall clock, for people
    int64_t started_steady_ns = 0; // CLOCK_MONOTONIC at start; intervals are relative to it
};

// One interval of work for one partition, on the runner's clock.
struct PhaseInterval {
    std::string phase;   // "synth", "pool_wait", "queue_wait", "h2d", "compute", "d2h", "prove", "finalize", "verify", "malloc_trim", ...
    std::string lane;    // "synth.0", "prove.1", "stream0.copy", "finalize", ...
    int64_t start_ns = 0; // CLOCK_MONOTONIC
    int64_t end_ns = 0;
    uint64_t bytes = 0;
    bool on_device = false;
    int32_t device_index = -1;
};

// What happened to one partition. Durations in milliseconds; -1 means "not measured".
struct PartitionRecord {
    uint64_t partition_index = 0;
    PartitionStatus status = PartitionStatus::ok;
    std::string error;            // empty when ok
    uint32_t synth_worker = 0;
    uint32_t prove_worker = 0;
    double synth_ms = -1;
    double pool_wait_ms = -1;
    double queue_wait_ms = -1;
    double h2d_ms = -1;
    uint64_t h2d_bytes = 0;
    double compute_ms = -1;
    double d2h_ms = -1;
    uint64_t d2h_bytes = 0;
    double prove_ms = -1;         // the whole prove call, runner clock
    double finalize_ms = -1;      // verification + digest (+ dump), excluding malloc_trim
    double verify_ms = -1;        // -1 when not verified
    double malloc_trim_ms = -1;   // -1 when finalize.malloc_trim is off
    double idle_gap_ms = -1;      // prove worker idle before this partition; -1 for its first
    std::optional<bool> verified; // empty when verification was skipped
    std::string h_digest;         // XXH3-128 of canonical LE h, 32 hex chars; empty when failed
    std::vector<PhaseInterval> intervals;
};

// Known at the end of a run.
struct RunSummary {
    RunStatus status = RunStatus::ok;
    int64_t ended_unix_ns = 0;
    double wall_ms = 0;
    uint64_t partitions_ok = 0;
    uint64_t partitions_failed = 0;
    std::optional<double> gpu_busy_fraction;  // union of device intervals / wall; empty without a GPU
    uint64_t peak_rss_bytes = 0;
    std::string error;  // why a run failed or stopped, if it did
};

// One line of `zkbatch runs`.
struct RunListRow {
    int64_t run_id = 0;
    std::string started;  // ISO 8601 UTC
    std::string job_name;
    std::string backend_name;
    std::string status;
    uint64_t partitions_ok = 0;
    uint64_t partitions_failed = 0;
    std::optional<double> wall_ms;
};

// One row of the phase_summary view: a phase's distribution over a run's partitions
// (those not failed). Median: mean of the two middle values for an even count;
// p95: nearest rank, the value at rank ceil(0.95 * count).
struct PhaseStats {
    std::string phase;
    uint64_t count = 0;
    double median_ms = 0, p95_ms = 0, min_ms = 0, max_ms = 0;
    std::optional<double> median_gb_per_s;  // copies only (h2d, d2h): median of bytes/ms/1e6
};

// One row of the run_summary view: a run's outcome and headline rates.
struct RunOverview {
    std::string status;
    uint64_t partitions_ok = 0;      // the finished run's own count, else rows recorded so far
    uint64_t partitions_failed = 0;
    std::optional<double> wall_ms;
    std::optional<double> partitions_per_hour;
    std::optional<double> median_h2d_gb_per_s;
    std::optional<double> gpu_busy_fraction;
    std::optional<uint64_t> peak_rss_bytes;
    std::string error;
};

class Store {
public:
    static constexpr int kSchemaVersion = 1;

    // Opens (creating directories and file as needed) and migrates to kSchemaVersion.
    // Refuses a database whose user_version is newer than kSchemaVersion.
    explicit Store(const std::filesystem::path& path);
    // Opens an existing database read-only (runs, show). Refuses a missing file, a
    // database not made by zkbatch and a newer schema; upgrades an older one in place.
    static Store open_existing(const std::filesystem::path& path);
    ~Store();
    Store(Store&&) noexcept;
    Store& operator=(Store&&) noexcept;

    int64_t begin_run(const RunRecord& run);
    void record_partition(int64_t run_id, const PartitionRecord& partition);  // one transaction
    void finish_run(int64_t run_id, const RunSummary& summary);

    std::vector<RunListRow> list_runs() const;  // oldest first
    // "latest", "latest~K" or a numeric id; throws StoreError if there is no such run.
    int64_t resolve_run(const std::string& selector) const;
    // The run row's environment as ordered key/value pairs, for `zkbatch show`.
    std::vector<std::pair<std::string, std::string>> run_environment(int64_t run_id) const;
    std::vector<std::pair<std::string, std::string>> run_tags(int64_t run_id) const;   // by key
    std::vector<std::pair<std::string, std::string>> run_facts(int64_t run_id) const;  // by key
    RunOverview run_overview(int64_t run_id) const;             // from the run_summary view
    std::vector<PhaseStats> phase_stats(int64_t run_id) const;  // from the phase_summary view
    // h_digest of each partition, at its partition index; "" where no digest was
    // recorded (failed, or not recorded at all). Size: highest recorded index + 1.
    std::vector<std::string> partition_digests(int64_t run_id) const;

    const std::filesystem::path& path() const { return path_; }
    sqlite3* handle() const { return db_; }

    struct Statements;  // prepared statements, kept for the connection's life

private:
    Store();
    void open(int flags, const std::string& name = {});  // name: path_, or a URI
    void migrate();
    void close() noexcept;
    std::filesystem::path path_;
    sqlite3* db_ = nullptr;
    std::unique_ptr<Statements> statements_;
};

}  // namespace zkbatch
