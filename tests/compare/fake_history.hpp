// Doctored timing databases for compare_tests: runs written through the real Store with
// partition timings chosen by the test, so statistics, selectors and the gate can be
// checked on known data instead of on a loaded machine's noise.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zkbatch::testing {

struct FakeRun {
    std::string job = "nightly";
    std::string backend = "cpu-ref";
    std::string curve = "bls12-381";
    uint64_t seed = 1;
    uint32_t log_n = 12, terms_per_row = 4, synthesis_workers = 1, prove_workers = 1;
    RunStatus status = RunStatus::ok;
    std::optional<int64_t> experiment_id;
    std::string arm;
    std::map<std::string, std::string> tags, facts;
    std::string manifest_text;  // default: a minimal valid manifest of the job
    // run.replay_inputs; empty: NULL, as for a run recorded before schema 4 whose
    // manifest the migration could not read.
    std::optional<uint32_t> replay_inputs = 0;
    // Whole-partition times in ms, one per partition: synth takes 40% of it, prove 50%,
    // finalize 10%, laid end to end, so the derived 'partition' phase equals it.
    std::vector<double> partition_ms;
    // Digests by partition index; default: one derived from seed, log_n, terms and index.
    std::map<uint64_t, std::string> digest_overrides;
};

// The digest a correct run records for partition `index` (a stand-in: 32 hex digits).
std::string fake_digest(const FakeRun& run, uint64_t index);

int64_t add_run(Store& store, const FakeRun& run);

// `count` values around `centre_ms`, spread +-spread_fraction, from a fixed seed.
std::vector<double> noisy(size_t count, double centre_ms, double spread_fraction, uint64_t seed);

// An RFC 4180 reader, written for the tests: rows of fields, "" inside quoted fields.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

}  // namespace zkbatch::testing
