// The SQLite timing store: one database file holds the history of many runs.
//
// Invariants (see docs/schema.md): WAL mode, busy timeout, STRICT tables, foreign
// keys on, schema version in PRAGMA user_version with forward migrations; every
// partition is written in one short transaction together with its phase intervals,
// so a killed process leaves whole partitions or none. Several processes (or
// threads, each with its own Store) may write one database at once.
#pragma once

#include "store/phases.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

struct sqlite3;

namespace zkbatch {

// A storage problem: cannot open, full disk, read-only, newer schema, unknown run, ...
// The message says what went wrong, names the database file and what to do.
struct StoreError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The longest time, in ms, a phase or a run can take: about 31 years. A stored time
// outside [0, kMaxTimeMs] (negative, infinite, 1e308: a damaged or crafted database, a
// merged shard) was never measured; readers refuse it instead of computing with it, and
// the statistics downstream never see one.
inline constexpr double kMaxTimeMs = 1e12;
// True for a time in [0, kMaxTimeMs] (NaN is not).
inline bool is_measured_ms(double ms) { return ms >= 0 && ms <= kMaxTimeMs; }

enum class RunStatus { running, ok, failed, interrupted, cancelled };
enum class PartitionStatus { ok, failed, verify_failed };
const char* to_string(RunStatus status);
const char* to_string(PartitionStatus status);

// One device a run proves on (pipeline.devices): its own backend instance and workers.
struct DeviceRecord {
    int32_t device_index = 0;
    std::string name;            // fact device.name of its backend instance; empty if none
    uint32_t prove_workers = 0;  // on this device
};

// A device's backend's load of the proving key (Groth16 runs; plugin ABI v5, v6).
struct DeviceKeyLoad {
    double load_ms = 0;
    uint64_t key_bytes = 0;
    std::string location;  // "host", "device0", ...: where its MSMs read the key
    std::string how;       // "mapped", "read", "uploaded", "generated" (schema v6)
    std::string points_digest;  // of a key the backend made (setup.key = "backend"); "" otherwise
};

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
    uint32_t finalize_workers = 0;
    uint32_t replay_inputs = 0;   // 0: every partition synthesized
    std::string on_error;         // "stop" or "continue"
    std::string verify_mode;
    uint32_t verify_every = 0;
    // What each partition proved, and for Groth16 the circuit and key it proved with.
    std::string workload = "quotient";   // "groth16" or "quotient"
    std::string curve = "bls12-381";     // curve::name of the key's curve (schema v8)
    std::string circuit_kind;            // "synthetic" or "zkey"; empty for the quotient
    std::string circuit;                 // the circuit's description (its key records the same)
    std::optional<uint64_t> public_inputs;
    std::optional<double> boolean_share;
    std::optional<uint64_t> circuit_seed;
    std::string proof_randomness;        // "derived" or "random"
    std::vector<std::string> witnesses;  // a .zkey job's witness files, in partition order
    std::vector<std::string> witness_digests;  // XXH3-128 of each, as read (schema v7)
    std::string zkey_digest;             // XXH3-128 of the .zkey file (schema v7)
    std::string key_path, key_digest;
    std::optional<uint64_t> key_bytes;
    std::optional<double> key_setup_ms;  // the seeded setup this run made, if it made one
    std::vector<uint8_t> verifying_key;  // groth16::verifying_key_bytes
    std::map<int32_t, DeviceKeyLoad> key_loads;  // by device index
    std::map<std::string, std::string> tags;
    // Backend/device facts (zkb_facts): well-known keys also fill the run row's GPU
    // columns (device.name, device.sm_count, device.memory_bytes, driver.version,
    // cuda.runtime_version, pcie.gen, pcie.width, pool.pinned_bytes, pool.setup_ms).
    std::map<std::string, std::string> facts;
    int64_t started_unix_ns = 0;   // wall clock, for people
    int64_t started_steady_ns = 0; // CLOCK_MONOTONIC at start; intervals are relative to it
    std::string uuid;              // generated by begin_run when empty
    std::optional<int64_t> experiment_id;  // set when the run is one arm of an experiment
    std::string arm;               // that arm, e.g. "backend.name=cuda-pinned"
    std::optional<uint32_t> shard_index, shard_count;
    std::vector<DeviceRecord> devices;  // in pipeline.devices order; empty: not recorded
};

// Several runs that prove the same inputs in an order that favours none of them.
struct ExperimentRecord {
    std::string name;
    std::string order_method;      // e.g. "randomized-blocks"
    std::optional<uint32_t> block_partitions;
    uint32_t arm_count = 0;
    std::string manifest_sha256;
    int64_t created_unix_ns = 0;
    std::string uuid;  // generated by begin_experiment when empty; shards of one job share it
};

// One interval of work for one partition, on the runner's clock.
struct PhaseInterval {
    std::string phase;   // a name of kPhases (phases.hpp), or another the backend reported
    std::string lane;    // "synth.0", "prove.1", "stream0.copy", "finalize", ...
    int64_t start_ns = 0; // CLOCK_MONOTONIC
    int64_t end_ns = 0;
    uint64_t bytes = 0;
    bool on_device = false;
    int32_t device_index = -1;
};

// What happened to one partition.
struct PartitionRecord {
    uint64_t partition_index = 0;
    PartitionStatus status = PartitionStatus::ok;
    std::string error;            // empty when ok
    uint32_t synth_worker = 0;
    uint32_t prove_worker = 0;    // run-wide index (device's position * per-device workers + k)
    int32_t device_index = -1;    // the device that proved it; -1 when it never reached one
    // Each phase's duration in ms (-1: not measured; e.g. verify when not verified,
    // malloc_trim when off, idle_gap for a worker's first partition) and, for copies,
    // bytes: phases["h2d"].ms. Derived phases (partition) stay unmeasured here.
    PhaseValues phases;
    std::optional<bool> verified; // empty when verification was skipped
    std::string h_digest;         // XXH3-128 of canonical LE h, 32 hex chars; empty when failed
    std::vector<uint8_t> proof;   // Groth16: the 192 bytes the backend returned; empty otherwise
    std::string proof_digest;     // XXH3-128 of them, 32 hex chars
    std::vector<uint8_t> public_inputs;  // z_1..z_l, 32 canonical little-endian bytes each
    std::string witness;          // a .zkey job's witness file
    std::vector<PhaseInterval> intervals;
};

// Known at the end of a run.
struct RunSummary {
    RunStatus status = RunStatus::ok;
    int64_t ended_unix_ns = 0;
    double wall_ms = 0;
    uint64_t partitions_ok = 0;
    uint64_t partitions_failed = 0;
    // Per device index, the union of the on-device intervals the run's pipeline saw, in
    // ms; empty without a GPU. finish_run turns it into the busy fractions (over wall_ms).
    // After --resume both describe the resumed attempt alone.
    std::map<int32_t, double> device_busy_ms;
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

// One interval of a run's timeline (`zkbatch trace`, `zkbatch report`), with the
// partition it belongs to. Times are ns since the run started.
struct TimelineInterval {
    uint64_t partition_index = 0;
    std::string partition_status;   // "ok", "failed", "verify_failed"
    std::string phase;
    std::string lane;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    std::optional<uint64_t> bytes;  // bytes moved, for copies
    bool on_device = false;
    std::optional<int32_t> device_index;
};

// One measured phase of one partition: a row of the partition_phase view.
struct PhaseSample {
    std::string phase;
    uint64_t partition_index = 0;
    std::string partition_status;
    double ms = 0;
};

// One prove worker's idle gaps before its partitions (all but its first), over the
// partitions that did not fail, as phase_summary counts them. Median and p95 as in
// PhaseStats.
struct IdleGapStats {
    uint32_t prove_worker = 0;
    uint64_t count = 0;
    double total_ms = 0, median_ms = 0, p95_ms = 0, max_ms = 0;
};

// One row of the device_summary view: what one device of a run did.
struct DeviceStats {
    int32_t device_index = 0;
    std::string name;                     // empty when the backend named no device
    uint64_t partitions = 0;              // proved on it (status not failed)
    std::optional<double> busy_fraction;  // empty without a GPU or before the run ended
    std::optional<double> median_compute_ms, median_prove_ms;
};

// One partition's Groth16 proof as recorded (`zkbatch proofs`, compare).
struct PartitionProof {
    uint64_t partition_index = 0;
    std::string status;                  // "ok", "failed", "verify_failed"
    std::vector<uint8_t> proof;          // 192 bytes; empty when none was recorded
    std::string proof_digest;
    std::vector<uint8_t> public_inputs;  // 32 canonical bytes each
    std::string witness;                 // a .zkey job's witness file
};

// What a run proved: its workload and, for Groth16, the key's identity.
struct RunProofSetting {
    std::string workload;                // "groth16" or "quotient" (every run before schema v5)
    std::string curve;                   // curve::name; "bls12-381" for every run before schema v8
    std::vector<uint8_t> verifying_key;  // groth16::verifying_key_bytes; empty for the quotient
    std::string circuit, key_digest;
    std::optional<uint64_t> public_inputs;
};

// Which runs Store::find_runs returns (`zkbatch compare`, `history`, `export`): every
// field that is set must match.
struct RunFilter {
    std::optional<std::string> job_name, backend_name, status;
    std::optional<int64_t> experiment_id;
    std::optional<std::string> arm;        // matched ignoring '"': arm=backend.name=cuda-pinned
    std::optional<int64_t> before_run_id;  // only runs with a smaller id
    std::optional<int64_t> log_n, partitions, terms_per_row, synthesis_workers, prove_workers;
};

// A value as SQLite stored it: NULL, integer, real or text.
using StoredValue = std::variant<std::monostate, int64_t, double, std::string>;
// A table row: (column name, value) in the table's column order.
using StoredRow = std::vector<std::pair<std::string, StoredValue>>;

// One row of the experiment table.
struct ExperimentRow {
    int64_t id = 0;
    std::string uuid, name, created_at;
    int64_t arm_count = 0;
};

class Store {
public:
    static constexpr int kSchemaVersion = 8;

    // Opens (creating directories and file as needed) and migrates to kSchemaVersion.
    // Refuses a database whose user_version is newer than kSchemaVersion.
    explicit Store(const std::filesystem::path& path);
    // Opens an existing database read-only (runs, show). Refuses a missing file, a
    // database not made by zkbatch and a newer schema; upgrades an older one in place.
    static Store open_existing(const std::filesystem::path& path);
    ~Store();
    Store(Store&&) noexcept;
    Store& operator=(Store&&) noexcept;

    int64_t begin_experiment(const ExperimentRecord& experiment);
    // Records the run with this process as its writer (pid and start time), so a run
    // whose process died can be recognised as interrupted.
    int64_t begin_run(const RunRecord& run);
    void record_partition(int64_t run_id, const PartitionRecord& partition);  // one transaction
    // Also sets each run_device row's busy_fraction, summary.device_busy_ms over
    // summary.wall_ms (0 for a device that did nothing while another did; NULL when no
    // device did anything), and run.gpu_busy_fraction, their mean.
    void finish_run(int64_t run_id, const RunSummary& summary);

    std::vector<RunListRow> list_runs() const;  // oldest first
    // "latest", "latest~K" or a numeric id; throws StoreError if there is no such run,
    // UsageError for a selector that is none of those.
    int64_t resolve_run(const std::string& selector) const;
    // The run row's environment as ordered key/value pairs, for `zkbatch show`.
    std::vector<std::pair<std::string, std::string>> run_environment(int64_t run_id) const;
    std::vector<std::pair<std::string, std::string>> run_tags(int64_t run_id) const;   // by key
    std::vector<std::pair<std::string, std::string>> run_facts(int64_t run_id) const;  // by key
    RunOverview run_overview(int64_t run_id) const;             // from the run_summary view
    std::vector<PhaseStats> phase_stats(int64_t run_id) const;  // from the phase_summary view
    // h_digest of each partition, at its partition index; "" where no digest was
    // recorded (failed, or not recorded at all). Size: highest recorded index + 1 (a
    // stored index no job has throws StoreError).
    std::vector<std::string> partition_digests(int64_t run_id) const;
    // The same for proof_digest ("" where a partition has no proof).
    std::vector<std::string> partition_proof_digests(int64_t run_id) const;
    // Every partition's proof, by partition index.
    std::vector<PartitionProof> partition_proofs(int64_t run_id) const;
    RunProofSetting run_proof_setting(int64_t run_id) const;
    // Every interval of the run, ordered by start time (then longest first). Throws
    // StoreError for one that ends before it starts or lies beyond kMaxTimeMs of the
    // run's start.
    std::vector<TimelineInterval> run_timeline(int64_t run_id) const;
    // The partition_phase view's rows of the run, by phase (pipeline order), then partition.
    // phase_samples and phase_stats throw StoreError, naming the run, the partition and
    // the phase, for a stored time that is not is_measured_ms.
    std::vector<PhaseSample> phase_samples(int64_t run_id) const;
    // Idle gaps of each prove worker that has any, by worker.
    std::vector<IdleGapStats> idle_gap_stats(int64_t run_id) const;
    // The device_summary view's rows of the run, by device index; empty for a run
    // recorded before schema v3.
    std::vector<DeviceStats> device_stats(int64_t run_id) const;

    const std::filesystem::path& path() const { return path_; }
    // The database's file and its -wal and -shm files: what no output of a command that
    // reads the database may overwrite.
    std::vector<std::filesystem::path> files() const;
    sqlite3* handle() const { return db_; }

    // Runs left 'running' by a zkbatch process on this host that has since died become
    // 'interrupted'. Done when a writer opens the store.
    void mark_interrupted_runs();

    // Read-only queries behind compare, history and export.
    std::vector<int64_t> find_runs(const RunFilter& filter) const;  // ids, oldest first
    // Every column of the run row (SELECT *); throws StoreError for an unknown run.
    StoredRow run_row(int64_t run_id) const;
    // Every column of the run's partition rows, by partition index.
    std::vector<StoredRow> partition_rows(int64_t run_id) const;
    // Experiments whose id (all digits), uuid or name is `key`, oldest first.
    std::vector<ExperimentRow> find_experiments(const std::string& key) const;
    // The experiment with this id, by id alone; none when there is no such row.
    std::optional<ExperimentRow> experiment(int64_t id) const;

    // `zkbatch run --resume`: what a run was started from, and what it recorded of the
    // inputs it proved (a resume refuses inputs that differ).
    struct ResumeSource {
        std::string status;           // run.status
        std::optional<int64_t> experiment_id;
        std::string backend_name;     // the backend that ran it ("auto" resolved)
        std::string manifest_path, manifest_text, manifest_sha256;
        std::vector<std::string> overrides;  // the --set arguments, in order
        std::vector<std::string> witnesses;  // a .zkey job's witness files, as the run recorded them
        std::string circuit, key_digest;     // a Groth16 run's circuit description and key digest (schema v5)
        std::string zkey_digest;             // a .zkey job's, and each witness file's digest (schema v7)
        std::vector<std::string> witness_digests;
    };
    ResumeSource resume_source(int64_t run_id) const;
    // Makes the run this process's again, in one transaction: deletes its partitions
    // that did not end ok (their intervals go with them), sets it 'running', bumps
    // resume_count and records this process as its writer. Refuses a run that is ok or
    // still running. Returns the indices of the partitions kept (those that ended ok).
    std::vector<uint64_t> resume_run(int64_t run_id);

    struct Statements;  // prepared statements, kept for the connection's life

private:
    Store();
    void open(int flags, const std::string& name = {});  // name: path_, or a URI
    void migrate();
    void close() noexcept;
    // Throws StoreError for the first of the run's phase times that is not is_measured_ms.
    void require_measured_times(int64_t run_id) const;
    // A stored partition index, which readers use as a size: one no job has (negative, or
    // kMaxPartitions and beyond) throws StoreError.
    size_t checked_partition_index(int64_t run_id, int64_t index) const;
    // "<path>: <doing>: there is no run <id> in this database."
    StoreError no_such_run(const std::string& doing, int64_t run_id) const;
    std::filesystem::path path_;
    sqlite3* db_ = nullptr;
    std::unique_ptr<Statements> statements_;
};

}  // namespace zkbatch
