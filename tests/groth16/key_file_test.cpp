// zkbatch's key files: a written key loads back equal and proves; every way a key file
// can be wrong is refused with a message naming the file and what to do, and nothing
// is left half-written.
#include "core/circuit/synthetic_r1cs.hpp"
#include "core/groth16/key_file.hpp"
#include "core/groth16/setup.hpp"

#include "../support/file_bytes.hpp"
#include "../support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

namespace fs = std::filesystem;
using groth16::KeyFileError;
using groth16::ProvingKey;

template <class Point>
bool same_points(std::span<const Point> a, std::span<const Point> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// What loading `path` says, or "" when it loads.
std::string load_error(const fs::path& path, const std::string& circuit) {
    try {
        groth16::load_key_file(path, circuit);
        return "";
    } catch (const KeyFileError& e) {
        return e.what();
    }
}

class KeyFile : public ::testing::Test {
protected:
    void SetUp() override {
        key_ = groth16::generate_key(circuit_, groth16::toxic_waste_from_seed(2, 6), 2);
        path_ = temp_.path() / "keys" / "k.zkbkey";
        groth16::write_key_file(path_, key_, circuit_.description(), groth16::seeded_setup_description(2));
    }
    test::TempDir temp_;
    circuit::SyntheticR1cs circuit_{{6, 3, 2, 0.5, 31}};
    ProvingKey key_;
    fs::path path_;
};

TEST_F(KeyFile, LoadsBackWhatWasWritten) {
    groth16::KeyFileInfo info;
    const ProvingKey loaded = groth16::load_key_file(path_, circuit_.description(), &info);
    EXPECT_EQ(info.file_bytes, fs::file_size(path_));
    EXPECT_EQ(info.file_bytes, groth16::key_file_bytes(6, 64, 2, groth16::HConvention::coefficients));
    EXPECT_EQ(info.circuit_description, circuit_.description());
    EXPECT_EQ(info.setup_description, groth16::seeded_setup_description(2));
    EXPECT_EQ(info.circuit_digest, groth16::description_digest(circuit_.description()));
    EXPECT_EQ(loaded.log_n, 6u);
    EXPECT_EQ(loaded.num_variables, 64u);
    EXPECT_EQ(loaded.num_public, 2u);
    EXPECT_TRUE(same_points(loaded.a_query, key_.a_query));
    EXPECT_TRUE(same_points(loaded.b_g1_query, key_.b_g1_query));
    EXPECT_TRUE(same_points(loaded.b_g2_query, key_.b_g2_query));
    EXPECT_TRUE(same_points(loaded.l_query, key_.l_query));
    EXPECT_TRUE(same_points(loaded.h_query, key_.h_query));
    EXPECT_TRUE(same_points(std::span<const ec::G1Affine>(loaded.vk.ic), std::span<const ec::G1Affine>(key_.vk.ic)));
    EXPECT_TRUE(loaded.vk.alpha_g1 == key_.vk.alpha_g1 && loaded.beta_g1 == key_.beta_g1 &&
                loaded.delta_g1 == key_.delta_g1 && loaded.vk.beta_g2 == key_.vk.beta_g2 &&
                loaded.vk.gamma_g2 == key_.vk.gamma_g2 && loaded.vk.delta_g2 == key_.vk.delta_g2);
    const groth16::VerifyingKey vk = groth16::load_verifying_key(path_, circuit_.description());
    EXPECT_TRUE(vk.alpha_g1 == key_.vk.alpha_g1 && vk.delta_g2 == key_.vk.delta_g2);
    EXPECT_EQ(vk.ic.size(), 3u);
    // Nothing but the key is left in its folder (the temporary file was renamed).
    EXPECT_EQ(std::distance(fs::directory_iterator(path_.parent_path()), fs::directory_iterator()), 1);
}

TEST_F(KeyFile, RefusesTruncatedAndExtendedFiles) {
    const std::vector<char> bytes = test::read_file_bytes(path_);
    for (size_t keep : {size_t{0}, size_t{7}, size_t{100}, size_t{4096}, bytes.size() - 1}) {
        test::write_file_bytes(path_, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(keep)));
        const std::string error = load_error(path_, "");
        EXPECT_NE(error.find(path_.string()), std::string::npos) << error;
        EXPECT_NE(error.find("truncated"), std::string::npos) << keep << " bytes: " << error;
    }
    std::vector<char> longer = bytes;
    longer.push_back('\0');
    test::write_file_bytes(path_, longer);
    EXPECT_NE(load_error(path_, "").find("trailing bytes"), std::string::npos);
}

TEST_F(KeyFile, RefusesAChangedByteAnywhere) {
    const std::vector<char> bytes = test::read_file_bytes(path_);
    // In the header, the vk section, each query section and the last byte.
    const size_t positions[] = {12, 16, 100, 3000, 4096 + 10, 4096 * 2 + 5, bytes.size() / 2, bytes.size() - 1};
    for (size_t position : positions) {
        std::vector<char> changed = bytes;
        changed[position] ^= 0x20;
        test::write_file_bytes(path_, changed);
        const std::string error = load_error(path_, circuit_.description());
        EXPECT_NE(error.find("corrupted"), std::string::npos) << "byte " << position << ": " << error;
        EXPECT_NE(error.find("zkbatch setup"), std::string::npos) << error;
    }
    // The verifying key alone is checked by its own digest.
    std::vector<char> changed = bytes;
    changed[4096 + 3] ^= 1;
    test::write_file_bytes(path_, changed);
    EXPECT_THROW(groth16::load_verifying_key(path_, ""), KeyFileError);
}

TEST_F(KeyFile, RefusesAKeyForAnotherCircuit) {
    const circuit::SyntheticR1cs other({6, 3, 2, 0.5, 32});
    const std::string error = load_error(path_, other.description());
    EXPECT_NE(error.find("another circuit"), std::string::npos) << error;
    EXPECT_NE(error.find(groth16::description_digest(other.description())), std::string::npos) << error;
    EXPECT_THROW(groth16::load_verifying_key(path_, other.description()), KeyFileError);
}

TEST_F(KeyFile, RefusesWhatIsNotAKeyFile) {
    test::write_file_bytes(path_, std::vector<char>(5000, 'x'));
    EXPECT_NE(load_error(path_, "").find("not a zkbatch key file"), std::string::npos);
    const std::string missing = load_error(temp_.path() / "absent.zkbkey", "");
    EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
}

}  // namespace
}  // namespace zkbatch
