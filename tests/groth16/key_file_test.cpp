// zkbatch's key files: a written key loads back equal and proves; every way a key file
// can be wrong is refused with a message naming the file and what to do, and nothing
// is left half-written.
#include "core/circuit/synthetic_r1cs.hpp"
#include "core/curve/curve_id.hpp"
#include "core/groth16/key_file.hpp"
#include "core/groth16/setup.hpp"

#include "../support/file_bytes.hpp"
#include "../support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
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
    EXPECT_EQ(info.file_bytes,
              groth16::key_file_bytes(curve::CurveId::bls12_381, 6, 64, 2, groth16::HConvention::coefficients));
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
    const auto vk = std::get<groth16::VerifyingKey>(groth16::load_verifying_key(path_, circuit_.description()));
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

// docs/formats.md, "Key files": where the header keeps the curve, l, the digests, and its own digest.
constexpr size_t kCurveAt = 12, kNumPublicAt = 32, kVkDigestAt = 168, kHeaderDigestAt = 4080, kVkAt = 4096;

// Writes the XXH3-128 digest of `size` bytes at `data` into `bytes` at `at`, as the key
// file's writer does: a test that changes a field and fixes the digests reaches the
// checks behind them.
void put_digest(std::vector<char>& bytes, size_t at, const char* data, size_t size) {
    const std::string hex = groth16::description_digest(std::string(data, size));
    for (size_t i = 0; i < 16; ++i) bytes[at + i] = static_cast<char>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
}

// A header whose counts would overflow the arithmetic after them (l + 1 wrapping to 0)
// is refused as impossible, whatever its digest says.
TEST_F(KeyFile, RefusesAHeaderWhoseCountsOverflow) {
    std::vector<char> bytes = test::read_file_bytes(path_);
    const uint64_t huge = UINT64_MAX;
    std::memcpy(bytes.data() + kNumPublicAt, &huge, sizeof huge);
    put_digest(bytes, kHeaderDigestAt, bytes.data(), kHeaderDigestAt);
    test::write_file_bytes(path_, bytes);
    const std::string error = load_error(path_, "");
    EXPECT_NE(error.find("its header describes an impossible key"), std::string::npos) << error;
}

// A header naming a curve zkbatch does not prove (its digest made to match) is refused.
TEST_F(KeyFile, RefusesAnUnknownCurve) {
    std::vector<char> bytes = test::read_file_bytes(path_);
    const uint32_t unknown = 3;
    std::memcpy(bytes.data() + kCurveAt, &unknown, sizeof unknown);
    put_digest(bytes, kHeaderDigestAt, bytes.data(), kHeaderDigestAt);
    test::write_file_bytes(path_, bytes);
    const std::string error = load_error(path_, "");
    EXPECT_NE(error.find("curve 3 is neither BLS12-381 (1) nor BN254 (2)"), std::string::npos) << error;
}

// A verifying key with a fixed point at infinity (and digests that match it) is
// refused: in a key file, and read back from the store.
TEST_F(KeyFile, RefusesAFixedPointAtInfinity) {
    std::vector<char> bytes = test::read_file_bytes(path_);
    const size_t vk_bytes = 3 * 96 + 3 * 192 + 3 * 96;  // and the IC: l + 1 = 3 points
    std::memset(bytes.data() + kVkAt + 3 * 96 + 192, 0, 192);  // [gamma]2
    put_digest(bytes, kVkDigestAt, bytes.data() + kVkAt, vk_bytes);
    put_digest(bytes, kHeaderDigestAt, bytes.data(), kHeaderDigestAt);
    const std::vector<uint8_t> file(bytes.begin(), bytes.end());
    try {
        groth16::parse_verifying_key(file, path_);
        ADD_FAILURE() << "a [gamma]2 at infinity was read";
    } catch (const KeyFileError& e) {
        EXPECT_NE(std::string(e.what()).find("its [gamma]2 is the point at infinity"), std::string::npos) << e.what();
    }

    groth16::VerifyingKey vk = key_.vk, read;
    vk.alpha_g1 = ec::G1Affine::infinity();
    const std::vector<uint8_t> stored = groth16::verifying_key_bytes(vk);
    std::string why;
    EXPECT_FALSE(groth16::verifying_key_from_bytes(stored.data(), stored.size(), read, &why));
    EXPECT_NE(why.find("[alpha]1 is the point at infinity"), std::string::npos) << why;
}

// The reader of bytes in memory (what the fuzz target drives) reads what the file
// reader reads.
TEST_F(KeyFile, ReadsTheVerifyingKeyFromBytesAsFromTheFile) {
    const std::vector<char> bytes = test::read_file_bytes(path_);
    groth16::KeyFileInfo info;
    const groth16::AnyVerifyingKey vk =
        groth16::parse_verifying_key(std::vector<uint8_t>(bytes.begin(), bytes.end()), path_, &info);
    EXPECT_EQ(info.points_digest, groth16::read_key_file_info(path_).points_digest);
    EXPECT_EQ(groth16::verifying_key_bytes(vk), groth16::verifying_key_bytes(key_.vk));
}

// A BN254 key file: the same layout with BN254's point sizes and curve 2 in its header.
// It loads back as written, its points digest is the one key_points_digest computes
// without a file, and a reader that asks for a BLS12-381 key is refused, naming both.
TEST(KeyFileBn254, LoadsBackAndIsNotABls12381Key) {
    using Bn = curve::Bn254;
    test::TempDir temp;
    const circuit::SyntheticR1cs circuit({6, 3, 2, 0.5, 31, circuit::R1csProfile::uniform, curve::CurveId::bn254});
    const auto key = groth16::generate_key(circuit, groth16::toxic_waste_from_seed<Bn>(2, 6), 2);
    const fs::path path = temp.path() / "bn254.zkbkey";
    groth16::write_key_file(path, key, circuit.description(), groth16::seeded_setup_description(2));

    groth16::KeyFileInfo info;
    const auto loaded = groth16::load_key_file<Bn>(path, circuit.description(), &info);
    EXPECT_EQ(info.curve, curve::CurveId::bn254);
    EXPECT_EQ(info.file_bytes, fs::file_size(path));
    EXPECT_EQ(info.file_bytes, groth16::key_file_bytes(curve::CurveId::bn254, 6, 64, 2,
                                                       groth16::HConvention::coefficients));
    EXPECT_LT(info.file_bytes, groth16::key_file_bytes(curve::CurveId::bls12_381, 6, 64, 2,
                                                       groth16::HConvention::coefficients));
    EXPECT_EQ(info.points_digest, groth16::key_points_digest(key));
    EXPECT_TRUE(same_points(loaded.a_query, key.a_query));
    EXPECT_TRUE(same_points(loaded.b_g2_query, key.b_g2_query));
    EXPECT_TRUE(same_points(loaded.h_query, key.h_query));
    const groth16::AnyVerifyingKey vk = groth16::load_verifying_key(path, circuit.description());
    ASSERT_EQ(groth16::curve_of(vk), curve::CurveId::bn254);
    EXPECT_EQ(groth16::verifying_key_bytes(vk), groth16::verifying_key_bytes(key.vk));

    const std::string error = load_error(path, "");
    EXPECT_NE(error.find(path.string() + ": a bn254 key where a bls12-381 key was asked for"), std::string::npos)
        << error;
    // The description names the curve, so a BLS12-381 circuit of the same shape has
    // another key (and another cache file).
    const circuit::SyntheticR1cs bls({6, 3, 2, 0.5, 31});
    EXPECT_NE(load_error(path, bls.description()).find("another circuit"), std::string::npos);
}

// A key file that is a FIFO would block its reader forever: refused at once.
TEST_F(KeyFile, RefusesAFifoInItsPlace) {
    fs::remove(path_);
    ASSERT_EQ(mkfifo(path_.c_str(), 0600), 0);
    const std::string error = load_error(path_, "");
    EXPECT_NE(error.find("cannot open: it is a FIFO (named pipe), not a regular file"), std::string::npos) << error;
}

}  // namespace
}  // namespace zkbatch
