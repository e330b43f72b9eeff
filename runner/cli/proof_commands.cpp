// `zkbatch setup` and `zkbatch proofs`: a Groth16 job's proving keys, and its recorded
// proofs in snarkjs's files.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

#include "analysis/selectors.hpp"
#include "cluster/shard.hpp"
#include "proof/job_proof.hpp"
#include "proof/snarkjs_files.hpp"
#include "run/run_plan.hpp"
#include "store/store.hpp"

#include "core/groth16/keys.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace zkbatch {

namespace {

// `zkbatch setup MANIFEST`: makes (or finds and checks) the proving key of every Groth16
// arm of the manifest, so that the run itself starts proving at once.
int command_setup(const std::string& manifest_path, const std::vector<std::string>& overrides) {
    RunOptions options;
    options.manifest_path = manifest_path;
    options.overrides = overrides;
    const RunPlan plan = plan_run(options, process_environment());
    std::set<std::string> done;
    for (const PlannedArm& arm : plan.arms) {
        const std::string label = arm.label.empty() ? "" : " [" + arm.label + "]";
        if (arm.manifest.proof.system != ProofSystem::groth16) {
            fmt::print("{}{}: proof.system = \"quotient\": no proving key\n", plan.manifest.job.name, label);
            continue;
        }
        if (!done.insert(job_proof_identity(arm.manifest)).second) continue;  // another arm's key
        if (arm.manifest.setup.key == KeySource::backend) {
            fmt::print("{}{}: setup.key = \"backend\": each run's backend makes the key itself; nothing to make\n",
                       plan.manifest.job.name, label);
            continue;
        }
        const JobProof proof = prepare_job_proof(arm.manifest, std::max(1u, std::thread::hardware_concurrency()));
        const PreparedKey& key = proof.key;
        if (!key.setup_ms) check_key_points(key);  // "checked": every point, as a run's backend will
        const std::string made = key.setup_ms ? fmt::format("made in {:.1f} s", *key.setup_ms / 1e3)
                                 : proof.circuit->zkey() ? "a ceremony's key, checked"
                                                         : "already in the cache, checked";
        fmt::print("{}{}: {} ({:.1f} MB, 2^{} rows, {} variables, {} public): {}\n", plan.manifest.job.name, label,
                   key.path.string(), key.file_bytes / 1e6, proof.circuit->log_n(), proof.circuit->variables(),
                   proof.circuit->public_inputs(), made);
    }
    return exit_code::ok;
}

// `zkbatch proofs RUN... --out DIR`: each run's recorded proofs as snarkjs's files,
// pP.proof.json and pP.public.json per partition and the run's verification_key.json
// (one run: into DIR; several: each into DIR/runN).
struct ProofsOptions {
    std::vector<std::string> runs;           // run selectors
    std::string format = "snarkjs";
    std::string out_dir;
    std::string db_path;
};

int command_proofs(const ProofsOptions& options) {
    const Store store = Store::open_existing(options.db_path);
    const std::vector<int64_t> ids = select_runs_of(store, options.runs);
    // Check every run before writing anything.
    std::vector<groth16::VerifyingKey> keys(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        const RunProofSetting setting = store.run_proof_setting(ids[i]);
        if (setting.workload != "groth16")
            throw UsageError(fmt::format("run {} proved the quotient alone (workload {}): it has no proofs to export",
                                         ids[i], setting.workload));
        std::string why;
        if (!groth16::verifying_key_from_bytes(setting.verifying_key.data(), setting.verifying_key.size(), keys[i], &why))
            throw StoreError(fmt::format("{}: run {}'s verifying key is damaged: {}", store.path().string(), ids[i], why));
    }
    // One run into the folder itself; several each into their own runN/.
    for (size_t i = 0; i < ids.size(); ++i) {
        const std::filesystem::path dir =
            ids.size() == 1 ? std::filesystem::path(options.out_dir)
                            : std::filesystem::path(options.out_dir) / fmt::format("run{}", ids[i]);
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) throw StoreError(fmt::format("cannot create {}: {}. Give --out a folder you can write.", dir.string(), ec.message()));
        size_t written = 0, skipped = 0;
        try {
            write_snarkjs_verification_key(dir, keys[i]);
            for (const PartitionProof& proof : store.partition_proofs(ids[i])) {
                if (proof.proof.empty()) {
                    ++skipped;  // failed before its proof was made
                    continue;
                }
                write_snarkjs_proof(dir, fmt::format("p{}", proof.partition_index), proof.proof, proof.public_inputs);
                ++written;
            }
        } catch (const std::runtime_error& e) {
            throw StoreError(fmt::format("{}. Give --out a folder you can write.", e.what()));
        }
        fmt::print("run {}: {} proofs and verification_key.json in {}{}\n", ids[i], written, dir.string(),
                   skipped ? fmt::format(" ({} partitions without a proof left out)", skipped) : "");
    }
    return exit_code::ok;
}

}  // namespace

Subcommand add_setup_command(CLI::App& app) {
    auto arguments = std::make_shared<ManifestArguments>();
    auto* command = app.add_subcommand(
        "setup", "Make (or find and check) the proving key of every Groth16 arm of a manifest: a seeded key into "
                 "setup.cache_dir, for measurement only");
    add_manifest_arguments(*command, *arguments);
    return {command, [arguments] { return command_setup(arguments->manifest_path, arguments->overrides); }};
}

Subcommand add_proofs_command(CLI::App& app) {
    auto options = std::make_shared<ProofsOptions>();
    auto* command = app.add_subcommand(
        "proofs", "Write runs' Groth16 proofs as files a verifier reads: for snarkjs, pP.proof.json and "
                  "pP.public.json per partition and verification_key.json");
    command->add_option("runs", options->runs, "Run selectors, as for compare")->required();
    command->add_option("--format", options->format, "File format")
        ->check(CLI::IsMember({"snarkjs"}))
        ->capture_default_str();
    command->add_option("--out", options->out_dir, "Folder to write (several runs: one runN/ each)")
        ->required()
        ->type_name("DIR");
    add_db_option(*command, options->db_path);
    return {command, [options] { return command_proofs(*options); }};
}

}  // namespace zkbatch
