// The device MSM (gpu/msm/msm.hpp) against the CPU's msm::pippenger: equal affine
// sums for every scalar profile (uniform, all zero, all one, mostly boolean, r - 1,
// small, edge values), bases distinct, repeated or at infinity, n from 1 to 2^20, G1
// and G2, scalars canonical or in Montgomery form, the automatic and forced window
// widths, one plan shared by a G1 and a G2 accumulation on two streams, and buffers
// reused across sizes, an MSM in chunks combined on the host; BLS12-381's groups and
// BN254's. Every result buffer is poisoned
// first, so an MSM that writes nothing cannot pass. Skips visibly without a GPU.
#include "msm_test_support.hpp"
#include "test_support.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/util/stream.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace zkbatch {
namespace {

using cuda::msm::ScalarForm;
using test::BaseProfile;
using test::ScalarProfile;

using test::curve_name;

// The curve's Montgomery scalars, then canonical ones: the forms every case runs in.
template <class C>
constexpr ScalarForm kForms[] = {cuda::msm::montgomery_form<typename C::Scalar>(), ScalarForm::canonical};

// Device copies of one MSM's inputs.
template <class C>
struct DeviceInputs {
    cuda::DeviceBuffer<ec::Affine<C>> bases;
    cuda::DeviceBuffer<typename C::Scalar> montgomery;
    cuda::DeviceBuffer<msm::Scalar> canonical;

    DeviceInputs(const std::vector<ec::Affine<C>>& host_bases, const std::vector<typename C::Scalar>& scalars)
        : bases(host_bases.size()), montgomery(scalars.size()), canonical(scalars.size()) {
        bases.copy_from_host(host_bases.data(), host_bases.size());
        montgomery.copy_from_host(scalars.data(), scalars.size());
        const std::vector<msm::Scalar> canonical_host = test::canonical_scalars(scalars);
        canonical.copy_from_host(canonical_host.data(), canonical_host.size());
    }
    const void* scalars(ScalarForm form) const {
        return form != ScalarForm::canonical ? static_cast<const void*>(montgomery.data())
                                             : static_cast<const void*>(canonical.data());
    }
};

// One MSM's inputs, on the host and on the device, and the CPU's sum.
template <class C>
struct MsmCase {
    std::vector<ec::Affine<C>> bases;
    std::vector<typename C::Scalar> scalars;
    ec::Affine<C> expected;
    DeviceInputs<C> inputs;

    MsmCase(size_t n, BaseProfile base_profile, ScalarProfile scalar_profile, uint64_t seed)
        : bases(test::make_bases<C>(n, base_profile, seed)),
          scalars(test::make_scalars<typename C::Scalar>(n, scalar_profile, seed + 1)),
          expected(test::cpu_msm(bases, test::canonical_scalars(scalars))), inputs(bases, scalars) {}
};

// The device's sum read back as affine, its result buffer poisoned beforehand.
template <class C>
ec::Affine<C> read_result(const cuda::DeviceBuffer<ec::Jacobian<C>>& result, const cuda::Stream& stream) {
    stream.synchronize();
    ec::Jacobian<C> sum;
    result.copy_to_host(&sum, 1);
    EXPECT_TRUE(sum.is_on_curve()) << "the device's sum is not on the curve";
    return sum.to_affine();
}

template <class C>
void poison(const cuda::DeviceBuffer<ec::Jacobian<C>>& result) {
    ZKB_CUDA_CHECK(cudaMemset(result.data(), 0xa5, sizeof(ec::Jacobian<C>)));
}

// One DeviceMsm per (curve, capacity) runs all the cases of a test, so buffers are
// reused from one size and profile to the next.
template <class C>
void expect_device_matches_cpu(cuda::msm::DeviceMsm<C>& msm, size_t n, BaseProfile base_profile,
                               ScalarProfile scalar_profile, uint64_t seed, uint32_t window_bits = 0) {
    SCOPED_TRACE(testing::Message() << curve_name<C>() << ", n " << n << ", bases " << to_string(base_profile)
                                    << ", scalars " << to_string(scalar_profile) << ", window bits " << window_bits);
    const MsmCase<C> msm_case(n, base_profile, scalar_profile, seed);
    const DeviceInputs<C>& inputs = msm_case.inputs;
    const cuda::Stream stream;
    cuda::DeviceBuffer<ec::Jacobian<C>> result(1);
    for (ScalarForm form : kForms<C>) {
        poison(result);
        msm.compute(inputs.bases.data(), inputs.scalars(form), form, n, result.data(), stream, window_bits);
        EXPECT_EQ(read_result(result, stream), msm_case.expected)
            << (form == ScalarForm::canonical ? "canonical" : "montgomery") << " scalars; plan: "
            << msm.plan().full_count() << " full, " << msm.plan().one_count() << " ones, " << msm.plan().entry_count()
            << " entries, c = " << msm.plan().layout().bits;
    }
}

cuda::msm::MsmCapacity capacity_for(uint64_t max_points, std::vector<uint32_t> forced = {}) {
    cuda::msm::MsmCapacity capacity;
    capacity.max_points = max_points;
    capacity.forced_window_bits = std::move(forced);
    return capacity;
}

TEST(MsmDevice, G1MatchesTheCpuForEveryScalarProfile) {
    ZKB_REQUIRE_GPU();
    cuda::msm::DeviceMsm<ec::G1Params> msm(capacity_for(1 << 16));
    uint64_t seed = 1000;
    for (ScalarProfile profile : test::kScalarProfiles) {
        for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{100}, size_t{1000}, size_t{4099}, size_t{1} << 16}) {
            expect_device_matches_cpu(msm, n, BaseProfile::distinct, profile, seed++);
        }
    }
}

TEST(MsmDevice, G1WithRepeatedAndInfiniteBases) {
    ZKB_REQUIRE_GPU();
    cuda::msm::DeviceMsm<ec::G1Params> msm(capacity_for(1 << 14));
    uint64_t seed = 2000;
    for (BaseProfile bases : {BaseProfile::repeated, BaseProfile::with_infinity}) {
        for (ScalarProfile profile : test::kScalarProfiles) {
            expect_device_matches_cpu(msm, 5000, bases, profile, seed++);
        }
    }
}

TEST(MsmDevice, G1AtLargeSizes) {
    ZKB_REQUIRE_GPU();
    cuda::msm::DeviceMsm<ec::G1Params> msm(capacity_for(1 << 20));
    expect_device_matches_cpu(msm, size_t{1} << 18, BaseProfile::distinct, ScalarProfile::uniform, 3000);
    expect_device_matches_cpu(msm, size_t{1} << 20, BaseProfile::distinct, ScalarProfile::uniform, 3001);
    expect_device_matches_cpu(msm, size_t{1} << 20, BaseProfile::distinct, ScalarProfile::mostly_boolean, 3002);
    expect_device_matches_cpu(msm, size_t{1} << 20, BaseProfile::repeated, ScalarProfile::ones, 3003);
    expect_device_matches_cpu(msm, (size_t{1} << 19) + 7, BaseProfile::with_infinity, ScalarProfile::edges, 3004);
}

// Spills sized for the rounds' segments (MsmCapacity::spills_for_rounds, a proof's G2)
// with no rounds run: at c = 1, 2^21 uniform scalars make ~2^28 entries, whose chosen
// segments (at most 256; whole waves make them a little longer) would spill more than
// twice the 838,862 level-0 entries there is room for, so the accumulator runs longer
// ones. Its sum is still the CPU's.
TEST(MsmDevice, PlainRunsLengthenSegmentsToFitSpillsSizedForRounds) {
    ZKB_REQUIRE_GPU();
    cuda::msm::MsmCapacity capacity = capacity_for(1 << 21, {1});
    capacity.affine_rounds = true;  // G1: its rounds are off by default (min_pairs 0)
    capacity.affine_segment = cuda::msm::kMinAffineSegment;
    capacity.spills_for_rounds = true;
    cuda::msm::DeviceMsm<ec::G1Params> msm(capacity);
    expect_device_matches_cpu(msm, size_t{1} << 21, BaseProfile::distinct, ScalarProfile::uniform, 3100, 1);
    const uint64_t entries = msm.plan().entry_count();
    const uint64_t twice_chosen = 2 * uint64_t{cuda::msm::choose_first_segment(entries, 0)};
    EXPECT_GT(2 * ((entries + twice_chosen - 1) / twice_chosen), capacity.max_spills(0))
        << entries << " entries: segments twice as long as chosen would have fit, so none had to be lengthened";
    expect_device_matches_cpu(msm, size_t{1} << 21, BaseProfile::distinct, ScalarProfile::mostly_boolean, 3101, 1);
    expect_device_matches_cpu(msm, 5000, BaseProfile::with_infinity, ScalarProfile::uniform, 3102);
}

TEST(MsmDevice, G1AndG2WithForcedWindowWidths) {
    ZKB_REQUIRE_GPU();
    const std::vector<uint32_t> widths = {1, 4, 8, 12, 16, 20};
    cuda::msm::DeviceMsm<ec::G1Params> g1(capacity_for(5000, widths));
    cuda::msm::DeviceMsm<ec::G2Params> g2(capacity_for(5000, widths));
    uint64_t seed = 4000;
    for (uint32_t bits : widths) {
        expect_device_matches_cpu(g1, 5000, BaseProfile::distinct, ScalarProfile::uniform, seed++, bits);
        expect_device_matches_cpu(g1, 3000, BaseProfile::distinct, ScalarProfile::mostly_boolean, seed++, bits);
        expect_device_matches_cpu(g2, 700, BaseProfile::distinct, ScalarProfile::uniform, seed++, bits);
    }
}

TEST(MsmDevice, G2MatchesTheCpu) {
    ZKB_REQUIRE_GPU();
    cuda::msm::DeviceMsm<ec::G2Params> msm(capacity_for(1 << 16));
    uint64_t seed = 5000;
    for (ScalarProfile profile : test::kScalarProfiles) {
        for (size_t n : {size_t{1}, size_t{5}, size_t{1000}}) {
            expect_device_matches_cpu(msm, n, BaseProfile::distinct, profile, seed++);
        }
    }
    expect_device_matches_cpu(msm, 3000, BaseProfile::repeated, ScalarProfile::uniform, seed++);
    expect_device_matches_cpu(msm, 3000, BaseProfile::with_infinity, ScalarProfile::mostly_boolean, seed++);
    expect_device_matches_cpu(msm, size_t{1} << 14, BaseProfile::distinct, ScalarProfile::uniform, seed++);
    expect_device_matches_cpu(msm, size_t{1} << 16, BaseProfile::distinct, ScalarProfile::mostly_boolean, seed++);
}

// Groth16's use: one plan of z, the A and B queries in G1 on one stream and the B query
// in G2 on another, at the same time.
TEST(MsmDevice, OnePlanServesG1AndG2OnTwoStreams) {
    ZKB_REQUIRE_GPU();
    const size_t n = 20000;
    const cuda::msm::MsmCapacity capacity = capacity_for(n);
    cuda::msm::ScalarPlan plan(capacity);
    cuda::msm::BucketAccumulator<ec::G1Params> g1(capacity);
    cuda::msm::BucketAccumulator<ec::G2Params> g2(capacity);
    const auto scalars = test::make_scalars(n, ScalarProfile::mostly_boolean, 6000);
    const auto canonical = test::canonical_scalars(scalars);
    const auto a_bases = test::make_bases<ec::G1Params>(n, BaseProfile::distinct, 6001);
    const auto b_bases = test::make_bases<ec::G1Params>(n, BaseProfile::with_infinity, 6002);
    const auto g2_bases = test::make_bases<ec::G2Params>(n, BaseProfile::distinct, 6003);
    const DeviceInputs<ec::G1Params> a(a_bases, scalars), b(b_bases, scalars);
    const DeviceInputs<ec::G2Params> c(g2_bases, scalars);
    cuda::DeviceBuffer<ec::G1> a_sum(1), b_sum(1);
    cuda::DeviceBuffer<ec::G2> c_sum(1);
    poison(a_sum);
    poison(b_sum);
    poison(c_sum);
    const cuda::Stream g1_stream, g2_stream;
    plan.prepare(a.scalars(ScalarForm::montgomery), ScalarForm::montgomery, n, g1_stream);
    g2.run(plan, c.bases.data(), c_sum.data(), g2_stream);  // waits for plan.ready()
    g1.run(plan, a.bases.data(), a_sum.data(), g1_stream);
    g1.run(plan, b.bases.data(), b_sum.data(), g1_stream);
    EXPECT_EQ(read_result(a_sum, g1_stream), test::cpu_msm(a_bases, canonical));
    EXPECT_EQ(read_result(b_sum, g1_stream), test::cpu_msm(b_bases, canonical));
    EXPECT_EQ(read_result(c_sum, g2_stream), test::cpu_msm(g2_bases, canonical));
}

// Over a base table built on the device: the table's points are what the host makes of
// next_window_sum (both affine, so byte for byte), and MSMs over it equal the CPU's for
// every scalar profile, G1 and G2, at the table widths the benchmark's sizes use and at
// narrow ones (many windows, each table point hit often), whole and strided.
template <class C>
void expect_table_msm_matches_cpu(size_t n, BaseProfile base_profile, ScalarProfile scalar_profile, uint32_t bits,
                                  uint64_t seed, uint32_t stride = 1) {
    SCOPED_TRACE(testing::Message() << curve_name<C>() << " over a base table, n " << n << ", bases "
                                    << to_string(base_profile) << ", scalars " << to_string(scalar_profile)
                                    << ", window bits " << bits << ", stride " << stride);
    const cuda::msm::TableShape shape{bits, stride};
    cuda::msm::MsmCapacity capacity = capacity_for(n);
    capacity.shared_tables = {shape};
    capacity.plain = false;  // sized for the table's layout alone, as ProofMsms sizes a tabled MSM's
    cuda::msm::ScalarPlan plan(capacity);
    cuda::msm::BucketAccumulator<C> accumulator(capacity);
    cuda::msm::BaseTable<C> table(n, shape);
    const auto bases = test::make_bases<C>(n, base_profile, seed);
    const auto scalars = test::make_scalars<typename C::Scalar>(n, scalar_profile, seed + 1);
    const DeviceInputs<C> inputs(bases, scalars);
    const cuda::Stream stream;
    table.build(inputs.bases.data(), n, stream);
    stream.synchronize();
    // Multiple 1 against the host: 2^(c s) P_i.
    std::vector<ec::Affine<C>> multiple1(n);
    ZKB_CUDA_CHECK(cudaMemcpy(multiple1.data(), table.points() + n, n * sizeof(ec::Affine<C>), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i += std::max<size_t>(1, n / 16)) {
        const ec::Xyzz<C> doubled = cuda::msm::next_window_sum<C>(bases[i], bits * stride);
        EXPECT_EQ(multiple1[i], doubled.to_jacobian().to_affine()) << "table point " << n + i;
    }
    const ec::Affine<C> expected = test::cpu_msm(bases, test::canonical_scalars(scalars));
    cuda::DeviceBuffer<ec::Jacobian<C>> result(1);
    for (ScalarForm form : kForms<C>) {
        poison(result);
        plan.prepare_shared(inputs.scalars(form), form, n, stream, shape);
        accumulator.run(plan, table, result.data(), stream);
        EXPECT_EQ(read_result(result, stream), expected)
            << (form == ScalarForm::canonical ? "canonical" : "montgomery") << " scalars";
    }
}

// An MSM in chunks, as ProofMsms runs one: each chunk's window sums into a slot of the
// capacity's most windows (BucketAccumulator::run_windows), the slots brought back and
// combined on the host (combine_window_sets). Chunks of uniform, zero, one and mostly
// boolean scalars take different layouts; the slots are poisoned first.
template <class C>
void expect_chunk_windows_combine_to_the_cpus_sum(uint64_t seed) {
    SCOPED_TRACE(curve_name<C>());
    constexpr size_t kChunk = 700;
    const ScalarProfile profiles[] = {ScalarProfile::uniform, ScalarProfile::zeros, ScalarProfile::ones,
                                      ScalarProfile::mostly_boolean, ScalarProfile::uniform};
    const cuda::msm::MsmCapacity capacity = capacity_for(kChunk);
    cuda::msm::ScalarPlan plan(capacity);
    cuda::msm::BucketAccumulator<C> accumulator(capacity);
    const uint32_t slot = capacity.max_windows();
    const size_t chunks = std::size(profiles);
    cuda::DeviceBuffer<ec::Xyzz<C>> window_sums(chunks * slot);
    ZKB_CUDA_CHECK(cudaMemset(window_sums.data(), 0xa5, window_sums.bytes()));
    std::vector<ec::Affine<C>> all_bases;
    std::vector<typename C::Scalar> all_scalars;
    std::vector<std::unique_ptr<DeviceInputs<C>>> inputs;
    std::vector<cuda::msm::WindowLayout> layouts;
    const cuda::Stream stream;
    for (size_t k = 0; k < chunks; ++k) {
        const auto bases = test::make_bases<C>(kChunk, BaseProfile::distinct, seed++);
        const auto scalars = test::make_scalars<typename C::Scalar>(kChunk, profiles[k], seed++);
        all_bases.insert(all_bases.end(), bases.begin(), bases.end());
        all_scalars.insert(all_scalars.end(), scalars.begin(), scalars.end());
        inputs.push_back(std::make_unique<DeviceInputs<C>>(bases, scalars));
        const ScalarForm form = kForms<C>[k % 2];
        plan.prepare(inputs.back()->scalars(form), form, kChunk, stream);
        layouts.push_back(
            accumulator.run_windows(plan, inputs.back()->bases.data(), window_sums.data() + k * slot, stream));
        EXPECT_LE(layouts.back().windows, slot);
    }
    EXPECT_EQ(layouts[1].windows, 0u) << "a chunk of zeros has no window sums";
    EXPECT_EQ(layouts[2].windows, 1u) << "a chunk of ones has one";
    stream.synchronize();
    std::vector<ec::Xyzz<C>> host(window_sums.size());
    window_sums.copy_to_host(host.data(), host.size());
    const ec::Affine<C> expected = test::cpu_msm(all_bases, test::canonical_scalars(all_scalars));
    EXPECT_EQ(cuda::msm::combine_window_sets<C>(host.data(), slot, layouts).to_affine(), expected);
}

TEST(MsmDevice, ChunksWindowSumsCombineOnTheHost) {
    ZKB_REQUIRE_GPU();
    expect_chunk_windows_combine_to_the_cpus_sum<ec::G1Params>(9500);
    expect_chunk_windows_combine_to_the_cpus_sum<ec::G2Params>(9600);
    expect_chunk_windows_combine_to_the_cpus_sum<ec::bn254::G1Params>(9700);
}

TEST(MsmDevice, OverBaseTablesMatchesTheCpu) {
    ZKB_REQUIRE_GPU();
    uint64_t seed = 8000;
    for (ScalarProfile profile : test::kScalarProfiles) {
        expect_table_msm_matches_cpu<ec::G1Params>(3000, BaseProfile::distinct, profile, 22, seed++);
    }
    expect_table_msm_matches_cpu<ec::G1Params>(5000, BaseProfile::with_infinity, ScalarProfile::uniform, 4, seed++);
    expect_table_msm_matches_cpu<ec::G1Params>(5000, BaseProfile::repeated, ScalarProfile::mostly_boolean, 9, seed++);
    expect_table_msm_matches_cpu<ec::G1Params>(size_t{1} << 16, BaseProfile::distinct, ScalarProfile::uniform, 20,
                                               seed++);
    expect_table_msm_matches_cpu<ec::G2Params>(1000, BaseProfile::distinct, ScalarProfile::uniform, 22, seed++);
    expect_table_msm_matches_cpu<ec::G2Params>(1000, BaseProfile::with_infinity, ScalarProfile::edges, 7, seed++);
    // Strided: the 2^26 proof's shapes (24 bits at s = 2, 22 at s = 4) and narrow ones.
    for (ScalarProfile profile : test::kScalarProfiles) {
        expect_table_msm_matches_cpu<ec::G1Params>(3000, BaseProfile::distinct, profile, 24, seed++, 2);
    }
    expect_table_msm_matches_cpu<ec::G1Params>(5000, BaseProfile::with_infinity, ScalarProfile::uniform, 22, seed++,
                                               4);
    expect_table_msm_matches_cpu<ec::G1Params>(5000, BaseProfile::repeated, ScalarProfile::mostly_boolean, 5, seed++,
                                               7);
    expect_table_msm_matches_cpu<ec::G2Params>(1000, BaseProfile::distinct, ScalarProfile::uniform, 9, seed++, 3);
}

// A table's plan and a plain plan are not interchangeable, nor tables of other sizes.
TEST(MsmDevice, TablesRefuseOtherPlans) {
    ZKB_REQUIRE_GPU();
    cuda::msm::MsmCapacity capacity = capacity_for(100);
    capacity.shared_tables = {{8, 1}, {8, 2}, {8, 0}};
    cuda::msm::ScalarPlan plan(capacity);
    cuda::msm::BucketAccumulator<ec::G1Params> accumulator(capacity);
    cuda::msm::BaseTable<ec::G1Params> table(100, {8, 1});
    const cuda::Stream stream;
    cuda::DeviceBuffer<ec::G1> result(1);
    cuda::DeviceBuffer<msm::Scalar> scalars(100);
    cuda::DeviceBuffer<ec::G1Affine> bases(100);
    ZKB_CUDA_CHECK(cudaMemset(scalars.data(), 0, scalars.bytes()));
    ZKB_CUDA_CHECK(cudaMemset(bases.data(), 0, bases.bytes()));
    table.build(bases.data(), 100, stream);
    plan.prepare(scalars.data(), ScalarForm::canonical, 100, stream);
    EXPECT_THROW(accumulator.run(plan, table, result.data(), stream), std::invalid_argument);  // not shared
    plan.prepare_shared(scalars.data(), ScalarForm::canonical, 99, stream, {8, 1});
    EXPECT_THROW(accumulator.run(plan, table, result.data(), stream), std::invalid_argument);  // 99 points, not 100
    EXPECT_THROW(accumulator.run(plan, bases.data(), result.data(), stream), std::invalid_argument);  // no table
    plan.prepare_shared(scalars.data(), ScalarForm::canonical, 100, stream, {8, 2});
    EXPECT_THROW(accumulator.run(plan, table, result.data(), stream), std::invalid_argument);  // stride 2, not 1
    EXPECT_THROW(plan.prepare_shared(scalars.data(), ScalarForm::canonical, 100, stream, {9, 1}),
                 std::invalid_argument);  // 9 bits is not a shared width of the capacity
    EXPECT_THROW(plan.prepare_shared(scalars.data(), ScalarForm::canonical, 100, stream, {8, 3}),
                 std::invalid_argument);  // nor stride 3
    EXPECT_THROW(plan.prepare_shared(scalars.data(), ScalarForm::canonical, 100, stream, {8, 0}),
                 std::invalid_argument);  // stride 0 is no table, listed or not
    EXPECT_THROW(table.build(bases.data(), 101, stream), std::invalid_argument);
    EXPECT_THROW((cuda::msm::BaseTable<ec::G1Params>(uint64_t{1} << 28, {16, 1})), std::invalid_argument);  // 2^32 points
    EXPECT_THROW((cuda::msm::BaseTable<ec::G1Params>(100, {8, 0})), std::invalid_argument);
    EXPECT_THROW((cuda::msm::BaseTable<ec::G1Params>(100, {8, 33})), std::invalid_argument);  // 32 windows
    capacity.plain = false;  // a plan sized for tables alone
    cuda::msm::ScalarPlan tables_only(capacity);
    EXPECT_THROW(tables_only.prepare(scalars.data(), ScalarForm::canonical, 100, stream), std::invalid_argument);
}

TEST(MsmDevice, RefusesWhatItWasNotSizedFor) {
    ZKB_REQUIRE_GPU();
    cuda::msm::DeviceMsm<ec::G1Params> msm(capacity_for(100));
    const cuda::Stream stream;
    cuda::DeviceBuffer<ec::G1> result(1);
    cuda::DeviceBuffer<msm::Scalar> scalars(101);
    cuda::DeviceBuffer<ec::G1Affine> bases(101);
    EXPECT_THROW(msm.compute(bases.data(), scalars.data(), ScalarForm::canonical, 101, result.data(), stream),
                 std::invalid_argument);
    EXPECT_THROW(msm.compute(bases.data(), scalars.data(), ScalarForm::canonical, 100, result.data(), stream, 7),
                 std::invalid_argument);  // 7 bits was not a forced width of the capacity
}

// Level 0 in batched affine rounds on the device: against the CPU with forced segments
// (every round that can run does: min_pairs 1), plain and over a table, the scratch the
// accumulator's own or lent (poisoned first, as a, b and c's block would be); then at
// sizes where the accumulator chooses them itself, against the same MSM without them.
template <class C>
void expect_affine_rounds_match_cpu(size_t n, BaseProfile base_profile, ScalarProfile scalar_profile,
                                    uint32_t segment, uint32_t table_bits, uint64_t seed,
                                    uint32_t max_segment = cuda::msm::kAffineSegment, bool lent = false) {
    SCOPED_TRACE(testing::Message() << curve_name<C>() << ", n " << n << ", bases " << to_string(base_profile)
                                    << ", scalars " << to_string(scalar_profile) << ", segment " << segment
                                    << ", table bits " << table_bits << ", scratch for " << max_segment
                                    << (lent ? ", lent" : ""));
    cuda::msm::MsmCapacity capacity = capacity_for(n);
    capacity.affine_rounds = true;
    capacity.affine_segment = max_segment;
    capacity.min_forced_segment = segment;
    if (table_bits != 0) {
        capacity.shared_tables = {{table_bits, 1}};
        capacity.plain = false;
    }
    cuda::msm::ScalarPlan plan(capacity);
    const uint64_t scratch_bytes = cuda::msm::BucketAccumulator<C>::rounds_scratch_bytes(capacity);
    cuda::DeviceBuffer<uint8_t> scratch(lent ? scratch_bytes : 0);
    if (lent) ZKB_CUDA_CHECK(cudaMemset(scratch.data(), 0xa5, scratch_bytes));
    cuda::msm::BucketAccumulator<C> accumulator(capacity, lent ? scratch.data() : nullptr);
    EXPECT_EQ(accumulator.device_bytes() + (lent ? scratch_bytes : 0),
              cuda::msm::BucketAccumulator<C>::device_bytes_for(capacity));
    accumulator.set_affine_min_pairs(1);
    const MsmCase<C> msm_case(n, base_profile, scalar_profile, seed);
    const DeviceInputs<C>& inputs = msm_case.inputs;
    const ec::Affine<C>& expected = msm_case.expected;
    const cuda::Stream stream;
    cuda::DeviceBuffer<ec::Jacobian<C>> result(1);
    poison(result);
    if (table_bits != 0) {
        cuda::msm::BaseTable<C> table(n, {table_bits, 1});
        table.build(inputs.bases.data(), n, stream);
        plan.prepare_shared(inputs.scalars(ScalarForm::canonical), ScalarForm::canonical, n, stream, {table_bits, 1});
        accumulator.run(plan, table, result.data(), stream, segment);
        EXPECT_EQ(read_result(result, stream), expected);
    } else {
        plan.prepare(inputs.scalars(ScalarForm::canonical), ScalarForm::canonical, n, stream);
        accumulator.run(plan, inputs.bases.data(), result.data(), stream, segment);
        EXPECT_EQ(read_result(result, stream), expected);
    }
}

TEST(MsmDevice, AffineRoundsMatchTheCpu) {
    ZKB_REQUIRE_GPU();
    uint64_t seed = 9000;
    for (ScalarProfile profile : test::kScalarProfiles) {
        expect_affine_rounds_match_cpu<ec::G1Params>(3000, BaseProfile::distinct, profile, 64, 0, seed++);
    }
    for (BaseProfile bases : {BaseProfile::repeated, BaseProfile::with_infinity}) {
        expect_affine_rounds_match_cpu<ec::G1Params>(3000, bases, ScalarProfile::edges, 600, 0, seed++);
        expect_affine_rounds_match_cpu<ec::G1Params>(3000, bases, ScalarProfile::uniform, 1000, 9, seed++);
        expect_affine_rounds_match_cpu<ec::G2Params>(1000, bases, ScalarProfile::r_minus_1, 200, 0, seed++);
    }
    expect_affine_rounds_match_cpu<ec::G1Params>(5000, BaseProfile::distinct, ScalarProfile::uniform, 1024, 22, seed++);
    expect_affine_rounds_match_cpu<ec::G2Params>(1000, BaseProfile::distinct, ScalarProfile::uniform, 300, 0, seed++);
    expect_affine_rounds_match_cpu<ec::G2Params>(1000, BaseProfile::distinct, ScalarProfile::mostly_boolean, 100, 7,
                                                 seed++);
    // Scratch for segments of 4096 (as B2's rounds may get: docs/msm.md#where-the-rounds-pay), in more rounds.
    expect_affine_rounds_match_cpu<ec::G2Params>(1000, BaseProfile::distinct, ScalarProfile::uniform, 3000, 0, seed++,
                                                 4096);
    expect_affine_rounds_match_cpu<ec::G1Params>(5000, BaseProfile::with_infinity, ScalarProfile::uniform, 4000, 22,
                                                 seed++, 4096);
    // Scratch lent by the caller (a proof's a, b and c: MsmMemoryPlan::g2_scratch_in_vectors).
    expect_affine_rounds_match_cpu<ec::G2Params>(1000, BaseProfile::with_infinity, ScalarProfile::uniform, 3000, 0,
                                                 seed++, 4096, true);
    expect_affine_rounds_match_cpu<ec::G1Params>(3000, BaseProfile::distinct, ScalarProfile::edges, 1000, 9, seed++,
                                                 cuda::msm::kAffineSegment, true);
}

// Where the accumulator picks the rounds itself (the smallest power of two whose entries
// give every slot kMinAffineSegment: 2^22 points on the H200), its sum equals the one
// without them.
template <class C>
void expect_chosen_affine_rounds_change_nothing(BaseProfile base_profile, uint64_t seed) {
    SCOPED_TRACE(curve_name<C>());
    const uint64_t floor_entries =
        uint64_t{cuda::msm::BucketAccumulator<C>::device_affine_slots()} * cuda::msm::kMinAffineSegment;
    const auto uniform_entries = [](uint64_t points) {
        const uint32_t bits = cuda::msm::choose_window_bits(points, capacity_for(points).max_window_bits);
        return points * cuda::msm::WindowLayout::windows_for(bits);
    };
    size_t n = size_t{1} << 20;
    while (uniform_entries(n) < floor_entries) n *= 2;
    cuda::msm::MsmCapacity capacity = capacity_for(n);
    capacity.affine_rounds = true;
    cuda::msm::ScalarPlan plan(capacity);
    cuda::msm::BucketAccumulator<C> accumulator(capacity);
    const auto bases = test::make_bases<C>(n, base_profile, seed);
    const auto scalars = test::make_scalars<typename C::Scalar>(n, ScalarProfile::uniform, seed + 1);
    const DeviceInputs<C> inputs(bases, scalars);
    const cuda::Stream stream;
    cuda::DeviceBuffer<ec::Jacobian<C>> result(1);
    plan.prepare(inputs.scalars(kForms<C>[0]), kForms<C>[0], n, stream);
    ASSERT_NE(cuda::msm::choose_affine_segment(plan.entry_count(), accumulator.affine_slots()), 0u)
        << plan.entry_count() << " entries are too few for " << accumulator.affine_slots() << " slots";
    ec::Affine<C> sums[2];
    for (uint32_t min_pairs : {0u, cuda::msm::kOverExtension<C> ? 50u : 150u}) {
        accumulator.set_affine_min_pairs(min_pairs);
        poison(result);
        accumulator.run(plan, inputs.bases.data(), result.data(), stream);
        sums[min_pairs == 0 ? 0 : 1] = read_result(result, stream);
    }
    EXPECT_EQ(sums[1], sums[0]);
}

TEST(MsmDevice, ChosenAffineRoundsChangeNoSum) {
    ZKB_REQUIRE_GPU();
    expect_chosen_affine_rounds_change_nothing<ec::G1Params>(BaseProfile::distinct, 9500);
    expect_chosen_affine_rounds_change_nothing<ec::G2Params>(BaseProfile::repeated, 9501);
}

// ---- BN254 ---------------------------------------------------------------------------
// The same kernels over BN254's groups (8-limb Fq, its Fq2): every scalar profile, bases
// repeated and at infinity, a larger size, base tables and the affine rounds.

TEST(MsmDevice, Bn254G1AndG2MatchTheCpu) {
    ZKB_REQUIRE_GPU();
    cuda::msm::DeviceMsm<ec::bn254::G1Params> g1(capacity_for(1 << 20));
    cuda::msm::DeviceMsm<ec::bn254::G2Params> g2(capacity_for(1 << 14));
    uint64_t seed = 12000;
    for (ScalarProfile profile : test::kScalarProfiles) {
        for (size_t n : {size_t{1}, size_t{3}, size_t{1000}, size_t{4099}}) {
            expect_device_matches_cpu(g1, n, BaseProfile::distinct, profile, seed++);
        }
        expect_device_matches_cpu(g2, 1000, BaseProfile::distinct, profile, seed++);
    }
    for (BaseProfile bases : {BaseProfile::repeated, BaseProfile::with_infinity}) {
        expect_device_matches_cpu(g1, 5000, bases, ScalarProfile::edges, seed++);
        expect_device_matches_cpu(g2, 2000, bases, ScalarProfile::mostly_boolean, seed++);
    }
    expect_device_matches_cpu(g1, size_t{1} << 20, BaseProfile::distinct, ScalarProfile::uniform, seed++);
    expect_device_matches_cpu(g2, size_t{1} << 14, BaseProfile::distinct, ScalarProfile::uniform, seed++);
}

TEST(MsmDevice, Bn254OverBaseTablesAndInAffineRoundsMatchesTheCpu) {
    ZKB_REQUIRE_GPU();
    uint64_t seed = 13000;
    expect_table_msm_matches_cpu<ec::bn254::G1Params>(3000, BaseProfile::distinct, ScalarProfile::uniform, 22, seed++);
    expect_table_msm_matches_cpu<ec::bn254::G1Params>(5000, BaseProfile::with_infinity, ScalarProfile::edges, 9, seed++,
                                                      2);
    expect_table_msm_matches_cpu<ec::bn254::G2Params>(1000, BaseProfile::distinct, ScalarProfile::uniform, 9, seed++);
    expect_affine_rounds_match_cpu<ec::bn254::G1Params>(3000, BaseProfile::repeated, ScalarProfile::edges, 600, 0,
                                                        seed++);
    expect_affine_rounds_match_cpu<ec::bn254::G2Params>(1000, BaseProfile::with_infinity, ScalarProfile::uniform, 300,
                                                        0, seed++);
    expect_affine_rounds_match_cpu<ec::bn254::G2Params>(1000, BaseProfile::distinct, ScalarProfile::r_minus_1, 200, 7,
                                                        seed++);
}

}  // namespace
}  // namespace zkbatch
