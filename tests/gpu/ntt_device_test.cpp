// The NTT kernels on the device against the CPU NTTs (core/ntt/ntt.hpp), in every
// order the CUDA backends use, with the backends' plan and with small-pass plans.
#include "quotient_schedules.hpp"
#include "test_support.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/ntt/domain_tables.hpp"
#include "gpu/ntt/ntt_kernels.hpp"
#include "gpu/ntt/ntt_steps.hpp"
#include "gpu/util/stream.hpp"
#include "core/ntt/ntt.hpp"
#include "core/plugin/error.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace zkbatch {
namespace {

using cuda::DeviceBuffer;
using cuda::ntt::Direction;
using cuda::ntt::NttPlan;
using cuda::ntt::PowerTables;
using ff::Fr;
using DeviceDomainTables = cuda::ntt::DeviceDomainTables<Fr>;
using LaunchSequence = cuda::ntt::LaunchSequence<Fr>;

unsigned cpu_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::vector<Fr> bit_reversed(std::vector<Fr> values, uint32_t log_n) {
    ntt::bit_reverse(values.data(), log_n, cpu_threads());
    return values;
}

std::vector<Fr> scaled(std::vector<Fr> values, const Fr& factor) {
    for (Fr& value : values) value *= factor;
    return values;
}

// (g^n - 1)^-1, the quotient's pointwise factor, for n = 2^log_n.
Fr vanishing_inverse(uint32_t log_n) {
    return (Fr::coset_shift().pow(uint64_t{1} << log_n) - Fr::one()).inverse();
}

// Runs `build(sequence, device data pointer)` on a device copy of `input`.
template <class Build>
std::vector<Fr> run_on_device(const std::vector<Fr>& input, Build&& build) {
    DeviceBuffer<Fr> data(input.size());
    data.copy_from_host(input.data(), input.size());
    LaunchSequence sequence;
    build(sequence, data.data());
    const cuda::Stream stream;
    cuda::ntt::enqueue(sequence, stream);
    stream.synchronize();
    std::vector<Fr> output(input.size());
    data.copy_to_host(output.data(), output.size());
    return output;
}

void check_orders(const NttPlan& plan, uint64_t seed) {
    const uint32_t log_n = plan.log_n;
    const ntt::Domain& domain = ntt::Domain::get(log_n);
    const std::vector<Fr> input = test::random_vector(domain.size(), seed);
    std::vector<Fr> evaluations = input;
    ntt::forward_ntt_natural(domain, evaluations.data(), cpu_threads());
    std::vector<Fr> coefficients_bitrev = input;  // of the polynomial whose evaluations are `input`
    ntt::inverse_ntt_natural_to_bitrev(domain, coefficients_bitrev.data(), cpu_threads());
    std::vector<Fr> coset_evaluations = coefficients_bitrev;
    ntt::coset_forward_ntt_bitrev_to_natural(domain, coset_evaluations.data(), cpu_threads());
    std::vector<Fr> coset_coefficients = input;  // input read as evaluations on the coset
    ntt::coset_inverse_ntt_natural(domain, coset_coefficients.data(), cpu_threads());

    const DeviceDomainTables tables(plan);
    const auto& view = tables.view();
    const std::string where = plugin::concat("log_n ", log_n, ", ", plan.pass_count, " passes");

    EXPECT_EQ(run_on_device(bit_reversed(input, log_n),
                            [&](LaunchSequence& s, Fr* d) { cuda::ntt::append_dit(s, view, d, Direction::forward); }),
              evaluations)
        << "forward DIT (bit-reversed -> natural), " << where;
    EXPECT_EQ(run_on_device(input,
                            [&](LaunchSequence& s, Fr* d) { cuda::ntt::append_dif(s, view, d, Direction::forward); }),
              bit_reversed(evaluations, log_n))
        << "forward DIF (natural -> bit-reversed), " << where;

    // Inverse DIF with coset_scale fused is the first half of quotient_input; the whole
    // of quotient_input must give the coset evaluations.
    EXPECT_EQ(run_on_device(input, [&](LaunchSequence& s, Fr* d) { s = cuda::ntt::quotient_input_steps(view, d); }),
              coset_evaluations)
        << "quotient input transform (inverse DIF + coset forward DIT), " << where;

    // The final transform with b = 1 and c = 0 is a coset inverse NTT times (g^n - 1)^-1,
    // in canonical form (quotient_unscale).
    DeviceBuffer<Fr> ones(input.size()), zeros(input.size());
    const std::vector<Fr> host_ones(input.size(), Fr::one()), host_zeros(input.size(), Fr::zero());
    ones.copy_from_host(host_ones.data(), host_ones.size());
    zeros.copy_from_host(host_zeros.data(), host_zeros.size());
    EXPECT_EQ(run_on_device(input,
                            [&](LaunchSequence& s, Fr* d) {
                                cuda::ntt::DifFusion<Fr> fusion;
                                fusion.output_scale = &view.quotient_unscale;
                                fusion.quotient_b = ones.data();
                                fusion.quotient_c = zeros.data();
                                cuda::ntt::append_dif(s, view, d, Direction::inverse, fusion);
                                cuda::ntt::append_bit_reverse(s, d, log_n);
                            }),
              test::canonical_form(scaled(coset_coefficients, vanishing_inverse(log_n))))
        << "coset inverse (DIF + bit reversal), " << where;
}

class DeviceNtt : public ::testing::Test {
protected:
    void SetUp() override {
        ZKB_REQUIRE_GPU();
        cuda::ntt::prepare_device(0);
    }
};

TEST_F(DeviceNtt, EveryOrderMatchesTheCpuWithTheBackendPlan) {
    for (uint32_t log_n : {1u, 2u, 3u, 5u, 8u, 10u, 11u, 12u, 15u, 20u, 21u, 22u}) {
        check_orders(NttPlan::for_log_n(log_n), 40 + log_n);
    }
    // The largest tiles the kernel supports (the backends use kDefaultTileLog).
    for (uint32_t log_n : {11u, 15u, 21u}) {
        check_orders(NttPlan::for_log_n(log_n, cuda::ntt::kMaxStagesPerPass, cuda::ntt::kTileLog), 60 + log_n);
    }
}

TEST_F(DeviceNtt, EveryOrderMatchesTheCpuWithSmallPassPlans) {
    for (uint32_t log_n : {4u, 9u, 13u}) {
        for (uint32_t max_stages : {1u, 2u, 3u, 5u}) {
            if ((log_n + max_stages - 1) / max_stages > NttPlan::kMaxPasses) continue;
            check_orders(NttPlan::for_log_n(log_n, max_stages, max_stages + 2 <= 11 ? max_stages + 2 : 11), log_n);
        }
    }
}

// The whole quotient over F on the device at `log_n`, by the full and the lean schedule,
// against the CPU's, for satisfied and unsatisfied inputs, in the H convention of `roots`
// (zkbatch's coefficients, or snarkjs's odd coset).
template <class F>
void expect_device_quotient_is_the_cpus(uint32_t log_n, ntt::Roots roots = ntt::Roots::zkbatch) {
    for (uint64_t seed : {1u, 2u, 3u}) {
        const size_t n = size_t{1} << log_n;
        const std::vector<F> a = test::random_vector<F>(n, 10 * seed + 1), b = test::random_vector<F>(n, 10 * seed + 2);
        std::vector<F> c = test::random_vector<F>(n, 10 * seed + 3);
        if (seed != 3) {
            for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];  // satisfied: h[n-1] = 0
        }
        const std::vector<F> expected = test::cpu_quotient(roots, log_n, a, b, c, cpu_threads());

        for (bool lean : {false, true}) {
            const cuda::ntt::DeviceDomainTables<F> tables(log_n, lean ? PowerTables::seeded : PowerTables::expanded,
                                                          roots);
            DeviceBuffer<F> da(n), db(n), dc(n);
            da.copy_from_host(a.data(), n);
            db.copy_from_host(b.data(), n);
            dc.copy_from_host(c.data(), n);
            const cuda::Stream stream;
            test::run_quotient(
                tables.view(), lean, da.data(), db.data(), dc.data(),
                [&](const cuda::ntt::LaunchSequence<F>& steps) { cuda::ntt::enqueue(steps, stream); },
                [&] {
                    stream.synchronize();
                    db.copy_from_host(c.data(), n);
                });
            stream.synchronize();
            std::vector<F> h(n);
            db.copy_to_host(h.data(), n);  // both schedules leave h in b
            EXPECT_EQ(h, expected) << "log_n " << log_n << ", seed " << seed << (lean ? ", lean" : ", full")
                                   << (roots == ntt::Roots::snarkjs ? ", snarkjs's odd coset" : "");
        }
    }
}

// Above the plugin test's 2^20, where the plan has three passes.
TEST_F(DeviceNtt, QuotientMatchesTheCpuAboveTwoPassSizes) {
    for (uint32_t log_n : {21u, 22u}) expect_device_quotient_is_the_cpus<Fr>(log_n);
}

// BN254's Fr (2-adicity 28, coset shift 5): the same kernels over its 8 x 32-bit limbs.
TEST_F(DeviceNtt, Bn254QuotientMatchesTheCpu) {
    for (uint32_t log_n : {1u, 5u, 11u, 20u, 22u}) expect_device_quotient_is_the_cpus<ff::bn254::Fr>(log_n);
}

// A .zkey's quotient (snarkjs's roots, ending on the odd coset), for both curves.
TEST_F(DeviceNtt, OddCosetQuotientMatchesTheCpu) {
    for (uint32_t log_n : {1u, 11u, 21u}) {
        expect_device_quotient_is_the_cpus<Fr>(log_n, ntt::Roots::snarkjs);
        expect_device_quotient_is_the_cpus<ff::bn254::Fr>(log_n, ntt::Roots::snarkjs);
    }
}

// A launch the device must refuse surfaces as CudaError with CUDA's message and our
// file and line, not as a crash.
TEST_F(DeviceNtt, RefusedLaunchIsACudaErrorWithFileAndLine) {
    // A real pass of a 2^12 transform (valid pointers, so nothing can fault even if the
    // launch were accepted) with one 2^12-element tile: 128 KiB of shared memory, more
    // than prepare_device allows, so the launch is refused.
    const DeviceDomainTables tables(12);
    DeviceBuffer<Fr> data(size_t{1} << 12);
    LaunchSequence passes;
    cuda::ntt::append_dit(passes, tables.view(), data.data(), Direction::forward);
    cuda::ntt::Launch<Fr> launch = passes.steps[0];
    launch.pass.group_log = 12 - launch.pass.stage_count;
    LaunchSequence sequence;
    sequence.push(launch);
    const cuda::Stream stream;
    try {
        cuda::ntt::enqueue(sequence, stream);
        FAIL() << "an oversized launch was accepted";
    } catch (const cuda::CudaError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("ntt_kernels.cu:"), std::string::npos) << message;
        EXPECT_NE(message.find("ntt_pass_kernel"), std::string::npos) << message;
        EXPECT_EQ(e.code(), ZKB_ERR_DEVICE);
    }
}

}  // namespace
}  // namespace zkbatch
