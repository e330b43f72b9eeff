// The SQLite timing store (store.hpp); its schema is store/schema.cpp, documented in
// docs/schema.md.
#include "store/store.hpp"

#include "manifest/manifest.hpp"
#include "store/schema.hpp"
#include "store/sqlite_support.hpp"
#include "util/parse_number.hpp"
#include "util/usage_error.hpp"

#include "core/util/input_file.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include "core/plugin/facts.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <climits>
#include <ctime>
#include <iterator>
#include <random>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include <unistd.h>

namespace zkbatch {
namespace fs = std::filesystem;

namespace {

// How long one statement waits for another connection's lock before SQLite gives up
// (sqlite_support.hpp retries the BUSY that SQLite returns without waiting).
// Partition transactions last milliseconds, so reaching this bound means something is
// wrong.
constexpr int kBusyTimeoutMs = 10'000;

// ---------------------------------------------------------------------------------
// Statements and transactions (sqlite_support.hpp)
// ---------------------------------------------------------------------------------

using sqlite::advice;
using sqlite::exec;
using sqlite::exec_with_busy_retry;
using sqlite::fail;
using sqlite::Statement;

// Every write of the store takes the write lock up front.
class WriteTransaction : public sqlite::Transaction {
public:
    WriteTransaction(sqlite3* db, const fs::path& path, std::string_view doing)
        : Transaction(db, path, Mode::write, doing) {}
};

}  // namespace

// The Store's prepared statements, keyed by their SQL text. The keys are copies, so
// SQL built at run time (the partition insert, from the phase table) is cached as
// safely as a literal; lookups by string_view copy nothing.
struct Store::Statements {
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view sql) const { return std::hash<std::string_view>{}(sql); }
    };
    std::unordered_map<std::string, std::unique_ptr<Statement>, Hash, std::equal_to<>> by_sql;
};

namespace {

// A cached statement in use. Reset on scope exit, so that no statement left half-way
// by an exception keeps a read transaction (and a WAL snapshot) open.
class Query : public sqlite::Cursor {
public:
    Query(Store::Statements& cache, sqlite3* db, const fs::path& path, std::string_view sql)
        : Cursor(cached(cache, db, path, sql)) {}
    ~Query() { reset(); }
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;

private:
    static Statement& cached(Store::Statements& cache, sqlite3* db, const fs::path& path, std::string_view sql) {
        auto found = cache.by_sql.find(sql);
        if (found == cache.by_sql.end())
            found = cache.by_sql.emplace(std::string(sql), std::make_unique<Statement>(db, path, sql)).first;
        return *found->second;
    }
};

// ---------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------

// "2025-03-01T02:03:04.567Z"
std::string iso8601_utc(int64_t unix_ns) {
    const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
    const int64_t millis = (unix_ns % 1'000'000'000) / 1'000'000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &utc);
    return fmt::format("{}.{:03}Z", date, millis);
}

// 128 random bits as 32 hex digits: run and experiment identity across databases.
std::string random_uuid() {
    std::random_device entropy;
    std::uniform_int_distribution<uint64_t> word;
    return fmt::format("{:016x}{:016x}", word(entropy), word(entropy));
}

// A process as the kernel knows it: pid plus start time, so that a pid the kernel has
// since given to another process is not mistaken for the writer of a run.
struct ProcessIdentity {
    int64_t pid = 0;
    std::optional<int64_t> start_ticks;  // field 22 of /proc/PID/stat
};

std::optional<int64_t> process_start_ticks(int64_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // The command name (field 2) is in parentheses and may hold spaces: skip past it.
    const auto close = text.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    std::string field;
    for (int index = 3; fields >> field; ++index)
        if (index == 22) return parse_number<int64_t>(field);
    return std::nullopt;
}

ProcessIdentity this_process() {
    const int64_t pid = getpid();
    return {pid, process_start_ticks(pid)};
}

// True when the run's writer, on this host, is certainly gone. `start_ticks` < 0: unknown.
bool writer_is_gone(const std::string& hostname, int64_t pid, int64_t start_ticks) {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || hostname != name || pid <= 0) return false;
    const auto ticks = process_start_ticks(pid);
    return !ticks || (start_ticks >= 0 && *ticks != start_ticks);
}

const std::string* find_fact(const std::map<std::string, std::string>& facts,
                             std::string_view key) {
    const auto it = facts.find(std::string(key));
    return it == facts.end() ? nullptr : &it->second;
}

// SQLite integers are signed 64-bit; unsigned counts above INT64_MAX keep their bits
// (none occur in practice: TOML integers are signed 64-bit too).
int64_t as_int(uint64_t value) { return static_cast<int64_t>(value); }

int user_version(sqlite3* db, const fs::path& path) {
    Statement statement(db, path, "PRAGMA user_version", "cannot read the schema version");
    return statement.step("cannot read the schema version") ? static_cast<int>(statement.int_at(0)) : 0;
}

bool has_tables(sqlite3* db, const fs::path& path) {
    Statement statement(db, path, "SELECT count(*) FROM sqlite_schema", "cannot read the schema");
    return statement.step("cannot read the schema") && statement.int_at(0) > 0;
}

// "file:/a%20b/z.db?immutable=1": a URI naming `path`, percent-encoding what a URI
// would otherwise read as syntax.
std::string immutable_uri(const fs::path& path) {
    std::string uri = "file:";
    for (const unsigned char c : fs::absolute(path).string()) {
        if (c == '%' || c == '?' || c == '#' || c <= ' ' || c >= 0x7f) {
            uri += fmt::format("%{:02X}", c);
        } else {
            uri += static_cast<char>(c);
        }
    }
    return uri + "?immutable=1";
}

[[noreturn]] void refuse_newer(const fs::path& path, int version) {
    throw StoreError(fmt::format(
        "{}: database schema version {} is newer than this zkbatch understands (version {}). "
        "It was written by a newer zkbatch: upgrade zkbatch to read or write it, or use "
        "another database (output.db in the manifest, or --db).",
        path.string(), version, Store::kSchemaVersion));
}

[[noreturn]] void refuse_foreign(const fs::path& path) {
    throw StoreError(fmt::format(
        "{}: this SQLite database was not made by zkbatch (it has tables but no zkbatch "
        "schema version). Choose another file for output.db / --db.",
        path.string()));
}

}  // namespace

// ---------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------

const char* to_string(RunStatus status) {
    switch (status) {
        case RunStatus::running: return "running";
        case RunStatus::ok: return "ok";
        case RunStatus::failed: return "failed";
        case RunStatus::interrupted: return "interrupted";
        case RunStatus::cancelled: return "cancelled";
    }
    return "unknown";
}

const char* to_string(PartitionStatus status) {
    switch (status) {
        case PartitionStatus::ok: return "ok";
        case PartitionStatus::failed: return "failed";
        case PartitionStatus::verify_failed: return "verify_failed";
    }
    return "unknown";
}

Store::Store() : statements_(std::make_unique<Statements>()) {}

Store::Store(const fs::path& path) : Store() {
    path_ = path;
    if (path.has_parent_path()) {
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        if (ec) {
            throw StoreError(fmt::format("{}: cannot create the folder {}: {}. Check the path and "
                                         "the permissions of its parent folders.",
                                         path.string(), path.parent_path().string(), ec.message()));
        }
    }
    open(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    migrate();
    mark_interrupted_runs();
}

void Store::mark_interrupted_runs() {
    static constexpr std::string_view kRunning =
        "SELECT id, hostname, pid, process_start_ticks FROM run WHERE status = 'running'";
    static constexpr std::string_view kMark = R"sql(
        UPDATE run SET status = 'interrupted',
            error = coalesce(error, 'the zkbatch process (pid ' || pid || ') ended before the run finished')
        WHERE id = ?1 AND status = 'running'
    )sql";
    std::vector<int64_t> gone;
    {
        Query running(*statements_, db_, path_, kRunning);
        while (running.step("cannot look for interrupted runs")) {
            const int64_t ticks = running.is_null(3) ? -1 : running.int_at(3);
            if (!running.is_null(2) && writer_is_gone(running.text_at(1), running.int_at(2), ticks))
                gone.push_back(running.int_at(0));
        }
    }
    if (gone.empty()) return;
    WriteTransaction transaction(db_, path_, "cannot mark interrupted runs");
    for (int64_t run_id : gone) {
        Query mark(*statements_, db_, path_, kMark);
        mark.bind_int(1, run_id);
        mark.step("cannot mark an interrupted run");
    }
    transaction.commit();
}

int64_t Store::begin_experiment(const ExperimentRecord& experiment) {
    static constexpr std::string_view kInsert = R"sql(
        INSERT INTO experiment (uuid, name, created_at, order_method, block_partitions,
                                arm_count, manifest_sha256)
        VALUES (:uuid, :name, :created_at, :order_method, :block_partitions,
                :arm_count, :manifest_sha256)
    )sql";
    WriteTransaction transaction(db_, path_, "cannot record an experiment");
    {
        Query insert(*statements_, db_, path_, kInsert);
        insert.bind_text(":uuid", experiment.uuid.empty() ? random_uuid() : experiment.uuid);
        insert.bind_text(":name", experiment.name);
        insert.bind_text(":created_at", iso8601_utc(experiment.created_unix_ns));
        insert.bind_text(":order_method", experiment.order_method);
        insert.bind_optional_int(":block_partitions", experiment.block_partitions);
        insert.bind_int(":arm_count", experiment.arm_count);
        insert.bind_text(":manifest_sha256", experiment.manifest_sha256);
        insert.step("cannot record an experiment");
    }
    const int64_t id = sqlite3_last_insert_rowid(db_);
    transaction.commit();
    return id;
}

Store Store::open_existing(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        throw StoreError(fmt::format("{}: no database here. Run a job first (zkbatch run), or "
                                     "pass the database with --db.", path.string()));
    }
    Store store;
    store.path_ = path;
    // Reading a WAL database needs its -shm file. In a folder this user cannot write
    // (an installed reference history, another user's results) SQLite cannot create
    // it; but then no writer is active either (every writer keeps a -shm), so the file
    // can be read as immutable. (A -wal left by a crashed writer is then not seen.)
    const fs::path shm = path.string() + "-shm";
    const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const bool read_as_immutable = !fs::exists(shm, ec) && access(folder.c_str(), W_OK) != 0;
    if (read_as_immutable) {
        store.open(SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, immutable_uri(path));
    } else {
        store.open(SQLITE_OPEN_READONLY);
    }
    const int version = user_version(store.db_, path);
    if (version > kSchemaVersion) refuse_newer(path, version);
    if (version == 0) {
        if (has_tables(store.db_, path)) refuse_foreign(path);
        throw StoreError(fmt::format("{}: an empty database, with no zkbatch runs in it. Run a job "
                                     "first (zkbatch run), or pass another database with --db.",
                                     path.string()));
    }
    // An older zkbatch database: upgrade it in place, since the views read here may
    // depend on the newer schema. Migrating is the one write a reading command does.
    if (version < kSchemaVersion) store = Store(path);
    return store;
}

std::vector<fs::path> Store::files() const {
    return {path_, path_.string() + "-wal", path_.string() + "-shm"};
}

void Store::open(int flags, const std::string& name) {
    // SQLite would open a FIFO and wait on it forever, and name a directory only as
    // "unable to open".
    for (const fs::path& file : files())
        if (const auto why = util::not_a_regular_file(file))
            throw StoreError(fmt::format("{}: cannot open the database: {}. Give --db (or output.db) the path of a "
                                         "database file.",
                                         file.string(), *why));
    const int rc = sqlite3_open_v2(name.empty() ? path_.c_str() : name.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        // sqlite3_open_v2 returns a handle even on failure, for its message.
        std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        close();
        throw StoreError(fmt::format("{}: cannot open the database: {}. {}", path_.string(),
                                     message, advice(rc, path_)));
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    try {
        // The first read of the file: a file that is not a database fails here.
        has_tables(db_, path_);
        if (flags & SQLITE_OPEN_READWRITE) {
            std::string mode;
            exec_with_busy_retry(
                db_, path_, "PRAGMA journal_mode=WAL", "cannot switch to WAL mode",
                [](void* out, int columns, char** values, char**) {
                    if (columns > 0 && values[0]) *static_cast<std::string*>(out) = values[0];
                    return 0;
                },
                &mode);
            if (mode != "wal") {
                throw StoreError(fmt::format(
                    "{}: SQLite could not use WAL mode here (journal mode stays '{}'). Put the "
                    "database on a local file system.", path_.string(), mode));
            }
        }
        exec(db_, path_, "PRAGMA foreign_keys=ON", "cannot enable foreign keys");
    } catch (...) {
        close();
        throw;
    }
}

void Store::migrate() {
    int version = user_version(db_, path_);
    if (version > kSchemaVersion) refuse_newer(path_, version);
    if (version == kSchemaVersion) return;

    WriteTransaction transaction(db_, path_, "cannot upgrade the database schema");
    // Another process may have migrated while this one waited for the lock.
    version = user_version(db_, path_);
    if (version > kSchemaVersion) refuse_newer(path_, version);
    if (version == kSchemaVersion) return;
    if (version == 0 && has_tables(db_, path_)) refuse_foreign(path_);
    for (int from = version; from < kSchemaVersion; ++from) {
        const schema::Migration& migration = schema::migrations()[static_cast<size_t>(from)];
        exec(db_, path_, migration.sql,
             fmt::format("cannot upgrade the database schema from version {} to {}", from, from + 1));
        if (migration.then) migration.then(db_, path_);
    }
    exec(db_, path_, schema::phase_objects_sql().c_str(), "cannot record the phases in the database schema");
    exec(db_, path_, fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str(),
         "cannot record the schema version");
    transaction.commit();
}

void Store::close() noexcept {
    statements_.reset();
    if (db_) sqlite3_close_v2(db_);
    db_ = nullptr;
}

Store::~Store() { close(); }

Store::Store(Store&& other) noexcept
    : path_(std::move(other.path_)), db_(other.db_), statements_(std::move(other.statements_)) {
    other.db_ = nullptr;
}

Store& Store::operator=(Store&& other) noexcept {
    if (this != &other) {
        close();
        path_ = std::move(other.path_);
        db_ = other.db_;
        statements_ = std::move(other.statements_);
        other.db_ = nullptr;
    }
    return *this;
}

namespace {

using sqlite::ColumnValues;

// A well-known fact, where the backend reported it.
std::optional<std::string_view> fact_text(const RunRecord& run, std::string_view key) {
    const std::string* value = find_fact(run.facts, key);
    return value ? std::optional<std::string_view>(*value) : std::nullopt;
}

// A well-known fact as a number; absent, or not a number, is NULL in its column (run_fact
// keeps the text as reported).
template <class Number>
std::optional<Number> fact_number(const RunRecord& run, std::string_view key) {
    const std::string* value = find_fact(run.facts, key);
    return value ? parse_number<Number>(*value) : std::nullopt;
}

// "0,1": the devices the run proves on, in pipeline.devices order; empty: not recorded.
std::string device_list(const std::vector<DeviceRecord>& devices) {
    std::string list;
    for (const DeviceRecord& device : devices) list += (list.empty() ? "" : ",") + std::to_string(device.device_index);
    return list;
}

// A list as a text column: one item per line ("" for none).
std::string lines_of(const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += item + "\n";
    return text;
}

// The items of such a column.
std::vector<std::string> items_of(const std::string& text) {
    std::vector<std::string> items;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) items.push_back(line);
    return items;
}

// The row begin_run inserts into run: every column it writes, beside its value.
ColumnValues run_columns(const RunRecord& run) {
    namespace fact = plugin::fact;
    ColumnValues row;
    row.text("job_name", run.job_name);
    row.text("status", "running");
    row.text("started_at", iso8601_utc(run.started_unix_ns));
    row.text("backend_name", run.backend_name);
    row.text("backend_version", run.backend_version);
    row.text("zkbatch_version", run.zkbatch_version);
    row.text("git_revision", run.git_revision);
    row.text("hostname", run.hostname);
    row.text("cpu_model", run.cpu_model);
    row.integer("cpu_cores", run.cpu_cores);
    // The GPU columns, from the backend's well-known facts.
    row.optional_text("gpu_name", fact_text(run, fact::device_name));
    row.optional_int("gpu_sm_count", fact_number<int64_t>(run, fact::device_sm_count));
    row.optional_int("gpu_memory_bytes", fact_number<int64_t>(run, fact::device_memory_bytes));
    row.optional_text("gpu_driver_version", fact_text(run, fact::driver_version));
    row.optional_text("cuda_runtime_version", fact_text(run, fact::cuda_runtime_version));
    row.optional_int("pcie_gen", fact_number<int64_t>(run, fact::pcie_gen));
    row.optional_int("pcie_width", fact_number<int64_t>(run, fact::pcie_width));
    row.optional_int("pinned_bytes", fact_number<int64_t>(run, fact::pool_pinned_bytes));
    row.optional_real("pool_setup_ms", fact_number<double>(run, fact::pool_setup_ms));
    // The job's parameters and its manifest.
    row.integer("log_n", run.log_n);
    row.integer("partitions", run.partitions);
    row.integer("seed", as_int(run.seed));
    row.integer("terms_per_row", run.terms_per_row);
    row.integer("synthesis_workers", run.synthesis_workers);
    row.integer("prove_workers", run.prove_workers);
    row.integer("queue_depth", run.queue_depth);
    row.text("verify_mode", run.verify_mode);
    row.text("manifest_path", run.manifest_path);
    row.text("manifest_sha256", run.manifest_sha256);
    row.text("overrides", run.overrides);
    row.text("manifest_text", run.manifest_text);
    row.integer("started_unix_ns", run.started_unix_ns);
    row.integer("started_steady_ns", run.started_steady_ns);
    // Its identity across databases, its writer, its shard and devices.
    row.text("uuid", run.uuid.empty() ? random_uuid() : run.uuid);
    row.optional_int("experiment_id", run.experiment_id);
    row.text_or_null("arm", run.arm);
    const ProcessIdentity self = this_process();
    row.integer("pid", self.pid);
    row.optional_int("process_start_ticks", self.start_ticks);
    row.optional_int("shard_index", run.shard_index);
    row.optional_int("shard_count", run.shard_count);
    row.text_or_null("devices", device_list(run.devices));
    row.integer("replay_inputs", run.replay_inputs);
    row.integer("finalize_workers", run.finalize_workers);
    row.integer("verify_every", run.verify_every);
    row.text_or_null("on_error", run.on_error);
    // The proof: its circuit and proving key.
    row.text("workload", run.workload);
    row.text("curve", run.curve);
    row.text_or_null("circuit_kind", run.circuit_kind);
    row.text_or_null("circuit", run.circuit);
    row.optional_int("public_inputs", run.public_inputs);
    row.optional_real("boolean_share", run.boolean_share);
    row.optional_int("circuit_seed", run.circuit_seed ? std::optional(as_int(*run.circuit_seed)) : std::nullopt);
    row.text_or_null("proof_randomness", run.proof_randomness);
    row.text_or_null("witnesses", lines_of(run.witnesses));
    row.text_or_null("witness_digests", lines_of(run.witness_digests));
    row.text_or_null("zkey_digest", run.zkey_digest);
    row.text_or_null("key_path", run.key_path);
    row.text_or_null("key_digest", run.key_digest);
    row.optional_int("key_bytes", run.key_bytes ? std::optional(as_int(*run.key_bytes)) : std::nullopt);
    row.optional_real("key_setup_ms", run.key_setup_ms);
    row.blob("verifying_key", run.verifying_key);
    return row;
}

// A run_device row's key columns: where the device's copy of the proving key came from.
void add_key_load_columns(ColumnValues& row, const DeviceKeyLoad* load) {
    if (!load) {
        for (const char* column : {"key_load_ms", "key_bytes", "key_location", "key_how", "key_digest"})
            row.null(column);
        return;
    }
    row.real("key_load_ms", load->load_ms);
    row.integer("key_bytes", as_int(load->key_bytes));
    row.text_or_null("key_location", load->location);
    row.text_or_null("key_how", load->how);
    row.text_or_null("key_digest", load->points_digest);
}

}  // namespace

int64_t Store::begin_run(const RunRecord& run) {
    WriteTransaction transaction(db_, path_, "cannot record the start of a run");
    const auto insert_row = [&](std::string_view table, const ColumnValues& row, std::string_view doing) {
        Query insert(*statements_, db_, path_, row.insert_sql(table));
        row.bind(insert);
        insert.step(doing);
    };
    insert_row("run", run_columns(run), "cannot record the start of a run");
    const int64_t run_id = sqlite3_last_insert_rowid(db_);
    const auto insert_pairs = [&](std::string_view table, const std::map<std::string, std::string>& pairs,
                                  std::string_view doing) {
        for (const auto& [key, value] : pairs)
            insert_row(table, ColumnValues().integer("run_id", run_id).text("key", key).text("value", value), doing);
    };
    insert_pairs("run_tag", run.tags, "cannot record the run's tags");
    insert_pairs("run_fact", run.facts, "cannot record the backend's facts");
    for (const DeviceRecord& device : run.devices) {
        ColumnValues row;
        row.integer("run_id", run_id);
        row.integer("device_index", device.device_index);
        row.text_or_null("name", device.name);
        row.integer("prove_workers", device.prove_workers);
        const auto load = run.key_loads.find(device.device_index);
        add_key_load_columns(row, load == run.key_loads.end() ? nullptr : &load->second);
        insert_row("run_device", row, "cannot record the run's devices");
    }
    transaction.commit();
    return run_id;
}

namespace {

// INSERT INTO partition: the row's own columns, then each stored phase's ms column
// (and bytes column for a copy) from the phase table, bound by name.
const std::string& partition_insert_sql() {
    static const std::string sql = [] {
        std::string columns = "run_id, partition_index, status, error, synth_worker, prove_worker, verified, "
                              "h_digest, device_index, proof, proof_digest, public_inputs, witness";
        for (const PhaseInfo& phase : kPhases) {
            if (phase.source == PhaseSource::derived) continue;
            columns += ", " + ms_column(phase);
            if (phase.moves_bytes) columns += ", " + bytes_column(phase);
        }
        std::string values;
        for (size_t start = 0; start < columns.size();) {
            const size_t end = std::min(columns.find(", ", start), columns.size());
            values += (values.empty() ? ":" : ", :") + columns.substr(start, end - start);
            start = end + 2;
        }
        return fmt::format("INSERT INTO partition ({}) VALUES ({})", columns, values);
    }();
    return sql;
}

}  // namespace

void Store::record_partition(int64_t run_id, const PartitionRecord& partition) {
    static constexpr std::string_view kRunStart =
        "SELECT started_steady_ns FROM run WHERE id = ?1";
    static constexpr std::string_view kExisting =
        "SELECT 1 FROM partition WHERE run_id = ?1 AND partition_index = ?2";
    static constexpr std::string_view kInsertInterval = R"sql(
        INSERT INTO phase_interval (partition_id, phase, lane, start_ns, end_ns, bytes,
            on_device, device_index)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
    )sql";

    const std::string doing =
        fmt::format("cannot record partition {} of run {}", partition.partition_index, run_id);
    for (const PhaseInterval& interval : partition.intervals) {
        if (interval.end_ns < interval.start_ns) {
            throw StoreError(fmt::format(
                "{}: {}: its '{}' interval on lane '{}' ends ({} ns) before it starts ({} ns). "
                "This is a zkbatch bug; please report it.",
                path_.string(), doing, interval.phase, interval.lane, interval.end_ns,
                interval.start_ns));
        }
    }

    WriteTransaction transaction(db_, path_, doing);
    int64_t run_start_ns = 0;
    {
        Query lookup(*statements_, db_, path_, kRunStart);
        lookup.bind_int(1, run_id);
        if (!lookup.step(doing)) {
            throw no_such_run(doing, run_id);
        }
        run_start_ns = lookup.int_at(0);
    }
    {
        Query existing(*statements_, db_, path_, kExisting);
        existing.bind_int(1, run_id);
        existing.bind_int(2, as_int(partition.partition_index));
        if (existing.step(doing)) {
            throw StoreError(fmt::format("{}: {}: that partition is already recorded. A "
                                         "partition index is recorded once per run.",
                                         path_.string(), doing));
        }
    }
    {
        Query insert(*statements_, db_, path_, partition_insert_sql());
        insert.bind_int(":run_id", run_id);
        insert.bind_int(":partition_index", as_int(partition.partition_index));
        insert.bind_text(":status", to_string(partition.status));
        insert.bind_text_or_null(":error", partition.error);
        insert.bind_int(":synth_worker", partition.synth_worker);
        insert.bind_int(":prove_worker", partition.prove_worker);
        insert.bind_optional_int(":verified", partition.verified);
        insert.bind_text_or_null(":h_digest", partition.h_digest);
        insert.bind_blob(":proof", partition.proof);
        insert.bind_text_or_null(":proof_digest", partition.proof_digest);
        insert.bind_blob(":public_inputs", partition.public_inputs);
        insert.bind_text_or_null(":witness", partition.witness);
        insert.bind_optional_int(":device_index", partition.device_index < 0 ? std::nullopt
                                                                             : std::optional(partition.device_index));
        for (size_t i = 0; i < kPhaseCount; ++i) {
            const PhaseInfo& phase = kPhases[i];
            if (phase.source == PhaseSource::derived) continue;
            const PhaseValues::Value& value = partition.phases[PhaseKey::at(i)];
            insert.bind_ms(":" + ms_column(phase), value.ms);
            // NULL bytes when the copy was not measured.
            if (phase.moves_bytes)
                insert.bind_optional_int(":" + bytes_column(phase),
                                         value.ms < 0 ? std::nullopt : std::optional(as_int(value.bytes)));
        }
        insert.step(doing);
    }
    const int64_t partition_id = sqlite3_last_insert_rowid(db_);
    for (const PhaseInterval& interval : partition.intervals) {
        Query insert(*statements_, db_, path_, kInsertInterval);
        insert.bind_int(1, partition_id);
        insert.bind_text(2, interval.phase);
        insert.bind_text(3, interval.lane);
        insert.bind_int(4, interval.start_ns - run_start_ns);
        insert.bind_int(5, interval.end_ns - run_start_ns);
        interval.bytes == 0 ? insert.bind_null(6) : insert.bind_int(6, as_int(interval.bytes));
        insert.bind_int(7, interval.on_device ? 1 : 0);
        interval.device_index < 0 ? insert.bind_null(8) : insert.bind_int(8, interval.device_index);
        insert.step(doing);
    }
    transaction.commit();
}

void Store::finish_run(int64_t run_id, const RunSummary& summary) {
    static constexpr std::string_view kFinish = R"sql(
        UPDATE run SET status = :status, ended_at = :ended_at, ended_unix_ns = :ended_unix_ns,
            wall_ms = :wall_ms, partitions_ok = :partitions_ok, partitions_failed = :partitions_failed,
            peak_rss_bytes = :peak_rss_bytes, error = :error
        WHERE id = :run_id
    )sql";
    static constexpr std::string_view kDevices = "SELECT device_index FROM run_device WHERE run_id = ?1";
    static constexpr std::string_view kDeviceBusy =
        "UPDATE run_device SET busy_fraction = ?3 WHERE run_id = ?1 AND device_index = ?2";
    // AVG skips NULLs and is NULL over none: the run is busy only where a device was.
    static constexpr std::string_view kRunBusy = R"sql(
        UPDATE run SET gpu_busy_fraction = (SELECT AVG(busy_fraction) FROM run_device WHERE run_id = ?1)
        WHERE id = ?1
    )sql";
    const std::string doing = fmt::format("cannot record the end of run {}", run_id);
    WriteTransaction transaction(db_, path_, doing);
    {
        Query update(*statements_, db_, path_, kFinish);
        update.bind_int(":run_id", run_id);
        update.bind_text(":status", to_string(summary.status));
        update.bind_text(":ended_at", iso8601_utc(summary.ended_unix_ns));
        update.bind_int(":ended_unix_ns", summary.ended_unix_ns);
        update.bind_real(":wall_ms", summary.wall_ms);
        update.bind_int(":partitions_ok", as_int(summary.partitions_ok));
        update.bind_int(":partitions_failed", as_int(summary.partitions_failed));
        update.bind_int(":peak_rss_bytes", as_int(summary.peak_rss_bytes));
        update.bind_text_or_null(":error", summary.error);
        update.step(doing);
    }
    if (sqlite3_changes(db_) != 1) {
        throw no_such_run(doing, run_id);
    }
    std::vector<int64_t> devices;
    {
        Query query(*statements_, db_, path_, kDevices);
        query.bind_int(1, run_id);
        while (query.step(doing)) devices.push_back(query.int_at(0));
    }
    const bool measured = !summary.device_busy_ms.empty() && summary.wall_ms > 0;
    for (const int64_t device : devices) {
        Query update(*statements_, db_, path_, kDeviceBusy);
        update.bind_int(1, run_id);
        update.bind_int(2, device);
        if (measured) {
            const auto busy = summary.device_busy_ms.find(static_cast<int32_t>(device));
            update.bind_real(3, busy == summary.device_busy_ms.end() ? 0.0 : busy->second / summary.wall_ms);
        }  // else NULL
        update.step(doing);
    }
    {
        Query update(*statements_, db_, path_, kRunBusy);
        update.bind_int(1, run_id);
        update.step(doing);
    }
    transaction.commit();
}

std::vector<RunListRow> Store::list_runs() const {
    static constexpr std::string_view kList = R"sql(
        SELECT r.id, r.started_at, r.job_name, r.backend_name, r.status,
               s.partitions_ok, s.partitions_failed, r.wall_ms
        FROM run AS r JOIN run_summary AS s ON s.run_id = r.id
        ORDER BY r.id
    )sql";
    std::vector<RunListRow> rows;
    Query query(*statements_, db_, path_, kList);
    while (query.step("cannot list the runs")) {
        RunListRow row;
        row.run_id = query.int_at(0);
        row.started = query.text_at(1);
        row.job_name = query.text_at(2);
        row.backend_name = query.text_at(3);
        row.status = query.text_at(4);
        row.partitions_ok = static_cast<uint64_t>(query.int_at(5));
        row.partitions_failed = static_cast<uint64_t>(query.int_at(6));
        row.wall_ms = query.optional_real_at(7);
        rows.push_back(std::move(row));
    }
    return rows;
}

StoreError Store::no_such_run(const std::string& doing, int64_t run_id) const {
    return StoreError(fmt::format("{}: {}: there is no run {} in this database.", path_.string(), doing, run_id));
}

int64_t Store::resolve_run(const std::string& selector) const {
    static constexpr std::string_view kById = "SELECT id FROM run WHERE id = ?1";
    static constexpr std::string_view kLatest =
        "SELECT id FROM run ORDER BY id DESC LIMIT 1 OFFSET ?1";

    const auto not_found = [&] {
        return StoreError(fmt::format("{}: there is no run '{}' in this database. "
                                      "`zkbatch runs` lists the runs it holds.",
                                      path_.string(), selector));
    };
    const auto malformed = [&] {
        return UsageError(fmt::format("'{}' is not a run: use a run id, 'latest' or 'latest~K' "
                                      "(K runs before the latest).", selector));
    };
    std::optional<int64_t> id;    // a run id, or
    std::optional<int64_t> back;  // how many runs before the latest
    if (selector == "latest") {
        back = 0;
    } else if (selector.starts_with("latest~")) {
        back = parse_number<int64_t>(selector.substr(7));
        if (!back || *back < 0) throw malformed();
    } else {
        id = parse_number<int64_t>(selector);
        if (!id || *id <= 0) throw malformed();
    }
    const std::string doing = fmt::format("cannot look up run '{}'", selector);
    Query query(*statements_, db_, path_, id ? kById : kLatest);
    query.bind_int(1, id ? *id : *back);
    if (!query.step(doing)) throw not_found();
    return query.int_at(0);
}

std::vector<std::pair<std::string, std::string>> Store::run_environment(int64_t run_id) const {
    // Every column of the run row, in table order, except the outcome (run_overview),
    // raw clocks, and the manifest text (long; query run.manifest_text for it).
    static constexpr std::string_view kRun = "SELECT * FROM run WHERE id = ?1";
    static constexpr std::string_view kHidden[] = {
        "id",           "status",          "ended_at",      "wall_ms",
        "partitions_ok", "partitions_failed", "gpu_busy_fraction", "peak_rss_bytes",
        "error",        "manifest_text",   "started_unix_ns", "ended_unix_ns",
        "started_steady_ns"};
    const std::string doing = fmt::format("cannot read run {}", run_id);
    Query query(*statements_, db_, path_, kRun);
    query.bind_int(1, run_id);
    if (!query.step(doing)) {
        throw no_such_run(doing, run_id);
    }
    std::vector<std::pair<std::string, std::string>> environment;
    for (int column = 0; column < query.column_count(); ++column) {
        std::string name = query.column_name(column);
        if (std::find(std::begin(kHidden), std::end(kHidden), name) != std::end(kHidden)) continue;
        if (query.is_null(column)) continue;
        // Binary columns (the verifying key) by their size: `zkbatch proofs` exports them.
        std::string value =
            query.is_blob(column) ? fmt::format("{} bytes", query.blob_at(column).size()) : query.text_at(column);
        if (value.empty()) continue;
        environment.emplace_back(std::move(name), std::move(value));
    }
    return environment;
}

namespace {
std::vector<std::pair<std::string, std::string>> read_pairs(Store::Statements& cache, sqlite3* db,
                                                            const fs::path& path,
                                                            std::string_view sql, int64_t run_id,
                                                            std::string_view doing) {
    std::vector<std::pair<std::string, std::string>> pairs;
    Query query(cache, db, path, sql);
    query.bind_int(1, run_id);
    while (query.step(doing)) pairs.emplace_back(query.text_at(0), query.text_at(1));
    return pairs;
}
}  // namespace

std::vector<std::pair<std::string, std::string>> Store::run_tags(int64_t run_id) const {
    return read_pairs(*statements_, db_, path_,
                      "SELECT key, value FROM run_tag WHERE run_id = ?1 ORDER BY key", run_id,
                      "cannot read the run's tags");
}

std::vector<std::pair<std::string, std::string>> Store::run_facts(int64_t run_id) const {
    return read_pairs(*statements_, db_, path_,
                      "SELECT key, value FROM run_fact WHERE run_id = ?1 ORDER BY key", run_id,
                      "cannot read the run's facts");
}

RunOverview Store::run_overview(int64_t run_id) const {
    // median_h2d_gb_per_s is run_summary's subquery, asked of phase_summary directly:
    // there "run_id = ?" reaches the index, inside run_summary's subquery it cannot.
    static constexpr std::string_view kOverview = R"sql(
        SELECT status, partitions_ok, partitions_failed, wall_ms, partitions_per_hour,
               (SELECT median_gb_per_s FROM phase_summary WHERE run_id = ?1 AND phase = 'h2d'),
               gpu_busy_fraction, peak_rss_bytes, error
        FROM run_summary WHERE run_id = ?1
    )sql";
    const std::string doing = fmt::format("cannot read the summary of run {}", run_id);
    Query query(*statements_, db_, path_, kOverview);
    query.bind_int(1, run_id);
    if (!query.step(doing)) {
        throw no_such_run(doing, run_id);
    }
    RunOverview overview;
    overview.status = query.text_at(0);
    overview.partitions_ok = static_cast<uint64_t>(query.int_at(1));
    overview.partitions_failed = static_cast<uint64_t>(query.int_at(2));
    overview.wall_ms = query.optional_real_at(3);
    overview.partitions_per_hour = query.optional_real_at(4);
    overview.median_h2d_gb_per_s = query.optional_real_at(5);
    overview.gpu_busy_fraction = query.optional_real_at(6);
    if (!query.is_null(7)) overview.peak_rss_bytes = static_cast<uint64_t>(query.int_at(7));
    overview.error = query.text_at(8);
    return overview;
}

size_t Store::checked_partition_index(int64_t run_id, int64_t index) const {
    if (index < 0 || index >= kMaxPartitions)
        throw StoreError(fmt::format("{}: run {} records partition {}, which no job has (at most {}): the database "
                                     "is damaged.",
                                     path_.string(), run_id, index, kMaxPartitions));
    return static_cast<size_t>(index);
}

void Store::require_measured_times(int64_t run_id) const {
    static constexpr std::string_view kUnmeasured = R"sql(
        SELECT partition_index, phase, ms FROM partition_phase
        WHERE run_id = ?1 AND NOT (ms BETWEEN 0 AND ?2)
        ORDER BY partition_index LIMIT 1
    )sql";
    const std::string doing = fmt::format("cannot read the phases of run {}", run_id);
    Query query(*statements_, db_, path_, kUnmeasured);
    query.bind_int(1, run_id);
    query.bind_real(2, kMaxTimeMs);
    if (!query.step(doing)) return;
    throw StoreError(fmt::format("{}: run {}, partition {}: its {} time is stored as {} ms, which no measurement "
                                 "gives (a damaged database, or a shard merged from one). Delete that run (sqlite3: "
                                 "PRAGMA foreign_keys = ON; DELETE FROM run WHERE id = {}) or restore the database "
                                 "from a copy.",
                                 path_.string(), run_id, query.int_at(0), query.text_at(1), query.real_at(2), run_id));
}

std::vector<PhaseStats> Store::phase_stats(int64_t run_id) const {
    static constexpr std::string_view kStats = R"sql(
        SELECT s.phase, s.count, s.median_ms, s.p95_ms, s.min_ms, s.max_ms, s.median_gb_per_s
        FROM phase_summary AS s LEFT JOIN phase_name AS n ON n.phase = s.phase
        WHERE s.run_id = ?1
        ORDER BY n.sort_order, s.phase
    )sql";
    require_measured_times(run_id);
    std::vector<PhaseStats> stats;
    Query query(*statements_, db_, path_, kStats);
    query.bind_int(1, run_id);
    while (query.step(fmt::format("cannot read the phase summary of run {}", run_id))) {
        PhaseStats row;
        row.phase = query.text_at(0);
        row.count = static_cast<uint64_t>(query.int_at(1));
        row.median_ms = query.real_at(2);
        row.p95_ms = query.real_at(3);
        row.min_ms = query.real_at(4);
        row.max_ms = query.real_at(5);
        row.median_gb_per_s = query.optional_real_at(6);
        stats.push_back(std::move(row));
    }
    return stats;
}

std::vector<std::string> Store::partition_digests(int64_t run_id) const {
    static constexpr std::string_view kDigests = R"sql(
        SELECT partition_index, h_digest FROM partition WHERE run_id = ?1 ORDER BY partition_index
    )sql";
    std::vector<std::string> digests;
    Query query(*statements_, db_, path_, kDigests);
    query.bind_int(1, run_id);
    while (query.step(fmt::format("cannot read the digests of run {}", run_id))) {
        const size_t index = checked_partition_index(run_id, query.int_at(0));
        if (digests.size() <= index) digests.resize(index + 1);
        digests[index] = query.text_at(1);
    }
    return digests;
}

std::vector<std::string> Store::partition_proof_digests(int64_t run_id) const {
    std::vector<std::string> digests;
    for (const PartitionProof& proof : partition_proofs(run_id)) {
        checked_partition_index(run_id, static_cast<int64_t>(proof.partition_index));
        if (digests.size() <= proof.partition_index) digests.resize(proof.partition_index + 1);
        digests[proof.partition_index] = proof.proof_digest;
    }
    return digests;
}

std::vector<PartitionProof> Store::partition_proofs(int64_t run_id) const {
    static constexpr std::string_view kProofs = R"sql(
        SELECT partition_index, status, proof, proof_digest, public_inputs, witness
        FROM partition WHERE run_id = ?1 ORDER BY partition_index
    )sql";
    std::vector<PartitionProof> proofs;
    Query query(*statements_, db_, path_, kProofs);
    query.bind_int(1, run_id);
    while (query.step(fmt::format("cannot read the proofs of run {}", run_id))) {
        PartitionProof& proof = proofs.emplace_back();
        proof.partition_index = static_cast<uint64_t>(query.int_at(0));
        proof.status = query.text_at(1);
        proof.proof = query.blob_at(2);
        proof.proof_digest = query.text_at(3);
        proof.public_inputs = query.blob_at(4);
        proof.witness = query.text_at(5);
    }
    return proofs;
}

RunProofSetting Store::run_proof_setting(int64_t run_id) const {
    static constexpr std::string_view kSetting = R"sql(
        SELECT workload, verifying_key, circuit, key_digest, public_inputs, curve FROM run WHERE id = ?1
    )sql";
    const std::string doing = fmt::format("cannot read what run {} proved", run_id);
    Query query(*statements_, db_, path_, kSetting);
    query.bind_int(1, run_id);
    if (!query.step(doing)) throw no_such_run(doing, run_id);
    RunProofSetting setting;
    setting.workload = query.text_at(0);
    setting.verifying_key = query.blob_at(1);
    setting.circuit = query.text_at(2);
    setting.key_digest = query.text_at(3);
    if (!query.is_null(4)) setting.public_inputs = static_cast<uint64_t>(query.int_at(4));
    setting.curve = query.text_at(5);
    return setting;
}

std::vector<TimelineInterval> Store::run_timeline(int64_t run_id) const {
    static constexpr std::string_view kTimeline = R"sql(
        SELECT p.partition_index, p.status, i.phase, i.lane, i.start_ns, i.end_ns, i.bytes,
               i.on_device, i.device_index
        FROM partition AS p JOIN phase_interval AS i ON i.partition_id = p.id
        WHERE p.run_id = ?1
        ORDER BY i.start_ns, i.end_ns DESC, i.id
    )sql";
    std::vector<TimelineInterval> intervals;
    Query query(*statements_, db_, path_, kTimeline);
    query.bind_int(1, run_id);
    while (query.step(fmt::format("cannot read the timeline of run {}", run_id))) {
        TimelineInterval interval;
        interval.partition_index = static_cast<uint64_t>(query.int_at(0));
        interval.partition_status = query.text_at(1);
        interval.phase = query.text_at(2);
        interval.lane = query.text_at(3);
        interval.start_ns = query.int_at(4);
        interval.end_ns = query.int_at(5);
        constexpr int64_t kMaxNs = static_cast<int64_t>(kMaxTimeMs * 1e6);
        if (interval.end_ns < interval.start_ns || interval.start_ns < -kMaxNs || interval.end_ns > kMaxNs)
            throw StoreError(fmt::format("{}: run {}, partition {}: its {} interval is stored as {} to {} ns, which "
                                         "no measurement gives (a damaged database, or a shard merged from one).",
                                         path_.string(), run_id, interval.partition_index, interval.phase,
                                         interval.start_ns, interval.end_ns));
        if (!query.is_null(6)) interval.bytes = static_cast<uint64_t>(query.int_at(6));
        interval.on_device = query.int_at(7) != 0;
        if (!query.is_null(8)) interval.device_index = static_cast<int32_t>(query.int_at(8));
        intervals.push_back(std::move(interval));
    }
    return intervals;
}

std::vector<PhaseSample> Store::phase_samples(int64_t run_id) const {
    static constexpr std::string_view kSamples = R"sql(
        SELECT s.phase, s.partition_index, s.status, s.ms
        FROM partition_phase AS s LEFT JOIN phase_name AS n ON n.phase = s.phase
        WHERE s.run_id = ?1
        ORDER BY n.sort_order, s.phase, s.partition_index
    )sql";
    require_measured_times(run_id);
    std::vector<PhaseSample> samples;
    Query query(*statements_, db_, path_, kSamples);
    query.bind_int(1, run_id);
    while (query.step(fmt::format("cannot read the phases of run {}", run_id))) {
        PhaseSample sample;
        sample.phase = query.text_at(0);
        sample.partition_index = static_cast<uint64_t>(query.int_at(1));
        sample.partition_status = query.text_at(2);
        sample.ms = query.real_at(3);
        samples.push_back(std::move(sample));
    }
    return samples;
}

std::vector<IdleGapStats> Store::idle_gap_stats(int64_t run_id) const {
    // Median and p95 exactly as the phase_summary view computes them, per worker
    // (results/queries/gpu_idle.sql asks the same question of the sqlite3 shell).
    static constexpr std::string_view kIdleGaps = R"sql(
        WITH gaps AS (
            SELECT prove_worker, idle_gap_ms AS ms,
                   COUNT(*) OVER per_worker AS n,
                   ROW_NUMBER() OVER (per_worker ORDER BY idle_gap_ms) AS ms_rank
            FROM partition
            WHERE run_id = ?1 AND idle_gap_ms IS NOT NULL AND status <> 'failed'
            WINDOW per_worker AS (PARTITION BY prove_worker)
        )
        SELECT prove_worker, COUNT(*), SUM(ms),
               AVG(ms) FILTER (WHERE ms_rank IN ((n + 1) / 2, (n + 2) / 2)),
               MAX(ms) FILTER (WHERE ms_rank = (95 * n + 99) / 100),
               MAX(ms)
        FROM gaps
        GROUP BY prove_worker
        ORDER BY prove_worker
    )sql";
    std::vector<IdleGapStats> stats;
    Query query(*statements_, db_, path_, kIdleGaps);
    query.bind_int(1, run_id);
    while (query.step(fmt::format("cannot read the idle gaps of run {}", run_id))) {
        IdleGapStats row;
        row.prove_worker = static_cast<uint32_t>(query.int_at(0));
        row.count = static_cast<uint64_t>(query.int_at(1));
        row.total_ms = query.real_at(2);
        row.median_ms = query.real_at(3);
        row.p95_ms = query.real_at(4);
        row.max_ms = query.real_at(5);
        stats.push_back(row);
    }
    return stats;
}

std::vector<DeviceStats> Store::device_stats(int64_t run_id) const {
    static constexpr std::string_view kDevices = R"sql(
        SELECT device_index, name, partitions, busy_fraction, median_compute_ms, median_prove_ms
        FROM device_summary WHERE run_id = ?1 ORDER BY device_index
    )sql";
    std::vector<DeviceStats> stats;
    Query query(*statements_, db_, path_, kDevices);
    query.bind_int(1, run_id);
    while (query.step(fmt::format("cannot read the devices of run {}", run_id))) {
        DeviceStats row;
        row.device_index = static_cast<int32_t>(query.int_at(0));
        row.name = query.text_at(1);
        row.partitions = static_cast<uint64_t>(query.int_at(2));
        row.busy_fraction = query.optional_real_at(3);
        row.median_compute_ms = query.optional_real_at(4);
        row.median_prove_ms = query.optional_real_at(5);
        stats.push_back(std::move(row));
    }
    return stats;
}

// ---------------------------------------------------------------------------------
// Read-only queries behind compare, history and export
// ---------------------------------------------------------------------------------

std::vector<int64_t> Store::find_runs(const RunFilter& filter) const {
    // Each condition holds when its parameter is NULL.
    static constexpr std::string_view kRuns = R"sql(
        SELECT id FROM run
        WHERE (:job_name IS NULL OR job_name = :job_name)
          AND (:backend_name IS NULL OR backend_name = :backend_name)
          AND (:status IS NULL OR status = :status) AND (:before_run_id IS NULL OR id < :before_run_id)
          AND (:log_n IS NULL OR log_n = :log_n) AND (:partitions IS NULL OR partitions = :partitions)
          AND (:terms_per_row IS NULL OR terms_per_row = :terms_per_row)
          AND (:synthesis_workers IS NULL OR synthesis_workers = :synthesis_workers)
          AND (:prove_workers IS NULL OR prove_workers = :prove_workers)
          AND (:experiment_id IS NULL OR experiment_id = :experiment_id)
          AND (:arm IS NULL OR replace(arm, '"', '') = replace(:arm, '"', ''))  -- quotes optional
        ORDER BY id
    )sql";
    Query query(*statements_, db_, path_, kRuns);
    query.bind_optional_text(":job_name", filter.job_name);
    query.bind_optional_text(":backend_name", filter.backend_name);
    query.bind_optional_text(":status", filter.status);
    query.bind_optional_int(":before_run_id", filter.before_run_id);
    query.bind_optional_int(":log_n", filter.log_n);
    query.bind_optional_int(":partitions", filter.partitions);
    query.bind_optional_int(":terms_per_row", filter.terms_per_row);
    query.bind_optional_int(":synthesis_workers", filter.synthesis_workers);
    query.bind_optional_int(":prove_workers", filter.prove_workers);
    query.bind_optional_int(":experiment_id", filter.experiment_id);
    query.bind_optional_text(":arm", filter.arm);
    std::vector<int64_t> ids;
    while (query.step("cannot look up runs")) ids.push_back(query.int_at(0));
    return ids;
}

namespace {

StoredValue stored_value(const sqlite::Cursor& cursor, int column) {
    switch (sqlite3_value_type(cursor.value_at(column))) {
        case SQLITE_INTEGER: return cursor.int_at(column);
        case SQLITE_FLOAT: return cursor.real_at(column);
        case SQLITE_NULL: return std::monostate{};
        case SQLITE_BLOB: {  // proofs, public inputs, verifying keys: as lowercase hex
            static constexpr char kDigits[] = "0123456789abcdef";
            std::string hex;
            for (const uint8_t byte : cursor.blob_at(column)) hex += {kDigits[byte >> 4], kDigits[byte & 15]};
            return hex;
        }
        default: return cursor.text_at(column);
    }
}

// Every row of `sql` (one parameter: the run id) with all its columns.
std::vector<StoredRow> stored_rows(sqlite3* db, const fs::path& path, const char* sql,
                                   int64_t run_id, std::string_view doing) {
    Statement statement(db, path, sql, doing);
    statement.bind_int(1, run_id);
    std::vector<StoredRow> rows;
    while (statement.step(doing)) {
        StoredRow row;
        for (int column = 0; column < statement.column_count(); ++column)
            row.emplace_back(statement.column_name(column), stored_value(statement, column));
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

StoredRow Store::run_row(int64_t run_id) const {
    const std::string doing = fmt::format("cannot read run {}", run_id);
    auto rows = stored_rows(db_, path_, "SELECT * FROM run WHERE id = ?1", run_id, doing);
    if (rows.empty()) {
        throw no_such_run(doing, run_id);
    }
    return std::move(rows.front());
}

std::vector<StoredRow> Store::partition_rows(int64_t run_id) const {
    return stored_rows(db_, path_,
                       "SELECT * FROM partition WHERE run_id = ?1 ORDER BY partition_index", run_id,
                       fmt::format("cannot read the partitions of run {}", run_id));
}

namespace {
ExperimentRow experiment_row(const sqlite::Cursor& query) {
    ExperimentRow row;
    row.id = query.int_at(0);
    row.uuid = query.text_at(1);
    row.name = query.text_at(2);
    row.created_at = query.text_at(3);
    row.arm_count = query.int_at(4);
    return row;
}
}  // namespace

std::vector<ExperimentRow> Store::find_experiments(const std::string& key) const {
    static constexpr std::string_view kFind = R"sql(
        SELECT id, uuid, name, created_at, arm_count FROM experiment
        WHERE CAST(id AS TEXT) = ?1 OR uuid = ?1 OR name = ?1
        ORDER BY id
    )sql";
    std::vector<ExperimentRow> experiments;
    Query query(*statements_, db_, path_, kFind);
    query.bind_text(1, key);
    while (query.step(fmt::format("cannot look up experiment '{}'", key))) experiments.push_back(experiment_row(query));
    return experiments;
}

std::optional<ExperimentRow> Store::experiment(int64_t id) const {
    static constexpr std::string_view kById =
        "SELECT id, uuid, name, created_at, arm_count FROM experiment WHERE id = ?1";
    Query query(*statements_, db_, path_, kById);
    query.bind_int(1, id);
    if (!query.step(fmt::format("cannot read experiment {}", id))) return std::nullopt;
    return experiment_row(query);
}

Store::ResumeSource Store::resume_source(int64_t run_id) const {
    static constexpr std::string_view kSource = R"sql(
        SELECT status, experiment_id, backend_name, manifest_path, manifest_text, overrides, witnesses,
               manifest_sha256, circuit, key_digest, zkey_digest, witness_digests
        FROM run WHERE id = ?1
    )sql";
    const std::string doing = fmt::format("cannot read run {}", run_id);
    Query query(*statements_, db_, path_, kSource);
    query.bind_int(1, run_id);
    if (!query.step(doing)) {
        throw no_such_run(doing, run_id);
    }
    ResumeSource source;
    source.status = query.text_at(0);
    if (!query.is_null(1)) source.experiment_id = query.int_at(1);
    source.backend_name = query.text_at(2);
    source.manifest_path = query.text_at(3);
    source.manifest_text = query.text_at(4);
    source.overrides = items_of(query.text_at(5));
    source.witnesses = items_of(query.text_at(6));
    source.manifest_sha256 = query.text_at(7);
    source.circuit = query.text_at(8);
    source.key_digest = query.text_at(9);
    source.zkey_digest = query.text_at(10);
    source.witness_digests = items_of(query.text_at(11));
    return source;
}

std::vector<uint64_t> Store::resume_run(int64_t run_id) {
    static constexpr std::string_view kStatus = "SELECT status FROM run WHERE id = ?1";
    static constexpr std::string_view kDeleteUnfinished =
        "DELETE FROM partition WHERE run_id = ?1 AND status <> 'ok'";
    static constexpr std::string_view kKept =
        "SELECT partition_index FROM partition WHERE run_id = ?1 ORDER BY partition_index";
    static constexpr std::string_view kReopen = R"sql(
        UPDATE run SET status = 'running', resume_count = resume_count + 1, pid = ?2,
            process_start_ticks = ?3, ended_at = NULL, ended_unix_ns = NULL, error = NULL
        WHERE id = ?1
    )sql";
    const std::string doing = fmt::format("cannot resume run {}", run_id);
    WriteTransaction transaction(db_, path_, doing);
    {
        Query status(*statements_, db_, path_, kStatus);
        status.bind_int(1, run_id);
        if (!status.step(doing)) {
            throw no_such_run(doing, run_id);
        }
        const std::string current = status.text_at(0);
        if (current == "ok" || current == "running") {
            throw StoreError(fmt::format(
                "{}: {}: it is '{}'{}.", path_.string(), doing, current,
                current == "ok" ? ": every partition is already proved"
                                : ": a live zkbatch process is still recording it"));
        }
    }
    {
        Query remove(*statements_, db_, path_, kDeleteUnfinished);
        remove.bind_int(1, run_id);
        remove.step(doing);
    }
    std::vector<uint64_t> kept;
    {
        Query query(*statements_, db_, path_, kKept);
        query.bind_int(1, run_id);
        while (query.step(doing)) kept.push_back(static_cast<uint64_t>(query.int_at(0)));
    }
    {
        const ProcessIdentity self = this_process();
        Query reopen(*statements_, db_, path_, kReopen);
        reopen.bind_int(1, run_id);
        reopen.bind_int(2, self.pid);
        reopen.bind_optional_int(3, self.start_ticks);
        reopen.step(doing);
    }
    transaction.commit();
    return kept;
}

}  // namespace zkbatch
