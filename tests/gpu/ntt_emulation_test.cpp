// The NTT kernels' code run on the host (kernel_emulation.hpp) against the CPU NTTs
// and compute_quotient_cpu. Needs no GPU: it checks the pass decomposition, the
// twists, the fusions and the launch sequences; the device tests then check that the
// device runs the same code to the same bits.
#include "kernel_emulation.hpp"
#include "quotient_schedules.hpp"
#include "test_support.hpp"
#include "support/field_types.hpp"

#include "gpu/ntt/domain_tables.hpp"
#include "gpu/ntt/ntt_steps.hpp"
#include "core/ntt/ntt.hpp"
#include "core/plugin/error.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace zkbatch {
namespace {

using cuda::ntt::Direction;
using cuda::ntt::NttPlan;
using cuda::ntt::PowerTables;
using ff::Fr;
using HostDomainTables = cuda::ntt::HostDomainTables<Fr>;
using LaunchSequence = cuda::ntt::LaunchSequence<Fr>;

std::vector<Fr> bit_reversed(const std::vector<Fr>& values, uint32_t log_n) {
    std::vector<Fr> permuted(values.size());
    for (size_t i = 0; i < values.size(); ++i) permuted[ntt::bit_reverse_index(i, log_n)] = values[i];
    return permuted;
}

// Plans with small passes and tiles: many passes, several groups per block, groups
// spanning several 'hi' values, at sizes the host emulates in milliseconds.
std::vector<NttPlan> plans_for(uint32_t log_n) {
    std::vector<NttPlan> plans = {NttPlan::for_log_n(log_n)};
    for (uint32_t max_stages : {1u, 2u, 3u}) {
        for (uint32_t tile_log : {max_stages, max_stages + 2}) {
            if ((log_n + max_stages - 1) / max_stages <= NttPlan::kMaxPasses) {
                plans.push_back(NttPlan::for_log_n(log_n, max_stages, tile_log));
            }
        }
    }
    return plans;
}

std::string describe(const NttPlan& plan) {
    std::string text = plugin::concat("log_n ", plan.log_n, ", tiles 2^", plan.tile_log, ", passes");
    for (uint32_t i = 0; i < plan.pass_count; ++i) text += plugin::concat(" ", plan.stage_counts[i]);
    return text;
}

TEST(NttPlan, SplitsStagesEvenlyIntoPassesThatFitATile) {
    for (uint32_t log_n = 1; log_n <= cuda::ntt::kMaxLogN; ++log_n) {
        const NttPlan plan = NttPlan::for_log_n(log_n);
        uint32_t total = 0;
        uint32_t smallest = log_n;
        for (uint32_t i = 0; i < plan.pass_count; ++i) {
            total += plan.stage_counts[i];
            smallest = std::min(smallest, plan.stage_counts[i]);
            EXPECT_LE(plan.stage_counts[i], cuda::ntt::kMaxStagesPerPass) << describe(plan);
        }
        EXPECT_EQ(total, log_n) << describe(plan);
        EXPECT_LE(plan.max_stage_count - smallest, 1u) << describe(plan);
        EXPECT_GE(plan.tile_log, plan.max_stage_count) << describe(plan);
        EXPECT_LE(plan.tile_log, log_n) << describe(plan);
    }
    EXPECT_EQ(NttPlan::for_log_n(24).pass_count, 3u);
    EXPECT_THROW(NttPlan::for_log_n(0), std::invalid_argument);
    EXPECT_THROW(NttPlan::for_log_n(cuda::ntt::kMaxLogN + 1), std::invalid_argument);
    EXPECT_THROW(NttPlan::for_log_n(20, 1, 5), std::invalid_argument);  // 20 passes > kMaxPasses
}

// Every order and direction of the building blocks against the CPU NTTs.
TEST(NttEmulation, DitAndDifInBothDirectionsMatchTheCpuNtt) {
    for (uint32_t log_n = 1; log_n <= 12; ++log_n) {
        const ntt::Domain& domain = ntt::Domain::get(log_n);
        const Fr n_inverse = domain.size_inv();
        const std::vector<Fr> input = test::random_vector(domain.size(), 100 + log_n);
        std::vector<Fr> forward = input;  // evaluations of the polynomial with coefficients `input`
        ntt::forward_ntt_natural(domain, forward.data(), 1);
        std::vector<Fr> inverse = input;  // coefficients of the polynomial with evaluations `input`
        ntt::inverse_ntt_natural(domain, inverse.data(), 1);

        for (const NttPlan& plan : plans_for(log_n)) {
            const HostDomainTables tables(plan);
            SCOPED_TRACE(describe(plan));
            {  // DIT forward: bit-reversed coefficients -> natural evaluations
                std::vector<Fr> data = bit_reversed(input, log_n);
                LaunchSequence sequence;
                cuda::ntt::append_dit(sequence, tables.view(), data.data(), Direction::forward);
                test::emulate_on_host(sequence);
                EXPECT_EQ(data, forward) << "DIT forward";
            }
            {  // DIF forward: natural coefficients -> bit-reversed evaluations
                std::vector<Fr> data = input;
                LaunchSequence sequence;
                cuda::ntt::append_dif(sequence, tables.view(), data.data(), Direction::forward);
                test::emulate_on_host(sequence);
                EXPECT_EQ(data, bit_reversed(forward, log_n)) << "DIF forward";
            }
            {  // DIF inverse (no 1/n): natural evaluations -> bit-reversed n * coefficients
                std::vector<Fr> data = input;
                LaunchSequence sequence;
                cuda::ntt::append_dif(sequence, tables.view(), data.data(), Direction::inverse);
                test::emulate_on_host(sequence);
                for (Fr& value : data) value *= n_inverse;
                EXPECT_EQ(data, bit_reversed(inverse, log_n)) << "DIF inverse";
            }
            {  // DIT inverse then bit reversal: bit-reversed evaluations -> natural, via the bit-reversal pass
                std::vector<Fr> data = bit_reversed(input, log_n);
                LaunchSequence sequence;
                cuda::ntt::append_dit(sequence, tables.view(), data.data(), Direction::inverse);
                cuda::ntt::append_bit_reverse(sequence, data.data(), log_n);
                test::emulate_on_host(sequence);
                for (Fr& value : data) value *= n_inverse;
                EXPECT_EQ(data, bit_reversed(inverse, log_n)) << "DIT inverse + bit reversal";
            }
        }
    }
}

// Three passes on full-size tiles (2^11 elements, 256 threads looping over 1024
// butterflies, 64 groups per block): the shape of the backend's plans from 2^21 up,
// at a size the host emulates quickly. Checks the two halves of quotient_input
// separately against the CPU's inverse and coset forward NTTs.
TEST(NttEmulation, ThreePassPlanMatchesTheCpuNtt) {
    const uint32_t log_n = 15;
    const ntt::Domain& domain = ntt::Domain::get(log_n);
    const HostDomainTables tables(NttPlan::for_log_n(log_n, 5, cuda::ntt::kTileLog));
    ASSERT_EQ(tables.view().plan.pass_count, 3u);
    ASSERT_EQ(tables.view().plan.tile_log, cuda::ntt::kTileLog);
    const std::vector<Fr> input = test::random_vector(domain.size(), 7);

    std::vector<Fr> expected = input;
    ntt::inverse_ntt_natural_to_bitrev(domain, expected.data(), 2);
    std::vector<Fr> data = input;
    LaunchSequence sequence;
    cuda::ntt::append_dif(sequence, tables.view(), data.data(), Direction::inverse);
    test::emulate_on_host(sequence);
    for (Fr& value : data) value *= domain.size_inv();
    EXPECT_EQ(data, expected) << "inverse DIF, natural -> bit-reversed";

    ntt::coset_forward_ntt_bitrev_to_natural(domain, expected.data(), 2);
    for (size_t position = 0; position < data.size(); ++position) data[position] *= domain.coset_scale_bitrev(position);
    sequence = LaunchSequence{};
    cuda::ntt::append_dit(sequence, tables.view(), data.data(), Direction::forward);
    test::emulate_on_host(sequence);
    EXPECT_EQ(data, expected) << "forward DIT, bit-reversed -> natural on the coset";
}

// h by the backend's full schedule over expanded tables, or its lean one over seeded
// tables (quotient_schedules.hpp).
template <class F>
std::vector<F> emulated_quotient(const NttPlan& plan, ntt::Roots roots, bool lean, std::vector<F> a, std::vector<F> b,
                                 std::vector<F> c) {
    const cuda::ntt::HostDomainTables<F> tables(plan, lean ? PowerTables::seeded : PowerTables::expanded, roots);
    test::run_quotient(
        tables.view(), lean, a.data(), b.data(), c.data(),
        [](const cuda::ntt::LaunchSequence<F>& steps) { test::emulate_on_host(steps); }, [&] { b = c; });
    return b;  // h
}

// The tests over both curves' Fr: the device's quotient is the same code for either.
template <class F>
class NttEmulationOver : public ::testing::Test {};
TYPED_TEST_SUITE(NttEmulationOver, test::ScalarFields, test::FieldNames);

// The full launch sequence of the quotient, bit for bit, for satisfied (c = a*b) and
// unsatisfied inputs, with the backend's plan and with small-pass plans, by the full
// and the lean schedule, in both H conventions.
TYPED_TEST(NttEmulationOver, QuotientIsBitIdenticalToTheCpuReference) {
    using F = TypeParam;
    for (uint32_t log_n = 1; log_n <= 12; ++log_n) {
        for (uint64_t seed : {1u, 2u, 3u}) {
            const size_t n = size_t{1} << log_n;
            const std::vector<F> a = test::random_vector<F>(n, seed * 1000 + log_n);
            const std::vector<F> b = test::random_vector<F>(n, seed * 2000 + log_n);
            std::vector<F> c(n);
            if (seed == 3) {
                c = test::random_vector<F>(n, seed * 3000 + log_n);  // unsatisfied: h is still defined
            } else {
                for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
            }
            const std::vector<NttPlan> plans =
                seed == 1 ? plans_for(log_n) : std::vector<NttPlan>{NttPlan::for_log_n(log_n)};
            for (ntt::Roots roots : {ntt::Roots::zkbatch, ntt::Roots::snarkjs}) {
                const std::vector<F> expected = test::cpu_quotient(roots, log_n, a, b, c, 2);
                if (seed != 3 && roots == ntt::Roots::zkbatch) {
                    EXPECT_TRUE(expected.back().is_zero());  // deg h <= n - 2
                }
                for (const NttPlan& plan : plans) {
                    for (bool lean : {false, true}) {
                        EXPECT_EQ(emulated_quotient(plan, roots, lean, a, b, c), expected)
                            << describe(plan) << ", seed " << seed << (lean ? ", lean" : ", full")
                            << (roots == ntt::Roots::snarkjs ? ", snarkjs's odd coset" : "");
                    }
                }
            }
        }
    }
}

// Seeded tables make every power the expanded ones hold, forward and negated.
TYPED_TEST(NttEmulationOver, SeededPowersAreTheExpandedTables) {
    using Tables = cuda::ntt::HostDomainTables<TypeParam>;
    for (uint32_t log_n : {1u, 2u, 7u, 12u}) {
        const Tables expanded(NttPlan::for_log_n(log_n));
        const Tables seeded(NttPlan::for_log_n(log_n), PowerTables::seeded);
        ASSERT_TRUE(seeded.view().seeded_powers());
        const auto tables = [](const cuda::ntt::DomainTablesView<TypeParam>& view) {
            return std::array{view.twist_forward, view.twist_inverse, view.coset_scale, view.quotient_unscale};
        };
        const auto expanded_tables = tables(expanded.view());
        const auto seeded_tables = tables(seeded.view());
        for (size_t table = 0; table < expanded_tables.size(); ++table) {
            for (uint32_t e = 0; e < (1u << log_n); ++e) {
                ASSERT_EQ(seeded_tables[table].template at<true>(e), expanded_tables[table].template at<false>(e))
                    << "log_n " << log_n << ", table " << table << ", exponent " << e;
            }
        }
    }
}

}  // namespace
}  // namespace zkbatch
