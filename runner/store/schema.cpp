// The timing store's schema, as the migrations that build it (store/schema.hpp).
#include "store/schema.hpp"

#include "manifest/manifest.hpp"
#include "store/phases.hpp"
#include "store/sqlite_support.hpp"
#include "store/store.hpp"

#include <fmt/format.h>

#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace zkbatch::schema {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSchemaV1 = R"sql(
-- The phases partition_phase and phase_summary report, in pipeline order.
CREATE TABLE phase_name (
    phase       TEXT PRIMARY KEY,
    sort_order  INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
) STRICT, WITHOUT ROWID;
INSERT INTO phase_name (phase, sort_order, description) VALUES
    ('pool_wait',   1, 'waiting for host buffers from the backend (pinned-pool back-pressure)'),
    ('synth',       2, 'CPU synthesis of a, b, c into the host buffers'),
    ('queue_wait',  3, 'synthesized, waiting for a prove worker'),
    ('h2d',         4, 'host-to-device copy of a, b, c (device events)'),
    ('compute',     5, 'kernels of the prove call (device events)'),
    ('d2h',         6, 'device-to-host copy of h (device events)'),
    ('prove',       7, 'the whole prove call, runner clock'),
    ('finalize',    8, 'verification, digest and dump, without malloc_trim'),
    ('verify',      9, 'the polynomial-identity check inside finalize'),
    ('malloc_trim', 10, 'malloc_trim(0) after finalize, when enabled'),
    ('idle_gap',    11, 'the prove worker idle before this partition'),
    ('partition',   12, 'derived: first synth start to last finalize end');

-- One row per zkbatch run: its environment, configuration and outcome.
CREATE TABLE run (
    id                   INTEGER PRIMARY KEY,
    job_name             TEXT NOT NULL,
    status               TEXT NOT NULL
                         CHECK (status IN ('running', 'ok', 'failed', 'interrupted', 'cancelled')),
    started_at           TEXT NOT NULL,     -- ISO 8601 UTC, millisecond precision
    ended_at             TEXT,              -- NULL while running (or if the process died)
    wall_ms              REAL,
    partitions_ok        INTEGER,           -- NULL until the run finishes
    partitions_failed    INTEGER,
    gpu_busy_fraction    REAL,              -- 0..1; NULL without a GPU
    peak_rss_bytes       INTEGER,
    error                TEXT,
    backend_name         TEXT NOT NULL,
    backend_version      TEXT NOT NULL,
    zkbatch_version      TEXT NOT NULL,
    git_revision         TEXT NOT NULL,
    hostname             TEXT NOT NULL,
    cpu_model            TEXT NOT NULL,
    cpu_cores            INTEGER NOT NULL,
    gpu_name             TEXT,
    gpu_sm_count         INTEGER,
    gpu_memory_bytes     INTEGER,
    gpu_driver_version   TEXT,
    cuda_runtime_version TEXT,
    pcie_gen             INTEGER,
    pcie_width           INTEGER,
    pinned_bytes         INTEGER,
    pool_setup_ms        REAL,
    log_n                INTEGER NOT NULL,
    partitions           INTEGER NOT NULL,
    seed                 INTEGER NOT NULL,
    terms_per_row        INTEGER NOT NULL,
    synthesis_workers    INTEGER NOT NULL,
    prove_workers        INTEGER NOT NULL,
    queue_depth          INTEGER NOT NULL,
    verify_mode          TEXT NOT NULL,
    manifest_path        TEXT NOT NULL,
    manifest_sha256      TEXT NOT NULL,
    overrides            TEXT NOT NULL,     -- the --set arguments, one per line
    manifest_text        TEXT NOT NULL,
    started_unix_ns      INTEGER NOT NULL,  -- wall clock
    ended_unix_ns        INTEGER,
    started_steady_ns    INTEGER NOT NULL   -- CLOCK_MONOTONIC; phase_interval times are relative to it
) STRICT;

-- Free-form tags from the manifest's [output.tags].
CREATE TABLE run_tag (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) STRICT, WITHOUT ROWID;

-- Every fact the backend reported about itself and its device.
CREATE TABLE run_fact (
    run_id INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) STRICT, WITHOUT ROWID;

-- One row per partition: outcome and per-phase durations (NULL: not measured).
CREATE TABLE partition (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    partition_index INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'verify_failed')),
    error           TEXT,               -- NULL when ok
    synth_worker    INTEGER NOT NULL,
    prove_worker    INTEGER NOT NULL,
    synth_ms        REAL,
    pool_wait_ms    REAL,
    queue_wait_ms   REAL,
    h2d_ms          REAL,
    h2d_bytes       INTEGER,            -- NULL when h2d_ms is
    compute_ms      REAL,
    d2h_ms          REAL,
    d2h_bytes       INTEGER,            -- NULL when d2h_ms is
    prove_ms        REAL,
    finalize_ms     REAL,
    verify_ms       REAL,
    malloc_trim_ms  REAL,
    idle_gap_ms     REAL,
    verified        INTEGER CHECK (verified IN (0, 1)),  -- NULL: not verified
    h_digest        TEXT,               -- XXH3-128 of canonical LE h, 32 hex digits
    UNIQUE (run_id, partition_index)
) STRICT;

-- The intervals of work behind a partition, for timelines. Times in ns relative to
-- the run's started_steady_ns.
CREATE TABLE phase_interval (
    id           INTEGER PRIMARY KEY,
    partition_id INTEGER NOT NULL REFERENCES partition (id) ON DELETE CASCADE,
    phase        TEXT NOT NULL,
    lane         TEXT NOT NULL,
    start_ns     INTEGER NOT NULL,
    end_ns       INTEGER NOT NULL,
    bytes        INTEGER,                -- NULL when the interval moved no bytes
    on_device    INTEGER NOT NULL CHECK (on_device IN (0, 1)),
    device_index INTEGER,                -- NULL when not on a device
    CHECK (end_ns >= start_ns)
) STRICT;
CREATE INDEX phase_interval_by_partition ON phase_interval (partition_id);

-- One row per measured phase of each partition; 'partition' is derived from intervals.
CREATE VIEW partition_phase AS
          SELECT run_id, partition_index, status, 'pool_wait' AS phase, pool_wait_ms AS ms, NULL AS bytes
          FROM partition WHERE pool_wait_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'synth', synth_ms, NULL
          FROM partition WHERE synth_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'queue_wait', queue_wait_ms, NULL
          FROM partition WHERE queue_wait_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'h2d', h2d_ms, h2d_bytes
          FROM partition WHERE h2d_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'compute', compute_ms, NULL
          FROM partition WHERE compute_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'd2h', d2h_ms, d2h_bytes
          FROM partition WHERE d2h_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'prove', prove_ms, NULL
          FROM partition WHERE prove_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'finalize', finalize_ms, NULL
          FROM partition WHERE finalize_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'verify', verify_ms, NULL
          FROM partition WHERE verify_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'malloc_trim', malloc_trim_ms, NULL
          FROM partition WHERE malloc_trim_ms IS NOT NULL
UNION ALL SELECT run_id, partition_index, status, 'idle_gap', idle_gap_ms, NULL
          FROM partition WHERE idle_gap_ms IS NOT NULL
UNION ALL SELECT p.run_id, p.partition_index, p.status, 'partition',
                 (MAX(i.end_ns) FILTER (WHERE i.phase = 'finalize')
                  - MIN(i.start_ns) FILTER (WHERE i.phase = 'synth')) / 1e6,
                 NULL
          FROM partition AS p JOIN phase_interval AS i ON i.partition_id = p.id
          WHERE i.phase IN ('synth', 'finalize')
          GROUP BY p.run_id, p.id  -- run_id here lets "WHERE run_id = ?" reach the index
          HAVING COUNT(*) FILTER (WHERE i.phase = 'synth') > 0
             AND COUNT(*) FILTER (WHERE i.phase = 'finalize') > 0;

-- Each phase's distribution over a run's partitions that did not fail. Median: mean
-- of the two middle values when the count is even; p95: nearest rank, the value at
-- rank ceil(0.95 * count), written (95 * count + 99) / 100 in integer arithmetic.
-- Built from window functions only, all over the same (run_id, phase) partitions,
-- so SQLite pushes "WHERE run_id = ?" down to the partition index instead of
-- summarizing every run in the database (an aggregate on top would stop that).
CREATE VIEW phase_summary AS
WITH measured AS (
    SELECT run_id, phase, ms,
           CASE WHEN bytes IS NOT NULL AND ms > 0 THEN bytes / ms / 1e6 END AS gb_per_s
    FROM partition_phase
    WHERE status <> 'failed'
), ranked AS (
    SELECT run_id, phase, ms, gb_per_s,
           COUNT(*) OVER per_phase AS n,
           ROW_NUMBER() OVER (per_phase ORDER BY ms) AS ms_rank,
           COUNT(gb_per_s) OVER per_phase AS rate_n,
           ROW_NUMBER() OVER (per_phase ORDER BY gb_per_s NULLS LAST) AS rate_rank
    FROM measured
    WINDOW per_phase AS (PARTITION BY run_id, phase)
), summarized AS (
    SELECT run_id, phase, ms_rank, n,
           AVG(ms) FILTER (WHERE ms_rank IN ((n + 1) / 2, (n + 2) / 2)) OVER per_phase AS median_ms,
           MAX(ms) FILTER (WHERE ms_rank = (95 * n + 99) / 100) OVER per_phase AS p95_ms,
           MIN(ms) OVER per_phase AS min_ms,
           MAX(ms) OVER per_phase AS max_ms,
           AVG(gb_per_s) FILTER (WHERE gb_per_s IS NOT NULL
                                   AND rate_rank IN ((rate_n + 1) / 2, (rate_n + 2) / 2))
               OVER per_phase AS median_gb_per_s
    FROM ranked
    WINDOW per_phase AS (PARTITION BY run_id, phase)
)
SELECT run_id, phase, n AS count, median_ms, p95_ms, min_ms, max_ms, median_gb_per_s
FROM summarized
WHERE ms_rank = 1;  -- one row per (run, phase)

-- One row per run: outcome and headline rates. Counts come from the finished run,
-- or from the partitions recorded so far while it runs (or after it died).
CREATE VIEW run_summary AS
WITH recorded AS (
    SELECT run_id,
           COUNT(*) FILTER (WHERE status = 'ok') AS ok,
           COUNT(*) FILTER (WHERE status <> 'ok') AS failed
    FROM partition GROUP BY run_id
), counted AS (
    SELECT r.*,
           COALESCE(r.partitions_ok, rec.ok, 0) AS ok_count,
           COALESCE(r.partitions_failed, rec.failed, 0) AS failed_count
    FROM run AS r LEFT JOIN recorded AS rec ON rec.run_id = r.id
)
SELECT c.id AS run_id, c.started_at, c.job_name, c.backend_name, c.status,
       c.ok_count AS partitions_ok, c.failed_count AS partitions_failed, c.wall_ms,
       CASE WHEN c.wall_ms > 0 THEN c.ok_count * 3600000.0 / c.wall_ms END AS partitions_per_hour,
       -- A subquery rather than a join: computed only when this column is asked for.
       (SELECT s.median_gb_per_s FROM phase_summary AS s
        WHERE s.run_id = c.id AND s.phase = 'h2d') AS median_h2d_gb_per_s,
       c.gpu_busy_fraction, c.peak_rss_bytes, c.error
FROM counted AS c;

-- Every interval of every partition in milliseconds since the run started.
CREATE VIEW timeline AS
SELECT p.run_id, p.partition_index, i.phase, i.lane,
       i.start_ns / 1e6 AS start_ms, i.end_ns / 1e6 AS end_ms,
       (i.end_ns - i.start_ns) / 1e6 AS duration_ms,
       i.bytes, i.on_device, i.device_index
FROM phase_interval AS i JOIN partition AS p ON p.id = i.partition_id;
)sql";

// v2: experiments (several runs proved on the same inputs and compared as one), a run
// identity that survives merging databases, the process behind a run (so a killed run
// can be told from a running one), and shards of a job spread over hosts.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE experiment (
    id               INTEGER PRIMARY KEY,
    uuid             TEXT NOT NULL UNIQUE,  -- stays the same when databases are merged
    name             TEXT NOT NULL,         -- the job name
    created_at       TEXT NOT NULL,         -- ISO 8601 UTC
    order_method     TEXT NOT NULL,         -- how the arms' partitions were ordered in time
    block_partitions INTEGER,               -- partitions per arm per block
    arm_count        INTEGER NOT NULL,
    manifest_sha256  TEXT NOT NULL
) STRICT;

ALTER TABLE run ADD COLUMN uuid TEXT;                 -- globally unique run identity
UPDATE run SET uuid = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX run_by_uuid ON run (uuid);
ALTER TABLE run ADD COLUMN experiment_id INTEGER REFERENCES experiment (id);
ALTER TABLE run ADD COLUMN arm TEXT;                  -- e.g. 'backend.name=cuda-pinned'
CREATE INDEX run_by_experiment ON run (experiment_id);
ALTER TABLE run ADD COLUMN pid INTEGER;               -- the zkbatch process writing the run
ALTER TABLE run ADD COLUMN process_start_ticks INTEGER;  -- its start (/proc/PID/stat field 22): a reused pid is not it
ALTER TABLE run ADD COLUMN resume_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run ADD COLUMN shard_index INTEGER;       -- with shard_count: this run proved partitions
ALTER TABLE run ADD COLUMN shard_count INTEGER;       -- shard_index, shard_index + shard_count, ...
)sql";

// v3: several GPUs of one host. A run proves on a list of devices, each partition on
// one of them; per device the run keeps its name and busy fraction. run.gpu_busy_fraction
// becomes the mean of the devices' busy fractions (the single device's, as before, for
// one device).
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE run ADD COLUMN devices TEXT;             -- device indices proved on, '0,1'; NULL before v3 (one device)
ALTER TABLE partition ADD COLUMN device_index INTEGER;  -- the device whose prove worker proved it; NULL before v3

CREATE TABLE run_device (
    run_id        INTEGER NOT NULL REFERENCES run (id) ON DELETE CASCADE,
    device_index  INTEGER NOT NULL,
    name          TEXT,              -- fact device.name of that device's backend instance
    prove_workers INTEGER NOT NULL,  -- prove workers on this device
    busy_fraction REAL,              -- 0..1: union of this device's on-device intervals / run wall; NULL without a GPU or until the run ends
    PRIMARY KEY (run_id, device_index)
) STRICT, WITHOUT ROWID;

-- One row per device of a run: partitions proved on it (those not failed, as
-- phase_summary counts them), busy fraction, median compute and prove ms. Built like
-- phase_summary (window functions, a UNION ALL for idle devices) so that
-- "WHERE run_id = ?" reaches the indexes.
CREATE VIEW device_summary AS
WITH proved AS (
    SELECT run_id, device_index, compute_ms, prove_ms
    FROM partition WHERE device_index IS NOT NULL AND status <> 'failed'
), ranked AS (
    SELECT run_id, device_index, compute_ms, prove_ms,
           COUNT(*) OVER per_device AS n,
           COUNT(compute_ms) OVER per_device AS compute_n,
           ROW_NUMBER() OVER (per_device ORDER BY compute_ms NULLS LAST) AS compute_rank,
           COUNT(prove_ms) OVER per_device AS prove_n,
           ROW_NUMBER() OVER (per_device ORDER BY prove_ms NULLS LAST) AS prove_rank
    FROM proved
    WINDOW per_device AS (PARTITION BY run_id, device_index)
), summarized AS (
    SELECT run_id, device_index, n, compute_rank,
           AVG(compute_ms) FILTER (WHERE compute_ms IS NOT NULL
                                     AND compute_rank IN ((compute_n + 1) / 2, (compute_n + 2) / 2))
               OVER per_device AS median_compute_ms,
           AVG(prove_ms) FILTER (WHERE prove_ms IS NOT NULL
                                   AND prove_rank IN ((prove_n + 1) / 2, (prove_n + 2) / 2))
               OVER per_device AS median_prove_ms
    FROM ranked
    WINDOW per_device AS (PARTITION BY run_id, device_index)
)
SELECT s.run_id, s.device_index,
       (SELECT d.name FROM run_device AS d
        WHERE d.run_id = s.run_id AND d.device_index = s.device_index) AS name,
       s.n AS partitions,
       (SELECT d.busy_fraction FROM run_device AS d
        WHERE d.run_id = s.run_id AND d.device_index = s.device_index) AS busy_fraction,
       s.median_compute_ms, s.median_prove_ms
FROM summarized AS s
WHERE s.compute_rank = 1  -- one row per (run, device)
UNION ALL
SELECT d.run_id, d.device_index, d.name, 0, d.busy_fraction, NULL, NULL
FROM run_device AS d
WHERE NOT EXISTS (SELECT 1 FROM partition AS p
                  WHERE p.run_id = d.run_id AND p.device_index = d.device_index
                    AND p.status <> 'failed');
)sql";

// v4: the pipeline settings that decide what a run computed or how it was paced, as
// run columns. Until v3 they lived only in the manifest text and overrides, and compare
// parsed those again with the parser of the day: a manifest that a later zkbatch
// refuses left its runs "not comparable". NULL: recorded before v4 from a manifest the
// migration could not read.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE run ADD COLUMN replay_inputs INTEGER;     -- pipeline.replay_inputs: 0 synthesized every partition
ALTER TABLE run ADD COLUMN finalize_workers INTEGER;  -- pipeline.finalize_workers
ALTER TABLE run ADD COLUMN verify_every INTEGER;      -- verify.every (read with verify_mode = 'sampled')
ALTER TABLE run ADD COLUMN on_error TEXT CHECK (on_error IN ('stop', 'continue'));  -- pipeline.on_error

-- A run without the replay.setup_ms fact synthesized every partition, whatever its manifest says.
UPDATE run SET replay_inputs = 0
WHERE NOT EXISTS (SELECT 1 FROM run_fact AS f WHERE f.run_id = run.id AND f.key = 'replay.setup_ms');
)sql";

// The v4 columns of the runs recorded before v4, read once from their stored manifest
// text and overrides (read_recorded_run_settings: TOML, no validation). From here on
// every run writes them itself.
void fill_v4_run_settings(sqlite3* db, const fs::path& path) {
    const std::string_view doing = "cannot upgrade the database schema from version 3 to 4";
    std::vector<std::pair<int64_t, std::optional<RecordedRunSettings>>> settings;
    {
        sqlite::Statement runs(db, path, "SELECT id, manifest_text, overrides FROM run", doing);
        while (runs.step(doing)) {
            std::vector<std::string> overrides;
            std::istringstream lines(runs.text_at(2));
            for (std::string line; std::getline(lines, line);)
                if (!line.empty()) overrides.push_back(line);
            settings.emplace_back(runs.int_at(0), read_recorded_run_settings(runs.text_at(1), overrides));
        }
    }
    sqlite::Statement update(db, path, R"sql(
        UPDATE run SET replay_inputs = coalesce(replay_inputs, :replay_inputs),
            finalize_workers = :finalize_workers, verify_every = :verify_every, on_error = :on_error
        WHERE id = :id
    )sql", doing);
    for (const auto& [run_id, recorded] : settings) {
        if (!recorded) continue;
        update.bind_int(":id", run_id);
        update.bind_int(":replay_inputs", recorded->replay_inputs);
        update.bind_int(":finalize_workers", recorded->finalize_workers);
        update.bind_int(":verify_every", recorded->verify_every);
        update.bind_text(":on_error", to_string(recorded->on_error));
        update.step(doing);
        update.reset();
    }
}

// v5: complete Groth16 proofs. A run records its workload and, for proofs, the circuit
// and the proving key (where it came from, its digest and size, the setup's time, the
// verifying key itself, so exports need no key file); each partition its proof, the
// proof's digest and its public inputs, and the quotient's and each MSM's time (from the
// phase table); each device's backend its load of the key. Runs recorded before v5
// proved the quotient alone.
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE run ADD COLUMN workload TEXT NOT NULL DEFAULT 'quotient'
    CHECK (workload IN ('quotient', 'groth16'));          -- what each partition proved
ALTER TABLE run ADD COLUMN circuit_kind TEXT CHECK (circuit_kind IN ('synthetic', 'zkey'));  -- NULL: quotient
ALTER TABLE run ADD COLUMN circuit TEXT;                -- the circuit's description, as its key records it
ALTER TABLE run ADD COLUMN public_inputs INTEGER;       -- l
ALTER TABLE run ADD COLUMN boolean_share REAL;          -- circuit.boolean_share (synthetic)
ALTER TABLE run ADD COLUMN circuit_seed INTEGER;        -- circuit.seed (synthetic)
ALTER TABLE run ADD COLUMN proof_randomness TEXT CHECK (proof_randomness IN ('derived', 'random'));
ALTER TABLE run ADD COLUMN witnesses TEXT;              -- a .zkey job's witness files, one per line, partition order
ALTER TABLE run ADD COLUMN key_path TEXT;               -- the key file or .zkey proved with
ALTER TABLE run ADD COLUMN key_digest TEXT;             -- names the key (its points' digest; a .zkey's verifying key's)
ALTER TABLE run ADD COLUMN key_bytes INTEGER;           -- the key file's size
ALTER TABLE run ADD COLUMN key_setup_ms REAL;           -- the seeded setup this run made; NULL when the key existed
ALTER TABLE run ADD COLUMN verifying_key BLOB;          -- [alpha]1 [beta]2 [gamma]2 [delta]2 IC..., key-file point layout

ALTER TABLE partition ADD COLUMN proof BLOB CHECK (proof IS NULL OR length(proof) = 192);  -- A || B || C, compressed
ALTER TABLE partition ADD COLUMN proof_digest TEXT;     -- XXH3-128 of the proof's 192 bytes, 32 hex digits
ALTER TABLE partition ADD COLUMN public_inputs BLOB;    -- z_1..z_l, 32 canonical little-endian bytes each
ALTER TABLE partition ADD COLUMN witness TEXT;          -- a .zkey job's witness file of this partition
ALTER TABLE partition ADD COLUMN quotient_ms REAL;
ALTER TABLE partition ADD COLUMN msm_a_ms REAL;
ALTER TABLE partition ADD COLUMN msm_b_g1_ms REAL;
ALTER TABLE partition ADD COLUMN msm_b_g2_ms REAL;
ALTER TABLE partition ADD COLUMN msm_l_ms REAL;
ALTER TABLE partition ADD COLUMN msm_h_ms REAL;

ALTER TABLE run_device ADD COLUMN key_load_ms REAL;     -- the backend's load (or making) of the proving key
ALTER TABLE run_device ADD COLUMN key_bytes INTEGER;    -- the bytes of key it holds
ALTER TABLE run_device ADD COLUMN key_location TEXT;    -- "host", "device0", ...: where its MSMs read it
)sql";

// v6: a seeded key the backend makes itself (setup.key = "backend", no key file): each
// device's backend says how it got its key and, for a key it made, the key's points
// digest (the run's key_digest is then the digest they agreed on, key_path NULL).
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE run_device ADD COLUMN key_how TEXT;         -- "mapped", "read", "uploaded" (to a device), "generated"
ALTER TABLE run_device ADD COLUMN key_digest TEXT;      -- the points digest of a key the backend made; NULL otherwise
)sql";

// v7: what `zkbatch run --resume` checks a .zkey job's files against before it proves
// with them again: the digests of the .zkey and of each witness file as the run read
// them (run.key_digest names the key of every run: a key file's points, a .zkey's
// verifying key).
constexpr const char* kSchemaV7 = R"sql(
ALTER TABLE run ADD COLUMN zkey_digest TEXT;            -- XXH3-128 of the .zkey file's bytes; NULL for other keys
ALTER TABLE run ADD COLUMN witness_digests TEXT;        -- XXH3-128 of each witness file, one per line, as witnesses
)sql";

// v8: proofs over BN254 as well as BLS12-381. A run records its curve (every earlier run
// is BLS12-381's), and a partition's proof may be 128 bytes (BN254's) as well as 192.
constexpr const char* kSchemaV8 = R"sql(
ALTER TABLE run ADD COLUMN curve TEXT NOT NULL DEFAULT 'bls12-381'
    CHECK (curve IN ('bls12-381', 'bn254'));            -- the key's curve (curve::name)
)sql";

// partition.proof's CHECK widened to BN254's 128 bytes. SQLite alters no constraint; a
// looser CHECK changes nothing on disk, so its documented way for that
// (sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema Changes") edits
// the table's text in sqlite_schema and bumps schema_version, inside the migration's
// transaction.
void widen_proof_check(sqlite3* db, const fs::path& path) {
    const std::string_view doing = "cannot upgrade the database schema from version 7 to 8";
    int64_t schema_version = 0;
    {
        sqlite::Statement version(db, path, "PRAGMA schema_version", doing);
        if (version.step(doing)) schema_version = version.int_at(0);
    }
    sqlite::exec(db, path, "PRAGMA writable_schema = ON", doing);
    sqlite::exec(db, path, R"sql(
        UPDATE sqlite_schema
        SET sql = replace(sql, 'CHECK (proof IS NULL OR length(proof) = 192)',
                               'CHECK (proof IS NULL OR length(proof) IN (128, 192))')
        WHERE type = 'table' AND name = 'partition'
    )sql", doing);
    const bool changed = sqlite3_changes(db) == 1;
    sqlite::exec(db, path, fmt::format("PRAGMA schema_version = {}", schema_version + 1).c_str(), doing);
    sqlite::exec(db, path, "PRAGMA writable_schema = OFF", doing);
    if (!changed) throw StoreError(fmt::format("{}: {}: its partition table is not zkbatch's", path.string(), doing));
}

constexpr Migration kMigrations[] = {{kSchemaV1}, {kSchemaV2}, {kSchemaV3}, {kSchemaV4, fill_v4_run_settings},
                                     {kSchemaV5}, {kSchemaV6}, {kSchemaV7}, {kSchemaV8, widen_proof_check}};
static_assert(std::size(kMigrations) == Store::kSchemaVersion, "one migration per schema version");

}  // namespace

std::span<const Migration> migrations() { return kMigrations; }

namespace {

// SQL text as a quoted literal: 'it''s'.
std::string sql_literal(std::string_view text) {
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return quoted + "'";
}

// partition_phase's rows of a derived phase: (run_id, partition_index, status, phase, ms, bytes).
std::string derived_phase_select(const PhaseInfo& phase) {
    if (phase.name == "partition") {
        return R"sql(SELECT p.run_id, p.partition_index, p.status, 'partition',
                 (MAX(i.end_ns) FILTER (WHERE i.phase = 'finalize')
                  - MIN(i.start_ns) FILTER (WHERE i.phase = 'synth')) / 1e6,
                 NULL
          FROM partition AS p JOIN phase_interval AS i ON i.partition_id = p.id
          WHERE i.phase IN ('synth', 'finalize')
          GROUP BY p.run_id, p.id  -- run_id here lets "WHERE run_id = ?" reach the index
          HAVING COUNT(*) FILTER (WHERE i.phase = 'synth') > 0
             AND COUNT(*) FILTER (WHERE i.phase = 'finalize') > 0)sql";
    }
    throw std::logic_error(fmt::format("the derived phase '{}' has no SQL in store/schema.cpp", phase.name));
}

}  // namespace

std::string phase_objects_sql() {
    std::string rows, selects;
    for (size_t i = 0; i < kPhaseCount; ++i) {
        const PhaseInfo& phase = kPhases[i];
        rows += fmt::format("{}    ({}, {}, {})", i == 0 ? "" : ",\n", sql_literal(phase.name), i + 1,
                            sql_literal(phase.description));
        std::string select;
        if (phase.source == PhaseSource::derived) {
            select = derived_phase_select(phase);
        } else {
            const std::string ms = ms_column(phase);
            select = fmt::format("SELECT run_id, partition_index, status, {} AS phase, {} AS ms, {} AS bytes\n"
                                 "          FROM partition WHERE {} IS NOT NULL",
                                 sql_literal(phase.name), ms, phase.moves_bytes ? bytes_column(phase) : "NULL", ms);
        }
        selects += (i == 0 ? "          " : "\nUNION ALL ") + select;
    }
    return fmt::format(R"sql(
-- Built from the phase table (store/phases.hpp) after every migration.
DELETE FROM phase_name;
INSERT INTO phase_name (phase, sort_order, description) VALUES
{};

-- One row per measured phase of each partition; derived phases come from the intervals.
DROP VIEW IF EXISTS partition_phase;
CREATE VIEW partition_phase AS
{};
)sql",
                       rows, selects);
}

}  // namespace zkbatch::schema
