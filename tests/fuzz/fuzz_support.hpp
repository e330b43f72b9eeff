// Shared by the fuzz targets: input splitting and the manifest round-trip oracle.
#pragma once

#include "manifest/manifest.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace zkbatch::fuzz {

// A finding that is not a crash (a broken invariant): print it and abort, so libFuzzer
// saves the input and the replay driver fails.
[[noreturn]] inline void invariant_broken(const std::string& what) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
    std::abort();
}

inline std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    while (!text.empty()) {
        const size_t newline = text.find('\n');
        lines.emplace_back(text.substr(0, newline));
        text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    }
    return lines;
}

// An accepted manifest must come back unchanged from its own TOML (to_toml is what
// `zkbatch validate` prints and what a user may save as a new manifest).
inline void check_round_trip(const Manifest& m) {
    const std::string text = to_toml(m);
    Manifest again;
    try {
        again = parse_manifest(text, "round-trip.toml");
    } catch (const ManifestError& e) {
        invariant_broken(std::string("to_toml output is refused: ") + e.what() + "\n" + text);
    }
    const bool same = again.job.name == m.job.name && again.job.partitions == m.job.partitions &&
                      again.job.seed == m.job.seed && again.circuit.log_n == m.circuit.log_n &&
                      again.circuit.terms_per_row == m.circuit.terms_per_row &&
                      again.circuit.kind == m.circuit.kind && again.circuit.profile == m.circuit.profile &&
                      again.circuit.public_inputs == m.circuit.public_inputs &&
                      again.circuit.boolean_share == m.circuit.boolean_share && again.circuit.seed == m.circuit.seed &&
                      again.circuit.zkey == m.circuit.zkey && again.circuit.witnesses == m.circuit.witnesses &&
                      again.setup.seed == m.setup.seed && again.setup.cache_dir == m.setup.cache_dir &&
                      again.proof.system == m.proof.system && again.proof.randomness == m.proof.randomness &&
                      again.pipeline.synthesis_workers == m.pipeline.synthesis_workers &&
                      again.pipeline.prove_workers == m.pipeline.prove_workers &&
                      again.pipeline.queue_depth == m.pipeline.queue_depth &&
                      again.pipeline.on_error == m.pipeline.on_error &&
                      again.pipeline.replay_inputs == m.pipeline.replay_inputs &&
                      again.pipeline.finalize_workers == m.pipeline.finalize_workers &&
                      again.pipeline.devices == m.pipeline.devices &&
                      again.backend.name == m.backend.name && again.backend.options == m.backend.options &&
                      again.backend.options_by_backend == m.backend.options_by_backend &&
                      again.output.db == m.output.db && again.output.tags == m.output.tags &&
                      again.verify.mode == m.verify.mode && again.verify.every == m.verify.every &&
                      again.finalize.malloc_trim == m.finalize.malloc_trim;
    if (!same) invariant_broken("to_toml -> parse_manifest changed the manifest:\n" + text);
}

}  // namespace zkbatch::fuzz
