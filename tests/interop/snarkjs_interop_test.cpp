// zkbatch's proofs, checked by verifiers that share no code with it: snarkjs's own
// groth16.verify (snarkjs 0.7.6, the function `snarkjs groth16 verify` calls, over many
// proofs in one process: tools/js/groth16-verify-snarkjs.cjs) and an independent
// verifier on @noble/curves (tools/js/groth16-verify-noble.cjs). The real zkbatch
// executable proves, `zkbatch proofs` exports; every proof is accepted, and every proof
// with a changed public input or swapped points is rejected.
//   Synthetic  a seeded key's proofs on each curve, with its verifying key as zkbatch
//              exports it.
//   Circom     each circuit of tests/fixtures/circom, compiled and set up with circom2
//              and snarkjs by the fixture tests (ctest fixture "circom"), proved from its
//              .zkey and witness files through a `circuit.kind = "zkey"` manifest and
//              verified against snarkjs's own verification_key.json.
// Node and tools/js/node_modules are part of the test environment (tools/setup.sh
// installs both; CI runs it): without them this suite fails, saying so.
#include "support/circom_fixtures.hpp"
#include "support/zkbatch_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace zkbatch {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

const fs::path kJs = ZKBATCH_JS_DIR;
const fs::path kSnarkjs = kJs / "node_modules" / "snarkjs" / "build" / "cli.cjs";
// Both verifiers take many proofs in one process and print one line per proof.
const fs::path kSnarkjsVerifier = kJs / "groth16-verify-snarkjs.cjs";  // snarkjs's groth16.verify
const fs::path kNobleVerifier = kJs / "groth16-verify-noble.cjs";

json read_json(const fs::path& path) {
    std::ifstream in(path);
    return json::parse(in);
}

void write_json(const fs::path& path, const json& value) { std::ofstream(path) << value.dump(1) << "\n"; }

// A proof with its public inputs, and whether a verifier must accept it.
struct Claim {
    fs::path proof, public_json;
    bool valid;
    std::string what;
};

class ProofsAgainstSnarkjs : public ::testing::Test {
protected:
    void SetUp() override {
        if (std::string(ZKBATCH_NODE).empty() || !fs::exists(kSnarkjs))
            FAIL() << "node or " << kSnarkjs << " is missing: run tools/setup.sh (it installs nodejs and tools/js)";
    }

    // One verifier over every claim at once: each line of its output ("OK file" or
    // "INVALID file: why", in argument order) says what the claim says.
    void expect_verifier_agrees(const fs::path& verifier, const fs::path& vk, const std::vector<Claim>& claims) const {
        std::vector<std::string> argv{ZKBATCH_NODE, verifier.string(), vk.string()};
        for (const Claim& claim : claims) argv.push_back(claim.proof.string()), argv.push_back(claim.public_json.string());
        const auto result = test::run_program(argv, dir_, 300s);
        SCOPED_TRACE(verifier.filename().string() + ":\n" + result.out + result.err);
        EXPECT_EQ(result.exit_code, 1) << "some claims are false, so the verifier must exit 1";
        std::istringstream lines(result.out);
        std::string line;
        for (const Claim& claim : claims) {
            ASSERT_TRUE(std::getline(lines, line)) << "no line for " << claim.what;
            const std::string expected = (claim.valid ? "OK " : "INVALID ") + claim.proof.string();
            EXPECT_EQ(line.substr(0, expected.size()), expected) << claim.what;
        }
        EXPECT_FALSE(std::getline(lines, line)) << "a line too many: " << line;
    }

    // Every partition's exported proof accepted by both verifiers, and each partition's
    // proof with a public input changed or A and C swapped rejected by both.
    void expect_only_the_true_proofs_verify(const fs::path& exported, const fs::path& vk, uint64_t partitions,
                                            bool has_public_inputs) {
        std::vector<Claim> claims;
        for (uint64_t p = 0; p < partitions; ++p) {
            const fs::path proof = exported / ("p" + std::to_string(p) + ".proof.json");
            const fs::path public_json = exported / ("p" + std::to_string(p) + ".public.json");
            ASSERT_TRUE(fs::exists(proof) && fs::exists(public_json)) << proof;
            claims.push_back({proof, public_json, true, proof.string()});
            if (p > 1) continue;  // two partitions' worth of tampering is enough
            json swapped = read_json(proof);
            std::swap(swapped["pi_a"], swapped["pi_c"]);
            const fs::path swapped_path = dir_ / ("swapped" + std::to_string(p) + ".json");
            write_json(swapped_path, swapped);
            claims.push_back({swapped_path, public_json, false, "A and C swapped: " + proof.string()});
            if (!has_public_inputs) continue;
            json inputs = read_json(public_json);
            inputs[0] = inputs[0].get<std::string>() == "0" ? "1" : "0";
            const fs::path changed_path = dir_ / ("changed" + std::to_string(p) + ".json");
            write_json(changed_path, inputs);
            claims.push_back({proof, changed_path, false, "a changed public input: " + proof.string()});
        }
        expect_verifier_agrees(kSnarkjsVerifier, vk, claims);
        expect_verifier_agrees(kNobleVerifier, vk, claims);
    }

    // `snarkjs groth16 prove` of the same files writes the public signals `zkbatch prove`
    // wrote, and both verifiers accept zkbatch's proof and refuse it with A and C swapped
    // (left in dir_/swapped.json, snarkjs's own files in dir_/snarkjs-*.json).
    void expect_snarkjs_agrees(const std::string& zkey, const std::string& wtns, const fs::path& proof,
                               const fs::path& public_json, const fs::path& vk) const {
        const auto theirs = test::run_program({ZKBATCH_NODE, kSnarkjs.string(), "groth16", "prove", zkey, wtns,
                                               (dir_ / "snarkjs-proof.json").string(),
                                               (dir_ / "snarkjs-public.json").string()},
                                              dir_, 300s);
        ASSERT_EQ(theirs.exit_code, 0) << theirs.out << theirs.err;
        EXPECT_EQ(read_json(public_json), read_json(dir_ / "snarkjs-public.json"));
        json swapped = read_json(proof);
        std::swap(swapped["pi_a"], swapped["pi_c"]);
        write_json(dir_ / "swapped.json", swapped);
        const std::vector<Claim> claims{{proof, public_json, true, "zkbatch prove's proof"},
                                        {dir_ / "swapped.json", public_json, false, "A and C swapped"}};
        expect_verifier_agrees(kSnarkjsVerifier, vk, claims);
        expect_verifier_agrees(kNobleVerifier, vk, claims);
    }

    test::CommandResult zkbatch(const std::vector<std::string>& args) const {
        return test::run_zkbatch(args, dir_, 300s);
    }

    test::TempDir scratch_{"zkbatch-snarkjs"};
    const fs::path dir_ = scratch_.path();
    const std::string db_ = (dir_ / "runs.db").string();
};

class SyntheticProofs : public ProofsAgainstSnarkjs, public ::testing::WithParamInterface<std::string> {};

// A seeded key's proofs over each curve (circuit.curve), exported with the verifying key
// zkbatch writes for them.
TEST_P(SyntheticProofs, AcceptedWithTheirVerifyingKey) {
    const std::string curve = GetParam();
    const auto run = zkbatch({"--log-level", "warn", "run", std::string(SOURCE_DIR) + "/jobs/smoke.toml", "--backend",
                              "cpu-ref", "--db", db_, "--set", "circuit.log_n=8", "--set", "circuit.public_inputs=3",
                              "--set", "job.partitions=3", "--set", "setup.cache_dir=" + (dir_ / "keys").string(),
                              "--set", "circuit.curve=\"" + curve + "\""});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(test::scalar(db_, "SELECT curve FROM run"), curve);
    EXPECT_EQ(test::scalar(db_, "SELECT group_concat(DISTINCT length(proof)) FROM partition WHERE verified = 1"),
              curve == "bn254" ? "128" : "192");
    const fs::path exported = dir_ / "exported";
    const auto proofs = zkbatch({"proofs", "latest", "--db", db_, "--out", exported.string()});
    ASSERT_EQ(proofs.exit_code, 0) << proofs.out << proofs.err;
    EXPECT_NE(proofs.out.find("run 1: 3 proofs"), std::string::npos) << proofs.out;
    EXPECT_EQ(read_json(exported / "p0.public.json").size(), 3u);
    EXPECT_EQ(read_json(exported / "verification_key.json")["curve"], curve == "bn254" ? "bn128" : "bls12381");
    expect_only_the_true_proofs_verify(exported, exported / "verification_key.json", 3, true);
}

INSTANTIATE_TEST_SUITE_P(Curves, SyntheticProofs, ::testing::Values("bls12-381", "bn254"),
                         [](const auto& curve) { return curve.param == "bn254" ? "Bn254" : "Bls12381"; });

TEST_F(ProofsAgainstSnarkjs, QuotientRunsHaveNoProofsToExport) {
    const auto run = zkbatch({"--log-level", "warn", "run", std::string(SOURCE_DIR) + "/jobs/smoke.toml", "--backend",
                              "cpu-ref", "--db", db_, "--set", "circuit.log_n=6", "--set", "proof.system=quotient",
                              "--set", "verify.mode=identity"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto proofs = zkbatch({"proofs", "latest", "--db", db_, "--out", (dir_ / "none").string()});
    EXPECT_EQ(proofs.exit_code, 2);
    EXPECT_NE(proofs.err.find("proved the quotient alone"), std::string::npos) << proofs.err;
    EXPECT_FALSE(fs::exists(dir_ / "none"));
}

// rapidsnark's command line: `zkbatch prove ZKEY WTNS PROOF PUBLIC` writes snarkjs's two
// files for one witness of a circom fixture. snarkjs and the noble verifier accept the
// proof and refuse it with A and C swapped; the public signals are the ones `snarkjs
// groth16 prove` writes for the same files; the run is recorded in --db, and with
// --no-record nowhere. Inputs that cannot be proved are refused with exit 2, and no file.
// `zkbatch verify VK PUBLIC PROOF` (snarkjs's order) says what snarkjs says of the same
// claims, snarkjs's own proof among them, and refuses files that are not snarkjs's.
TEST_F(ProofsAgainstSnarkjs, ProveAndVerifyCommandsAgreeWithSnarkjs) {
    const char* root = std::getenv("ZKBATCH_CIRCOM_DIR");
    ASSERT_NE(root, nullptr) << "ZKBATCH_CIRCOM_DIR is not set: run this suite through ctest";
    const json fixture = read_json(fs::path(root) / "chain-4" / "fixture.json");
    const std::string zkey = fixture["zkey"].get<std::string>();
    const std::string wtns = fixture["witnesses"][0]["wtns"].get<std::string>();
    const fs::path proof = dir_ / "proof.json", public_json = dir_ / "public.json";
    const auto proved = zkbatch({"--log-level", "warn", "prove", zkey, wtns, proof.string(), public_json.string(),
                                 "--backend", "cpu-ref", "--db", db_});
    ASSERT_EQ(proved.exit_code, 0) << proved.out << proved.err;
    EXPECT_NE(proved.err.find("zkbatch prove: " + proof.string() + " and " + public_json.string()), std::string::npos)
        << proved.err;
    EXPECT_EQ(test::scalar(db_, "SELECT count(*) FROM partition WHERE status = 'ok' AND verified = 1"), "1");
    EXPECT_EQ(test::scalar(db_, "SELECT witness FROM partition"), wtns);

    const fs::path vk = fixture["verificationKey"].get<std::string>();
    expect_snarkjs_agrees(zkey, wtns, proof, public_json, vk);

    json changed = read_json(public_json);
    changed[0] = changed[0].get<std::string>() == "0" ? "1" : "0";
    write_json(dir_ / "changed.json", changed);
    const auto verify = [&](const fs::path& key, const fs::path& inputs, const fs::path& claimed) {
        return zkbatch({"verify", key.string(), inputs.string(), claimed.string()});
    };
    const auto ours = verify(vk, public_json, proof);
    EXPECT_EQ(ours.exit_code, 0) << ours.out << ours.err;
    EXPECT_EQ(ours.out, "OK: " + proof.string() + " verifies\n");
    EXPECT_EQ(verify(vk, dir_ / "snarkjs-public.json", dir_ / "snarkjs-proof.json").exit_code, 0);
    for (const auto& [inputs, claimed] : {std::pair{public_json, dir_ / "swapped.json"},
                                          std::pair{dir_ / "changed.json", proof}}) {
        const auto refused = verify(vk, inputs, claimed);
        EXPECT_EQ(refused.exit_code, 5) << refused.out << refused.err;
        EXPECT_TRUE(refused.out.starts_with("INVALID: " + claimed.string())) << refused.out;
    }
    json off_curve = read_json(proof), bn254 = read_json(proof);
    off_curve["pi_a"][0] = "1";
    bn254["curve"] = "bn128";
    write_json(dir_ / "off-curve.json", off_curve);
    write_json(dir_ / "bn254.json", bn254);
    std::ofstream(dir_ / "cut.json") << "{\"pi_a\": [";
    std::ofstream(dir_ / "deep.json") << "{\"pi_a\": " << std::string(20, '[') << std::string(20, ']') << "}";
    write_json(dir_ / "two-signals.json", json::array({"1", "2"}));
    const std::pair<std::vector<fs::path>, std::string> bad_inputs[] = {
        {{vk, public_json, dir_ / "off-curve.json"}, "off-curve.json: pi_a: not a point of the curve"},
        {{vk, public_json, dir_ / "bn254.json"}, "bn254.json: curve: \"bn128\""},
        {{vk, public_json, dir_ / "cut.json"}, "cut.json: not JSON"},
        {{vk, public_json, dir_ / "deep.json"}, "deep.json: nested deeper than 8 levels"},
        {{vk, dir_ / "two-signals.json", proof}, "two-signals.json: 2 public signals"},
        {{proof, public_json, proof}, "vk_alpha_1: missing"}};
    for (const auto& [files, message] : bad_inputs) {
        const auto refused = verify(files[0], files[1], files[2]);
        EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
        EXPECT_NE(refused.err.find(message), std::string::npos) << refused.err;
    }

    // --no-record, run in a folder where the default database would be results/zkbatch.db.
    const auto unrecorded = test::run_shell(
        "cd " + test::shell_quoted(dir_.string()) + " && " + test::shell_quoted(test::zkbatch_exe()) +
            " --log-level warn prove " + test::shell_quoted(zkey) + " " + test::shell_quoted(wtns) +
            " again.json again-public.json --backend cpu-ref --no-record",
        dir_, 300s);
    ASSERT_EQ(unrecorded.exit_code, 0) << unrecorded.out << unrecorded.err;
    EXPECT_EQ(read_json(dir_ / "again-public.json"), read_json(public_json));
    EXPECT_FALSE(fs::exists(dir_ / "results")) << "--no-record made a database";

    // A truncated witness; the proof written over the key; the two outputs one file.
    {
        std::ifstream in(wtns, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(dir_ / "short.wtns", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    }
    const fs::path bad = dir_ / "bad.json", same = dir_ / "same.json";
    const auto truncated = zkbatch({"prove", zkey, (dir_ / "short.wtns").string(), bad.string(),
                                    (dir_ / "bad-public.json").string(), "--backend", "cpu-ref", "--no-record"});
    EXPECT_EQ(truncated.exit_code, 2) << truncated.out << truncated.err;
    EXPECT_NE(truncated.err.find("short.wtns"), std::string::npos) << truncated.err;
    EXPECT_FALSE(fs::exists(bad));
    const auto over_key = zkbatch({"prove", zkey, wtns, zkey, (dir_ / "p.json").string(), "--backend", "cpu-ref",
                                   "--no-record"});
    EXPECT_EQ(over_key.exit_code, 2) << over_key.out << over_key.err;
    EXPECT_NE(over_key.err.find("which this command reads"), std::string::npos) << over_key.err;
    const auto one_file = zkbatch({"prove", zkey, wtns, same.string(), (dir_ / "." / "same.json").string(),
                                   "--backend", "cpu-ref", "--no-record"});
    EXPECT_EQ(one_file.exit_code, 2) << one_file.out << one_file.err;
    EXPECT_FALSE(fs::exists(same));
}

// The same commands on BN254 (circom's default curve; snarkjs's bn128): the curve comes
// from the .zkey's header, the proof is recorded as BN254's, and what zkbatch writes and
// checks agrees with snarkjs and the noble verifier. Files of the two curves mixed, or a
// manifest's circuit.curve that is not its key's, are refused with exit 2.
TEST_F(ProofsAgainstSnarkjs, Bn254ProveAndVerifyCommandsAgreeWithSnarkjs) {
    const char* root = std::getenv("ZKBATCH_CIRCOM_DIR");
    ASSERT_NE(root, nullptr) << "ZKBATCH_CIRCOM_DIR is not set: run this suite through ctest";
    const json fixture = read_json(fs::path(root) / "bn128" / "chain-4" / "fixture.json");
    const json bls_fixture = read_json(fs::path(root) / "chain-4" / "fixture.json");
    const std::string zkey = fixture["zkey"].get<std::string>();
    const std::string wtns = fixture["witnesses"][0]["wtns"].get<std::string>();
    const fs::path proof = dir_ / "proof.json", public_json = dir_ / "public.json";
    const auto proved = zkbatch({"--log-level", "warn", "prove", zkey, wtns, proof.string(), public_json.string(),
                                 "--db", db_});  // --backend auto: cpu-ref, the one that proves BN254
    ASSERT_EQ(proved.exit_code, 0) << proved.out << proved.err;
    EXPECT_EQ(test::scalar(db_, "SELECT curve || ' ' || backend_name FROM run"), "bn254 cpu-ref");
    EXPECT_EQ(test::scalar(db_, "SELECT length(proof) FROM partition WHERE verified = 1"), "128");
    EXPECT_EQ(read_json(proof)["curve"], "bn128");

    const fs::path vk = fixture["verificationKey"].get<std::string>();
    expect_snarkjs_agrees(zkey, wtns, proof, public_json, vk);

    const auto verify = [&](const fs::path& key, const fs::path& inputs, const fs::path& claimed) {
        return zkbatch({"verify", key.string(), inputs.string(), claimed.string()});
    };
    EXPECT_EQ(verify(vk, public_json, proof).exit_code, 0);
    EXPECT_EQ(verify(vk, dir_ / "snarkjs-public.json", dir_ / "snarkjs-proof.json").exit_code, 0);
    EXPECT_EQ(verify(vk, public_json, dir_ / "swapped.json").exit_code, 5);
    // A BLS12-381 proof against this BN254 key: refused by its curve, not checked.
    const fs::path bls_proof = dir_ / "bls-proof.json";
    ASSERT_EQ(zkbatch({"--log-level", "warn", "prove", bls_fixture["zkey"].get<std::string>(),
                       bls_fixture["witnesses"][0]["wtns"].get<std::string>(), bls_proof.string(),
                       (dir_ / "bls-public.json").string(), "--no-record"})
                  .exit_code,
              0);
    const auto other_curve = verify(vk, public_json, bls_proof);
    EXPECT_EQ(other_curve.exit_code, 2) << other_curve.out << other_curve.err;
    EXPECT_NE(other_curve.err.find("curve: \"bls12381\", where the verifying key's curve is bn128"),
              std::string::npos) << other_curve.err;

    // A BN254 witness with the BLS12-381 key of the same circuit; then the other way round.
    for (const auto& [key, witness, field] :
         {std::tuple{bls_fixture["zkey"].get<std::string>(), wtns, std::string("BN254's scalar field")},
          std::tuple{zkey, bls_fixture["witnesses"][0]["wtns"].get<std::string>(),
                     std::string("BLS12-381's scalar field")}}) {
        const auto mixed = zkbatch({"prove", key, witness, (dir_ / "mixed.json").string(),
                                    (dir_ / "mixed-public.json").string(), "--no-record"});
        EXPECT_EQ(mixed.exit_code, 2) << mixed.out << mixed.err;
        EXPECT_NE(mixed.err.find(witness + ": section 1 (header): the witness is over " + field),
                  std::string::npos) << mixed.err;
        EXPECT_FALSE(fs::exists(dir_ / "mixed.json"));
    }
    // circuit.curve names the key's curve, or the run is refused before it starts.
    const fs::path manifest = dir_ / "curve.toml";
    std::ofstream(manifest) << "[job]\nname = \"curve\"\n[circuit]\nkind = \"zkey\"\ncurve = \"bls12-381\"\nzkey = "
                            << json(zkey).dump() << "\nwitnesses = [" << json(wtns).dump() << "]\n";
    const auto wrong_curve = zkbatch({"run", manifest.string(), "--db", db_, "--backend", "cpu-ref"});
    EXPECT_EQ(wrong_curve.exit_code, 2) << wrong_curve.out << wrong_curve.err;
    EXPECT_NE(wrong_curve.err.find("circuit.curve = \"bls12-381\", but " + zkey + " is a bn254 key"),
              std::string::npos) << wrong_curve.err;
    EXPECT_EQ(test::scalar(db_, "SELECT count(*) FROM run"), "1");
}

class CircomProofs : public ProofsAgainstSnarkjs, public ::testing::WithParamInterface<std::string> {};

// A circuit nobody wrote for zkbatch: snarkjs made its key and witnesses; zkbatch proves
// them through a manifest, and snarkjs verifies with its own verification key.
TEST_P(CircomProofs, ProvedFromZkeyAndWtnsAndAcceptedBySnarkjs) {
    const char* root = std::getenv("ZKBATCH_CIRCOM_DIR");
    ASSERT_NE(root, nullptr) << "ZKBATCH_CIRCOM_DIR is not set: run this suite through ctest";
    const fs::path circuit = fs::path(root) / GetParam();
    const json fixture = read_json(circuit / "fixture.json");
    const fs::path manifest = dir_ / "circuit.toml";
    std::ofstream(manifest) << "[job]\nname = \"circom-" << test::circom_test_name(GetParam()) << "\"\n[circuit]\nkind = \"zkey\"\nzkey = "
                            << json(fixture["zkey"].get<std::string>()).dump() << "\nwitnesses = "
                            << json((circuit / "wtns" / "*.wtns").string()).dump()
                            << "\n[pipeline]\nsynthesis_workers = 2\n[backend]\nname = \"cpu-ref\"\n";
    const auto run = zkbatch({"--log-level", "warn", "run", manifest.string(), "--db", db_});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    // The curve is the key's, read from its header.
    EXPECT_EQ(test::scalar(db_, "SELECT curve FROM run"), GetParam().starts_with("bn128/") ? "bn254" : "bls12-381");
    const uint64_t partitions = fixture["witnesses"].size();
    EXPECT_EQ(test::scalar(db_, "SELECT count(*) FROM partition WHERE status = 'ok' AND verified = 1"),
              std::to_string(partitions));
    // One partition per witness file, in sorted order, each recorded with its file.
    EXPECT_EQ(test::scalar(db_, "SELECT witness FROM partition WHERE partition_index = 0"),
              (circuit / "wtns").string() + "/" +
                  fs::path(test::scalar(db_, "SELECT min(witness) FROM partition")).filename().string());
    const fs::path exported = dir_ / "exported";
    const auto proofs = zkbatch({"proofs", "latest", "--db", db_, "--out", exported.string()});
    ASSERT_EQ(proofs.exit_code, 0) << proofs.out << proofs.err;
    const fs::path snarkjs_vk = fixture["verificationKey"].get<std::string>();
    expect_only_the_true_proofs_verify(exported, snarkjs_vk, partitions, fixture["nPublic"].get<uint64_t>() > 0);
    // The exported verifying key is snarkjs's.
    const json ours = read_json(exported / "verification_key.json"), theirs = read_json(snarkjs_vk);
    for (const char* field : {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12", "IC"})
        EXPECT_EQ(ours[field], theirs[field]) << field;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CircomProofs,
                         ::testing::ValuesIn(test::kCircomFixtures),
                         [](const auto& param_info) { return test::circom_test_name(param_info.param); });

// The BN254 fixtures (circom's default curve), as bn128/CIRCUIT.
std::vector<std::string> bn254_fixture_paths() {
    std::vector<std::string> paths;
    for (const std::string& circuit : test::kCircomBn254Fixtures) paths.push_back("bn128/" + circuit);
    return paths;
}
INSTANTIATE_TEST_SUITE_P(Bn254Fixtures, CircomProofs,
                         ::testing::ValuesIn(bn254_fixture_paths()),
                         [](const auto& param_info) { return test::circom_test_name(param_info.param); });

}  // namespace
}  // namespace zkbatch
