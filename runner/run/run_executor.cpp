// Carrying out a run plan (run_executor.hpp).
#include "run/run_executor.hpp"

#include "manifest/limits.hpp"
#include "pipeline/environment.hpp"
#include "pipeline/pipeline.hpp"
#include "plugin_host/plugin_host.hpp"
#include "util/clock.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>
#include <thread>
#include <tuple>

namespace zkbatch {

namespace {

std::atomic<int> g_stop_signals{0};

extern "C" void count_stop_signal(int) { g_stop_signals.fetch_add(1); }

// While it exists, SIGINT and SIGTERM ask the run to stop (the pipeline watches the
// count) instead of ending the process; the previous handlers come back afterwards.
// Installed once the runs begin: until then a signal ends zkbatch as usual.
class StopSignals {
public:
    StopSignals() {
        g_stop_signals = 0;
        struct sigaction action {};
        action.sa_handler = count_stop_signal;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &old_int_);
        sigaction(SIGTERM, &action, &old_term_);
    }
    ~StopSignals() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;
    const std::atomic<int>* counter() const { return &g_stop_signals; }
    bool stop_requested() const { return g_stop_signals.load() > 0; }

private:
    struct sigaction old_int_ {}, old_term_{};
};

// One arm while it runs: its plan, its backend and inputs, its run row, and what its
// blocks of partitions added up to.
struct ArmRun {
    const PlannedArm* plan = nullptr;
    std::string backend_name;  // backend.name with "auto" resolved
    std::shared_ptr<Plugin> plugin;
    std::unique_ptr<Backend> backend;
    const InputSource* inputs = nullptr;
    const ReplayInputs* replay = nullptr;  // the inputs, when they are replayed
    int64_t run_id = 0;        // 0 until its row is written (or the resumed run reopened)
    uint64_t kept_ok = 0;      // a resumed run's partitions already ok
    std::optional<std::filesystem::path> dump_dir;
    bool stopped = false;      // a partition failed with on_error = "stop", or the run was cancelled
    bool ended = false;        // its end is recorded
    RunSummary total;          // summed over blocks
};

void add_block(ArmRun& arm, const RunSummary& block) {
    RunSummary& total = arm.total;
    total.wall_ms += block.wall_ms;
    total.partitions_ok += block.partitions_ok;
    total.partitions_failed += block.partitions_failed;
    total.peak_rss_bytes = std::max(total.peak_rss_bytes, block.peak_rss_bytes);
    total.ended_unix_ns = block.ended_unix_ns;
    // Blocks run one after another, so the union of a device's intervals adds up.
    for (const auto& [device, busy_ms] : block.device_busy_ms) total.device_busy_ms[device] += busy_ms;
    if (total.error.empty()) total.error = block.error;
    if (block.status == RunStatus::cancelled) total.status = RunStatus::cancelled;
    if (block.status != RunStatus::ok) arm.stopped = true;
}

// The run's end: its totals over every partition of the run (a resumed run's kept ones
// too), ok only when all of them are.
RunSummary final_summary(const ArmRun& arm, uint64_t run_partitions) {
    RunSummary summary = arm.total;
    summary.partitions_ok += arm.kept_ok;
    if (summary.ended_unix_ns == 0) summary.ended_unix_ns = unix_now_ns();  // no block ran
    if (summary.status != RunStatus::cancelled) {
        const bool all_ok = summary.partitions_failed == 0 && summary.partitions_ok == run_partitions;
        summary.status = all_ok ? RunStatus::ok : RunStatus::failed;
    }
    return summary;
}

// Records the end of every run begun, exactly once, however execute_run is left: the
// normal end through record(), an exception through fail_unfinished(), and anything
// else through the destructor.
class RunEnds {
public:
    RunEnds(Store& store, std::vector<ArmRun>& arms, uint64_t run_partitions)
        : store_(store), arms_(arms), run_partitions_(run_partitions) {}
    ~RunEnds() { fail_unfinished("zkbatch stopped before the run ended"); }
    RunEnds(const RunEnds&) = delete;
    RunEnds& operator=(const RunEnds&) = delete;

    void record(ArmRun& arm, const RunSummary& summary) {
        store_.finish_run(arm.run_id, summary);
        arm.ended = true;
    }

    // Each begun run not yet ended becomes 'failed' with `why`. A database that cannot
    // be written leaves it 'running' until the next writer marks it 'interrupted'.
    void fail_unfinished(const std::string& why) noexcept {
        for (ArmRun& arm : arms_) {
            if (arm.run_id == 0 || arm.ended) continue;
            arm.ended = true;
            try {
                RunSummary failed = final_summary(arm, run_partitions_);
                failed.status = RunStatus::failed;
                failed.ended_unix_ns = unix_now_ns();
                failed.error = why;
                store_.finish_run(arm.run_id, failed);
            } catch (...) {
            }
        }
    }

private:
    Store& store_;
    std::vector<ArmRun>& arms_;
    const uint64_t run_partitions_;
};

// A dump folder; one that cannot be made is a storage error (exit 4), like the database.
std::filesystem::path dump_folder(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec)
        throw StoreError(fmt::format("cannot create dump directory {}: {}. Give --dump a folder you can write.",
                                     path.string(), ec.message()));
    return path;
}

RunRecord make_run_record(const PlannedArm& planned, const Plugin& plugin, const Backend& backend) {
    const Manifest& m = planned.manifest;
    const HostEnvironment host = capture_host_environment();
    RunRecord run;
    run.job_name = m.job.name;
    run.backend_name = plugin.api().name;
    run.backend_version = plugin.api().version;
    run.zkbatch_version = host.zkbatch_version;
    run.git_revision = host.git_revision;
    run.hostname = host.hostname;
    run.cpu_model = host.cpu_model;
    run.cpu_cores = host.cpu_cores;
    run.manifest_path = m.source_path.string();
    run.manifest_text = m.source_text;
    for (const auto& o : m.overrides) run.overrides += o + "\n";
    run.manifest_sha256 = manifest_hash(m);
    run.log_n = m.circuit.log_n;
    run.partitions = m.job.partitions;
    run.seed = m.job.seed;
    run.terms_per_row = m.circuit.terms_per_row;
    run.synthesis_workers = m.pipeline.synthesis_workers;
    run.prove_workers = m.pipeline.prove_workers;
    run.queue_depth = m.pipeline.queue_depth;
    run.finalize_workers = m.pipeline.finalize_workers;
    run.replay_inputs = m.pipeline.replay_inputs;
    run.on_error = to_string(m.pipeline.on_error);
    run.verify_mode = to_string(m.verify.mode);
    run.verify_every = m.verify.every;
    run.tags = m.output.tags;
    for (auto& [key, value] : backend.facts()) run.facts[key] = value;
    run.devices = device_records(backend, m.pipeline.prove_workers);
    run.facts["plugin.file"] = plugin.file().string();
    run.facts["plugin.abi_version"] = std::to_string(plugin.api().abi_version);
    run.arm = planned.label;
    return run;
}

class Execution {
public:
    Execution(const RunPlan& plan, const ExecutionOptions& options) : plan_(plan), options_(options) {
        for (const PlannedArm& planned : plan.arms) arms_.emplace_back().plan = &planned;
    }

    RunOutcome execute() {
        spdlog::info("{}", describe_job(plan_.manifest));
        if (plan_.shard)
            spdlog::info("shard {}: {} of the job's {} partitions (those with index mod {} = {})", plan_.shard->text(),
                         plan_.partitions.size(), plan_.manifest.job.partitions, plan_.shard->count,
                         plan_.shard->index);
        check_resources();
        Store store(plan_.db_path);
        for (ArmRun& arm : arms_) set_up(arm);
        std::optional<std::filesystem::path> dump_root;
        if (plan_.dump_dir) dump_root = dump_folder(*plan_.dump_dir);

        const StopSignals signals;
        RunEnds ends(store, arms_, plan_.partitions.size());
        RunOutcome outcome;
        outcome.resumed = plan_.resume_run_id.has_value();
        try {
            std::vector<std::vector<uint64_t>> blocks = plan_.blocks();
            if (plan_.resume_run_id) {
                blocks = {reopen(store, arms_.front())};
            } else {
                outcome.experiment_id = begin_experiment(store);
                for (ArmRun& arm : arms_) begin(store, arm, outcome.experiment_id);
            }
            for (ArmRun& arm : arms_)
                if (dump_root) arm.dump_dir = dump_folder(plan_.is_experiment() ? *dump_root / fmt::format("run{}", arm.run_id)
                                                                                 : *dump_root);
            prove(store, blocks, signals);
            for (ArmRun& arm : arms_) {
                ArmOutcome done{arm.run_id, arm.plan->label, final_summary(arm, plan_.partitions.size()),
                                plan_.partitions.size(), 0, std::nullopt};
                for (const auto& block : blocks) done.proved_now += block.size();
                ends.record(arm, done.summary);
                done.gpu_busy_fraction = store.run_overview(arm.run_id).gpu_busy_fraction;
                outcome.arms.push_back(std::move(done));
            }
        } catch (const std::exception& e) {
            ends.fail_unfinished(e.what());
            throw;
        } catch (...) {
            ends.fail_unfinished("an unknown error");
            throw;
        }
        return outcome;
    }

private:
    // Before the store or any backend allocates anything: too little memory is a usage error.
    void check_resources() {
        for (ArmRun& arm : arms_) {
            arm.backend_name = arm.plan->backend_name;
            if (arm.backend_name == "auto") {
                std::string why;
                arm.backend_name = resolve_auto_backend(plan_.plugin_path, &why);
                spdlog::info("backend auto: {}", why);
            }
            require_host_memory(arm.plan->manifest, arm.backend_name);
        }
    }

    // The arm's plugin, its backend on each device, and where its inputs come from. What
    // else a backend needs before the first partition is prepared here, and timed.
    void set_up(ArmRun& arm) {
        const Manifest& m = arm.plan->manifest;
        arm.plugin = load_plugin(arm.backend_name, plan_.plugin_path);
        arm.plugin->require_usable();
        const int64_t setup_start_ns = steady_now_ns();
        arm.backend = std::make_unique<Backend>(arm.plugin, m.backend.options_for(arm.backend_name), m.circuit.log_n,
                                                m.pipeline.prove_workers, m.pipeline.devices);
        spdlog::info("backend {} {} ready in {:.1f} ms ({}){}", arm.plugin->api().name, arm.plugin->api().version,
                     ns_to_ms(steady_now_ns() - setup_start_ns), arm.plugin->file().string(),
                     plan_.is_experiment() ? " for arm " + arm.plan->label : "");
        if (m.pipeline.replay_inputs == 0) {
            arm.inputs = synthetic_.emplace_back(std::make_unique<SyntheticInputs>(m)).get();
            return;
        }
        // Arms that prove the same circuit share the same replayed inputs.
        auto& replay = replays_[{m.circuit.log_n, m.circuit.terms_per_row, m.pipeline.replay_inputs}];
        if (!replay) {
            replay = std::make_unique<ReplayInputs>(m, std::max(1u, std::thread::hardware_concurrency()));
            spdlog::info("replay: {} input set(s) of 2^{} synthesized in {:.1f} ms", replay->set_count(),
                         m.circuit.log_n, replay->setup_ms());
        }
        arm.inputs = arm.replay = replay.get();
    }

    // The experiment every arm (and, for a shard, every shard of the submission) records.
    std::optional<int64_t> begin_experiment(Store& store) {
        if (!plan_.experiment) return std::nullopt;
        ExperimentRecord record = *plan_.experiment;
        record.created_unix_ns = unix_now_ns();
        std::optional<int64_t> id;
        if (!record.uuid.empty()) {
            // Shards sharing one database (on one host) share its row.
            for (const ExperimentRow& row : store.find_experiments(record.uuid))
                if (row.uuid == record.uuid) id = row.id;
        }
        if (!id) id = store.begin_experiment(record);
        if (plan_.is_experiment())
            spdlog::info("experiment {}: {} arms, blocks of {} partitions in randomized order", *id, arms_.size(),
                         plan_.block_partitions);
        if (plan_.shard)
            spdlog::info("experiment {} (uuid {}, key '{}') holds every shard of this job", *id, record.uuid,
                         plan_.experiment_key);
        return id;
    }

    void begin(Store& store, ArmRun& arm, std::optional<int64_t> experiment_id) {
        RunRecord run = make_run_record(*arm.plan, *arm.plugin, *arm.backend);
        if (arm.replay) run.facts["replay.setup_ms"] = fmt::format("{:.3f}", arm.replay->setup_ms());
        run.experiment_id = experiment_id;
        if (plan_.shard) {
            run.shard_index = plan_.shard->index;
            run.shard_count = plan_.shard->count;
        }
        run.started_unix_ns = unix_now_ns();
        run.started_steady_ns = steady_now_ns();
        arm.run_id = store.begin_run(run);
        spdlog::info("run {} started{}, recording to {}", arm.run_id,
                     plan_.is_experiment() ? " (arm " + arm.plan->label + ")" : "", plan_.db_path.string());
    }

    // A resumed run becomes this process's again; returns its partitions still to prove.
    std::vector<uint64_t> reopen(Store& store, ArmRun& arm) {
        const std::vector<uint64_t> kept = store.resume_run(*plan_.resume_run_id);
        arm.run_id = *plan_.resume_run_id;
        arm.kept_ok = kept.size();
        std::vector<uint64_t> missing;
        for (uint64_t index : plan_.partitions)
            if (!std::binary_search(kept.begin(), kept.end(), index)) missing.push_back(index);
        spdlog::info("resuming run {}: {} of {} partitions already ok, proving {}", arm.run_id, kept.size(),
                     plan_.partitions.size(), missing.size());
        return missing;
    }

    void prove(Store& store, const std::vector<std::vector<uint64_t>>& blocks, const StopSignals& signals) {
        for (uint64_t block = 0; block < blocks.size(); ++block) {
            for (size_t which : plan_.arm_order(block)) {
                ArmRun& arm = arms_[which];
                if (arm.stopped || signals.stop_requested()) continue;
                PipelineSettings settings;
                settings.manifest = &arm.plan->manifest;
                settings.backend = arm.backend.get();
                settings.store = &store;
                settings.run_id = arm.run_id;
                settings.partitions = blocks[block];
                settings.inputs = arm.inputs;
                settings.dump_dir = arm.dump_dir;
                settings.stop_signal = signals.counter();
                settings.show_progress_line = options_.show_progress_line;
                add_block(arm, run_pipeline(settings));
            }
        }
        if (signals.stop_requested())
            for (ArmRun& arm : arms_) arm.total.status = RunStatus::cancelled;
    }

    const RunPlan& plan_;
    const ExecutionOptions& options_;
    std::vector<ArmRun> arms_;
    std::vector<std::unique_ptr<SyntheticInputs>> synthetic_;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::unique_ptr<ReplayInputs>> replays_;
};

}  // namespace

RunOutcome execute_run(const RunPlan& plan, const ExecutionOptions& options) {
    return Execution(plan, options).execute();
}

}  // namespace zkbatch
