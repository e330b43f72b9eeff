// snarkjs's .zkey and .wtns files, as the real toolchain writes them (circom2 with
// -p bls12381 and snarkjs, run by the fixture tests before this suite: ctest fixture
// "circom", files under $ZKBATCH_CIRCOM_DIR/CIRCUIT/): every circuit's witnesses prove
// and verify with the key's own verifying key, which equals snarkjs's export; and
// every malformed file is refused, naming the file, the section and what is wrong.
#include "core/curve/curves.hpp"
#include "core/ec/encoding.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/snarkjs_json.hpp"
#include "core/groth16/verifier.hpp"
#include "core/groth16/zkey.hpp"
#include "core/quotient/quotient.hpp"

#include "../support/circom_fixtures.hpp"
#include "../support/file_bytes.hpp"
#include "../support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace zkbatch {
namespace {

namespace fs = std::filesystem;
using ff::Fr;
using groth16::ZkeyError;

fs::path circuit_dir(const std::string& circuit) {
    const char* root = std::getenv("ZKBATCH_CIRCOM_DIR");
    if (root == nullptr) ADD_FAILURE() << "ZKBATCH_CIRCOM_DIR is not set: run this suite through ctest";
    return fs::path(root ? root : "") / circuit;
}

nlohmann::json read_json(const fs::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// Every witness of the circuit in `dir` proves with zkbatch's prover on the .zkey's key
// (of Curve) and verifies with its verifying key; our JSON export of that key is snarkjs's.
template <class Curve>
void expect_every_witness_proves_and_verifies(const fs::path& dir) {
    using Scalar = typename Curve::Fr;
    const nlohmann::json fixture = read_json(dir / "fixture.json");
    const std::string path = fixture["zkey"].get<std::string>();
    EXPECT_EQ(groth16::read_zkey_header(path).curve, Curve::kId);
    const groth16::generic::Zkey<Curve> zkey = groth16::read_zkey<Curve>(path, 2);
    EXPECT_EQ(zkey.key.num_variables, fixture["variables"].get<uint64_t>());
    EXPECT_EQ(zkey.key.num_public, fixture["nPublic"].get<uint64_t>());
    EXPECT_EQ(zkey.key.log_n, fixture["domainPower"].get<uint32_t>());
    EXPECT_EQ(zkey.key.h_convention, groth16::HConvention::odd_coset);

    // snarkjs's own export of the verifying key, number for number.
    const nlohmann::json ours = nlohmann::json::parse(groth16::verification_key_json(zkey.key.vk));
    const nlohmann::json theirs = read_json(fixture["verificationKey"].get<std::string>());
    for (const char* field :
         {"curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12", "IC"})
        EXPECT_EQ(ours[field], theirs[field]) << field;

    const size_t n = size_t{1} << zkey.key.log_n;
    ASSERT_FALSE(fixture["witnesses"].empty());
    for (const auto& entry : fixture["witnesses"]) {
        const std::vector<Scalar> witness =
            groth16::read_wtns<Scalar>(entry["wtns"].get<std::string>(), zkey.key.num_variables);
        std::vector<Scalar> a(n), b(n), c(n), h(n), scratch(2 * n);
        zkey.circuit.synthesize(witness.data(), a.data(), b.data(), c.data(), 2);
        for (size_t row = 0; row < n; ++row) ASSERT_EQ(a[row] * b[row], c[row]);
        prove::compute_odd_coset_quotient_cpu(zkey.key.log_n, a.data(), b.data(), c.data(), h.data(), scratch.data(), 2);
        std::vector<msm::Scalar> z(witness.size()), h_scalars(n);
        for (size_t i = 0; i < witness.size(); ++i) witness[i].to_canonical(z[i].limbs);
        for (size_t i = 0; i < n; ++i) h[i].to_canonical(h_scalars[i].limbs);
        const auto proof = groth16::prove(zkey.key, z.data(), h_scalars.data(), groth16::random_randomness<Curve>(), 2);
        const auto result = groth16::verify(zkey.key.vk, proof, witness.data() + 1, zkey.key.num_public);
        EXPECT_TRUE(result.ok) << entry["wtns"] << ": " << result.detail;
        // A changed public signal fails.
        if (zkey.key.num_public > 0) {
            std::vector<Scalar> changed(witness.begin() + 1, witness.begin() + 1 + static_cast<ptrdiff_t>(zkey.key.num_public));
            changed[0] += Scalar::one();
            EXPECT_FALSE(groth16::verify(zkey.key.vk, proof, changed.data(), changed.size()).ok);
        }
    }
}

class CircomCircuits : public ::testing::TestWithParam<std::string> {};

TEST_P(CircomCircuits, EveryWitnessProvesAndVerifies) {
    expect_every_witness_proves_and_verifies<curve::Bls12_381>(circuit_dir(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CircomCircuits,
                         ::testing::ValuesIn(test::kCircomFixtures),
                         [](const auto& param_info) { return test::circom_test_name(param_info.param); });

// The same on BN254: circom's default curve, set up by snarkjs from a bn128 ceremony
// (ctest fixture "circom", files under $ZKBATCH_CIRCOM_DIR/bn128/CIRCUIT/).
class Bn254CircomCircuits : public ::testing::TestWithParam<std::string> {};

TEST_P(Bn254CircomCircuits, EveryWitnessProvesAndVerifies) {
    expect_every_witness_proves_and_verifies<curve::Bn254>(circuit_dir("bn128/" + GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Bn254CircomCircuits,
                         ::testing::ValuesIn(test::kCircomBn254Fixtures),
                         [](const auto& param_info) { return test::circom_test_name(param_info.param); });

// A key and a witness of two curves: each reader names both fields, and a key read as the
// other curve's is refused by its header.
TEST(CurvesOfFiles, KeysAndWitnessesOfAnotherCurveAreRefused) {
    const nlohmann::json bls = read_json(circuit_dir("chain-4") / "fixture.json");
    const nlohmann::json bn = read_json(circuit_dir("bn128/chain-4") / "fixture.json");
    const std::string bls_wtns = bls["witnesses"][0]["wtns"].get<std::string>();
    const std::string bn_wtns = bn["witnesses"][0]["wtns"].get<std::string>();
    const uint64_t variables = bls["variables"].get<uint64_t>();
    ASSERT_EQ(variables, bn["variables"].get<uint64_t>()) << "the same circuit on both curves";
    const auto message_of = [](auto&& read) {
        try {
            read();
        } catch (const ZkeyError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string bn_as_bls = message_of([&] { groth16::read_wtns<ff::Fr>(bn_wtns, variables); });
    EXPECT_NE(bn_as_bls.find("over BN254's scalar field, where the key's circuit is over BLS12-381's"),
              std::string::npos) << bn_as_bls;
    const std::string bls_as_bn = message_of([&] { groth16::check_wtns<curve::Bn254::Fr>(bls_wtns, variables); });
    EXPECT_NE(bls_as_bn.find("over BLS12-381's scalar field, where the key's circuit is over BN254's"),
              std::string::npos) << bls_as_bn;
    const std::string key = message_of([&] { groth16::read_zkey<curve::Bls12_381>(bn["zkey"].get<std::string>(), 1); });
    EXPECT_NE(key.find("section 2 (Groth16 header): the curve is BN254 (snarkjs's bn128), where a BLS12-381 key"),
              std::string::npos) << key;
}

using test::snarkjs_sections;

// The prime's bytes (little-endian) of a hex number.
std::vector<char> le_bytes(const std::string& hex, size_t count) {
    std::vector<char> out(count, 0);
    for (size_t i = 0; i < hex.size(); ++i) {
        const char digit = hex[hex.size() - 1 - i];
        const int value = digit <= '9' ? digit - '0' : digit - 'a' + 10;
        out[i / 2] = static_cast<char>(out[i / 2] | (value << (4 * (i % 2))));
    }
    return out;
}

// A point on E(Fp) outside the prime-order subgroup: x^3 + 4 a square, cofactor not cleared.
ec::G1Affine non_subgroup_point() {
    for (uint64_t x = 1;; ++x) {
        ec::G1Affine point;
        point.x = ff::Fp::from_u64(x);
        const ff::Fp rhs = point.x.sqr() * point.x + ff::Fp::from_u64(4);
        if (rhs.sqrt(point.y) && !ec::is_in_subgroup(point)) return point;
    }
}

class MalformedFiles : public ::testing::Test {
protected:
    void SetUp() override {
        const fs::path dir = circuit_dir("chain-4");
        zkey_ = test::read_file_bytes(dir / "chain-4.zkey");
        wtns_ = test::read_file_bytes(dir / "wtns" / "small.wtns");
        other_wtns_ = test::read_file_bytes(circuit_dir("many-public") / "wtns" / "small.wtns");
        ASSERT_GT(zkey_.size(), 1000u);
        ASSERT_GT(wtns_.size(), 50u);
    }
    // What reading `bytes` as a .zkey says ("" when it reads).
    std::string zkey_error(const std::vector<char>& bytes) {
        test::write_file_bytes(zkey_path_, bytes);
        try {
            groth16::read_zkey(zkey_path_, 1);
            return "";
        } catch (const ZkeyError& e) {
            const std::string message = e.what();
            EXPECT_EQ(message.rfind(zkey_path_.string(), 0), 0u) << "names the file first: " << message;
            return message;
        }
    }
    std::string wtns_error(const std::vector<char>& bytes, uint64_t variables = 7) {
        test::write_file_bytes(wtns_path_, bytes);
        try {
            groth16::read_wtns(wtns_path_, variables);
            return "";
        } catch (const ZkeyError& e) {
            const std::string message = e.what();
            EXPECT_EQ(message.rfind(wtns_path_.string(), 0), 0u) << "names the file first: " << message;
            return message;
        }
    }
    std::vector<char> zkey_, wtns_, other_wtns_;
    test::TempDir temp_;
    fs::path zkey_path_ = temp_.path() / "bad.zkey", wtns_path_ = temp_.path() / "bad.wtns";
};

#define EXPECT_MENTIONS(message, text) EXPECT_NE((message).find(text), std::string::npos) << (message)

TEST_F(MalformedFiles, TheOriginalsRead) {
    EXPECT_EQ(zkey_error(zkey_), "");
    EXPECT_EQ(wtns_error(wtns_), "");
}

TEST_F(MalformedFiles, TruncatedZkeysAreRefused) {
    for (size_t keep : {size_t{0}, size_t{4}, size_t{11}, size_t{20}, size_t{300}, zkey_.size() / 2, zkey_.size() - 1})
        EXPECT_MENTIONS(zkey_error(std::vector<char>(zkey_.begin(), zkey_.begin() + static_cast<ptrdiff_t>(keep))),
                        "truncated");
    std::vector<char> longer = zkey_;
    longer.push_back(0);
    EXPECT_MENTIONS(zkey_error(longer), "after its last section");
}

TEST_F(MalformedFiles, OtherFilesAreNamedForWhatTheyAre) {
    EXPECT_MENTIONS(zkey_error(wtns_), "this is a .wtns file, not a .zkey");
    std::vector<char> garbage(200, 'x');
    EXPECT_MENTIONS(zkey_error(garbage), "not a .zkey file");
    EXPECT_MENTIONS(wtns_error(zkey_), "this is a .zkey file, not a .wtns");
    std::vector<char> version = zkey_;
    version[4] = 9;
    EXPECT_MENTIONS(zkey_error(version), "version 9");
}

TEST_F(MalformedFiles, AnotherCurveIsNamed) {
    std::vector<char> bn254 = zkey_;
    const auto [offset, length] = snarkjs_sections(zkey_).at(2);
    ASSERT_GT(length, 52u);
    // BN254's 32-byte q in place of BLS12-381's 48 (n8q = 32), as snarkjs writes a bn128 key.
    const std::vector<char> q = le_bytes("30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47", 32);
    const uint32_t n8q = 32;
    std::memcpy(bn254.data() + offset, &n8q, 4);
    std::memcpy(bn254.data() + offset + 4, q.data(), 32);
    const std::string message = zkey_error(bn254);
    EXPECT_MENTIONS(message, "section 2");
    EXPECT_MENTIONS(message, "the curve is BN254");
    EXPECT_MENTIONS(message, "where a BLS12-381 key is expected");
    // An unknown prime: both curves named.
    std::vector<char> unknown = zkey_;
    unknown[offset + 4] ^= 0x02;
    const std::string unknown_message = zkey_error(unknown);
    EXPECT_MENTIONS(unknown_message, "unknown curve");
    EXPECT_MENTIONS(unknown_message, "BN254 (circom's default");
}

TEST_F(MalformedFiles, PointsOffTheCurveOrOutsideTheSubgroupAreRefused) {
    const auto sections = snarkjs_sections(zkey_);
    for (uint32_t section : {3u, 5u, 6u, 8u, 9u}) {
        const size_t offset = sections.at(section).first;
        // The first point that is not infinity: the A, B1 sections have zero entries.
        size_t point = 0;
        while (std::all_of(zkey_.begin() + static_cast<ptrdiff_t>(offset + 96 * point),
                           zkey_.begin() + static_cast<ptrdiff_t>(offset + 96 * point + 96),
                           [](char byte) { return byte == 0; }))
            ++point;
        std::vector<char> off_curve = zkey_;
        off_curve[offset + 96 * point + 50] ^= 1;  // y's second byte
        const std::string message = zkey_error(off_curve);
        EXPECT_MENTIONS(message, "section " + std::to_string(section));
        EXPECT_MENTIONS(message, "point " + std::to_string(point));

        std::vector<char> outside = zkey_;
        const ec::G1Affine bad = non_subgroup_point();
        std::memcpy(outside.data() + offset + 96 * point, &bad, sizeof bad);
        EXPECT_MENTIONS(zkey_error(outside), "not in the prime-order subgroup");
    }
    std::vector<char> not_reduced = zkey_;  // x = p + x: no longer a field element
    const size_t ic = sections.at(3).first;
    std::memset(not_reduced.data() + ic, 0xff, 48);
    EXPECT_MENTIONS(zkey_error(not_reduced), "not a field element");
}

TEST_F(MalformedFiles, SectionsOfTheWrongSizeOrMissingAreRefused) {
    const auto sections = snarkjs_sections(zkey_);
    std::vector<char> coefficient = zkey_;
    const size_t entry = sections.at(4).first + 4;
    const uint32_t huge_row = 1u << 30;
    std::memcpy(coefficient.data() + entry + 4, &huge_row, 4);
    EXPECT_MENTIONS(zkey_error(coefficient), "section 4 (coefficients): coefficient 0 is out of range");
    std::vector<char> renamed = zkey_;  // section 9 (H) relabelled 11: H is then missing
    const uint32_t other_id = 11;
    std::memcpy(renamed.data() + sections.at(9).first - 12, &other_id, 4);
    EXPECT_MENTIONS(zkey_error(renamed), "section 9 (H): missing");
    std::vector<char> protocol = zkey_;
    const uint32_t plonk = 2;
    std::memcpy(protocol.data() + sections.at(1).first, &plonk, 4);
    EXPECT_MENTIONS(zkey_error(protocol), "not Groth16");
}

TEST_F(MalformedFiles, WitnessesThatDoNotFitAreRefused) {
    EXPECT_MENTIONS(wtns_error(other_wtns_), "this witness is for another circuit");
    EXPECT_MENTIONS(wtns_error(std::vector<char>(wtns_.begin(), wtns_.end() - 1)), "truncated");
    const auto sections = snarkjs_sections(wtns_);
    std::vector<char> bn254 = wtns_;
    const std::vector<char> r = le_bytes("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", 32);
    std::memcpy(bn254.data() + sections.at(1).first + 4, r.data(), 32);
    EXPECT_MENTIONS(wtns_error(bn254), "BN254");
    std::vector<char> first = wtns_;
    first[sections.at(2).first] = 2;  // w[0] = 2
    EXPECT_MENTIONS(wtns_error(first), "w[0] is not 1");
    std::vector<char> unreduced = wtns_;
    std::memset(unreduced.data() + sections.at(2).first + 32, 0xff, 32);
    EXPECT_MENTIONS(wtns_error(unreduced), "value 1 is not below r");
}

// Section 2 laid out as snarkjs writes it: n8q, q, n8r, r, nVars, nPublic, domainSize,
// then alpha1 beta1 beta2 gamma2 delta1 delta2 (docs/formats.md).
constexpr size_t kGroth16HeaderBytes = 4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192;
constexpr size_t kAlpha1At = 100, kBeta2At = kAlpha1At + 2 * 96, kGamma2At = kBeta2At + 192,
                 kDelta2At = kGamma2At + 192 + 96;

// A header section shorter than the fields read after its prime: refused by its
// length, before any of those fields is read (they would lie past the section's end).
TEST_F(MalformedFiles, AGroth16HeaderShorterThanItsFieldsIsRefusedBeforeTheyAreRead) {
    const auto [offset, length] = snarkjs_sections(zkey_).at(2);
    ASSERT_EQ(length, kGroth16HeaderBytes);
    const std::vector<char> header(zkey_.begin() + static_cast<ptrdiff_t>(offset),
                                   zkey_.begin() + static_cast<ptrdiff_t>(offset + length));
    for (const size_t keep : {size_t{56}, size_t{60}, size_t{88}, size_t{100}, kGroth16HeaderBytes - 1}) {
        const std::vector<char> cut(header.begin(), header.begin() + static_cast<ptrdiff_t>(keep));
        const std::string message = zkey_error(test::with_snarkjs_section(zkey_, 2, cut));
        EXPECT_MENTIONS(message, "section 2 (Groth16 header): " + std::to_string(keep) + " bytes where " +
                                     std::to_string(kGroth16HeaderBytes) + " are expected");
    }
    // q written in 100 bytes (BLS12-381's q and zeros), the section as long as a 48-byte
    // q's: what follows q would be read 52 bytes past the section's end.
    std::vector<char> padded(header.begin(), header.begin() + 4 + 48);
    const uint32_t n8q = 100;
    std::memcpy(padded.data(), &n8q, 4);
    padded.resize(4 + 100);
    padded.insert(padded.end(), header.begin() + 4 + 48, header.end() - 52);
    ASSERT_EQ(padded.size(), kGroth16HeaderBytes);
    EXPECT_MENTIONS(zkey_error(test::with_snarkjs_section(zkey_, 2, padded)),
                    "q is written in 100 bytes where BLS12-381 takes 48");
}

// With alpha, beta, gamma or delta at infinity the pairing equation accepts forged
// proofs or none; no ceremony makes such a key, so it is refused where it is read.
TEST_F(MalformedFiles, AKeyWithAFixedPointAtInfinityIsRefused) {
    const size_t offset = snarkjs_sections(zkey_).at(2).first;
    for (const auto& [at, size, name] : {std::tuple{kAlpha1At, size_t{96}, "[alpha]1"},
                                         std::tuple{kGamma2At, size_t{192}, "[gamma]2"},
                                         std::tuple{kDelta2At, size_t{192}, "[delta]2"}}) {
        std::vector<char> infinity = zkey_;
        std::memset(infinity.data() + offset + at, 0, size);
        EXPECT_MENTIONS(zkey_error(infinity), std::string(name) + " is the point at infinity");
    }
}

// A witness value that is not below r is found when the job checks its witnesses,
// before any partition proves, not only when its own partition reads it.
TEST_F(MalformedFiles, AWitnessValueNotBelowRIsRefusedByTheCheckBeforeARun) {
    std::vector<char> unreduced = wtns_;
    std::memset(unreduced.data() + snarkjs_sections(wtns_).at(2).first + 3 * 32, 0xff, 32);
    test::write_file_bytes(wtns_path_, unreduced);
    try {
        groth16::check_wtns(wtns_path_, 7);
        ADD_FAILURE() << "check_wtns accepted value 3 >= r";
    } catch (const ZkeyError& e) {
        EXPECT_MENTIONS(std::string(e.what()), wtns_path_.string() + ": section 2 (values): value 3 is not below r");
    }
    // Values as wide as another field's: the 32-byte values would be read at the wrong places.
    std::vector<char> header(4 + 40 + 4, 0);
    const uint32_t n8 = 40;
    std::memcpy(header.data(), &n8, 4);
    const std::vector<char> r = le_bytes("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 32);
    std::memcpy(header.data() + 4, r.data(), 32);
    const uint32_t count = 7;
    std::memcpy(header.data() + 4 + 40, &count, 4);
    EXPECT_MENTIONS(wtns_error(test::with_snarkjs_section(wtns_, 1, header)), "its values take 40 bytes");
}

// A .zkey or .wtns that is a FIFO would block its reader forever, and a directory
// cannot be mapped: both are refused at once, saying what they are.
TEST_F(MalformedFiles, FilesThatAreNotRegularFilesAreRefusedAtOnce) {
    const fs::path fifo = temp_.path() / "fifo", folder = temp_.path() / "folder";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    fs::create_directory(folder);
    for (const auto& [path, what] : {std::pair{fifo, "it is a FIFO (named pipe), not a regular file"},
                                     std::pair{folder, "it is a directory, not a regular file"}}) {
        try {
            groth16::read_zkey(path, 1);
            ADD_FAILURE() << path << " read as a .zkey";
        } catch (const ZkeyError& e) {
            EXPECT_MENTIONS(std::string(e.what()), path.string() + ": cannot open the proving key: " + what);
        }
        try {
            groth16::check_wtns(path, 7);
            ADD_FAILURE() << path << " read as a .wtns";
        } catch (const ZkeyError& e) {
            EXPECT_MENTIONS(std::string(e.what()), path.string() + ": cannot open the witness: " + what);
        }
    }
}

}  // namespace
}  // namespace zkbatch
