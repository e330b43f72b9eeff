// Manifest loading: shipped jobs validate, defaults, options serialization, --set
// overrides, and every malformed manifest in bad/ fails where and how we expect.
#include "manifest/manifest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using zkbatch::load_manifest;
using zkbatch::Manifest;
using zkbatch::ManifestError;
using zkbatch::OnPartitionError;
using zkbatch::parse_manifest;
using zkbatch::VerifyMode;
using zkbatch::Arm;
using zkbatch::CircuitKind;
using zkbatch::expand_arms;
using zkbatch::ProofRandomness;
using zkbatch::KeySource;
using zkbatch::ProofSystem;

namespace {

const fs::path kSourceDir = ZKBATCH_SOURCE_DIR;
const fs::path kTestDir = kSourceDir / "tests" / "manifest";
const fs::path kBadDir = kTestDir / "bad";

// Runs `load` and returns the ManifestError it throws; fails the test if none.
template <typename Load>
ManifestError expect_error(Load&& load) {
    try {
        load();
    } catch (const ManifestError& e) {
        return e;
    }
    ADD_FAILURE() << "expected a ManifestError";
    return ManifestError("", 0, 0, "", "none thrown");
}

std::vector<fs::path> toml_files(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".toml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

// --- Shipped jobs -------------------------------------------------------------------

TEST(ShippedJobs, EveryJobValidates) {
    const auto jobs = toml_files(kSourceDir / "jobs");
    ASSERT_GE(jobs.size(), 3u);
    for (const fs::path& job : jobs) {
        SCOPED_TRACE(job.string());
        EXPECT_NO_THROW(load_manifest(job));
    }
}

TEST(ShippedJobs, SmokeIsSmall) {
    const Manifest m = load_manifest(kSourceDir / "jobs" / "smoke.toml");
    EXPECT_EQ(m.job.name, "smoke");
    EXPECT_EQ(m.job.partitions, 4u);
    EXPECT_EQ(m.circuit.log_n, 12u);
    EXPECT_EQ(m.backend.name, "auto");
    EXPECT_EQ(m.verify.mode, VerifyMode::proof);
}

TEST(ShippedJobs, DefaultUsesAutoBackend) {
    const Manifest m = load_manifest(kSourceDir / "jobs" / "default.toml");
    EXPECT_EQ(m.job.name, "default");
    EXPECT_EQ(m.backend.name, "auto");
    EXPECT_EQ(m.backend.options, "");
    EXPECT_LE(m.circuit.log_n, 18u);  // must stay cpu-ref friendly
}

TEST(ShippedJobs, Porep32gHasTheProductionShape) {
    const Manifest m = load_manifest(kSourceDir / "jobs" / "porep-32g.toml");
    EXPECT_EQ(m.job.partitions, 10u);
    EXPECT_EQ(m.circuit.log_n, 27u);
    EXPECT_EQ(m.backend.name, "cuda-pinned");
    EXPECT_EQ(m.backend.options, "");  // the pool is cuda-pinned's: a pageable arm's run takes none
    EXPECT_EQ(m.backend.options_for("cuda-pinned"), "pool_sets=3");
    EXPECT_EQ(m.backend.options_for("cuda-pageable"), "");
    EXPECT_EQ(m.verify.mode, VerifyMode::proof);
    EXPECT_EQ(m.setup.key, KeySource::backend);  // a 2^27 key file would be 75 GB
    EXPECT_EQ(m.circuit.profile, zkbatch::CircuitProfile::porep);
    EXPECT_EQ(m.circuit.public_inputs, 327u);  // the published partition's
    EXPECT_EQ(m.pipeline.prove_workers, 1u);     // one worker beside the key on an H200
    EXPECT_EQ(m.pipeline.queue_depth, 1u);
    EXPECT_EQ(m.pipeline.replay_inputs, 0u);
    EXPECT_TRUE(m.finalize.malloc_trim);
}

// --- Defaults and values ---------------------------------------------------------------

TEST(Manifest, DefaultsFillEveryOmittedKey) {
    const Manifest m = parse_manifest("[job]\nname = \"x\"\n", "x.toml");
    EXPECT_EQ(m.job.name, "x");
    EXPECT_EQ(m.job.partitions, 1u);
    EXPECT_EQ(m.job.seed, 1u);
    EXPECT_EQ(m.circuit.log_n, 16u);
    EXPECT_EQ(m.circuit.terms_per_row, 4u);
    EXPECT_EQ(m.circuit.kind, CircuitKind::synthetic);
    EXPECT_EQ(m.circuit.public_inputs, 1u);
    EXPECT_EQ(m.circuit.boolean_share, 0.9);
    EXPECT_EQ(m.circuit.seed, 1u);
    EXPECT_TRUE(m.circuit.zkey.empty());
    EXPECT_TRUE(m.circuit.witnesses.empty());
    EXPECT_EQ(m.setup.seed, 1u);
    EXPECT_EQ(m.setup.cache_dir, "cache/keys");
    EXPECT_EQ(m.setup.key, KeySource::cache);
    EXPECT_EQ(m.proof.system, ProofSystem::groth16);
    EXPECT_EQ(m.proof.randomness, ProofRandomness::derived);
    EXPECT_EQ(m.pipeline.synthesis_workers, 1u);
    EXPECT_EQ(m.pipeline.prove_workers, 1u);
    EXPECT_EQ(m.pipeline.queue_depth, 2u);
    EXPECT_EQ(m.pipeline.finalize_workers, 2u);
    EXPECT_EQ(m.pipeline.on_error, OnPartitionError::stop);
    EXPECT_EQ(m.pipeline.replay_inputs, 0u);
    EXPECT_EQ(m.backend.name, "auto");
    EXPECT_EQ(m.backend.options, "");
    EXPECT_EQ(m.output.db, "results/zkbatch.db");
    EXPECT_TRUE(m.output.tags.empty());
    EXPECT_EQ(m.verify.mode, VerifyMode::proof);  // Groth16 partitions are checked by their proofs
    EXPECT_EQ(m.verify.every, 1u);
    EXPECT_FALSE(m.finalize.malloc_trim);
    EXPECT_EQ(m.source_path, fs::path("x.toml"));
    EXPECT_EQ(m.source_text, "[job]\nname = \"x\"\n");
    EXPECT_TRUE(m.overrides.empty());
}

TEST(Manifest, ReadsEveryKey) {
    const Manifest m = parse_manifest(R"([job]
name = "nightly.v2_x-1"
partitions = 1000000
seed = 9223372036854775807
[circuit]
log_n = 28
terms_per_row = 1024
public_inputs = 300
boolean_share = 0.25
seed = 77
[setup]
seed = 12
cache_dir = "/var/cache/zkbatch"
[proof]
randomness = "random"
[pipeline]
synthesis_workers = 256
prove_workers = 64
queue_depth = 1024
finalize_workers = 64
on_error = "continue"
replay_inputs = 3
[backend]
name = "/opt/zkbatch/libzkb_custom.so"
[output]
db = "/tmp/z.db"
[output.tags]
arm = "pinned"
nightly = true
[verify]
mode = "sampled"
every = 7
[finalize]
malloc_trim = true
)",
                                      "x.toml");
    EXPECT_EQ(m.job.name, "nightly.v2_x-1");
    EXPECT_EQ(m.job.partitions, 1000000u);
    EXPECT_EQ(m.job.seed, 9223372036854775807ull);
    EXPECT_EQ(m.circuit.log_n, 28u);
    EXPECT_EQ(m.circuit.terms_per_row, 1024u);
    EXPECT_EQ(m.circuit.public_inputs, 300u);
    EXPECT_EQ(m.circuit.boolean_share, 0.25);
    EXPECT_EQ(m.circuit.seed, 77u);
    EXPECT_EQ(m.setup.seed, 12u);
    EXPECT_EQ(m.setup.cache_dir, "/var/cache/zkbatch");
    EXPECT_EQ(m.proof.randomness, ProofRandomness::random);
    EXPECT_EQ(m.pipeline.synthesis_workers, 256u);
    EXPECT_EQ(m.pipeline.prove_workers, 64u);
    EXPECT_EQ(m.pipeline.queue_depth, 1024u);
    EXPECT_EQ(m.pipeline.finalize_workers, 64u);
    EXPECT_EQ(m.pipeline.on_error, OnPartitionError::continue_run);
    EXPECT_EQ(m.pipeline.replay_inputs, 3u);
    EXPECT_EQ(m.backend.name, "/opt/zkbatch/libzkb_custom.so");
    EXPECT_EQ(m.output.db, "/tmp/z.db");
    EXPECT_EQ(m.output.tags, (std::map<std::string, std::string>{{"arm", "pinned"}, {"nightly", "true"}}));
    EXPECT_EQ(m.verify.mode, VerifyMode::sampled);
    EXPECT_EQ(m.verify.every, 7u);
    EXPECT_TRUE(m.finalize.malloc_trim);
}

TEST(Manifest, EnumNames) {
    EXPECT_STREQ(zkbatch::to_string(VerifyMode::proof), "proof");
    EXPECT_STREQ(zkbatch::to_string(VerifyMode::identity), "identity");
    EXPECT_STREQ(zkbatch::to_string(ProofSystem::groth16), "groth16");
    EXPECT_STREQ(zkbatch::to_string(ProofSystem::quotient), "quotient");
    EXPECT_STREQ(zkbatch::to_string(CircuitKind::zkey), "zkey");
    EXPECT_STREQ(zkbatch::to_string(ProofRandomness::random), "random");
    EXPECT_STREQ(zkbatch::to_string(VerifyMode::sampled), "sampled");
    EXPECT_STREQ(zkbatch::to_string(VerifyMode::none), "none");
    EXPECT_STREQ(zkbatch::to_string(OnPartitionError::stop), "stop");
    EXPECT_STREQ(zkbatch::to_string(OnPartitionError::continue_run), "continue");
}

TEST(Manifest, OptionsAreSortedKeyValueLinesInTomlTextForm) {
    // Written out of order, with every scalar type; hex ints come out in decimal,
    // floats in their shortest round-tripping TOML spelling, strings unquoted.
    const Manifest m = parse_manifest(R"([job]
name = "x"
[backend.options]
zeta = "text with spaces = and equals"
alpha = 3
hex = 0x10
neg = -7
beta = 0.1
delta = 2.0
eps = 1e300
inf = -inf
gamma = true
off = false
when = 1979-05-27
)",
                                      "x.toml");
    EXPECT_EQ(m.backend.options,
              "alpha=3\nbeta=0.1\ndelta=2.0\neps=1e+300\ngamma=true\nhex=16\ninf=-inf\nneg=-7\noff=false\n"
              "when=1979-05-27\nzeta=text with spaces = and equals");
}

TEST(Manifest, TagValuesAreStoredAsText) {
    const Manifest m = parse_manifest(R"([job]
name = "x"
[output.tags]
"with space" = """multi
line"""
count = 12
ratio = 1.5
)",
                                      "x.toml");
    EXPECT_EQ(m.output.tags,
              (std::map<std::string, std::string>{{"count", "12"}, {"ratio", "1.5"}, {"with space", "multi\nline"}}));
}

// --- Error messages ---------------------------------------------------------------------

TEST(ManifestError, MessageFormat) {
    const ManifestError e = expect_error(
        [] { parse_manifest("[job]\nname = \"x\"\n[circuit]\nlog_nn = 3\n", "jobs/x.toml"); });
    EXPECT_STREQ(e.what(), "jobs/x.toml:4:1: circuit.log_nn: unknown key; did you mean 'circuit.log_n'?");
    EXPECT_EQ(e.path, "jobs/x.toml");
    EXPECT_EQ(e.line, 4u);
    EXPECT_EQ(e.column, 1u);
    EXPECT_EQ(e.key, "circuit.log_nn");

    const ManifestError set = expect_error([] { parse_manifest("[job]\nname = \"x\"\n", "x.toml", {"circuit.log_n=40"}); });
    EXPECT_STREQ(set.what(), "--set: circuit.log_n: must be in 1..28, found 40 (from --set circuit.log_n=40)");
}

TEST(ManifestError, MissingFileHasLineZero) {
    const fs::path missing = kTestDir / "no-such-manifest.toml";
    const ManifestError e = expect_error([&] { load_manifest(missing); });
    EXPECT_EQ(e.path, missing.string());
    EXPECT_EQ(e.line, 0u);
    EXPECT_EQ(e.column, 0u);
    EXPECT_NE(std::string(e.what()).find("cannot open the manifest"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
}

TEST(ManifestError, DirectoryIsNotAManifest) {
    const ManifestError e = expect_error([&] { load_manifest(kBadDir); });
    EXPECT_EQ(e.line, 0u);
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
}

// One malformed manifest (a file in bad/, or base.toml with overrides) and where and how
// it must fail. line/column 0 with path "--set" means the error names an override.
struct BadCase {
    std::string file;  // in bad/, or "base.toml" in tests/manifest/
    std::vector<std::string> overrides;
    bool at_override;  // error path is "--set" rather than the file
    uint32_t line;
    uint32_t column;
    std::string key;
    std::string fragment;  // must appear in what()
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.file << (c.overrides.empty() ? "" : " --set ...") ; }

class BadManifest : public testing::TestWithParam<BadCase> {};

TEST_P(BadManifest, FailsWithPositionKeyAndMessage) {
    const BadCase& c = GetParam();
    const fs::path path = c.file == "base.toml" ? kTestDir / c.file : kBadDir / c.file;
    const ManifestError e = expect_error([&] { load_manifest(path, c.overrides); });
    SCOPED_TRACE(e.what());
    EXPECT_EQ(e.path, c.at_override ? "--set" : path.string());
    EXPECT_EQ(e.line, c.line);
    EXPECT_EQ(e.column, c.column);
    EXPECT_EQ(e.key, c.key);
    EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos) << "missing: " << c.fragment;
}

const std::vector<BadCase> kBadCases = {
    // TOML syntax, reported with TOML++'s own description and position.
    {"syntax_error.toml", {}, false, 2, 5, "", "Error while parsing table header: expected ']'"},
    {"unterminated_string.toml", {}, false, 3, 10, "", "Error while parsing string"},
    {"duplicate_key.toml", {}, false, 7, 9, "", "cannot redefine existing integer 'log_n'"},
    // Unknown tables and keys.
    {"unknown_key.toml", {}, false, 5, 1, "circuit.log_nn", "unknown key; did you mean 'circuit.log_n'?"},
    {"unknown_key_far.toml", {}, false, 5, 1, "circuit.frobnicate",
     "unknown key; known keys of [circuit]: kind, curve, profile, log_n, terms_per_row, public_inputs, boolean_share, seed, "
     "zkey, witnesses"},
    {"key_in_wrong_table.toml", {}, false, 4, 1, "job.log_n", "unknown key; did you mean 'circuit.log_n'?"},
    {"key_above_tables.toml", {}, false, 2, 1, "log_n", "did you mean 'circuit.log_n'? (it belongs under [circuit])"},
    {"unknown_table.toml", {}, false, 2, 2, "jobs", "unknown table; did you mean 'job'?"},
    {"unknown_table_far.toml", {}, false, 5, 2, "gpu", "unknown table; known tables: job, circuit, setup, proof, pipeline"},
    // Types.
    {"table_is_scalar.toml", {}, false, 2, 11, "circuit", "expected a table, found an integer"},
    {"wrong_type.toml", {}, false, 5, 9, "circuit.log_n", "expected an integer, found a string"},
    {"float_for_integer.toml", {}, false, 5, 15, "pipeline.queue_depth",
     "expected an integer, found a floating-point number"},
    {"wrong_type_bool.toml", {}, false, 5, 15, "finalize.malloc_trim",
     "expected a boolean (true or false), found a string"},
    // Ranges and choices.
    {"out_of_range_low.toml", {}, false, 4, 14, "job.partitions", "must be in 1..1000000, found 0"},
    {"out_of_range_high.toml", {}, false, 5, 9, "circuit.log_n", "must be in 1..28, found 29"},
    {"negative_seed.toml", {}, false, 4, 8, "job.seed", "must be in 0..2^63-1, found -1"},
    {"bad_enum.toml", {}, false, 5, 8, "verify.mode",
     "\"full\" is not a valid choice; use one of \"proof\", \"identity\", \"sampled\", \"none\""},
    {"bad_on_error.toml", {}, false, 5, 12, "pipeline.on_error", "use one of \"stop\", \"continue\""},
    // Required and non-empty strings.
    {"missing_job_name.toml", {}, false, 3, 1, "job.name", "required key is missing"},
    {"missing_job_table.toml", {}, false, 1, 1, "job.name", "required key is missing"},
    {"empty_job_name.toml", {}, false, 3, 8, "job.name", "must not be empty"},
    {"bad_job_name.toml", {}, false, 3, 8, "job.name", "\"my job\" contains a space"},
    {"empty_backend_name.toml", {}, false, 5, 8, "backend.name", "must not be empty; use \"auto\""},
    // backend.options and output.tags.
    {"non_scalar_option.toml", {}, false, 5, 13, "backend.options.pool_sets", "expected a scalar"},
    {"multiline_option.toml", {}, false, 5, 8, "backend.options.note", "must be a single line"},
    {"bad_option_name.toml", {}, false, 5, 1, "backend.options.a=b", "option names may use only"},
    {"non_scalar_tag.toml", {}, false, 5, 7, "output.tags.arm", "expected a scalar (string, integer, float, boolean or date), found a table"},
    // A file error stays at the file even when overrides are given.
    {"wrong_type.toml", {"circuit.terms_per_row=2"}, false, 5, 9, "circuit.log_n", "expected an integer"},
    // Malformed overrides.
    {"base.toml", {"circuit.log_n"}, true, 0, 0, "", "'circuit.log_n': no '='; expected KEY=VALUE"},
    {"base.toml", {"=12"}, true, 0, 0, "", "missing key before '='"},
    {"base.toml", {"circuit..log_n=3"}, true, 0, 0, "", "has an empty or invalid part"},
    // Overridden values get the file's checks, and errors name the override.
    {"base.toml", {"circuit.log_nn=12"}, true, 0, 0, "circuit.log_nn",
     "unknown key; did you mean 'circuit.log_n'? (from --set circuit.log_nn=12)"},
    {"base.toml", {"gpu.device=0"}, true, 0, 0, "gpu", "unknown table"},
    {"base.toml", {"circuit.log_n=40"}, true, 0, 0, "circuit.log_n", "must be in 1..28, found 40 (from --set circuit.log_n=40)"},
    {"base.toml", {"job.partitions=many"}, true, 0, 0, "job.partitions", "expected an integer, found a string"},
    {"base.toml", {"job.name=2024-06-01"}, true, 0, 0, "job.name",
     "found a date; to pass it as text, quote it: --set 'job.name=\"2024-06-01\"'"},
    {"base.toml", {"verify.mode=full"}, true, 0, 0, "verify.mode", "not a valid choice"},
    {"base.toml", {"job=3"}, true, 0, 0, "job", "expected a table, found an integer (from --set job=3)"},
    {"base.toml", {"job.name.x=1"}, true, 0, 0, "job.name", "expected a string, found a table"},
    {"base.toml", {"backend.options.pool_sets=[1, 2]"}, true, 0, 0, "backend.options.pool_sets",
     "expected a scalar"},
    {"base.toml", {"output.tags.arm={a = 1}"}, true, 0, 0, "output.tags.arm", "found a table"},
    {"base.toml", {"backend.option.pool_sets=3"}, true, 0, 0, "backend.option",
     "unknown key; did you mean 'backend.options'?"},
    // Not valid UTF-8 either as TOML or as a string.
    {"base.toml", {"job.name=\xff"}, true, 0, 0, "job.name", "is it valid UTF-8?"},
    // A value that would smuggle in a second key is taken as one (invalid) string.
    {"base.toml", {"job.name=x\nseed = 5"}, true, 0, 0, "job.name", "contains a control character"},
    // Groth16 keys: each kind of circuit takes its own keys, and each check needs its proof.
    {"base.toml", {"circuit.boolean_share=1.5"}, true, 0, 0, "circuit.boolean_share", "must be in 0..1, found 1.5"},
    {"base.toml", {"circuit.boolean_share=\"half\""}, true, 0, 0, "circuit.boolean_share",
     "expected a number in 0..1, found a string"},
    {"base.toml", {"circuit.public_inputs=-1"}, true, 0, 0, "circuit.public_inputs", "must be in 0..268435455"},
    {"base.toml", {"circuit.kind=\"r1cs\""}, true, 0, 0, "circuit.kind", "use one of \"synthetic\", \"zkey\""},
    {"base.toml", {"circuit.zkey=\"c.zkey\""}, true, 0, 0, "circuit.zkey", "applies to circuit.kind = \"zkey\""},
    {"base.toml", {"circuit.kind=\"zkey\"", "circuit.zkey=\"c.zkey\"", "circuit.witnesses=\"w/*.wtns\""}, false, 6, 9,
     "circuit.log_n", "applies to synthetic circuits"},
    {"base.toml", {"proof.system=\"stark\""}, true, 0, 0, "proof.system", "use one of \"groth16\", \"quotient\""},
    {"base.toml", {"proof.system=\"quotient\"", "verify.mode=\"proof\""}, true, 0, 0, "verify.mode",
     "proof.system = \"quotient\" makes none"},
    {"base.toml", {"proof.system=\"quotient\"", "circuit.boolean_share=0.5"}, true, 0, 0, "circuit.boolean_share",
     "applies to Groth16 circuits"},
    // circuit.curve: a synthetic circuit over BN254 is uniform and proves Groth16.
    {"base.toml", {"circuit.curve=\"bn255\""}, true, 0, 0, "circuit.curve",
     "\"bn255\" is not a curve zkbatch proves: give \"bls12-381\" or \"bn254\""},
    {"base.toml", {"proof.system=\"quotient\"", "verify.mode=\"identity\"", "circuit.curve=\"bn254\""}, true, 0, 0,
     "circuit.curve", "proof.system = \"quotient\" is BLS12-381's; a bn254 job proves Groth16"},
    {"base.toml", {"circuit.profile=\"porep\"", "circuit.log_n=20", "circuit.curve=\"bn128\""}, true, 0, 0,
     "circuit.curve", "circuit.profile = \"porep\" is BLS12-381's; a bn254 synthetic circuit takes the uniform profile"},
    {"base.toml", {"setup.cache_dir=\"\""}, true, 0, 0, "setup.cache_dir", "must not be empty"},
    {"base.toml", {"setup.key=\"disk\""}, true, 0, 0, "setup.key", "use one of \"cache\", \"backend\""},
    {"zkey_backend_key.toml", {}, false, 11, 7, "setup.key", "a .zkey circuit proves with its ceremony's key"},
    {"base.toml", {"proof.randomness=\"fixed\""}, true, 0, 0, "proof.randomness", "use one of \"derived\", \"random\""},
    // The first failing override is reported even after good ones.
    {"base.toml", {"circuit.log_n=12", "pipeline.prove_workers=0"}, true, 0, 0, "pipeline.prove_workers",
     "must be in 1..64, found 0 (from --set pipeline.prove_workers=0)"},
};

INSTANTIATE_TEST_SUITE_P(Cases, BadManifest, testing::ValuesIn(kBadCases));

TEST(BadManifest, EveryFileInBadDirHasACase) {
    std::set<std::string> covered;
    for (const BadCase& c : kBadCases) covered.insert(c.file);
    for (const fs::path& file : toml_files(kBadDir))
        EXPECT_TRUE(covered.count(file.filename().string())) << file << " is not in kBadCases";
}

// --- Overrides that succeed ------------------------------------------------------------

TEST(Override, BareStringAndTypedValues) {
    const Manifest m = load_manifest(kTestDir / "base.toml",
                                     {"job.name=nightly", "circuit.log_n=20", "finalize.malloc_trim=true",
                                      "verify.mode=sampled", " verify.every = 4 ", "job.seed=0"});
    EXPECT_EQ(m.job.name, "nightly");
    EXPECT_EQ(m.circuit.log_n, 20u);
    EXPECT_TRUE(m.finalize.malloc_trim);
    EXPECT_EQ(m.verify.mode, VerifyMode::sampled);
    EXPECT_EQ(m.verify.every, 4u);
    EXPECT_EQ(m.job.seed, 0u);
}

TEST(Override, QuotedValueStaysAString) {
    const Manifest m = load_manifest(kTestDir / "base.toml", {"job.name=\"2024-06-01\""});
    EXPECT_EQ(m.job.name, "2024-06-01");
}

TEST(Override, FixesAnInvalidFileValue) {
    // bad/out_of_range_high.toml has log_n = 29; the override replaces it before validation.
    const Manifest m = load_manifest(kBadDir / "out_of_range_high.toml", {"circuit.log_n=20"});
    EXPECT_EQ(m.circuit.log_n, 20u);
}

TEST(Override, SuppliesAMissingRequiredKey) {
    const Manifest m = load_manifest(kBadDir / "missing_job_table.toml", {"job.name=late"});
    EXPECT_EQ(m.job.name, "late");
    EXPECT_EQ(m.circuit.log_n, 12u);
}

TEST(Override, NestedOptionsMergeWithTheFile) {
    const Manifest m = load_manifest(kTestDir / "base.toml",
                                     {"backend.options.pool_sets=3", "backend.options.mode=fast", "backend.name=cuda-pinned"});
    EXPECT_EQ(m.backend.name, "cuda-pinned");
    EXPECT_EQ(m.backend.options, "mode=fast\npool_sets=3");
}

TEST(Override, OptionsCreatedWhenTheFileHasNone) {
    const Manifest m = parse_manifest("[job]\nname = \"x\"\n", "x.toml", {"backend.options.pool_sets=4"});
    EXPECT_EQ(m.backend.options, "pool_sets=4");
}

TEST(Override, TagsMergeWithTheFile) {
    const Manifest m = load_manifest(kTestDir / "base.toml", {"output.tags.arm=pinned", "output.tags.run=7"});
    EXPECT_EQ(m.output.tags,
              (std::map<std::string, std::string>{{"arm", "pinned"}, {"owner", "tests"}, {"run", "7"}}));
}

TEST(Override, LaterOverrideWins) {
    const Manifest m = load_manifest(kTestDir / "base.toml", {"circuit.log_n=11", "circuit.log_n=13"});
    EXPECT_EQ(m.circuit.log_n, 13u);
}

TEST(Override, EmptyValueIsAnEmptyString) {
    const Manifest m = load_manifest(kTestDir / "base.toml", {"output.tags.note="});
    EXPECT_EQ(m.output.tags.at("note"), "");
}

TEST(Override, RecordsSourceTextAndOverridesInOrder) {
    const fs::path base = kTestDir / "base.toml";
    const std::vector<std::string> overrides = {"circuit.log_n=11", "job.name=nightly"};
    const Manifest m = load_manifest(base, overrides);
    EXPECT_EQ(m.overrides, overrides);
    EXPECT_EQ(m.source_path, base);
    // The bytes of the file, not a re-serialization of the parsed tree.
    EXPECT_EQ(m.source_text.rfind("# A minimal valid manifest", 0), 0u);
    EXPECT_NE(m.source_text.find("log_n = 10"), std::string::npos);
}

// --- Effective manifest ----------------------------------------------------------------

// Tag names are free-form; TOML++ 3.3 writes a key holding a single quote, tab or newline
// bare, which it cannot read back. to_toml quotes them (found by the manifest fuzzer).
TEST(ToToml, RoundTripsTagNamesThatNeedQuotes) {
    const Manifest a = parse_manifest(R"([job]
name = "tags"
[output.tags]
"'''" = "z"
"it's" = "quote"
"tab\there" = "tab"
"new\nline" = "newline"
"with space" = "space"
"back\\slash\"quote" = "escapes"
arm = "pinned"
)",
                                      "tags.toml");
    ASSERT_EQ(a.output.tags.size(), 7u);
    const std::string text = zkbatch::to_toml(a);
    const Manifest b = parse_manifest(text, "effective.toml");
    EXPECT_EQ(b.output.tags, a.output.tags) << text;
    // Bare names stay bare, and the table sits after [output]'s own keys.
    EXPECT_NE(text.find("\narm = \"pinned\"\n"), std::string::npos) << text;
    EXPECT_LT(text.find("[output]"), text.find("[output.tags]")) << text;
    EXPECT_LT(text.find("[output.tags]"), text.find("[pipeline]")) << text;
}

TEST(ToToml, RoundTripsEveryField) {
    const Manifest a = load_manifest(kSourceDir / "jobs" / "porep-32g.toml",
                                     {"backend.options.ratio=0.5", "output.tags.arm=pinned", "pipeline.on_error=continue",
                                      "verify.mode=none", "job.seed=42", "pipeline.finalize_workers=7"});
    const Manifest b = parse_manifest(zkbatch::to_toml(a), "effective.toml");
    EXPECT_EQ(b.job.name, a.job.name);
    EXPECT_EQ(b.job.partitions, a.job.partitions);
    EXPECT_EQ(b.job.seed, 42u);
    EXPECT_EQ(b.circuit.log_n, a.circuit.log_n);
    EXPECT_EQ(b.circuit.terms_per_row, a.circuit.terms_per_row);
    EXPECT_EQ(b.pipeline.synthesis_workers, a.pipeline.synthesis_workers);
    EXPECT_EQ(b.pipeline.prove_workers, a.pipeline.prove_workers);
    EXPECT_EQ(b.pipeline.queue_depth, a.pipeline.queue_depth);
    EXPECT_EQ(b.pipeline.finalize_workers, 7u);
    EXPECT_EQ(b.pipeline.on_error, OnPartitionError::continue_run);
    EXPECT_EQ(b.pipeline.replay_inputs, a.pipeline.replay_inputs);
    EXPECT_EQ(b.backend.name, a.backend.name);
    EXPECT_EQ(b.backend.options, "ratio=0.5");
    EXPECT_EQ(b.backend.options, a.backend.options);
    EXPECT_EQ(b.backend.options_by_backend, a.backend.options_by_backend);
    EXPECT_EQ(b.backend.options_for("cuda-pinned"), "pool_sets=3\nratio=0.5");
    EXPECT_EQ(b.output.db, a.output.db);
    EXPECT_EQ(b.output.tags, a.output.tags);
    EXPECT_EQ(b.verify.mode, VerifyMode::none);
    EXPECT_EQ(b.verify.every, a.verify.every);
    EXPECT_EQ(b.finalize.malloc_trim, a.finalize.malloc_trim);
}

namespace zkbatch {
namespace {

// A .zkey job: its own keys, one partition per witness file, randomized proofs unless
// deterministic ones are asked for, and the checks that apply to it.
TEST(ZkeyCircuit, KeysDefaultsAndRefusals) {
    const std::string zkey_job = R"([job]
name = "real"
[circuit]
kind = "zkey"
zkey = "c.zkey"
witnesses = ["w/a.wtns", "w/b*.wtns"]
)";
    const Manifest m = parse_manifest(zkey_job, "real.toml");
    EXPECT_EQ(m.circuit.kind, CircuitKind::zkey);
    EXPECT_EQ(m.circuit.zkey, "c.zkey");
    EXPECT_EQ(m.circuit.witnesses, (std::vector<std::string>{"w/a.wtns", "w/b*.wtns"}));
    EXPECT_EQ(m.proof.randomness, ProofRandomness::random);
    EXPECT_EQ(m.verify.mode, VerifyMode::proof);
    EXPECT_EQ(parse_manifest(zkey_job, "real.toml", {"proof.randomness=derived"}).proof.randomness,
              ProofRandomness::derived);
    EXPECT_EQ(parse_manifest(zkey_job + "[verify]\nmode = \"none\"\n", "real.toml").verify.mode, VerifyMode::none);
    const Manifest again = parse_manifest(zkbatch::to_toml(m), "effective.toml");
    EXPECT_EQ(again.circuit.zkey, m.circuit.zkey);
    EXPECT_EQ(again.circuit.witnesses, m.circuit.witnesses);
    EXPECT_EQ(again.proof.randomness, ProofRandomness::random);

    auto refusal = [&](const std::string& text) {
        const ManifestError e = expect_error([&] { parse_manifest(text, "real.toml"); });
        return std::string(e.what());
    };
    EXPECT_NE(refusal(zkey_job + "[verify]\nmode = \"identity\"\n").find("odd-coset"), std::string::npos);
    EXPECT_NE(refusal(zkey_job + "[proof]\nsystem = \"quotient\"\n").find("a .zkey job proves Groth16"),
              std::string::npos);
    EXPECT_NE(refusal(R"([job]
name = "real"
partitions = 3
[circuit]
kind = "zkey"
zkey = "c.zkey"
witnesses = "w/*.wtns"
)").find("real.toml:3:14: job.partitions: a .zkey job proves one partition per witness file"),
              std::string::npos);
    EXPECT_NE(refusal("[job]\nname = \"real\"\n[circuit]\nkind = \"zkey\"\nzkey = \"c.zkey\"\n")
                  .find("circuit.witnesses: required"),
              std::string::npos);
    EXPECT_NE(refusal("[job]\nname = \"real\"\n[circuit]\nkind = \"zkey\"\nwitnesses = []\n").find("an empty list"),
              std::string::npos);
}

// circuit.profile = "porep": its own defaults, the keys it fixes refused where they are
// written, the share of bits in its own range, and the effective manifest read back.
TEST(PorepProfile, DefaultsRefusalsAndRoundTrip) {
    const std::string job = "[job]\nname = \"porep\"\n[circuit]\nprofile = \"porep\"\n";
    const Manifest m = parse_manifest(job, "porep.toml");
    EXPECT_EQ(m.circuit.profile, CircuitProfile::porep);
    EXPECT_EQ(m.circuit.log_n, 16u);
    EXPECT_EQ(m.circuit.public_inputs, 327u);
    EXPECT_EQ(m.circuit.boolean_share, 0.987032085829555);
    EXPECT_EQ(m.circuit.terms_per_row, 0u);  // fixed by the profile
    EXPECT_EQ(parse_manifest("[job]\nname = \"u\"\n", "u.toml").circuit.profile, CircuitProfile::uniform);
    const Manifest given = parse_manifest(job + "public_inputs = 2\nboolean_share = 0.99\nlog_n = 10\n", "porep.toml");
    EXPECT_EQ(given.circuit.public_inputs, 2u);
    EXPECT_EQ(given.circuit.boolean_share, 0.99);
    EXPECT_NE(describe_job(given).find("the PoRep profile at 2^10 (2 public inputs, 99.0% of private variables bits)"),
              std::string::npos)
        << describe_job(given);
    for (const Manifest& one : {m, given}) {
        const std::string text = to_toml(one);
        const Manifest again = parse_manifest(text, "effective.toml");
        EXPECT_EQ(again.circuit.profile, CircuitProfile::porep) << text;
        EXPECT_EQ(again.circuit.public_inputs, one.circuit.public_inputs) << text;
        EXPECT_EQ(again.circuit.boolean_share, one.circuit.boolean_share) << text;
        EXPECT_EQ(again.circuit.terms_per_row, 0u) << text;
    }
    EXPECT_EQ(to_toml(parse_manifest("[job]\nname = \"u\"\n", "u.toml")).find("profile"), std::string::npos);

    auto refusal = [&](const std::string& text, const std::vector<std::string>& overrides = {}) {
        const ManifestError e = expect_error([&] { parse_manifest(text, "porep.toml", overrides); });
        return std::string(e.what());
    };
    EXPECT_NE(refusal(job + "terms_per_row = 8\n").find("porep.toml:5:17: circuit.terms_per_row: applies to the uniform"),
              std::string::npos);
    EXPECT_NE(refusal(job + "boolean_share = 0.4\n")
                  .find("porep.toml:5:17: circuit.boolean_share: with circuit.profile = \"porep\" it is the share of "
                        "private variables that are bits, 0.5..1 (the profile's estimate is 0.987032085829555); found 0.4"),
              std::string::npos);
    EXPECT_NE(refusal(job + "boolean_share = [0.99, 0.3]\n").find("porep.toml:5:24: circuit.boolean_share"),
              std::string::npos);
    EXPECT_NE(refusal(job + "log_n = 10\n").find("porep.toml:5:9: circuit.log_n: the porep profile's 994 constraint "
                                                   "rows at 2^10 leave room for 29 public inputs, not 327 (the "
                                                   "profile's default); lower circuit.public_inputs or raise "
                                                   "circuit.log_n to 14"),
              std::string::npos);
    EXPECT_NE(refusal(job + "log_n = 10\npublic_inputs = 30\n").find("porep.toml:6:17: circuit.public_inputs"),
              std::string::npos);
    EXPECT_NE(refusal(job + "[proof]\nsystem = \"quotient\"\n").find("porep.toml:4:11: circuit.profile: applies to Groth16"),
              std::string::npos);
    EXPECT_NE(refusal(job + "kind = \"zkey\"\nzkey = \"c.zkey\"\nwitnesses = \"w/*.wtns\"\n")
                  .find("porep.toml:4:11: circuit.profile: applies to synthetic circuits"),
              std::string::npos);
    EXPECT_NE(refusal(job, {"circuit.profile=\"sha\""}).find("use one of \"uniform\", \"porep\""), std::string::npos);
    // The share is an axis with the profile too, each arm its own circuit.
    const std::vector<Arm> arms = expand_arms(parse_manifest(job + "boolean_share = [0.98, 0.99]\n", "porep.toml"));
    ASSERT_EQ(arms.size(), 2u);
    EXPECT_EQ(arms[1].manifest.circuit.boolean_share, 0.99);
    EXPECT_EQ(arms[1].manifest.circuit.profile, CircuitProfile::porep);
}

TEST(Axes, BooleanShareAndProofSystemAreAxes) {
    const Manifest m = parse_manifest(R"([job]
name = "profiles"
[circuit]
boolean_share = [0.0, 0.9]
)",
                                      "profiles.toml");
    const std::vector<Arm> arms = expand_arms(m);
    ASSERT_EQ(arms.size(), 2u);
    EXPECT_EQ(arms[0].manifest.circuit.boolean_share, 0.0);
    EXPECT_EQ(arms[1].manifest.circuit.boolean_share, 0.9);
    EXPECT_EQ(arms[1].label, "circuit.boolean_share=0.9");
    const std::vector<Arm> systems = expand_arms(parse_manifest(
        "[job]\nname = \"systems\"\n[proof]\nsystem = [\"groth16\", \"quotient\"]\n", "systems.toml"));
    ASSERT_EQ(systems.size(), 2u);
    EXPECT_EQ(systems[0].manifest.verify.mode, VerifyMode::proof);
    EXPECT_EQ(systems[1].manifest.proof.system, ProofSystem::quotient);
    EXPECT_EQ(systems[1].manifest.verify.mode, VerifyMode::identity);  // each arm's own default
}

TEST(BackendOptions, PerBackendTablesAddToTheCommonOptions) {
    const Manifest m = parse_manifest(R"(
[job]
name = "ab"
[backend]
name = ["cuda-pinned", "cuda-pageable"]
[backend.options]
device = 1
pool_sets = 2
[backend.options.cuda-pinned]
pool_sets = 6
)", "ab.toml");
    EXPECT_EQ(m.backend.options, "device=1\npool_sets=2");
    EXPECT_EQ(m.backend.options_for("cuda-pinned"), "device=1\npool_sets=6");
    EXPECT_EQ(m.backend.options_for("cuda-pageable"), "device=1\npool_sets=2");
    // The arms keep the per-backend tables; to_toml writes them back.
    const auto arms = expand_arms(m);
    ASSERT_EQ(arms.size(), 2u);
    EXPECT_EQ(arms[0].manifest.backend.options_for(arms[0].manifest.backend.name), "device=1\npool_sets=6");
    EXPECT_EQ(parse_manifest(to_toml(m), "again.toml").backend.options_for("cuda-pinned"), "device=1\npool_sets=6");
}

TEST(BackendOptions, PerBackendValuesAreCheckedLikeCommonOnes) {
    try {
        parse_manifest("[job]\nname = \"x\"\n[backend.options.cuda-pinned]\npool_sets = [1]\n", "bad.toml");
        FAIL() << "a list in a per-backend option table was accepted";
    } catch (const ManifestError& e) {
        EXPECT_EQ(e.key, "backend.options.cuda-pinned.pool_sets");
        EXPECT_EQ(e.line, 4u);
    }
}

}  // namespace
}  // namespace zkbatch

// ---- pipeline.devices ---------------------------------------------------------------

TEST(Devices, NotGivenListAllAndOverride) {
    const std::string base = "[job]\nname = \"x\"\n";
    const auto none = parse_manifest(base, "x.toml");
    EXPECT_FALSE(none.pipeline.devices.given());
    const auto listed = parse_manifest(base + "[pipeline]\ndevices = [1, 0, 3]\n", "x.toml");
    EXPECT_FALSE(listed.pipeline.devices.all);
    EXPECT_EQ(listed.pipeline.devices.indices, (std::vector<uint32_t>{1, 0, 3}));
    const auto all = parse_manifest(base + "[pipeline]\ndevices = \"all\"\n", "x.toml");
    EXPECT_TRUE(all.pipeline.devices.all);
    EXPECT_TRUE(all.pipeline.devices.indices.empty());
    // --set: a bare word is a string, a list is TOML.
    EXPECT_TRUE(parse_manifest(base, "x.toml", {"pipeline.devices=all"}).pipeline.devices.all);
    EXPECT_EQ(parse_manifest(base, "x.toml", {"pipeline.devices=[0,1]"}).pipeline.devices.indices,
              (std::vector<uint32_t>{0, 1}));
    // to_toml round-trips both forms.
    EXPECT_EQ(parse_manifest(zkbatch::to_toml(listed), "y.toml").pipeline.devices.indices, listed.pipeline.devices.indices);
    EXPECT_TRUE(parse_manifest(zkbatch::to_toml(all), "y.toml").pipeline.devices.all);
    EXPECT_FALSE(parse_manifest(zkbatch::to_toml(none), "y.toml").pipeline.devices.given());
}

TEST(Devices, AListOfChoicesIsAnAxis) {
    const auto m = parse_manifest("[job]\nname = \"x\"\n[pipeline]\ndevices = [[0], [0, 1], \"all\"]\n", "x.toml");
    ASSERT_EQ(m.axes.size(), 1u);
    EXPECT_EQ(m.axes[0].key, "pipeline.devices");
    EXPECT_EQ(m.axes[0].values, (std::vector<std::string>{"[0]", "[0,1]", "\"all\""}));
    EXPECT_EQ(m.pipeline.devices.indices, (std::vector<uint32_t>{0}));  // the first stands for the manifest
    const auto arms = expand_arms(m);
    ASSERT_EQ(arms.size(), 3u);
    EXPECT_EQ(arms[1].label, "pipeline.devices=[0,1]");
    EXPECT_EQ(arms[1].manifest.pipeline.devices.indices, (std::vector<uint32_t>{0, 1}));
    EXPECT_TRUE(arms[2].manifest.pipeline.devices.all);
    // Each choice is checked as a plain pipeline.devices is.
    const std::string base = "[job]\nname = \"x\"\n[pipeline]\n";
    for (const auto& [line, message] : std::vector<std::pair<std::string, std::string>>{
             {"devices = [[0], [0]]", "[0] is listed twice"},
             {"devices = [[0], [1, 1]]", "device 1 is listed twice"},
             {"devices = [[0], 1]", "expected \"all\" or a list, found an integer"},
             {"devices = [[0], []]", "an empty list"},
             {"devices = [[0], \"every\"]", "\"every\" is not a device choice"}}) {
        const ManifestError e = expect_error([&] { parse_manifest(base + line + "\n", "x.toml"); });
        EXPECT_EQ(e.key, "pipeline.devices") << line;
        EXPECT_EQ(e.line, 4u) << line;
        EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << line << ": " << e.what();
    }
}

// A bad value inside an axis list is placed at that value, in the file or in --set.
TEST(Axes, ABadElementIsPlacedAtTheElement) {
    const ManifestError in_file =
        expect_error([] { parse_manifest("[job]\nname = \"x\"\n[circuit]\nlog_n = [20, 99]\n", "x.toml"); });
    EXPECT_EQ(in_file.key, "circuit.log_n");
    EXPECT_EQ(in_file.line, 4u);
    EXPECT_EQ(in_file.column, 14u) << in_file.what();
    const ManifestError in_override =
        expect_error([] { parse_manifest("[job]\nname = \"x\"\n", "x.toml", {"circuit.log_n=[20,99]"}); });
    EXPECT_EQ(in_override.path, "--set");
    EXPECT_NE(std::string(in_override.what()).find("(from --set circuit.log_n=[20,99])"), std::string::npos)
        << in_override.what();
}

TEST(Devices, BadValuesNameTheKeyAndThePosition) {
    const std::string base = "[job]\nname = \"x\"\n[pipeline]\n";
    struct Case {
        std::string line, key, message;
        uint32_t column;
    };
    const std::vector<Case> cases = {
        {"devices = \"every\"", "pipeline.devices", "\"every\" is not a device choice; use \"all\" or a list", 11},
        {"devices = []", "pipeline.devices", "an empty list", 11},
        {"devices = [0, -1]", "pipeline.devices", "device index must be in 0..1023, found -1", 15},
        {"devices = [0, 1, 0]", "pipeline.devices", "device 0 is listed twice", 18},
        {"devices = [0, \"1\"]", "pipeline.devices", "expected a device index (an integer), found a string", 15},
        {"devices = 2", "pipeline.devices", "expected \"all\" or a list, found an integer", 11},
        {"device = [0]", "pipeline.device", "unknown key; did you mean 'pipeline.devices'?", 1},
    };
    for (const Case& c : cases) {
        const ManifestError e = expect_error([&] { parse_manifest(base + c.line + "\n", "x.toml"); });
        EXPECT_EQ(e.key, c.key) << c.line;
        EXPECT_EQ(e.line, 4u) << c.line;
        EXPECT_EQ(e.column, c.column) << c.line << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
}

TEST(Devices, ABackendDeviceOptionConflictsWithTheList) {
    const std::string base = "[job]\nname = \"x\"\n[pipeline]\ndevices = [0, 1]\n";
    const ManifestError common = expect_error([&] { parse_manifest(base + "[backend.options]\ndevice = 1\n", "x.toml"); });
    EXPECT_EQ(common.key, "backend.options.device");
    EXPECT_EQ(common.line, 6u);
    EXPECT_NE(std::string(common.what()).find("conflicts with pipeline.devices"), std::string::npos) << common.what();
    const ManifestError specific = expect_error(
        [&] { parse_manifest(base + "[backend.options.cuda-pinned]\ndevice = 1\n", "x.toml"); });
    EXPECT_EQ(specific.key, "backend.options.cuda-pinned.device");
    // Without pipeline.devices the backend's own option stays allowed.
    EXPECT_NO_THROW(parse_manifest("[job]\nname = \"x\"\n[backend.options]\ndevice = 1\n", "x.toml"));
}
