#include "proof/job_proof.hpp"

#include "manifest/limits.hpp"
#include "util/clock.hpp"
#include "util/usage_error.hpp"

#include "core/groth16/key_file.hpp"
#include "core/groth16/zkey.hpp"
#include "core/plugin/abi.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>
#include <vector>

namespace zkbatch {

std::string job_proof_identity(const Manifest& m) {
    if (m.circuit.kind == CircuitKind::zkey) return "zkey " + m.circuit.zkey;
    return fmt::format("synthetic {} {} {} {} {} {} job seed {} setup seed {} in {} key {}",
                       to_string(m.circuit.profile), m.circuit.log_n, m.circuit.terms_per_row, m.circuit.public_inputs,
                       m.circuit.boolean_share, m.circuit.seed, m.job.seed, m.setup.seed, m.setup.cache_dir,
                       to_string(m.setup.key));
}

JobProof prepare_job_proof(const Manifest& m, unsigned threads) {
    JobProof prepared;
    const int64_t start_ns = steady_now_ns();
    if (m.circuit.kind == CircuitKind::zkey) {
        const std::vector<std::filesystem::path> witnesses(m.circuit.witness_files.begin(), m.circuit.witness_files.end());
        const CheckedZkeys checked(m.setup.cache_dir);
        prepared.circuit = zkey_job_circuit(m.circuit.zkey, witnesses, threads, checked);
        const bool before = prepared.circuit->zkey_file()->checked_before;
        spdlog::info("circuit {}: {}, 2^{} rows, {} variables, {} public; the key{} and {} witness file(s) checked in "
                     "{:.1f} ms{}",
                     m.circuit.zkey, curve::name(prepared.circuit->curve()), prepared.circuit->log_n(),
                     prepared.circuit->variables(),
                     prepared.circuit->public_inputs(), before ? "" : "'s points", witnesses.size(),
                     ns_to_ms(steady_now_ns() - start_ns),
                     before ? " (its points were checked before: " + checked.file().string() + ")" : "");
    } else {
        const circuit::R1csShape shape{m.circuit.log_n, m.circuit.terms_per_row, m.circuit.public_inputs,
                                       m.circuit.boolean_share, m.circuit.seed,
                                       m.circuit.profile == CircuitProfile::porep ? circuit::R1csProfile::porep
                                                                                  : circuit::R1csProfile::uniform,
                                       m.circuit.curve_or_default()};
        try {
            prepared.circuit = synthetic_job_circuit(shape, m.job.seed);
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());  // e.g. more public inputs than 2^log_n rows hold
        }
    }
    const SetupOptions setup{m.setup.seed, m.setup.cache_dir, m.setup.key == KeySource::backend};
    const JobCircuit& circuit = *prepared.circuit;
    if (!circuit.zkey_file() && !setup.backend_makes_key && !std::filesystem::exists(seeded_key_path(circuit, setup))) {
        require_host_memory_for_setup(m, groth16::key_file_bytes(circuit.curve(), circuit.log_n(), circuit.variables(),
                                                                 circuit.public_inputs(), circuit.h_convention()));
        spdlog::info("setup: making the seeded proving key of 2^{} into {} (for measurement only: whoever knows "
                     "setup.seed can forge proofs)",
                     m.circuit.log_n, m.setup.cache_dir);
    }
    const int64_t key_start_ns = steady_now_ns();
    prepared.key = prepare_key(*prepared.circuit, setup, threads);
    if (prepared.key.format == ZKB_KEY_FORMAT_SEEDED)
        spdlog::info("proving key: made by the backend (setup.key = \"backend\"); verifying key computed in {:.1f} "
                     "ms{}",
                     ns_to_ms(steady_now_ns() - key_start_ns),
                     prepared.key.digest.empty() ? "" : ", checked against the cached key's digest " + prepared.key.digest);
    else
        spdlog::info("proving key {} ({:.1f} MB{})", prepared.key.path.string(), prepared.key.file_bytes / 1e6,
                     prepared.key.setup_ms ? fmt::format(", made in {:.1f} s", *prepared.key.setup_ms / 1e3) : "");
    return prepared;
}

}  // namespace zkbatch
