// A seeded proving key made on the device (cuda/fixed_base.hpp, cuda/device_key.hpp)
// against the host's groth16::generate_key, and its parts against ec::fixed_base_mul:
// - on the host, the kernel's steps (fixed_base_steps.hpp) thread by thread, warp
//   groups and all, give fixed_base_mul's points for scalars zero, one, r - 1, small
//   and uniform, in G1 and G2 (no GPU needed);
// - on the GPU, FixedBaseGenerator gives the same points for counts that leave partial
//   warps and blocks (output poisoned first), and generate_proving_key gives the same
//   bytes as generate_key (B's of the variables in B alone where B is sparse), so its
//   device_key_points_digest is the key file's digest, for several shapes and seeds; an
//   uploaded key's bytes and digest are its file's too.
#include "msm_test_support.hpp"
#include "test_support.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/key/device_key.hpp"
#include "gpu/key/fixed_base.hpp"
#include "gpu/key/fixed_base_steps.hpp"
#include "gpu/util/stream.hpp"
#include "core/circuit/porep_profile.hpp"
#include "core/groth16/key_file.hpp"
#include "core/groth16/setup.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <vector>

namespace zkbatch {
namespace {

using circuit::R1csShape;
using circuit::SyntheticR1cs;
using ff::Fr;

// Zero, one, r - 1, small values, then uniform ones.
std::vector<Fr> structured_scalars(size_t count, uint64_t seed) {
    std::vector<Fr> scalars = test::random_vector(count, seed);
    const Fr specials[] = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(2), Fr::from_u64(4095),
                           Fr::from_u64(4096), -Fr::from_u64(2)};
    for (size_t i = 0; i < count && i < std::size(specials); ++i) scalars[i] = specials[i];
    for (size_t i = std::size(specials); i < count; i += 5) scalars[i] = Fr::zero();  // infinity among the others
    return scalars;
}

template <class C>
std::vector<ec::Affine<C>> host_points(const std::vector<Fr>& scalars) {
    std::vector<ec::Affine<C>> points(scalars.size());
    ec::fixed_base_mul(ec::generator<C>(), scalars.data(), scalars.size(), points.data(), 2);
    return points;
}

// The kernel run on the host: each thread's sum, then lane 0's inversion of its warp's
// denominators (threads past the end give a 1), then each thread's affine point.
template <class C>
std::vector<ec::Affine<C>> emulated_points(const std::vector<Fr>& scalars) {
    using Field = typename C::Field;
    using cuda::fixed_base::kGroupSize;
    const std::vector<ec::Affine<C>> table =
        ec::fixed_base_table(ec::generator<C>(), cuda::fixed_base::kTableBits, 2);
    const cuda::fixed_base::TableView<C> view{table.data(), cuda::fixed_base::kTableBits,
                                              ec::fixed_base_windows(cuda::fixed_base::kTableBits)};
    std::vector<ec::Affine<C>> out(scalars.size());
    for (size_t group = 0; group < scalars.size(); group += kGroupSize) {
        ec::Xyzz<C> sums[kGroupSize];
        Field denominators[kGroupSize], prefix[kGroupSize];
        for (uint32_t lane = 0; lane < kGroupSize; ++lane) {
            const size_t i = group + lane;
            sums[lane] = i < scalars.size() ? cuda::fixed_base::fixed_base_sum<C>(view, scalars[i])
                                            : ec::Xyzz<C>::infinity();
            denominators[lane] = cuda::fixed_base::inversion_input<C>(sums[lane]);
        }
        cuda::fixed_base::invert_group(denominators, prefix, kGroupSize);
        for (uint32_t lane = 0; lane < kGroupSize && group + lane < scalars.size(); ++lane)
            out[group + lane] = cuda::fixed_base::to_affine<C>(sums[lane], denominators[lane]);
    }
    return out;
}

template <class C>
void expect_same_points(const std::vector<ec::Affine<C>>& got, const std::vector<ec::Affine<C>>& expected) {
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(0, std::memcmp(&got[i], &expected[i], sizeof got[i])) << "point " << i;
}

TEST(FixedBaseEmulation, StepsGiveTheHostsPoints) {
    const std::vector<Fr> scalars = structured_scalars(70, 5);  // two whole warps and a part
    expect_same_points(emulated_points<ec::G1Params>(scalars), host_points<ec::G1Params>(scalars));
    expect_same_points(emulated_points<ec::G2Params>(scalars), host_points<ec::G2Params>(scalars));
}

template <class C>
void expect_device_points(size_t count, uint64_t seed) {
    SCOPED_TRACE(testing::Message() << (std::is_same_v<C, ec::G1Params> ? "G1" : "G2") << ", " << count << " points");
    const std::vector<Fr> scalars = structured_scalars(count, seed);
    const cuda::FixedBaseGenerator<C> generator(ec::generator<C>(), 2);
    cuda::DeviceBuffer<Fr> device_scalars(count);
    device_scalars.copy_from_host(scalars.data(), count);
    cuda::DeviceBuffer<ec::Affine<C>> device_points(count);
    ZKB_CUDA_CHECK(cudaMemset(device_points.data(), 0xa5, device_points.bytes()));
    const cuda::Stream stream;
    generator.multiply(device_scalars.data(), count, device_points.data(), stream);
    stream.synchronize();
    std::vector<ec::Affine<C>> got(count);
    device_points.copy_to_host(got.data(), count);
    expect_same_points(got, host_points<C>(scalars));
}

TEST(FixedBaseDevice, PointsAreTheHostsForEveryCount) {
    ZKB_REQUIRE_GPU();
    for (size_t count : {size_t{1}, size_t{31}, size_t{33}, size_t{128}, size_t{1000}, size_t{4099}}) {
        expect_device_points<ec::G1Params>(count, count);
        expect_device_points<ec::G2Params>(count, count + 1);
    }
}

// sparse_b_variables: B's variables, ascending, across its blocks of 2^20, on any number
// of threads; none (a dense B) when more than kSparseB of the variables are in B.
TEST(SparseB, VariablesInBAreListedWhereBIsSparse) {
    EXPECT_EQ(cuda::sparse_b_variables(10, 1, [](uint64_t i) { return i % 3 == 0; }),
              (std::vector<uint32_t>{0, 3, 6, 9}));
    EXPECT_TRUE(cuda::sparse_b_variables(10, 1, [](uint64_t i) { return i < 8; }).empty());  // 8 > 7.5
    EXPECT_EQ(cuda::sparse_b_variables(8, 2, [](uint64_t i) { return i < 6; }).size(), 6u);  // 6 = 0.75 x 8
    const uint64_t m = (uint64_t{1} << 21) + 77;
    const auto in_b = [](uint64_t i) { return i % 5 == 1 || i == (uint64_t{1} << 20); };
    std::vector<uint32_t> expected;
    for (uint64_t i = 0; i < m; ++i) {
        if (in_b(i)) expected.push_back(static_cast<uint32_t>(i));
    }
    for (unsigned threads : {1u, 3u, 8u}) EXPECT_EQ(cuda::sparse_b_variables(m, threads, in_b), expected) << threads;
}

// The bytes of a device key's queries (on the device, or streamed: in pinned host memory)
// against a host key's; where the device key lists B's variables, its B queries are the
// host's points of those, and every other variable's B points are at infinity.
void expect_same_key(const cuda::DeviceProvingKey<curve::Bls12_381>& device, const groth16::ProvingKey& host) {
    const auto expect_query = [](const auto& query, auto span, const char* name) {
        using Point = std::remove_const_t<typename decltype(span)::element_type>;
        std::vector<Point> got;
        if (query.in_host_memory()) {
            ASSERT_EQ(query.host.bytes(), span.size_bytes()) << name;
            got.assign(query.host_points(), query.host_points() + span.size());
        } else {
            ASSERT_EQ(query.device.size(), span.size()) << name;
            got.resize(span.size());
            query.device.copy_to_host(got.data(), got.size());
        }
        EXPECT_EQ(0, std::memcmp(got.data(), span.data(), span.size_bytes())) << name << " differs";
    };
    std::vector<uint32_t> b_variables(device.b_variables.size());
    device.b_variables.copy_to_host(b_variables.data(), b_variables.size());
    const auto b_query = [&](auto span) {
        std::vector<std::remove_const_t<typename decltype(span)::value_type>> points;
        if (b_variables.empty()) return std::vector(span.begin(), span.end());
        for (uint32_t variable : b_variables) points.push_back(span[variable]);
        return points;
    };
    for (uint64_t i = 0, listed = 0; !b_variables.empty() && i < host.num_variables; ++i) {
        const bool in_b = listed < b_variables.size() && b_variables[listed] == i;
        listed += in_b ? 1 : 0;
        EXPECT_EQ(in_b, !host.b_g1_query[i].is_infinity() || !host.b_g2_query[i].is_infinity()) << "variable " << i;
    }
    const auto b_g1 = b_query(host.b_g1_query);
    const auto b_g2 = b_query(host.b_g2_query);
    expect_query(device.a_query, host.a_query, "A-query");
    expect_query(device.b_g1_query, std::span(b_g1), "B-query in G1");
    expect_query(device.b_g2_query, std::span(b_g2), "B-query in G2");
    expect_query(device.l_query, host.l_query, "L-query");
    expect_query(device.h_query, host.h_query, "H-query");
}

// Made on the device and uploaded, for uniform shapes and PoRep-profile ones (whose B
// is sparse: the key holds a quarter of B's points), with the key file's digest; every
// query resident, or streamed (in pinned host memory), or some of each.
TEST(DeviceKeyGeneration, MakesTheHostsKeyWithItsFilesDigest) {
    ZKB_REQUIRE_GPU();
    const R1csShape shapes[] = {{1, 1, 0, 0.5, 1},
                                {4, 2, 1, 0.0, 2},
                                {9, 3, 3, 0.9, 3},
                                {12, 4, 1, 0.5, 4},
                                {14, 2, 2, 0.9, 5},
                                {10, 0, 3, circuit::kPorepBitShare, 7, circuit::R1csProfile::porep},
                                {12, 0, 2, 0.6, 8, circuit::R1csProfile::porep}};
    for (const R1csShape& shape : shapes) {
        for (uint64_t setup_seed : {uint64_t{1}, uint64_t{77}}) {
            SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", setup seed " << setup_seed);
            const SyntheticR1cs circuit(shape);
            const groth16::ToxicWaste secrets = groth16::toxic_waste_from_seed(setup_seed, shape.log_n);
            const groth16::ProvingKey host = groth16::generate_key(circuit, secrets, 4);
            const groth16::KeyScalars scalars = groth16::key_scalars(circuit, secrets, 4);
            const std::vector<uint32_t> b_variables = cuda::sparse_b_variables(
                host.num_variables, 4, [&](uint64_t i) { return !scalars.b[i].is_zero(); });
            if (circuit.porep() != nullptr) {
                EXPECT_FALSE(b_variables.empty()) << "a PoRep profile's B is sparse";
            }
            const std::string digest = groth16::key_points_digest(host);
            for (size_t streamed : {size_t{0}, size_t{2}, std::size(cuda::kStreamOrder)}) {
                const cuda::KeyPlacement placement = cuda::KeyPlacement::streaming_first(streamed);
                SCOPED_TRACE(placement.names());
                const cuda::DeviceProvingKey<curve::Bls12_381> device = cuda::generate_proving_key(
                    groth16::key_header(circuit, secrets, scalars.ic, 4), scalars, b_variables, 4, placement);
                expect_same_key(device, host);
                EXPECT_EQ(device.placement, placement);
                const cuda::KeyBytes bytes = cuda::key_bytes(host, cuda::b_points_of(host, b_variables.size()), placement);
                EXPECT_EQ(device.device_bytes(), bytes.device);
                EXPECT_EQ(device.host_bytes(), bytes.host);
                EXPECT_EQ(cuda::device_key_points_digest(device), digest);
                const cuda::DeviceProvingKey<curve::Bls12_381> uploaded =
                    cuda::upload_proving_key(host, b_variables, 2, placement);
                expect_same_key(uploaded, host);
                EXPECT_EQ(uploaded.placement, placement);
                EXPECT_EQ(cuda::device_key_points_digest(uploaded), digest);
            }
        }
    }
}

}  // namespace
}  // namespace zkbatch
