// `zkbatch setup`, `zkbatch proofs`, `zkbatch prove` and `zkbatch verify`: a Groth16 job's
// proving keys, its recorded proofs in snarkjs's files, one witness proved into them, and
// such files checked.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "util/clock.hpp"
#include "util/output_onto_input.hpp"

#include "analysis/selectors.hpp"
#include "cluster/shard.hpp"
#include "proof/job_proof.hpp"
#include "proof/snarkjs_files.hpp"
#include "proof/snarkjs_reader.hpp"
#include "run/run_executor.hpp"
#include "run/run_plan.hpp"
#include "store/store.hpp"
#include "util/usage_error.hpp"

#include "core/groth16/keys.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/verifier.hpp"
#include "core/util/scratch_folder.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
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
                                 : proof.circuit->zkey_file() ? "a ceremony's key, checked"
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
    bool force = false;                      // write into a folder that holds files, replacing an earlier export
};

// A file an export writes: verification_key.json, pN.proof.json, pN.public.json.
bool is_export_file(const std::filesystem::path& file) {
    const std::string name = file.filename().string();
    if (name == "verification_key.json") return true;
    for (const std::string_view suffix : {".proof.json", ".public.json"}) {
        if (!name.starts_with("p") || !name.ends_with(suffix)) continue;
        const std::string_view index = std::string_view(name).substr(1, name.size() - 1 - suffix.size());
        if (!index.empty() && std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return true;
    }
    return false;
}

// The folder an export writes into: made when missing; one that holds files already is
// refused unless --force, which removes an earlier export's files from it first (its
// proofs would stay beside the new verifying key, which does not verify them). Never a
// link placed where a folder is expected, and never the database's own files.
void prepare_export_folder(const std::filesystem::path& dir, const ProofsOptions& options, const Store& store) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_symlink(dir, ec) && dir != fs::path(options.out_dir))
        throw UsageError(fmt::format("--out: {} is a symbolic link; an export writes only into folders it makes or "
                                     "was given. Remove it, or give another --out.",
                                     dir.string()));
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw UsageError(fmt::format("--out {}: it is not a folder. Give a new or empty folder.", dir.string()));
    if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
        if (!options.force)
            throw UsageError(fmt::format(
                "--out {}: the folder holds files already (an earlier export?), and its proofs would stay beside "
                "this export's verifying key, which does not verify them. Give a new or empty folder, or --force "
                "to replace an earlier export there.",
                dir.string()));
        for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
            if (!is_export_file(entry.path())) continue;
            refuse_output_onto_input(entry.path(), store.files(), "--out");
            fs::remove(entry.path());  // a link is removed, not what it points to
        }
    }
    fs::create_directories(dir, ec);
    if (ec)
        throw StoreError(fmt::format("cannot create {}: {}. Give --out a folder you can write.", dir.string(),
                                     ec.message()));
}

int command_proofs(const ProofsOptions& options) {
    const Store store = Store::open_existing(options.db_path);
    const std::vector<int64_t> ids = select_runs_of(store, options.runs);
    // Check every run before writing anything.
    std::vector<groth16::AnyVerifyingKey> keys(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        const RunProofSetting setting = store.run_proof_setting(ids[i]);
        if (setting.workload != "groth16")
            throw UsageError(fmt::format("run {} proved the quotient alone (workload {}): it has no proofs to export",
                                         ids[i], setting.workload));
        const std::optional<curve::CurveId> curve = curve::curve_from_name(setting.curve);
        if (!curve)
            throw StoreError(fmt::format("{}: run {} records the curve \"{}\", which this zkbatch does not know",
                                         store.path().string(), ids[i], setting.curve));
        std::string why;
        if (!groth16::verifying_key_from_bytes(*curve, setting.verifying_key.data(), setting.verifying_key.size(),
                                               keys[i], &why))
            throw StoreError(fmt::format("{}: run {}'s verifying key is damaged: {}", store.path().string(), ids[i], why));
    }
    const std::filesystem::path out_dir(options.out_dir);
    prepare_export_folder(out_dir, options, store);
    // One run into the folder itself; several each into their own runN/.
    for (size_t i = 0; i < ids.size(); ++i) {
        const std::filesystem::path dir = ids.size() == 1 ? out_dir : out_dir / fmt::format("run{}", ids[i]);
        if (dir != out_dir) prepare_export_folder(dir, options, store);
        size_t written = 0, skipped = 0;
        const uint64_t input_bytes = 32 * groth16::num_public(keys[i]);
        try {
            refuse_output_onto_input(dir / "verification_key.json", store.files(), "--out");
            write_snarkjs_verification_key(dir, keys[i]);
            for (const PartitionProof& proof : store.partition_proofs(ids[i])) {
                if (proof.proof.empty()) {
                    ++skipped;  // failed before its proof was made
                    continue;
                }
                if (proof.public_inputs.size() != input_bytes)
                    throw StoreError(fmt::format("{}: run {}, partition {}: the recorded public inputs are {} bytes "
                                                 "where its verifying key takes {}: the database is damaged",
                                                 store.path().string(), ids[i], proof.partition_index,
                                                 proof.public_inputs.size(), input_bytes));
                const std::string stem = fmt::format("p{}", proof.partition_index);
                for (const char* suffix : {".proof.json", ".public.json"})
                    refuse_output_onto_input(dir / (stem + suffix), store.files(), "--out");
                write_snarkjs_proof(dir, stem, groth16::curve_of(keys[i]), proof.proof, proof.public_inputs);
                ++written;
            }
        } catch (const StoreError&) {
            throw;
        } catch (const std::runtime_error& e) {
            throw StoreError(fmt::format("{}. Give --out a folder you can write.", e.what()));
        }
        fmt::print("run {}: {} proofs and verification_key.json in {}{}\n", ids[i], written, dir.string(),
                   skipped ? fmt::format(" ({} partitions without a proof left out)", skipped) : "");
    }
    return exit_code::ok;
}

// `zkbatch prove ZKEY WTNS PROOF PUBLIC`: rapidsnark's command line. One witness proved
// with a snarkjs proving key by a one-partition `circuit.kind = "zkey"` run (the key's
// and the witness's checks, the proof checked by the pairing equation in the run),
// written as snarkjs's proof.json and public.json. The run is recorded like any other,
// into --db or the manifest default's database; --no-record proves into a scratch
// database removed afterwards.
struct ProveOptions {
    std::string zkey, wtns, proof_path, public_path;
    std::optional<std::string> db_path;
    std::string backend = "auto";
    bool no_record = false;
    std::string plugin_path;
};

// Where one proof's time went: the partition's recorded steps (the witness read and a, b,
// c evaluated; the prove call, of it the quotient and the five MSMs; the pairing check),
// and the rest of the command's `command_ms` (the key read, checked and given to the
// backend, the backend started, the files written).
std::string prove_stages(const Store& store, int64_t run_id, double command_ms) {
    std::map<std::string, double> ms;
    for (const PhaseStats& phase : store.phase_stats(run_id)) ms[phase.phase] = phase.median_ms;
    double msms_ms = 0;
    for (const groth16::ProofMsm msm : groth16::kProofMsms) msms_ms += ms[groth16::phase_name(msm)];
    const auto at = [](double value) { return fmt::format("{:.1f} ms", value); };
    return fmt::format("stages: witness and a, b, c {}, prove {} (quotient {}, MSMs {}), verify {}; the rest {}",
                       at(ms["synth"]), at(ms["prove"]), at(ms["quotient"]), at(msms_ms), at(ms["verify"]),
                       at(std::max(0.0, command_ms - ms["partition"])));
}

int command_prove(const ProveOptions& options) {
    const int64_t start_ns = steady_now_ns();
    const std::vector<std::filesystem::path> inputs{options.zkey, options.wtns};
    refuse_output_onto_input(options.proof_path, inputs, "PROOF");
    refuse_output_onto_input(options.public_path, inputs, "PUBLIC");
    if (std::filesystem::path(options.proof_path).lexically_normal() ==
        std::filesystem::path(options.public_path).lexically_normal())
        throw UsageError(fmt::format("PROOF and PUBLIC are the same file, {}: give two names (rapidsnark's order: "
                                     "zkbatch prove ZKEY WTNS PROOF.json PUBLIC.json)",
                                     options.proof_path));
    std::optional<util::ScratchFolder> scratch;
    if (options.no_record) {
        try {
            scratch.emplace("zkbatch-prove");
        } catch (const std::system_error& e) {
            throw StoreError(fmt::format("{} (for --no-record's database). Set TMPDIR to a folder you can write, "
                                         "or leave --no-record out.",
                                         e.what()));
        }
    }
    RunOptions run;
    run.manifest_path = "(zkbatch prove)";
    run.manifest_text = fmt::format("[job]\nname = \"prove\"\n[circuit]\nkind = \"zkey\"\nzkey = {}\nwitnesses = [{}]\n",
                                    toml_quoted(options.zkey), toml_quoted(options.wtns));
    run.backend_name = options.backend;
    if (scratch) {
        run.db_path = (scratch->path() / "prove.db").string();
    } else if (options.db_path) {
        run.db_path = *options.db_path;
    }
    run.plugin_path = options.plugin_path;
    const RunPlan plan = plan_run(run, process_environment());
    const RunOutcome outcome = execute_run(plan, ExecutionOptions{});
    const ArmOutcome& arm = outcome.arms.front();
    const Store store = Store::open_existing(plan.db_path);
    const std::vector<PartitionProof> proofs = store.partition_proofs(arm.run_id);
    if (arm.summary.status != RunStatus::ok || proofs.size() != 1 || proofs.front().status != "ok") {
        fmt::print(stderr, "zkbatch prove: no proof{}{}\n", arm.summary.error.empty() ? "" : ": ",
                   arm.summary.error);
        if (!scratch) fmt::print(stderr, "details: zkbatch show {} --db {}\n", arm.run_id, plan.db_path.string());
        return arm.summary.status == RunStatus::cancelled ? exit_code::cancelled : exit_code::partition_failed;
    }
    try {
        const std::optional<curve::CurveId> curve = curve::curve_from_name(store.run_proof_setting(arm.run_id).curve);
        write_snarkjs_proof_files(options.proof_path, options.public_path, curve.value_or(curve::CurveId::bls12_381),
                                  proofs.front().proof, proofs.front().public_inputs);
    } catch (const std::runtime_error& e) {
        throw StoreError(fmt::format("{}. Give PROOF and PUBLIC paths you can write.", e.what()));
    }
    const double command_ms = static_cast<double>(steady_now_ns() - start_ns) / 1e6;
    fmt::print(stderr, "zkbatch prove: {} and {} in {:.2f} s on {}{}\n  {}\n", options.proof_path,
               options.public_path, command_ms / 1e3, arm.backend_name,
               scratch ? "" : fmt::format("; run {} in {}", arm.run_id, plan.db_path.string()),
               prove_stages(store, arm.run_id, command_ms));
    return exit_code::ok;
}

// `zkbatch verify VK PUBLIC PROOF`: `snarkjs groth16 verify`'s command line. The pairing
// equation over snarkjs's three files, each read and checked first (snarkjs_reader.hpp),
// on the curve the verifying key names (BLS12-381 when it names none). Exit 0 for a
// proof that verifies, 5 for one that does not.
struct VerifyOptions {
    std::string vk, public_path, proof;
};

int command_verify(const VerifyOptions& options) {
    const std::string vk_text = read_snarkjs_file(options.vk);
    const curve::CurveId curve = snarkjs_curve(vk_text, options.vk).value_or(curve::CurveId::bls12_381);
    const groth16::VerifyResult result = curve::with_curve(curve, [&](auto c) {
        using Curve = decltype(c);
        const auto key = parse_snarkjs_verification_key<Curve>(vk_text, options.vk);
        const auto inputs =
            parse_snarkjs_public<typename Curve::Fr>(read_snarkjs_file(options.public_path), options.public_path);
        const auto proof = parse_snarkjs_proof<Curve>(read_snarkjs_file(options.proof), options.proof);
        if (inputs.size() != key.num_public())
            throw UsageError(fmt::format("{}: {} public signals, but the verifying key {} takes {}; give the "
                                         "public.json of this proof and key",
                                         options.public_path, inputs.size(), options.vk, key.num_public()));
        return groth16::verify(key, proof, inputs.data(), inputs.size());
    });
    if (result.ok) {
        fmt::print("OK: {} verifies\n", options.proof);
        return exit_code::ok;
    }
    fmt::print("INVALID: {} does not verify against {} and {}{}{}\n", options.proof, options.vk, options.public_path,
               result.detail.empty() ? "" : ": ", result.detail);
    return exit_code::partition_failed;
}

}  // namespace

Subcommand add_prove_command(CLI::App& app, const GlobalOptions& globals) {
    auto options = std::make_shared<ProveOptions>();
    auto* command = app.add_subcommand(
        "prove", "Prove one witness with a snarkjs .zkey and write snarkjs's proof.json and public.json "
                 "(rapidsnark's arguments); recorded as a run like any other");
    command->add_option("zkey", options->zkey, "snarkjs Groth16 proving key (.zkey)")->required()->check(non_empty_path());
    command->add_option("wtns", options->wtns, "Witness (.wtns)")->required()->check(non_empty_path());
    command->add_option("proof", options->proof_path, "Proof to write (snarkjs's proof.json)")
        ->required()
        ->check(non_empty_path());
    command->add_option("public", options->public_path, "Public signals to write (snarkjs's public.json)")
        ->required()
        ->check(non_empty_path());
    auto* db = command->add_option("--db", options->db_path, "Database to record the run into (default: "
                                                             "results/zkbatch.db)")
                   ->check(non_empty_path());
    command->add_flag("--no-record", options->no_record,
                      "Record no run: prove into a scratch database (a .zkey whose points were checked is still "
                      "noted in cache/keys/checked-zkeys)")
        ->excludes(db);
    command->add_option("--backend", options->backend, "Backend (default: auto, a GPU backend where one is usable)")
        ->capture_default_str();
    return {command, [options, &globals] {
                options->plugin_path = globals.plugin_path;
                return command_prove(*options);
            }};
}

Subcommand add_verify_command(CLI::App& app) {
    auto options = std::make_shared<VerifyOptions>();
    auto* command = app.add_subcommand("verify", "Check a Groth16 proof in snarkjs's files (snarkjs groth16 "
                                                 "verify's arguments): exit 0 when it verifies, 5 when not");
    command->add_option("vk", options->vk, "Verifying key (snarkjs's verification_key.json)")
        ->required()
        ->check(non_empty_path());
    command->add_option("public", options->public_path, "Public signals (public.json)")->required()->check(non_empty_path());
    command->add_option("proof", options->proof, "Proof (proof.json)")->required()->check(non_empty_path());
    return {command, [options] { return command_verify(*options); }};
}

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
    command->add_option("--out", options->out_dir, "Folder to write (several runs: one runN/ each), new or empty")
        ->required()
        ->type_name("DIR")
        ->check(non_empty_path());
    command->add_flag("--force", options->force,
                      "Write into a folder that holds files, replacing an earlier export's files there");
    add_db_option(*command, options->db_path);
    return {command, [options] { return command_proofs(*options); }};
}

}  // namespace zkbatch
