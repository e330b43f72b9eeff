// A job manifest: what to prove, how, with which backend, and where to record it.
// One Manifest exists per `zkbatch run`/`validate`, loaded from TOML and then
// overridden by `--set KEY=VALUE`. Every field here has a manifest key of the
// same name (docs/manifest.md).
#pragma once

#include "core/curve/curve_id.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace zkbatch {

// verify.mode: the pairing equation of each proof ("proof", the default for Groth16),
// the quotient's polynomial identity on every partition or every k-th, or nothing.
enum class VerifyMode { proof, identity, sampled, none };
// What a partition proves (proof.system): a whole Groth16 proof, or the quotient alone.
enum class ProofSystem { groth16, quotient };
// Where a Groth16 circuit comes from (circuit.kind).
enum class CircuitKind { synthetic, zkey };
// A synthetic Groth16 circuit's shape (circuit.profile): uniform rows, or a Filecoin PoRep
// partition's layout (docs/porep.md).
enum class CircuitProfile { uniform, porep };
// Where a proof's blinding r, s comes from (proof.randomness): the job seed and the
// partition (every backend then makes the same bytes), or the operating system.
enum class ProofRandomness { derived, random };
// Where a seeded proving key comes from (setup.key): the key cache (a file made once and
// mapped by every run), or the backend, which makes it in its own memory each run.
enum class KeySource { cache, backend };

// pipeline.devices: the devices a run proves on. Each gets its own backend instance
// (created with the option device=<index>) and pipeline.prove_workers workers.
struct DeviceChoice {
    bool all = false;               // "all": every device the backend reports (device_count)
    std::vector<uint32_t> indices;  // a list; empty and !all: key not given, one backend
                                    // created with the options as they are
    bool given() const { return all || !indices.empty(); }
    bool operator==(const DeviceChoice&) const = default;
};
enum class OnPartitionError { stop, continue_run };

struct Manifest {
    struct Job {
        std::string name;
        uint32_t partitions = 1;
        uint64_t seed = 1;
    } job;
    struct Circuit {
        CircuitKind kind = CircuitKind::synthetic;
        CircuitProfile profile = CircuitProfile::uniform;
        uint32_t log_n = 16;         // 1..28; for a .zkey, its domain (filled in when the run is planned)
        uint32_t terms_per_row = 4;  // linear-combination terms per A/B row; 0 with the porep profile (fixed rows)
        // The synthetic R1CS of Groth16 jobs (circuit/synthetic_r1cs.hpp); the defaults are
        // close to a Filecoin PoRep partition: one variable per constraint, mostly bits.
        // The porep profile's defaults are its own: 327 inputs, its estimated bit share.
        uint32_t public_inputs = 1;
        double boolean_share = 0.9;  // share of constraint rows that are boolean (0/1 witness values);
                                     // porep: share of private variables that are bits
        uint64_t seed = 1;           // the circuit's own seed: its matrices (the job seed draws witnesses)
        // kind = "zkey": a snarkjs proving key and the witnesses, one partition per file.
        std::string zkey;
        std::vector<std::string> witnesses;     // globs or files, as given
        std::vector<std::string> witness_files; // what they match, sorted: filled when the run is planned
        // circuit.curve, when given; a .zkey job's is its key's (filled, or checked, when the
        // run is planned). None given: BLS12-381 for a synthetic circuit.
        std::optional<curve::CurveId> curve;
        curve::CurveId curve_or_default() const { return curve.value_or(curve::CurveId::bls12_381); }
    } circuit;
    struct Setup {                   // the seeded key of a synthetic Groth16 circuit
        uint64_t seed = 1;           // tau, alpha, beta, gamma, delta come from it: for measurement only
        std::string cache_dir = "cache/keys";
        KeySource key = KeySource::cache;
    } setup;
    struct Proof {
        ProofSystem system = ProofSystem::groth16;
        ProofRandomness randomness = ProofRandomness::derived;  // "random" is the default for a .zkey
    } proof;
    struct Pipeline {
        uint32_t synthesis_workers = 1;
        uint32_t prove_workers = 1;   // per device
        DeviceChoice devices;
        uint32_t queue_depth = 2;     // synthesized partitions waiting for a prove worker
        uint32_t finalize_workers = 2; // threads verifying, digesting and recording proved partitions
        OnPartitionError on_error = OnPartitionError::stop;  // key: on_error = "stop" | "continue"
        uint32_t replay_inputs = 0;   // 0: synthesize every partition; k>0: synthesize k input sets once, replay them
    } pipeline;
    struct Backend {
        std::string name = "auto";    // "auto" = a GPU backend when a GPU is usable, else cpu-ref
        // [backend.options] as newline-separated "key=value" lines, keys sorted,
        // strings unquoted; passed through to the plugin untouched.
        std::string options;
        // [backend.options.<name>] tables: options for the backend of that name only,
        // in the same form. They add to (and override) `options` for that backend.
        std::map<std::string, std::string> options_by_backend;
        // What the plugin `backend_name` is created with.
        std::string options_for(const std::string& backend_name) const;
    } backend;
    struct Output {
        std::string db = "results/zkbatch.db";
        std::map<std::string, std::string> tags;  // free-form, values as text
    } output;
    struct Verify {
        VerifyMode mode = VerifyMode::proof;  // "identity" is the default for proof.system = "quotient"
        uint32_t every = 1;           // with mode = proof or sampled: verify every k-th partition
    } verify;
    struct Finalize {
        bool malloc_trim = false;
    } finalize;

    // Keys given a list of values (`backend.name = ["cuda-pinned", "cuda-pageable"]`,
    // `circuit.log_n = [20, 24]`): an experiment with one arm per combination. The
    // fields above then hold each axis's first value. Empty for a plain job.
    struct Axis {
        std::string key;                  // dotted, e.g. "circuit.log_n"
        std::vector<std::string> values;  // as TOML text, e.g. "24" or "\"cuda-pinned\""
    };
    std::vector<Axis> axes;

    std::filesystem::path source_path;  // the file it came from
    std::string source_text;            // the file's bytes, as read
    std::vector<std::string> overrides; // the --set KEY=VALUE arguments applied, in order
};

// The longest job name, tag name or backend option name (a job name names Slurm jobs
// and folders), and the longest text value (a path, a tag's or option's value):
// refused where they are read, so nothing downstream meets a 100 KB name.
inline constexpr size_t kMaxNameBytes = 128;
// The most partitions a job proves (job.partitions, or a .zkey job's witness files).
inline constexpr uint32_t kMaxPartitions = 1'000'000;
inline constexpr size_t kMaxTextBytes = 4096;

// A manifest problem the user can fix: where, what, and what to do.
struct ManifestError : std::runtime_error {
    std::string path;        // file, or "--set" for an override
    uint32_t line = 0;       // 1-based; 0 when unknown
    uint32_t column = 0;     // 1-based; 0 when unknown
    std::string key;         // dotted key, e.g. "circuit.log_n"; empty when not about a key
    // Full message: "jobs/x.toml:3:1: circuit.log_nn: unknown key; did you mean 'circuit.log_n'?"
    // Without a position: "--set: circuit.log_n: must be in 1..28, found 40 (from --set circuit.log_n=40)"
    ManifestError(std::string path, uint32_t line, uint32_t column, std::string key,
                  const std::string& what);
};

// Reads and parses a manifest, applies `overrides` ("circuit.log_n=12"; the value is
// parsed as a TOML value, falling back to a bare string) to the parsed tree, then
// validates the result, so an override gets exactly the checks a file value gets.
// Throws ManifestError; an unreadable file is reported with line 0.
Manifest load_manifest(const std::filesystem::path& path,
                       const std::vector<std::string>& overrides = {});

// Same, from text already in memory (tests, fuzzing). `path` is used in messages only.
Manifest parse_manifest(std::string_view text, const std::string& path,
                        const std::vector<std::string>& overrides = {});

// The pipeline settings a run row records since schema v4 (run.replay_inputs,
// finalize_workers, verify_every, on_error), for a run recorded before it: read from its
// stored manifest text and --set overrides with TOML++ alone, keys not given taking
// Manifest's defaults, without validation, so a manifest that this zkbatch's validator
// refuses (a key removed since, say) still gives them. Empty when the text or an
// override is not TOML, or one of these keys has a value of the wrong type or range.
// The schema v4 migration uses it once per old run; nothing else needs it.
struct RecordedRunSettings {
    uint32_t replay_inputs = 0;
    uint32_t finalize_workers = 0;
    uint32_t verify_every = 0;
    OnPartitionError on_error = OnPartitionError::stop;
};
std::optional<RecordedRunSettings> read_recorded_run_settings(std::string_view manifest_text,
                                                              const std::vector<std::string>& overrides);

// One arm of an experiment: the manifest with one value of every axis.
struct Arm {
    std::string label;                    // "backend.name=\"cuda-pinned\" circuit.log_n=24"; empty for a plain job
    std::vector<std::string> overrides;   // the axis values, as --set arguments
    Manifest manifest;                    // without axes
};

// Every combination of the manifest's axes, first axis slowest; one arm for a plain job.
std::vector<Arm> expand_arms(const Manifest& manifest);

// `text` as a TOML basic string ("..." with escapes): for building --set values.
std::string toml_quoted(std::string_view text);

const char* to_string(VerifyMode mode);        // "proof", "identity", "sampled", "none"
const char* to_string(ProofSystem system);     // "groth16", "quotient"
const char* to_string(CircuitKind kind);       // "synthetic", "zkey"
const char* to_string(CircuitProfile profile); // "uniform", "porep"
const char* to_string(ProofRandomness randomness);  // "derived", "random"
const char* to_string(KeySource source);            // "cache", "backend"
const char* to_string(OnPartitionError mode);  // "stop", "continue" (the manifest spelling)

// One line about the job for logs and `zkbatch validate`: "job 'smoke': 4 partitions of
// 2^12 (4 terms/row), backend auto, verify identity", and the arms of an experiment.
std::string describe_job(const Manifest& manifest);

// The effective manifest (defaults filled in, overrides applied) as TOML text that
// parse_manifest accepts, for `zkbatch validate` and for logs. backend.options values
// are written as strings: the plugin receives text either way.
std::string to_toml(const Manifest& manifest);

}  // namespace zkbatch
