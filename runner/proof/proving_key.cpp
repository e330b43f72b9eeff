#include "proving_key.hpp"

#include "core/groth16/key_file.hpp"
#include "core/groth16/setup.hpp"
#include "core/plugin/abi.h"

#include <chrono>
#include <cstring>
#include <vector>

namespace zkbatch {

std::filesystem::path seeded_key_path(const JobCircuit& circuit, const SetupOptions& setup) {
    const std::string circuit_digest = groth16::description_digest(circuit.description());
    const std::string setup_digest = groth16::description_digest(groth16::seeded_setup_description(setup.seed));
    return setup.cache_dir / ("synthetic-n" + std::to_string(circuit.log_n()) + "-" + circuit_digest.substr(0, 16) +
                              "-setup-" + setup_digest.substr(0, 8) + ".zkbkey");
}

PreparedKey prepare_key(const JobCircuit& circuit, const SetupOptions& setup, unsigned threads) {
    PreparedKey prepared;
    prepared.circuit_description = circuit.description();
    if (const ZkeyFile* zkey = circuit.zkey_file()) {
        prepared.path = zkey->path;
        prepared.format = ZKB_KEY_FORMAT_ZKEY;
        prepared.vk = zkey->vk;
        prepared.file_bytes = zkey->bytes;
        // The verifying key's points name the ceremony (each contribution changes delta):
        // their bytes as the key files lay them out.
        const std::vector<uint8_t> vk_bytes = groth16::verifying_key_bytes(prepared.vk);
        prepared.digest = groth16::description_digest(std::string(vk_bytes.begin(), vk_bytes.end()));
        return prepared;
    }
    const circuit::SyntheticR1cs* r1cs = circuit.synthetic_r1cs();
    const std::filesystem::path cached = seeded_key_path(circuit, setup);
    prepared.setup_description = groth16::seeded_setup_description(setup.seed);
    if (setup.backend_makes_key) {
        prepared.format = ZKB_KEY_FORMAT_SEEDED;
        prepared.vk = curve::with_curve(circuit.curve(), [&](auto c) -> groth16::AnyVerifyingKey {
            return groth16::seeded_verifying_key(
                *r1cs, groth16::toxic_waste_from_seed<decltype(c)>(setup.seed, circuit.log_n()), threads);
        });
        if (std::filesystem::exists(cached)) {
            groth16::KeyFileInfo info;
            (void)groth16::load_verifying_key(cached, prepared.circuit_description, &info);
            if (info.setup_description == prepared.setup_description) prepared.digest = info.points_digest;
        }
        return prepared;
    }
    prepared.path = cached;
    prepared.format = ZKB_KEY_FORMAT_ZKBATCH;
    if (!std::filesystem::exists(prepared.path)) {
        // Refused before the setup runs, not after (a large key takes minutes to make).
        groth16::require_room_for_key_file(
            prepared.path, groth16::key_file_bytes(circuit.curve(), circuit.log_n(), circuit.variables(),
                                                   circuit.public_inputs(), circuit.h_convention()));
        const auto start = std::chrono::steady_clock::now();
        curve::with_curve(circuit.curve(), [&](auto c) {
            const auto key = groth16::generate_key(
                *r1cs, groth16::toxic_waste_from_seed<decltype(c)>(setup.seed, circuit.log_n()), threads);
            groth16::write_key_file(prepared.path, key, prepared.circuit_description, prepared.setup_description);
        });
        prepared.setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    groth16::KeyFileInfo info;
    prepared.vk = groth16::load_verifying_key(prepared.path, prepared.circuit_description, &info);
    if (info.setup_description != prepared.setup_description)
        throw groth16::KeyFileError("key file " + prepared.path.string() + ": made by another setup (" +
                                    info.setup_description + "); delete it and run `zkbatch setup MANIFEST` again");
    prepared.file_bytes = info.file_bytes;
    prepared.digest = info.points_digest;
    return prepared;
}

void check_key_points(const PreparedKey& key) {
    if (key.format != ZKB_KEY_FORMAT_ZKBATCH) return;
    curve::with_curve(groth16::curve_of(key.vk),
                      [&](auto c) { (void)groth16::load_key_file<decltype(c)>(key.path, key.circuit_description); });
}

}  // namespace zkbatch
