// Carrying out a run plan (run_executor.hpp).
#include "run/run_executor.hpp"

#include "manifest/limits.hpp"
#include "pipeline/environment.hpp"
#include "pipeline/pipeline.hpp"
#include "plugin_host/plugin_host.hpp"
#include "proof/job_proof.hpp"
#include "proof/snarkjs_files.hpp"
#include "util/clock.hpp"

#include "core/groth16/key_file.hpp"

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
    const JobProof* proof = nullptr;       // a Groth16 arm's circuit and key
    std::vector<Backend::KeyLoad> key_loads;  // per device slot
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

// setup.key = "backend": each slot's backend made the seeded key itself. They must all
// have made the same one, and the one a cached key file of this circuit and setup holds
// (`expected`, when there is such a file): else the backend that differs is wrong, and
// none of its proofs would verify.
void check_made_keys(const ArmRun& arm, const std::string& expected) {
    const std::vector<Backend::KeyLoad>& loads = arm.key_loads;
    const std::string& made = loads.front().points_digest;
    for (size_t slot = 0; slot < loads.size(); ++slot) {
        const std::string& digest = loads[slot].points_digest;
        const std::string device = fmt::format("{} (device {})", arm.backend_name, arm.backend->device_index(slot));
        if (digest.empty())
            throw PluginError(PluginError::Kind::call_failed,
                              fmt::format("{} made the proving key but reported no points digest (plugin ABI v6): "
                                          "it cannot be checked; set setup.key = \"cache\"",
                                          device));
        if (digest != made || (!expected.empty() && digest != expected))
            throw PluginError(
                PluginError::Kind::call_failed,
                fmt::format("{} made a proving key with points digest {}, but {} has {}: a bug in the backend; "
                            "set setup.key = \"cache\" and report it",
                            device, digest,
                            expected.empty() ? fmt::format("the key of device {}", arm.backend->device_index(0))
                                             : std::string("the cached key file of this setup"),
                            expected.empty() ? made : expected));
    }
    spdlog::info("proving key made by {} backend(s){}: points digest {}", loads.size(),
                 expected.empty() ? "" : ", equal to the cached key file's", made);
}

// The run row's record of what a Groth16 arm proves, and each device's key load.
void record_proof_setting(const ArmRun& arm, RunRecord& run) {
    const Manifest& m = arm.plan->manifest;
    const PreparedKey& key = arm.proof->key;
    run.workload = to_string(ProofSystem::groth16);
    run.circuit_kind = to_string(m.circuit.kind);
    run.circuit = key.circuit_description;
    run.public_inputs = arm.proof->circuit->public_inputs();
    if (m.circuit.kind == CircuitKind::synthetic) {
        run.boolean_share = m.circuit.boolean_share;
        run.circuit_seed = m.circuit.seed;
    }
    run.proof_randomness = to_string(m.proof.randomness);
    run.witnesses = m.circuit.witness_files;
    run.witness_digests = arm.proof->circuit->witness_digests();
    run.curve = curve::name(arm.proof->circuit->curve());
    if (const ZkeyFile* zkey = arm.proof->circuit->zkey_file()) run.zkey_digest = zkey->digest;
    if (key.format == ZKB_KEY_FORMAT_SEEDED) {  // no file: the key is named by what the backends made
        run.key_digest = arm.key_loads.front().points_digest;  // the same on every slot (check_made_keys)
    } else {
        run.key_path = key.path.string();
        run.key_digest = key.digest;
        run.key_bytes = key.file_bytes;
    }
    run.key_setup_ms = key.setup_ms;
    run.verifying_key = groth16::verifying_key_bytes(key.vk);  // of run.curve
    for (size_t slot = 0; slot < arm.key_loads.size(); ++slot) {
        const Backend::KeyLoad& load = arm.key_loads[slot];
        run.key_loads[arm.backend->device_index(slot)] = {load.load_ms, load.key_bytes, load.where, load.how,
                                                          load.points_digest};
    }
}

// A resumed run proves its remaining partitions with what it proved the others with, or
// not at all: the circuit, the key and the files it re-reads must be those it recorded
// (a run recorded before a digest existed is checked on the digests it has). Else the
// new partitions' proofs would not verify with the run's verifying key, which export
// writes. Throws RunPlanError (exit 2) naming what differs.
void check_resumed_inputs(const ArmRun& arm, const Store::ResumeSource& recorded, int64_t run_id) {
    const auto differs = [run_id](const std::string& what, const std::string& now, const std::string& then) {
        throw RunPlanError(fmt::format("{}: not what run {} proved its other partitions with (digest {}, recorded {}). "
                                       "A resumed run must prove the rest with the same inputs: restore it, or prove "
                                       "the job in a new run.",
                                       what, run_id, now, then));
    };
    const JobCircuit& circuit = *arm.proof->circuit;
    const ZkeyFile* zkey = circuit.zkey_file();
    if (zkey && !recorded.zkey_digest.empty() && zkey->digest != recorded.zkey_digest)
        differs(zkey->path.string(), zkey->digest, recorded.zkey_digest);
    const std::vector<std::string> digests = circuit.witness_digests();
    for (size_t i = 0; i < digests.size() && i < recorded.witness_digests.size(); ++i)
        if (digests[i] != recorded.witness_digests[i])
            differs(circuit.partition_source(i), digests[i], recorded.witness_digests[i]);
    const PreparedKey& key = arm.proof->key;
    const std::string key_name = key.path.empty() ? std::string("the proving key the backend made") : key.path.string();
    if (!recorded.circuit.empty() && key.circuit_description != recorded.circuit)
        differs(key_name + "'s circuit", groth16::description_digest(key.circuit_description),
                groth16::description_digest(recorded.circuit));
    const std::string key_digest =
        key.format == ZKB_KEY_FORMAT_SEEDED ? arm.key_loads.front().points_digest : key.digest;
    if (!recorded.key_digest.empty() && key_digest != recorded.key_digest)
        differs(key_name, key_digest, recorded.key_digest);
}

// verification_key.json beside a dump's proofs; a folder that takes no file is a
// storage error, like the folder itself.
void write_dump_verification_key(const std::filesystem::path& dir, const groth16::AnyVerifyingKey& key) {
    try {
        write_snarkjs_verification_key(dir, key);
    } catch (const std::runtime_error& e) {
        throw StoreError(fmt::format("{}. Give --dump a folder you can write.", e.what()));
    }
}

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
            for (ArmRun& arm : arms_) {
                if (!dump_root) continue;
                arm.dump_dir = dump_folder(plan_.is_experiment() ? *dump_root / fmt::format("run{}", arm.run_id) : *dump_root);
                if (arm.proof) write_dump_verification_key(*arm.dump_dir, arm.proof->key.vk);
            }
            prove(store, blocks, signals);
            for (ArmRun& arm : arms_) {
                ArmOutcome done{arm.run_id, arm.plan->label, arm.backend_name,
                                final_summary(arm, plan_.partitions.size()), plan_.partitions.size(), 0,
                                std::nullopt};
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
        available_before_ = available_host_memory();
        for (ArmRun& arm : arms_) {
            arm.backend_name = arm.plan->backend_name;
            if (arm.backend_name == "auto") {
                std::string why;
                arm.backend_name = resolve_auto_backend(plan_.plugin_path, &why,
                                                        arm.plan->manifest.circuit.curve_or_default());
                spdlog::info("backend auto: {}", why);
            }
            require_host_memory(arm.plan->manifest, estimate_host_memory(arm.plan->manifest, arm.backend_name),
                                available_before_);
        }
    }

    // Once the arm's backends hold the key: the points they keep in host memory (a key
    // streamed to a GPU that cannot hold it) beside what the run has yet to allocate (a
    // pageable backend's buffers come per partition), against what was available before,
    // less the keys of the arms set up earlier. Refused now, with the numbers, rather than
    // by the out-of-memory killer part way through.
    void check_host_memory_beside_key(const ArmRun& arm) {
        uint64_t held = 0;
        for (const Backend::KeyLoad& load : arm.key_loads) held += load.host_key_bytes;
        std::optional<AvailableMemory> left = available_before_;
        if (left) left->bytes -= std::min(left->bytes, held_by_earlier_arms_);
        const Manifest& m = arm.plan->manifest;
        require_host_memory(m, with_key_held(estimate_host_memory(m, arm.backend_name), held), left);
        held_by_earlier_arms_ += held;
    }

    // A Groth16 arm's circuit and proving key, made ready once for every arm of that
    // circuit (proof/job_proof.hpp).
    const JobProof& prepare_proof(const Manifest& m) {
        auto& prepared = proofs_[job_proof_identity(m)];
        if (!prepared)
            prepared = std::make_unique<JobProof>(prepare_job_proof(m, std::max(1u, std::thread::hardware_concurrency())));
        return *prepared;
    }

    // The arm's plugin, its backend on each device (with its proving key, for
    // Groth16), and where its inputs come from.
    void set_up(ArmRun& arm) {
        const Manifest& m = arm.plan->manifest;
        const bool groth16 = m.proof.system == ProofSystem::groth16;
        // The backend first: a bad option or a missing device is refused in milliseconds,
        // not after the minutes a seeded key can take to make.
        arm.plugin = load_plugin(arm.backend_name, plan_.plugin_path);
        arm.plugin->require_usable();
        const int64_t setup_start_ns = steady_now_ns();
        arm.backend = std::make_unique<Backend>(arm.plugin, m.backend.options_for(arm.backend_name), m.circuit.log_n,
                                                m.pipeline.prove_workers, m.pipeline.devices);
        spdlog::info("backend {} {} ready in {:.1f} ms ({}){}", arm.plugin->api().name, arm.plugin->api().version,
                     ns_to_ms(steady_now_ns() - setup_start_ns), arm.plugin->file().string(),
                     plan_.is_experiment() ? " for arm " + arm.plan->label : "");
        if (groth16) {
            arm.proof = &prepare_proof(m);
            const PreparedKey& key = arm.proof->key;
            const std::string path = key.path.string();
            // A .zkey's points were checked when its circuit was read (prepare_proof).
            const uint32_t points_checked = key.format == ZKB_KEY_FORMAT_ZKEY ? 1 : 0;
            const zkb_key_source source{key.format == ZKB_KEY_FORMAT_SEEDED ? nullptr : path.c_str(),
                                        key.format,
                                        points_checked,
                                        key.circuit_description.c_str(),
                                        key.setup_description.c_str(),
                                        static_cast<uint32_t>(arm.proof->circuit->curve()),
                                        0};
            try {
                arm.key_loads = arm.backend->load_key(source);
            } catch (const PluginError&) {
                check_key_points(key);  // a damaged key file is named as such (exit 4), not as the backend's fault
                throw;
            }
            check_host_memory_beside_key(arm);
            if (key.format == ZKB_KEY_FORMAT_SEEDED) check_made_keys(arm, key.digest);
            if (plan_.resumed) check_resumed_inputs(arm, *plan_.resumed, *plan_.resume_run_id);
            for (size_t slot = 0; slot < arm.key_loads.size(); ++slot)
                spdlog::info("device {}: proving key loaded in {:.1f} ms ({:.1f} MB {} in {})",
                             arm.backend->device_index(slot), arm.key_loads[slot].load_ms,
                             arm.key_loads[slot].key_bytes / 1e6, arm.key_loads[slot].how, arm.key_loads[slot].where);
        }

        // The partitions' own inputs, or replayed sets that arms of one circuit share.
        const InputSource* source = nullptr;
        std::string identity;
        if (groth16) {
            source = circuit_inputs_.emplace_back(std::make_unique<CircuitInputs>(*arm.proof->circuit)).get();
            identity = arm.proof->circuit->description() + fmt::format("job seed {}", m.job.seed);
        } else {
            source = synthetic_.emplace_back(std::make_unique<SyntheticInputs>(m)).get();
            identity = fmt::format("quotient {} {} {}", m.circuit.log_n, m.circuit.terms_per_row, m.job.seed);
        }
        if (m.pipeline.replay_inputs == 0) {
            arm.inputs = source;
            return;
        }
        auto& replay = replays_[{identity, m.pipeline.replay_inputs}];
        if (!replay) {
            replay = std::make_unique<ReplayInputs>(*source, m.pipeline.replay_inputs, m.circuit.log_n,
                                                    groth16 ? arm.proof->circuit->variables() : 0,
                                                    std::max(1u, std::thread::hardware_concurrency()));
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
        if (arm.proof) record_proof_setting(arm, run);
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
                if (arm.proof) {
                    settings.circuit = arm.proof->circuit.get();
                    settings.verifying_key = &arm.proof->key.vk;
                }
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
    std::optional<AvailableMemory> available_before_;          // host memory before the run allocated anything
    uint64_t held_by_earlier_arms_ = 0;                        // host memory the keys of arms set up so far hold
    std::map<std::string, std::unique_ptr<JobProof>> proofs_;  // by job_proof_identity
    std::vector<std::unique_ptr<SyntheticInputs>> synthetic_;
    std::vector<std::unique_ptr<CircuitInputs>> circuit_inputs_;
    std::map<std::pair<std::string, uint32_t>, std::unique_ptr<ReplayInputs>> replays_;  // by inputs and set count
};

}  // namespace

RunOutcome execute_run(const RunPlan& plan, const ExecutionOptions& options) {
    return Execution(plan, options).execute();
}

}  // namespace zkbatch
