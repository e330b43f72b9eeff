#include "fake_history.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>

namespace zkbatch::testing {

std::string fake_digest(const FakeRun& run, uint64_t index) {
    const uint64_t key = run.seed * 1'000'003 + run.log_n * 10'007 + run.terms_per_row * 101 + index;
    return fmt::format("{:016x}{:016x}", std::hash<uint64_t>{}(key), key);
}

int64_t add_run(Store& store, const FakeRun& run) {
    static int64_t clock_ns = 1'700'000'000'000'000'000;  // runs start one minute apart
    clock_ns += 60'000'000'000;
    RunRecord record;
    record.job_name = run.job;
    record.backend_name = run.backend;
    record.curve = run.curve;
    record.backend_version = "0.1";
    record.zkbatch_version = "test";
    record.git_revision = "test";
    record.hostname = "test-host";
    record.cpu_model = "test cpu";
    record.cpu_cores = 2;
    record.manifest_path = "jobs/" + run.job + ".toml";
    record.manifest_text = run.manifest_text.empty() ? "[job]\nname = \"" + run.job + "\"\n" : run.manifest_text;
    record.manifest_sha256 = "0";
    record.log_n = run.log_n;
    record.partitions = static_cast<uint32_t>(run.partition_ms.size());
    record.seed = run.seed;
    record.terms_per_row = run.terms_per_row;
    record.synthesis_workers = run.synthesis_workers;
    record.prove_workers = run.prove_workers;
    record.queue_depth = 2;
    record.verify_mode = "identity";
    record.verify_every = 1;
    record.finalize_workers = 2;
    record.on_error = "stop";
    record.replay_inputs = run.replay_inputs.value_or(0);
    record.tags = run.tags;
    record.facts = run.facts;
    record.started_unix_ns = clock_ns;
    record.started_steady_ns = 1'000'000;
    record.experiment_id = run.experiment_id;
    record.arm = run.arm;
    const int64_t run_id = store.begin_run(record);
    if (!run.replay_inputs) {
        const std::string sql = fmt::format("UPDATE run SET replay_inputs = NULL WHERE id = {}", run_id);
        if (sqlite3_exec(store.handle(), sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
            throw std::runtime_error(sqlite3_errmsg(store.handle()));
    }

    int64_t at_ns = record.started_steady_ns;
    for (uint64_t index = 0; index < run.partition_ms.size(); ++index) {
        const double total_ms = run.partition_ms[index];
        PartitionRecord partition;
        partition.partition_index = index;
        partition.phases["synth"].ms = 0.4 * total_ms;
        partition.phases["prove"].ms = 0.5 * total_ms;
        partition.phases["finalize"].ms = 0.1 * total_ms;
        partition.phases["verify"].ms = 0.05 * total_ms;
        partition.verified = true;
        const auto found = run.digest_overrides.find(index);
        partition.h_digest = found != run.digest_overrides.end() ? found->second : fake_digest(run, index);
        const auto ns = [](double ms) { return static_cast<int64_t>(std::llround(ms * 1e6)); };
        const int64_t synth_end = at_ns + ns(partition.phases["synth"].ms);
        const int64_t prove_end = synth_end + ns(partition.phases["prove"].ms);
        const int64_t finalize_end = at_ns + ns(total_ms);
        partition.intervals = {{"synth", "synth.0", at_ns, synth_end},
                               {"prove", "prove.0", synth_end, prove_end},
                               {"finalize", "finalize", prove_end, finalize_end}};
        store.record_partition(run_id, partition);
        at_ns = finalize_end;
    }
    RunSummary summary;
    summary.status = run.status;
    summary.ended_unix_ns = clock_ns + (at_ns - record.started_steady_ns);
    summary.wall_ms = static_cast<double>(at_ns - record.started_steady_ns) / 1e6;
    summary.partitions_ok = run.partition_ms.size();
    store.finish_run(run_id, summary);
    return run_id;
}

std::vector<double> noisy(size_t count, double centre_ms, double spread_fraction, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(-1, 1);
    std::vector<double> values(count);
    for (double& v : values) v = centre_ms * (1 + spread_fraction * unit(rng));
    return values;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
            else if (c == '"') quoted = false;
            else field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(std::move(field)), field.clear();
        } else if (c == '\n') {
            row.push_back(std::move(field)), field.clear();
            rows.push_back(std::move(row)), row.clear();
        } else {
            field += c;
        }
    }
    return rows;
}

}  // namespace zkbatch::testing
