// The seeded setup's parts (core/groth16/setup.hpp, key_file.hpp): the scalars of the
// parallel pass over the rows equal those of a plain serial pass that shares none of its
// code (per-row Lagrange values by the closed form, one inversion each, sums in row
// order), for shapes whose blocks span several rows and several rounds; thread counts do
// not change a key's bytes; the verifying key alone is the whole key's; a key's points
// digest, computed without a file, is the one its file's header carries; a circuit and a
// setup are rebuilt from their descriptions, and other text is refused.
#include "core/circuit/synthetic_r1cs.hpp"
#include "core/groth16/key_file.hpp"
#include "core/groth16/setup.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using circuit::R1csShape;
using circuit::SyntheticR1cs;
using ff::Fr;
using groth16::KeyScalars;

// The serial reference: L_j(tau) = (tau^n - 1) / n * omega^j / (tau - omega^j) row by row.
KeyScalars serial_scalars(const SyntheticR1cs& circuit, const groth16::ToxicWaste& secrets) {
    const uint64_t n = circuit.rows(), m = circuit.variables(), l = circuit.public_inputs();
    const Fr omega = Fr::root_of_unity(circuit.shape().log_n);
    const Fr scale = (secrets.tau.pow(n) - Fr::one()) * Fr::from_u64(n).inverse();
    std::vector<Fr> u(m, Fr::zero()), v(m, Fr::zero()), w(m, Fr::zero());
    Fr power = Fr::one();
    for (uint64_t row = 0; row < n; ++row, power *= omega) {
        const Fr basis = scale * power * (secrets.tau - power).inverse();
        circuit.for_each_term(row, [&](circuit::Matrix matrix, uint64_t variable, const Fr& coefficient) {
            std::vector<Fr>& column = matrix == circuit::Matrix::a ? u : matrix == circuit::Matrix::b ? v : w;
            column[variable] += coefficient * basis;
        });
    }
    KeyScalars scalars;
    for (uint64_t i = 0; i < m; ++i) {
        const Fr combined = secrets.beta * u[i] + secrets.alpha * v[i] + w[i];
        if (i <= l) scalars.ic.push_back(combined * secrets.gamma.inverse());
        else scalars.l.push_back(combined * secrets.delta.inverse());
    }
    Fr tau_power = Fr::one();
    for (uint64_t j = 0; j + 1 < n; ++j, tau_power *= secrets.tau)
        scalars.h.push_back(tau_power * (secrets.tau.pow(n) - Fr::one()) * secrets.delta.inverse());
    scalars.a = u;
    scalars.b = v;
    return scalars;
}

// log_n 9 and 12: blocks of 8 and 64 rows, 64 blocks in 5 rounds; log_n 4: one row a block.
// The porep profile: m < n, check rows, chains across blocks, zero padding.
TEST(SeededSetup, ParallelScalarsEqualASerialPass) {
    const R1csShape shapes[] = {{4, 2, 2, 0.5, 3},
                                {9, 3, 1, 0.0, 5},
                                {9, 4, 6, 0.9, 6},
                                {12, 2, 1, 0.7, 7},
                                {9, 0, 2, 0.55, 6, circuit::R1csProfile::porep},
                                {12, 0, 1, 0.5, 7, circuit::R1csProfile::porep}};
    for (const R1csShape& shape : shapes) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", boolean share " << shape.boolean_share);
        const SyntheticR1cs circuit(shape);
        const groth16::ToxicWaste secrets = groth16::toxic_waste_from_seed(shape.seed + 10, shape.log_n);
        const KeyScalars expected = serial_scalars(circuit, secrets);
        for (unsigned threads : {1u, 3u, 8u}) {
            const KeyScalars got = groth16::key_scalars(circuit, secrets, threads);
            EXPECT_EQ(got.a, expected.a) << threads << " threads";
            EXPECT_EQ(got.b, expected.b) << threads << " threads";
            EXPECT_EQ(got.l, expected.l) << threads << " threads";
            EXPECT_EQ(got.h, expected.h) << threads << " threads";
            EXPECT_EQ(got.ic, expected.ic) << threads << " threads";
        }
    }
}

TEST(SeededSetup, VerifyingKeyAloneIsTheWholeKeys) {
    const SyntheticR1cs circuit({10, 3, 4, 0.8, 2});
    const groth16::ToxicWaste secrets = groth16::toxic_waste_from_seed(3, 10);
    const groth16::ProvingKey key = groth16::generate_key(circuit, secrets, 2);
    const groth16::VerifyingKey vk = groth16::seeded_verifying_key(circuit, secrets, 3);
    EXPECT_EQ(groth16::verifying_key_bytes(vk), groth16::verifying_key_bytes(key.vk));
}

TEST(SeededSetup, PointsDigestWithoutAFileIsTheFilesAndThreadsDoNotMatter) {
    const SyntheticR1cs circuit({8, 2, 2, 0.5, 4});
    const groth16::ToxicWaste secrets = groth16::toxic_waste_from_seed(5, 8);
    const groth16::ProvingKey key = groth16::generate_key(circuit, secrets, 1);
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("zkbatch-setup-test-" + std::to_string(::getpid()) + ".zkbkey");
    groth16::write_key_file(path, key, circuit.description(), groth16::seeded_setup_description(5));
    const groth16::KeyFileInfo info = groth16::read_key_file_info(path);
    std::filesystem::remove(path);
    EXPECT_EQ(groth16::key_points_digest(key), info.points_digest);
    EXPECT_EQ(groth16::key_points_digest(groth16::generate_key(circuit, secrets, 4)), info.points_digest);
    EXPECT_NE(groth16::key_points_digest(groth16::generate_key(circuit, groth16::toxic_waste_from_seed(6, 8), 4)),
              info.points_digest);
}

TEST(SeededSetup, PointsDigestRefusesSectionsOutOfOrderOrIncomplete) {
    const SyntheticR1cs circuit({3, 1, 1, 0.0, 1});
    const groth16::ProvingKey key = groth16::generate_key(circuit, groth16::toxic_waste_from_seed(1, 3), 1);
    using Section = groth16::KeyPointsDigest::Section;
    const std::vector<uint8_t> vk = groth16::vk_section_bytes(key);
    {
        groth16::KeyPointsDigest digest(curve::CurveId::bls12_381, key.log_n, key.num_variables, key.num_public,
                                        key.h_convention);
        EXPECT_THROW(digest.add(Section::a, key.a_query.data(), key.a_query.size_bytes()), std::logic_error);
    }
    {
        groth16::KeyPointsDigest digest(curve::CurveId::bls12_381, key.log_n, key.num_variables, key.num_public,
                                        key.h_convention);
        digest.add(Section::vk, vk.data(), vk.size() - 1);
        EXPECT_THROW(digest.add(Section::a, key.a_query.data(), key.a_query.size_bytes()), std::logic_error);
    }
    {
        groth16::KeyPointsDigest digest(curve::CurveId::bls12_381, key.log_n, key.num_variables, key.num_public,
                                        key.h_convention);
        digest.add(Section::vk, vk.data(), vk.size());
        EXPECT_THROW(digest.add(Section::a, key.a_query.data(), key.a_query.size_bytes() + 1), std::logic_error);
        EXPECT_THROW(digest.finish(), std::logic_error);
    }
}

TEST(SeededSetup, CircuitsAndSetupsComeBackFromTheirDescriptions) {
    const R1csShape shapes[] = {{5, 2, 1, 0.9, 3}, {20, 4, 7, 0.0, uint64_t{1} << 40}, {7, 1, 0, 1.0, 2}, {9, 3, 2, 1e-9, 8}};
    for (const R1csShape& shape : shapes) {
        const SyntheticR1cs circuit(shape);
        const SyntheticR1cs back = SyntheticR1cs::from_description(circuit.description());
        EXPECT_EQ(back.description(), circuit.description());
        for (uint64_t row : {uint64_t{0}, uint64_t{3}}) EXPECT_EQ(back.is_boolean_row(row), circuit.is_boolean_row(row));
    }
    const std::string good = SyntheticR1cs({5, 2, 1, 0.9, 3}).description();
    for (const std::string& bad : {std::string(""), std::string("circuit=other\n"), good.substr(0, good.size() - 1),
                                   good + "extra=1\n", std::string(good).replace(good.find("log_n=5"), 7, "log_n=x"),
                                   std::string(good).replace(good.find("log_n=5"), 7, "log_n=40"),
                                   good + "curve=bls12-381\n", good + "curve=bn128\n", good + "curve=bn255\n"})
        EXPECT_THROW(SyntheticR1cs::from_description(bad), std::invalid_argument) << bad;

    // A BN254 circuit's description is a BLS12-381 one's with a last line naming the curve
    // (so a key of one is never taken for the other's), and reads back over BN254.
    R1csShape bn254_shape{5, 2, 1, 0.9, 3};
    bn254_shape.curve = curve::CurveId::bn254;
    const std::string bn254 = SyntheticR1cs(bn254_shape).description();
    EXPECT_EQ(bn254, good + "curve=bn254\n");
    EXPECT_EQ(SyntheticR1cs::from_description(bn254).shape().curve, curve::CurveId::bn254);
    EXPECT_EQ(SyntheticR1cs::from_description(good).shape().curve, curve::CurveId::bls12_381);
    bn254_shape.profile = circuit::R1csProfile::porep;
    bn254_shape.log_n = 20;
    try {
        (void)SyntheticR1cs(bn254_shape);
        ADD_FAILURE() << "a BN254 porep circuit was made";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("circuit.profile = \"porep\" is BLS12-381's alone"), std::string::npos)
            << e.what();
    }

    EXPECT_EQ(groth16::seeded_setup_seed(groth16::seeded_setup_description(12345)), 12345u);
    for (const std::string& bad : {std::string(""), std::string("setup=seeded\nseed=\n"),
                                   std::string("setup=seeded\nseed=12x\n"), std::string("setup=seeded\nseed=012\n"),
                                   std::string("setup=ceremony\n")})
        EXPECT_THROW(groth16::seeded_setup_seed(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace zkbatch
