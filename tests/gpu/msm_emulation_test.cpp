// The device MSM's code run on the host: every kernel's thread body (msm_steps.hpp) for
// every thread, CUB's selection and sort replaced by their definitions (a stable
// selection in index order, a stable sort by key, which is what CUB's radix sort is), and
// the result compared with the CPU's msm::pippenger. Needs no GPU: it checks the digits,
// the entries, the levels with their spills, the bucket reduction and the window
// combination, for structured scalars and bases, with segments small enough that every
// level and spill path runs; the device tests then show the GPU runs the same code.
#include "msm_test_support.hpp"

#include "gpu/msm/msm.hpp"
#include "gpu/key/fixed_base_steps.hpp"
#include "gpu/msm/msm_steps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using namespace cuda::msm;
using test::BaseProfile;
using test::ScalarProfile;

// Level 0 in batched affine rounds (accumulate_segment_affine): the scratch's slots,
// each taking the threads slot, slot + slots, ... as the device's kernel has them, and
// the least pairs a round needs (1: every round that can run does).
struct AffineEmulation {
    uint32_t slots = 0;  // 0: level 0 without rounds
    uint32_t min_pairs = 1;
    uint32_t capacity[2] = {affine_capacity(kAffineSegment, 0), affine_capacity(kAffineSegment, 1)};
};

template <class C>
void emulate_affine_level(const GatherSource<C>& first, const Level& level, const LevelOutput<C>& out,
                          const AffineEmulation& affine) {
    std::vector<uint32_t> keys[2];
    std::vector<ec::Affine<C>> points[2];
    AffineScratch<C> scratch;
    for (int b = 0; b < 2; ++b) {
        keys[b].assign(size_t{affine.capacity[b]} * affine.slots, 0xdeadbeef);
        points[b].assign(size_t{affine.capacity[b]} * affine.slots, ec::Affine<C>{});
        scratch.keys[b] = keys[b].data();
        scratch.points[b] = points[b].data();
        scratch.capacity[b] = affine.capacity[b];
    }
    std::vector<BaseField<C>> prefix(size_t{affine.capacity[0]} * affine.slots);
    scratch.prefix = prefix.data();
    scratch.slots = affine.slots;
    scratch.min_pairs = affine.min_pairs;
    for (uint32_t slot = affine.slots; slot-- > 0;) {
        for (uint32_t t = slot; t < level.threads(); t += affine.slots) {
            accumulate_segment_affine<C>(first, level, out, scratch, slot, t);
        }
    }
}

// Runs the levels of `plan` as run_levels does on the device; returns how many levels
// did any work (the others found nothing spilled before them).
template <class C>
int emulate_levels(const LevelPlan& plan, const GatherSource<C>& first, ec::Xyzz<C>* dest, uint32_t key_limit,
                   const AffineEmulation& affine = {}) {
    std::vector<uint32_t> spill_keys[2];
    std::vector<ec::Xyzz<C>> spill_points[2];
    std::vector<uint32_t> flags(plan.count, 0);
    int working = 0;
    bool previous_ran = false;
    for (int k = 0; k < plan.count; ++k) {
        const Level& level = plan.levels[k];
        if (k > 0 && flags[k - 1] == 0) {
            // The device's threads return at once; check they would have had nothing.
            if (previous_ran) {
                for (size_t i = 0; i < spill_keys[(k - 1) % 2].size(); ++i) {
                    EXPECT_NE(spill_keys[(k - 1) % 2][i] & kEmptyBit, 0u) << "a spill with points, unflagged";
                }
            }
            previous_ran = false;
            continue;
        }
        previous_ran = true;
        ++working;
        std::vector<uint32_t>& out_keys = spill_keys[k % 2];
        std::vector<ec::Xyzz<C>>& out_points = spill_points[k % 2];
        out_keys.assign(level.spill_count(), 0xdeadbeef);  // poisoned: every slot must be written
        out_points.assign(level.spill_count(), ec::Xyzz<C>{});
        const LevelOutput<C> out{dest,         key_limit, out_keys.data(), out_points.data(), &flags[k],
                                 k > 0 ? &flags[k - 1] : nullptr};
        if (k == 0 && affine.slots != 0) {
            emulate_affine_level<C>(first, level, out, affine);
        } else {
            // Threads in reverse order: the result must not depend on the order they run in.
            for (uint32_t t = level.threads(); t-- > 0;) {
                if (k == 0) {
                    accumulate_segment<C>(first, level, out, t);
                } else {
                    const PointSource<C> spills{spill_keys[(k - 1) % 2].data(), spill_points[(k - 1) % 2].data()};
                    accumulate_segment<C>(spills, level, out, t);
                }
            }
        }
        for (uint32_t key : out_keys) EXPECT_NE(key, 0xdeadbeefu) << "level " << k << " left a spill unwritten";
        // Sorted by key, empty or not: what the next level's run detection relies on.
        for (size_t i = 1; i < out_keys.size(); ++i) {
            EXPECT_LE(out_keys[i - 1] & ~kEmptyBit, out_keys[i] & ~kEmptyBit) << "level " << k << ", spill " << i;
        }
    }
    return working;
}

// The tree passes of tree_sum_kernel, block by block, each step for every thread
// before the next (what its barriers guarantee).
template <class C>
std::vector<ec::Xyzz<C>> emulate_tree(std::vector<ec::Xyzz<C>> sums, uint32_t windows, uint32_t per_window) {
    const TreePasses passes = plan_tree_passes(per_window);
    for (int pass = 0; pass < passes.count; ++pass) {
        const uint32_t group = passes.group_size[pass];
        per_window /= group;
        std::vector<ec::Xyzz<C>> out(windows * per_window);
        for (uint32_t block = 0; block < out.size(); ++block) {
            ec::Xyzz<C> shared[kTreeThreads];
            for (uint32_t thread = 0; thread < kTreeThreads; ++thread) {
                shared[thread] = tree_thread_sum<C>(sums.data(), group, block, thread);
            }
            for (uint32_t stride = kTreeThreads / 2; stride > 0; stride /= 2) {
                for (uint32_t thread = 0; thread < kTreeThreads; ++thread) tree_step<C>(shared, stride, thread);
            }
            out[block] = shared[0];
        }
        sums = std::move(out);
    }
    return sums;
}

// The reduction threads of the device emulate_msm stands for: a small one, so that wider
// layouts take longer chunks (choose_chunk_log) and the emulation meets several.
inline constexpr uint64_t kEmulatedReduceThreads = 256;

// What emulate_msm saw, for tests that check the choices it made.
struct EmulationResult {
    uint64_t full = 0, ones = 0, entries = 0;
    int levels = 0;          // in the plan (the worst case)
    int working_levels = 0;  // that found something to do
    WindowLayout layout;
};

// A BaseTable's points as its kernel makes them (next_window_sum, then affine with the
// group inversion's formula, one point at a time).
template <class C>
std::vector<ec::Affine<C>> emulate_table(const std::vector<ec::Affine<C>>& bases, TableShape shape) {
    const size_t n = bases.size();
    std::vector<ec::Affine<C>> table(bases);
    table.resize(shape.multiples() * n);
    for (size_t i = n; i < table.size(); ++i) {
        const ec::Xyzz<C> sum = next_window_sum<C>(table[i - n], shape.window_bits * shape.stride);
        table[i] = cuda::fixed_base::to_affine<C>(sum, cuda::fixed_base::inversion_input<C>(sum).inverse());
    }
    return table;
}

// The window sums of steps 1-5 and the layout they are in (BucketAccumulator::run_windows):
// no windows when every scalar is zero.
template <class C>
struct WindowSums {
    std::vector<ec::Xyzz<C>> sums;
    WindowLayout layout;
};

// Steps 1-5 of the device MSM on the host. window_bits 0: chosen as prepare() chooses (for
// a table, as a table of n points would be). table_stride s > 0: over emulate_table's
// table of the bases of stride s.
template <class C>
WindowSums<C> emulate_window_sums(const std::vector<ec::Affine<C>>& bases,
                                  const std::vector<typename C::Scalar>& scalars, ScalarForm form, uint32_t window_bits,
                                  uint32_t first_segment, EmulationResult* info, uint32_t table_stride = 0,
                                  const AffineEmulation& affine = {}) {
    const uint32_t n = static_cast<uint32_t>(scalars.size());
    const std::vector<msm::Scalar> canonical_input = test::canonical_scalars(scalars);
    std::vector<msm::Scalar> canonical(n);
    std::vector<uint8_t> full_flags(n), one_flags(n);
    const ClassifyParams classify{form != ScalarForm::canonical ? static_cast<const void*>(scalars.data())
                                                                : static_cast<const void*>(canonical_input.data()),
                                  form, n, canonical.data(), full_flags.data(), one_flags.data()};
    for (uint32_t i = 0; i < n; ++i) classify_scalar(classify, i);
    std::vector<uint32_t> full_indices, one_indices;
    for (uint32_t i = 0; i < n; ++i) {
        if (full_flags[i]) full_indices.push_back(i);
        if (one_flags[i]) one_indices.push_back(i);
    }
    const uint32_t bits = window_bits != 0   ? window_bits
                          : table_stride != 0 ? choose_window_bits(n, kMaxWindowBits, table_stride)
                                              : choose_window_bits(full_indices.size());
    const WindowLayout layout{bits, full_indices.empty() ? 1u : WindowLayout::windows_for(bits), table_stride};
    EntryParams entry_params{canonical.data(),
                             full_indices.data(),
                             one_indices.data(),
                             static_cast<uint32_t>(full_indices.size()),
                             static_cast<uint32_t>(one_indices.size()),
                             layout,
                             n,
                             nullptr,
                             nullptr};
    const uint64_t entry_count = entry_params.entry_count();
    std::vector<uint32_t> keys(entry_count, 0xdeadbeef), values(entry_count, 0xdeadbeef);
    entry_params.keys = keys.data();
    entry_params.values = values.data();
    for (uint32_t j = 0; j < entry_params.full_count + entry_params.one_count; ++j) write_entries(entry_params, j);
    std::vector<uint32_t> order(entry_count);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return keys[x] < keys[y]; });
    std::vector<uint32_t> sorted_keys(entry_count), sorted_values(entry_count);
    for (uint64_t i = 0; i < entry_count; ++i) {
        sorted_keys[i] = keys[order[i]];
        sorted_values[i] = values[order[i]];
        EXPECT_LT(sorted_keys[i], uint64_t{1} << layout.key_bits()) << "a key the sort would truncate";
    }
    if (info) {
        info->full = full_indices.size();
        info->ones = one_indices.size();
        info->entries = entry_count;
        info->layout = layout;
    }
    if (entry_count == 0) return {{}, WindowLayout{bits, 0, 0}};

    const std::vector<ec::Affine<C>> points =
        table_stride != 0 ? emulate_table(bases, TableShape{bits, table_stride}) : bases;
    const WindowLayout with_buckets = layout.buckets();  // as BucketAccumulator::run has it
    std::vector<ec::Xyzz<C>> buckets(with_buckets.bucket_count(), ec::Xyzz<C>{});  // zero bytes: infinity
    const uint32_t segment = first_segment != 0 ? first_segment : choose_first_segment(entry_count, 0);
    const LevelPlan levels = plan_levels(static_cast<uint32_t>(entry_count), segment, kLaterSegment);
    const GatherSource<C> gather{sorted_keys.data(), sorted_values.data(), points.data()};
    const int working = emulate_levels<C>(levels, gather, buckets.data(), with_buckets.bucket_count(), affine);
    if (info) {
        info->levels = levels.count;
        info->working_levels = working;
    }

    const BucketReduceParams reduce{with_buckets, choose_chunk_log(with_buckets, kEmulatedReduceThreads)};
    std::vector<ec::Xyzz<C>> partials(reduce.threads());
    for (uint32_t thread = 0; thread < reduce.threads(); ++thread) {
        reduce_bucket_chunk<C>(reduce, buckets.data(), partials.data(), thread);
    }
    WindowSums<C> result{emulate_tree(partials, with_buckets.windows, reduce.chunks_per_window()), with_buckets};
    EXPECT_EQ(result.sums.size(), with_buckets.windows);
    return result;
}

// The whole device MSM on the host: steps 1-5, then step 6 in one thread.
template <class C>
ec::Jacobian<C> emulate_msm(const std::vector<ec::Affine<C>>& bases, const std::vector<typename C::Scalar>& scalars,
                            ScalarForm form, uint32_t window_bits, uint32_t first_segment, EmulationResult* info,
                            uint32_t table_stride = 0, const AffineEmulation& affine = {}) {
    const WindowSums<C> windows =
        emulate_window_sums(bases, scalars, form, window_bits, first_segment, info, table_stride, affine);
    return combine_windows<C>(windows.sums.data(), windows.layout);
}

template <class C>
void expect_emulation_matches_cpu(size_t n, BaseProfile base_profile, ScalarProfile scalar_profile,
                                  uint32_t window_bits, uint32_t first_segment, uint64_t seed, uint32_t table_stride = 0,
                                  const AffineEmulation& affine = {}) {
    SCOPED_TRACE(testing::Message() << test::curve_name<C>() << ", n " << n << ", bases "
                                    << to_string(base_profile) << ", scalars " << to_string(scalar_profile)
                                    << ", window bits " << window_bits << ", first segment " << first_segment
                                    << ", table stride " << table_stride << ", affine slots " << affine.slots
                                    << ", min pairs " << affine.min_pairs << ", capacity " << affine.capacity[0] << "/"
                                    << affine.capacity[1]);
    const auto bases = test::make_bases<C>(n, base_profile, seed);
    const auto scalars = test::make_scalars<typename C::Scalar>(n, scalar_profile, seed + 1);
    const ec::Affine<C> expected = test::cpu_msm(bases, test::canonical_scalars(scalars));
    for (ScalarForm form : {montgomery_form<typename C::Scalar>(), ScalarForm::canonical}) {
        const ec::Affine<C> got =
            emulate_msm(bases, scalars, form, window_bits, first_segment, nullptr, table_stride, affine).to_affine();
        EXPECT_EQ(got, expected) << (form == ScalarForm::canonical ? "canonical" : "montgomery") << " scalars";
    }
}

// Signed digits: sum_w d_w 2^(c w) = s (checked in Fr), every digit in range, the top
// window's never negative, for every width the layout allows.
TEST(MsmSteps, SignedDigitsRecomposeTheScalar) {
    std::mt19937_64 rng(5);
    std::vector<ff::Fr> values = test::make_scalars(200, ScalarProfile::edges, 6);
    for (int i = 0; i < 50; ++i) values.push_back(test::random_fr(rng));
    values.push_back(-ff::Fr::one());
    for (uint32_t bits = 1; bits <= kMaxWindowBits; ++bits) {
        const WindowLayout layout{bits, WindowLayout::windows_for(bits)};
        ASSERT_GE(layout.windows * bits, 256u);
        const ff::Fr radix = ff::Fr::from_u64(uint64_t{1} << bits);
        for (const ff::Fr& value : values) {
            const msm::Scalar s = msm::to_scalar(value);
            uint32_t carry = 0;
            ff::Fr sum = ff::Fr::zero(), weight = ff::Fr::one();
            for (uint32_t w = 0; w < layout.windows; ++w) {
                const int32_t digit = signed_digit(s, layout, w, carry);
                ASSERT_LE(digit, int32_t(layout.buckets_per_window())) << bits;
                ASSERT_GE(digit, -int32_t(layout.buckets_per_window())) << bits;
                if (w + 1 == layout.windows) {
                    ASSERT_GE(digit, 0) << "top window, bits " << bits;
                }
                const ff::Fr magnitude = ff::Fr::from_u64(static_cast<uint64_t>(digit < 0 ? -digit : digit));
                sum = digit < 0 ? sum - magnitude * weight : sum + magnitude * weight;
                weight = weight * radix;
            }
            ASSERT_EQ(carry, 0u) << "a carry left the top window, bits " << bits;
            ASSERT_EQ(sum, value) << "bits " << bits << ", " << value.to_hex();
        }
    }
}

TEST(MsmSteps, ClassificationAndEntries) {
    const std::vector<ff::Fr> scalars = {ff::Fr::zero(), ff::Fr::one(), ff::Fr::from_u64(2), -ff::Fr::one(),
                                         ff::Fr::from_u64(uint64_t{1} << 40)};
    const std::vector<msm::Scalar> canonical_input = test::canonical_scalars(scalars);
    std::vector<msm::Scalar> canonical(5);
    std::vector<uint8_t> full(5), one(5);
    const ClassifyParams p{scalars.data(), ScalarForm::montgomery, 5, canonical.data(), full.data(), one.data()};
    for (uint32_t i = 0; i < 5; ++i) classify_scalar(p, i);
    EXPECT_EQ(full, (std::vector<uint8_t>{0, 0, 1, 1, 1}));
    EXPECT_EQ(one, (std::vector<uint8_t>{0, 1, 0, 0, 0}));
    for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(std::memcmp(&canonical[i], &canonical_input[i], 32), 0) << i;
    // `gather` makes an MSM of 3 of the scalars (indices 4, 1 and 2), in that order.
    const std::vector<uint32_t> gather = {4, 1, 2};
    ClassifyParams gathered = p;
    gathered.count = 3;
    gathered.gather = gather.data();
    for (uint32_t i = 0; i < 3; ++i) classify_scalar(gathered, i);
    EXPECT_EQ(full, (std::vector<uint8_t>{1, 0, 1, 1, 1}));
    EXPECT_EQ(one, (std::vector<uint8_t>{0, 1, 0, 0, 0}));
    for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(std::memcmp(&canonical[i], &canonical_input[gather[i]], 32), 0) << i;
    for (uint32_t i = 0; i < 5; ++i) classify_scalar(p, i);

    // c = 8: 2 = digit 2 in window 0 (bucket 1), zeros elsewhere (skip key); the one at
    // index 1 is one entry with key 0.
    const WindowLayout layout{8, WindowLayout::windows_for(8)};
    const uint32_t full_indices[] = {2}, one_indices[] = {1};
    std::vector<uint32_t> keys(layout.windows + 1), values(layout.windows + 1);
    const EntryParams e{canonical.data(), full_indices, one_indices, 1, 1, layout, 0, keys.data(), values.data()};
    for (uint32_t j = 0; j < 2; ++j) write_entries(e, j);
    EXPECT_EQ(keys[0], 1u);
    EXPECT_EQ(values[0], 2u);
    for (uint32_t w = 1; w < layout.windows; ++w) EXPECT_EQ(keys[w], layout.skip_key()) << w;
    EXPECT_EQ(keys[layout.windows], 0u);
    EXPECT_EQ(values[layout.windows], 1u);
    EXPECT_EQ(layout.skip_key(), 32u * 128u);
    EXPECT_EQ(layout.key_bits(), 13u);  // 4096 needs 13 bits

    // Shared (a table of 5 points per window): 2^40 at index 4 is digit 1 in window 5, so
    // bucket 0 of the one set and table point 5 * 5 + 4; the skip key is one window's
    // buckets.
    const WindowLayout shared{8, WindowLayout::windows_for(8), 1};
    const uint32_t shared_full[] = {2, 4};
    std::vector<uint32_t> shared_keys(2 * shared.windows + 1), shared_values(2 * shared.windows + 1);
    const EntryParams s{canonical.data(), shared_full, one_indices, 2, 1, shared, 5, shared_keys.data(),
                        shared_values.data()};
    for (uint32_t j = 0; j < 3; ++j) write_entries(s, j);
    EXPECT_EQ(shared.skip_key(), 128u);
    EXPECT_EQ(shared.key_bits(), 8u);
    EXPECT_EQ(shared.buckets().bucket_count(), 128u);
    EXPECT_EQ(shared.buckets().windows, 1u);
    // Window by window: full scalar j's entry of window w at 2 w + j.
    EXPECT_EQ(shared_keys[0], 1u);  // 2: window 0, |digit| 2
    EXPECT_EQ(shared_values[0], 2u);
    EXPECT_EQ(shared_keys[2 * 5 + 1], 0u);  // 2^40: window 5, digit 1
    EXPECT_EQ(shared_values[2 * 5 + 1], 5u * 5u + 4u);
    for (uint32_t w = 0; w < shared.windows; ++w) {
        if (w != 0) {
            EXPECT_EQ(shared_keys[2 * w], shared.skip_key()) << w;
        }
        if (w != 5) {
            EXPECT_EQ(shared_keys[2 * w + 1], shared.skip_key()) << w;
        }
    }
    EXPECT_EQ(shared_keys[2 * shared.windows], 0u);  // the one: bucket 0, the base itself
    EXPECT_EQ(shared_values[2 * shared.windows], 1u);

    // Stride 3 (multiples 2^(24 k) P of 5 points): window 5 is bucket set 5 mod 3 = 2 and
    // multiple 1, so 2^40 at index 4 has key 2 * 128 and point 1 * 5 + 4; the skip key
    // is past three sets.
    const WindowLayout strided{8, WindowLayout::windows_for(8), 3};
    const EntryParams t{canonical.data(), shared_full, one_indices, 2, 1, strided, 5, shared_keys.data(),
                        shared_values.data()};
    for (uint32_t j = 0; j < 3; ++j) write_entries(t, j);
    EXPECT_EQ(strided.skip_key(), 3u * 128u);
    EXPECT_EQ(strided.key_bits(), 9u);
    EXPECT_EQ(strided.buckets().windows, 3u);
    EXPECT_EQ(strided.buckets().table_stride, 0u);
    EXPECT_EQ(shared_keys[0], 1u);  // 2: window 0, set 0, |digit| 2, multiple 0
    EXPECT_EQ(shared_values[0], 2u);
    EXPECT_EQ(shared_keys[2 * 5 + 1], 2u * 128u);
    EXPECT_EQ(shared_values[2 * 5 + 1], 1u * 5u + 4u);
    EXPECT_EQ(shared_keys[2 * 4 + 1], strided.skip_key());
    EXPECT_EQ(shared_keys[2 * strided.windows], 0u);  // the one, as over a whole table
    EXPECT_EQ(shared_values[2 * strided.windows], 1u);
    // A stride past the windows has a set for each window, no more.
    EXPECT_EQ((WindowLayout{8, 32, 40}.bucket_windows()), 32u);
    EXPECT_EQ((WindowLayout{8, 1, 3}.bucket_windows()), 1u);  // ones alone: window 0
}

TEST(MsmSteps, LevelsShrinkToOneThreadWithinTheirBuffers) {
    for (uint32_t entries : {1u, 2u, 7u, 8u, 9u, 100u, 4096u, 100000u, 1u << 20, (1u << 28) + 3}) {
        for (uint32_t first : {1u, 3u, 8u, 256u}) {
            const LevelPlan plan = plan_levels(entries, first, kLaterSegment);
            ASSERT_GE(plan.count, 1);
            ASSERT_LE(plan.count, LevelPlan::kMaxLevels);
            EXPECT_EQ(plan.levels[0].count, entries);
            EXPECT_TRUE(plan.levels[plan.count - 1].terminal());
            for (int k = 0; k + 1 < plan.count; ++k) {
                EXPECT_FALSE(plan.levels[k].terminal());
                EXPECT_EQ(plan.levels[k + 1].count, plan.levels[k].spill_count());
                EXPECT_LE(plan.levels[k].spill_count(), plan.spill_capacity[k % 2]);
                if (k > 0) {
                    EXPECT_LT(plan.levels[k + 1].count, plan.levels[k].count);
                }
            }
            // The segments of every level tile its entries exactly.
            for (int k = 0; k < plan.count; ++k) {
                const Level& level = plan.levels[k];
                EXPECT_LT(level.offset, level.segment);
                uint32_t covered = 0;
                for (uint32_t t = 0; t < level.threads(); ++t) {
                    EXPECT_EQ(level.begin(t), std::min(covered, level.count)) << "level " << k << ", thread " << t;
                    covered = std::max(covered, level.end(t));
                }
                EXPECT_EQ(covered, level.count) << "level " << k;
            }
        }
    }
}

TEST(MsmSteps, TreePassesCoverEveryWindowSize) {
    for (uint32_t log = 0; log <= 23; ++log) {
        const TreePasses passes = plan_tree_passes(1u << log);
        uint64_t product = 1;
        for (int i = 0; i < passes.count; ++i) {
            EXPECT_LE(passes.group_size[i], kTreeFanIn);
            product *= passes.group_size[i];
        }
        EXPECT_EQ(product, uint64_t{1} << log);
    }
}

TEST(MsmSteps, WindowChoiceGrowsWithTheCount) {
    uint32_t previous = 1;
    for (uint64_t n = 1; n <= (uint64_t{1} << 30); n = n * 5 / 4 + 1) {
        const uint32_t bits = choose_window_bits(n);
        EXPECT_GE(bits, previous) << n;
        EXPECT_LE(bits, 20u);
        previous = bits;
    }
    EXPECT_EQ(choose_window_bits(0), 1u);
    // Over a table one window's buckets cost what W did: wider windows (docs/msm.md#window-width).
    EXPECT_EQ(choose_window_bits(uint64_t{1} << 22, kMaxWindowBits, 1), 20u);
    EXPECT_EQ(choose_window_bits(uint64_t{1} << 24, kMaxWindowBits, 1), 22u);
    EXPECT_EQ(choose_window_bits(uint64_t{1} << 26, kMaxWindowBits, 1), 24u);
    // Over a table of stride s, s sets of buckets: as wide at 2^24 for s = 3, narrower
    // from s = 4 at 2^26, where four sets of 2^23 buckets cost more than a twelfth window's
    // entries (docs/msm.md#tables-of-every-s-th-window).
    EXPECT_EQ(choose_window_bits(uint64_t{1} << 24, kMaxWindowBits, 3), 22u);
    EXPECT_EQ(choose_window_bits(uint64_t{1} << 26, kMaxWindowBits, 2), 24u);
    EXPECT_EQ(choose_window_bits(uint64_t{1} << 26, kMaxWindowBits, 3), 24u);
    EXPECT_EQ(choose_window_bits(uint64_t{1} << 26, kMaxWindowBits, 4), 22u);
}

// The reduction's chunks: known answers for the H200's G2 (132 SMs x 2 blocks of 128),
// where a fixed K = 32 would take two waves at 2^24 over a table and half of one at 2^22
// (docs/msm.md#chunk-length); then, for
// every chunk length, the window sums are sum_b (b + 1) B_b, computed here by scalar
// multiplication, over buckets with infinities among them.
TEST(MsmSteps, BucketReductionForEveryChunkLength) {
    constexpr uint64_t kG2Resident = 132 * 2 * 128;
    EXPECT_EQ(choose_chunk_log(WindowLayout{22, 1}, kG2Resident), 6u);  // 2^15 threads: one wave
    EXPECT_EQ(choose_chunk_log(WindowLayout{20, 1}, kG2Resident), 4u);  // 2^15 threads: one wave
    EXPECT_EQ(choose_chunk_log(WindowLayout{3, 2}, kG2Resident), 0u);   // a thread a bucket
    for (uint32_t bits = 1; bits <= 24; ++bits) {
        for (uint64_t resident : {uint64_t{1}, uint64_t{256}, kG2Resident}) {
            EXPECT_LE(choose_chunk_log(WindowLayout{bits, 11}, resident), bits - 1) << bits << ", " << resident;
        }
    }

    using C = ec::G1Params;
    const WindowLayout layout{6, 3};
    const std::vector<ec::Affine<C>> points = test::make_bases<C>(layout.bucket_count(), BaseProfile::distinct, 7);
    std::vector<ec::Xyzz<C>> buckets(layout.bucket_count());
    for (size_t b = 0; b < buckets.size(); ++b) {
        buckets[b] = b % 5 == 3 ? ec::Xyzz<C>::infinity() : ec::Xyzz<C>::from_affine(points[b]);
        if (b % 7 == 1) buckets[b] = ec::xyzz_dbl(buckets[b]);  // Z != 1
    }
    for (uint32_t chunk_log = 0; chunk_log < layout.bits; ++chunk_log) {
        const BucketReduceParams reduce{layout, chunk_log};
        std::vector<ec::Xyzz<C>> partials(reduce.threads());
        for (uint32_t thread = 0; thread < reduce.threads(); ++thread) {
            reduce_bucket_chunk<C>(reduce, buckets.data(), partials.data(), thread);
        }
        const std::vector<ec::Xyzz<C>> sums = emulate_tree(partials, layout.windows, reduce.chunks_per_window());
        ASSERT_EQ(sums.size(), layout.windows);
        for (uint32_t w = 0; w < layout.windows; ++w) {
            ec::Jacobian<C> expected = ec::Jacobian<C>::infinity();
            for (uint32_t b = 0; b < layout.buckets_per_window(); ++b) {
                const uint64_t weight[4] = {b + 1, 0, 0, 0};
                const ec::Xyzz<C>& bucket = buckets[w * layout.buckets_per_window() + b];
                expected = ec::add(expected, ec::scalar_mul(bucket.to_jacobian(), weight));
            }
            EXPECT_EQ(sums[w].to_jacobian(), expected) << "chunk_log " << chunk_log << ", window " << w;
        }
    }
}

// Level 0 in whole waves: known answers for the H200's resident threads (132 SMs x 3
// blocks of 128 for G1), then the properties for any size: never shorter than the choice
// without a device (the spill bounds rest on it), and the threads fill their last wave.
TEST(MsmSteps, FirstSegmentFillsWholeWaves) {
    constexpr uint64_t kG1Resident = 132 * 3 * 128;
    EXPECT_EQ(choose_first_segment(16 * (uint64_t{1} << 22), 0), 256u);  // 2^22 points at c = 16
    EXPECT_EQ(choose_first_segment(16 * (uint64_t{1} << 22), kG1Resident), 265u);  // 5 waves, not 5.17
    EXPECT_EQ(choose_first_segment(13 * (uint64_t{1} << 24), kG1Resident), 269u);  // 16 waves, not 16.8
    EXPECT_EQ(choose_first_segment(1000, kG1Resident), 16u);                       // under one wave
    for (uint64_t resident : {uint64_t{1}, uint64_t{33792}, kG1Resident, uint64_t{100000}}) {
        for (uint64_t entries = 1; entries < (uint64_t{1} << 32); entries = entries * 3 / 2 + 7) {
            const uint64_t plain = choose_first_segment(entries, 0);
            const uint64_t segment = choose_first_segment(entries, resident);
            ASSERT_GE(segment, plain) << entries << " entries, " << resident;
            const uint64_t threads = (entries + segment - 1) / segment;
            const uint64_t waves = (entries + plain - 1) / plain / resident;
            if (waves > 0) {
                ASSERT_LE(threads, waves * resident) << entries << " entries, " << resident;
            }
        }
    }
}

// A plain level 0 over spill buffers sized for longer segments: the chosen segment where
// it fits, else the shortest whose spills fit (known answers, then the property).
TEST(MsmSteps, FirstSegmentLengthensToFitTheSpills) {
    EXPECT_EQ(fit_first_segment(1000, 16, 1000), 16u);            // 126 spills fit
    EXPECT_EQ(fit_first_segment(939'524'096, 256, 1'468'008), 1280u);  // 2^26 G2 points at c = 20
    EXPECT_EQ(fit_first_segment(939'525'120, 256, 1'468'008), 1280u);  // 734,004 threads of 1280
    EXPECT_EQ(fit_first_segment(939'525'121, 256, 1'468'008), 1281u);
    EXPECT_EQ(fit_first_segment(10, 1, 2), 10u);                  // room for one thread's spills: one thread
    for (uint64_t capacity : {uint64_t{2}, uint64_t{3}, uint64_t{1000}, uint64_t{524'290}}) {
        for (uint64_t entries = 1; entries < (uint64_t{1} << 32); entries = entries * 3 / 2 + 7) {
            const uint32_t chosen = choose_first_segment(entries, 0);
            const uint64_t segment = fit_first_segment(entries, chosen, capacity);
            ASSERT_GE(segment, chosen) << entries << " entries, capacity " << capacity;
            ASSERT_LE(2 * ((entries + segment - 1) / segment), capacity) << entries << " entries";
            if (segment > chosen) {  // the shortest: one entry less spills too much
                ASSERT_GT(2 * ((entries + segment - 2) / (segment - 1)), capacity) << entries << " entries";
            }
        }
    }
}

// Spills sized for the rounds (a proof's G2 with B2's rounds planned): level 0 for
// segments of kMinAffineSegment, 1,363,150 at 2^26 points against 6,815,744 for plain
// segments of 256 (13 x 2^26 entries, counted apart from the code); every rounds segment
// of every count up to the most entries, and every plain one as the accumulator
// lengthens it, within the bounds.
TEST(MsmCapacity, SpillsSizedForTheRoundsHoldEveryRun) {
    MsmCapacity capacity;
    capacity.max_points = uint64_t{1} << 26;
    capacity.affine_rounds = true;
    capacity.affine_segment = 5561;
    ASSERT_EQ(capacity.max_entries(), 13 * capacity.max_points);
    EXPECT_EQ(capacity.max_spills(0), 6'815'744u);
    capacity.spills_for_rounds = true;
    EXPECT_EQ(capacity.max_spills(0), 1'363'150u);
    for (uint64_t max_points : {uint64_t{1} << 20, uint64_t{1} << 24, uint64_t{1} << 26}) {
        capacity.max_points = max_points;
        const uint64_t most = capacity.max_entries();
        for (uint64_t entries = 1; entries <= most; entries = entries * 5 / 4 + 11) {
            for (uint64_t slots : {uint64_t{1}, uint64_t{1000}, uint64_t{33792}}) {
                const uint32_t rounds = choose_affine_segment(entries, slots, capacity.affine_segment);
                const uint32_t segment = level0_segment(entries, 0, rounds, slots, capacity.max_spills(0));
                const LevelPlan levels = plan_levels(static_cast<uint32_t>(entries), segment, kLaterSegment);
                ASSERT_LE(levels.spill_capacity[0], capacity.max_spills(0)) << entries << ", slots " << slots;
                ASSERT_LE(levels.spill_capacity[1], capacity.max_spills(1)) << entries << ", slots " << slots;
            }
        }
    }
}

// The capacity covers every count of full scalars and ones that prepare() may see, and
// every level of every MSM up to it.
TEST(MsmCapacity, BoundsEveryChoice) {
    for (uint64_t max_points : {uint64_t{1}, uint64_t{10}, uint64_t{1000}, uint64_t{1} << 16, uint64_t{1} << 20,
                                (uint64_t{1} << 24) + 5}) {
        MsmCapacity capacity;
        capacity.max_points = max_points;
        const uint64_t entries_bound = capacity.max_entries();
        const uint64_t buckets_bound = capacity.max_buckets();
        for (uint64_t full = 0; full <= max_points; full = full * 3 / 2 + 1) {
            for (uint64_t ones : {uint64_t{0}, max_points - std::min(full, max_points)}) {
                if (full + ones > max_points) continue;
                const uint32_t bits = choose_window_bits(full);
                const WindowLayout layout{bits, full > 0 ? WindowLayout::windows_for(bits) : 1u};
                const uint64_t entries = full * layout.windows + ones;
                ASSERT_LE(entries, entries_bound) << max_points << ": " << full << " full, " << ones << " ones";
                ASSERT_LE(layout.bucket_count(), buckets_bound) << max_points << ", " << full;
                if (entries == 0 || entries >= (uint64_t{1} << 32)) continue;
                for (uint64_t resident : {uint64_t{0}, uint64_t{33792}, uint64_t{50688}}) {
                    const LevelPlan levels = plan_levels(static_cast<uint32_t>(entries),
                                                         choose_first_segment(entries, resident), kLaterSegment);
                    ASSERT_LE(levels.spill_capacity[0], capacity.max_spills(0)) << max_points << ", " << entries;
                    ASSERT_LE(levels.spill_capacity[1], capacity.max_spills(1)) << max_points << ", " << entries;
                    const WindowLayout buckets = layout.buckets();
                    ASSERT_LE(BucketReduceParams(buckets, choose_chunk_log(buckets, resident)).threads(),
                              capacity.max_reduce_threads(resident))
                        << max_points << ", " << full << " full, resident " << resident;
                }
            }
        }
    }
    MsmCapacity forced;
    forced.max_points = 1000;
    forced.forced_window_bits = {3};
    EXPECT_GE(forced.max_entries(), 1000u * WindowLayout::windows_for(3));
    MsmCapacity shared;  // a table's width: its entries, and one window's buckets
    shared.max_points = 1000;
    shared.shared_tables = {{2, 1}, {23, 1}};
    EXPECT_GE(shared.max_entries(), 1000u * WindowLayout::windows_for(2));
    EXPECT_GE(shared.max_buckets(), 1u << 22);
    shared.shared_tables = {{23, 3}};  // three bucket sets
    EXPECT_GE(shared.max_buckets(), 3u << 22);
    shared.shared_tables = {{23, 20}};  // as many as its 12 windows
    EXPECT_GE(shared.max_buckets(), 12u << 22);
}

// The reduction's partial sums are its chunks, not its buckets: at 2^26 points on a device
// of 50,688 reduction threads, 212,992 (13 windows of 2^19 buckets in chunks of 32,
// computed apart from the code) against 6.8 million buckets; over strided tables every
// full or ones-only layout of every stride within the bound.
TEST(MsmCapacity, PartialSumsAreTheReductionsChunks) {
    MsmCapacity capacity;
    capacity.max_points = uint64_t{1} << 26;
    capacity.shared_tables = {{24, 2}, {22, 6}, {24, 3}, {22, 4}};
    EXPECT_EQ(capacity.max_reduce_threads(50688), 212992u);
    EXPECT_EQ(capacity.max_buckets(), 3u << 23);
    capacity.plain = false;
    EXPECT_EQ(capacity.max_reduce_threads(50688), 131072u);
    for (uint64_t resident : {uint64_t{0}, uint64_t{1}, uint64_t{33792}, uint64_t{50688}}) {
        for (const TableShape& shape : capacity.shared_tables) {
            for (uint32_t windows : {WindowLayout::windows_for(shape.window_bits), 1u}) {
                const WindowLayout buckets = WindowLayout{shape.window_bits, windows, shape.stride}.buckets();
                EXPECT_LE(BucketReduceParams(buckets, choose_chunk_log(buckets, resident)).threads(),
                          capacity.max_reduce_threads(resident))
                    << shape.window_bits << "/" << shape.stride << ", " << windows << " windows, " << resident;
            }
        }
    }
}

// A capacity for tables alone (plain = false) is sized for their layouts and nothing
// more: at 2^24 points and 22 bits, 12 windows of entries (a plain plan's 20 bits make
// 13 windows) and 2^21 buckets (13 windows of 2^19).
TEST(MsmCapacity, TablesAloneNeedOnlyTheirLayouts) {
    MsmCapacity capacity;
    capacity.max_points = uint64_t{1} << 24;
    capacity.shared_tables = {{22, 1}};
    ASSERT_EQ(capacity.max_entries(), 13 * capacity.max_points);
    ASSERT_EQ(capacity.max_buckets(), 13u << 19);
    capacity.plain = false;
    EXPECT_TRUE(capacity.window_bits_in_use().empty());
    EXPECT_EQ(capacity.max_entries(), 12 * capacity.max_points);
    EXPECT_EQ(capacity.max_buckets(), 1u << 21);
    // Level 0's spills: 2 a segment of at least 256 entries.
    EXPECT_EQ(capacity.max_spills(0), 2 * (12 * capacity.max_points / 256));
}

// Forced window widths and level-0 segments (msm_kernel_bench's sweeps) at full size,
// where the entries fill the capacity exactly: 2^22 points at c = 15 in segments of 256
// (75,497,472 entries) make level 1 spill 147,458 entries, two more than a bound that
// leaves out the thread the shifted boundaries add (MsmCapacity::max_spills).
TEST(MsmCapacity, BoundsForcedWidthsAndSegments) {
    for (uint64_t max_points : {uint64_t{1} << 20, uint64_t{1} << 22, (uint64_t{1} << 22) + 3}) {
        for (uint32_t bits : {12u, 14u, 15u, 16u, 18u, 20u}) {
            for (uint32_t segment : {32u, 64u, 128u, 256u, 512u}) {
                MsmCapacity capacity;
                capacity.max_points = max_points;
                capacity.forced_window_bits = {bits};
                capacity.min_forced_segment = segment;
                const uint64_t entries = max_points * WindowLayout::windows_for(bits);
                ASSERT_LE(entries, capacity.max_entries());
                const LevelPlan levels = plan_levels(static_cast<uint32_t>(entries), segment, kLaterSegment);
                const std::string where = std::to_string(max_points) + " points, c " + std::to_string(bits) +
                                          ", segment " + std::to_string(segment);
                ASSERT_LE(levels.spill_capacity[0], capacity.max_spills(0)) << where;
                ASSERT_LE(levels.spill_capacity[1], capacity.max_spills(1)) << where;
            }
        }
    }
}

TEST(MsmEmulation, G1MatchesTheCpuForEveryScalarProfile) {
    uint64_t seed = 100;
    for (ScalarProfile profile : test::kScalarProfiles) {
        for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{17}, size_t{300}}) {
            expect_emulation_matches_cpu<ec::G1Params>(n, BaseProfile::distinct, profile, 0, 0, seed++);
        }
    }
}

TEST(MsmEmulation, G1WithRepeatedAndInfiniteBases) {
    uint64_t seed = 200;
    for (BaseProfile bases : {BaseProfile::repeated, BaseProfile::with_infinity}) {
        for (ScalarProfile profile : {ScalarProfile::uniform, ScalarProfile::ones, ScalarProfile::r_minus_1,
                                      ScalarProfile::mostly_boolean, ScalarProfile::small}) {
            expect_emulation_matches_cpu<ec::G1Params>(200, bases, profile, 0, 3, seed++);
        }
    }
}

// Small segments and windows: many levels, spills of single runs, buckets spanning many
// segments (all ones: one bucket of n points), every window width from 1 bit up.
TEST(MsmEmulation, G1ForEveryWindowWidthAndSegment) {
    uint64_t seed = 300;
    for (uint32_t bits : {1u, 2u, 3u, 5u, 8u, 11u, 13u, 16u}) {
        for (uint32_t segment : {1u, 2u, 3u, 5u, 64u}) {
            expect_emulation_matches_cpu<ec::G1Params>(96, BaseProfile::distinct, ScalarProfile::uniform, bits,
                                                       segment, seed++);
        }
        expect_emulation_matches_cpu<ec::G1Params>(150, BaseProfile::distinct, ScalarProfile::mostly_boolean, bits, 2,
                                                   seed++);
    }
    for (uint32_t segment : {1u, 2u, 7u}) {
        expect_emulation_matches_cpu<ec::G1Params>(2000, BaseProfile::distinct, ScalarProfile::ones, 0, segment,
                                                   seed++);
        expect_emulation_matches_cpu<ec::G1Params>(500, BaseProfile::repeated, ScalarProfile::r_minus_1, 0, segment,
                                                   seed++);
    }
}

TEST(MsmEmulation, G1AtFourThousandPointsWithTheDefaultChoices) {
    EmulationResult info;
    const auto bases = test::make_bases<ec::G1Params>(4096, BaseProfile::distinct, 400);
    const auto scalars = test::make_scalars(4096, ScalarProfile::uniform, 401);
    const auto expected = test::cpu_msm(bases, test::canonical_scalars(scalars));
    EXPECT_EQ(emulate_msm(bases, scalars, ScalarForm::montgomery, 0, 0, &info).to_affine(), expected);
    EXPECT_EQ(info.full, 4096u);
    EXPECT_EQ(info.layout.bits, choose_window_bits(4096));
    EXPECT_GE(info.levels, 3) << "level 0 should not be the only level";
    // c = 8: 128 buckets per window, the top one's too (bits 248..255), about 32 entries
    // each; in segments of 64 no bucket spans three, so level 1 completes every
    // straddling one and the later levels return at once. (With the automatic c = 9 the
    // top window's digits are at most 8, so its 8 buckets hold 512 entries each.)
    EXPECT_EQ(emulate_msm(bases, scalars, ScalarForm::montgomery, 8, 64, &info).to_affine(), expected);
    EXPECT_GE(info.levels, 3);
    EXPECT_EQ(info.working_levels, 2);
}

// A base table's multiple k holds 2^(c s k) P (window k's multiple at stride 1): against
// the CPU's scalar multiplication, infinity included.
TEST(MsmEmulation, BaseTableHoldsEachWindowsMultiple) {
    for (const TableShape shape : {TableShape{1, 1}, TableShape{7, 1}, TableShape{22, 1}, TableShape{7, 3},
                                   TableShape{22, 5}, TableShape{1, 256}}) {
        const auto bases = test::make_bases<ec::G1Params>(5, BaseProfile::with_infinity, 600 + shape.window_bits);
        const auto table = emulate_table(bases, shape);
        const uint32_t windows = WindowLayout::windows_for(shape.window_bits);
        ASSERT_EQ(table.size(), (windows + shape.stride - 1) / shape.stride * bases.size());
        for (uint32_t k = 0; k < shape.multiples(); k += shape.stride == 1 ? 5 : 1) {
            const uint32_t exponent = shape.window_bits * shape.stride * k;  // < 256
            uint64_t power[4] = {0, 0, 0, 0};
            power[exponent / 64] = uint64_t{1} << (exponent % 64);
            for (size_t i = 0; i < bases.size(); ++i) {
                const ec::G1Affine expected = ec::scalar_mul(ec::G1::from_affine(bases[i]), power).to_affine();
                EXPECT_EQ(table[k * bases.size() + i], expected)
                    << "bits " << shape.window_bits << ", stride " << shape.stride << ", multiple " << k << ", base "
                    << i;
            }
        }
    }
}

// Over a table the windows share one set of buckets: every scalar profile, widths from
// 1 bit (256 windows) to the widest, segments that make every level spill. The widest
// (kMaxWindowBits, 24: the widest keys) runs once: its 2^23 buckets took 11 s a scalar
// form in CI's build, every other case of this test together 15 s.
TEST(MsmEmulation, SharedBucketsOverABaseTableMatchTheCpu) {
    uint64_t seed = 700;
    for (ScalarProfile profile : test::kScalarProfiles) {
        expect_emulation_matches_cpu<ec::G1Params>(150, BaseProfile::distinct, profile, 0, 0, seed++, 1);
    }
    for (uint32_t bits : {1u, 2u, 5u, 11u, 16u}) {
        for (uint32_t segment : {1u, 3u, 64u}) {
            expect_emulation_matches_cpu<ec::G1Params>(96, BaseProfile::distinct, ScalarProfile::uniform, bits,
                                                       segment, seed++, 1);
        }
        expect_emulation_matches_cpu<ec::G1Params>(120, BaseProfile::with_infinity, ScalarProfile::mostly_boolean,
                                                   bits, 2, seed++, 1);
    }
    static_assert(kMaxWindowBits == 24);
    expect_emulation_matches_cpu<ec::G1Params>(120, BaseProfile::with_infinity, ScalarProfile::uniform,
                                               kMaxWindowBits, 3, seed++, 1);
    expect_emulation_matches_cpu<ec::G1Params>(300, BaseProfile::repeated, ScalarProfile::ones, 0, 2, seed++, 1);
    expect_emulation_matches_cpu<ec::G2Params>(40, BaseProfile::distinct, ScalarProfile::uniform, 6, 3, seed++, 1);
    expect_emulation_matches_cpu<ec::G2Params>(40, BaseProfile::repeated, ScalarProfile::edges, 0, 0, seed++, 1);
}

// Over a table of every s-th window's multiple the windows share s sets of buckets:
// strides from 2 to every window (one multiple, the bases themselves), widths that make a
// last partial group of windows (c = 5: 52 windows, 11 multiples at s = 5), every scalar
// profile, spilling segments, and G2.
TEST(MsmEmulation, BucketSetsOverAStridedTableMatchTheCpu) {
    uint64_t seed = 750;
    for (ScalarProfile profile : test::kScalarProfiles) {
        expect_emulation_matches_cpu<ec::G1Params>(120, BaseProfile::distinct, profile, 0, 0, seed++, 2);
    }
    for (uint32_t stride : {2u, 3u, 5u, 52u}) {
        expect_emulation_matches_cpu<ec::G1Params>(96, BaseProfile::distinct, ScalarProfile::uniform, 5, 3, seed++,
                                                   stride);
        expect_emulation_matches_cpu<ec::G1Params>(96, BaseProfile::with_infinity, ScalarProfile::mostly_boolean, 5,
                                                   64, seed++, stride);
    }
    expect_emulation_matches_cpu<ec::G1Params>(80, BaseProfile::repeated, ScalarProfile::edges, 11, 2, seed++, 4);
    expect_emulation_matches_cpu<ec::G1Params>(200, BaseProfile::repeated, ScalarProfile::ones, 7, 2, seed++, 3);
    expect_emulation_matches_cpu<ec::G2Params>(40, BaseProfile::distinct, ScalarProfile::uniform, 6, 3, seed++, 4);
    expect_emulation_matches_cpu<ec::G2Params>(40, BaseProfile::with_infinity, ScalarProfile::edges, 0, 0, seed++, 2);
}

// BN254's groups through the same steps: Montgomery scalars of its Fr, every scalar
// profile in G1, small segments and windows, a table, and the affine rounds in both.
// An MSM in chunks (ProofMsms): each chunk's window sums in a slot of its own, at the
// width its scalars choose, combined once on the host. The chunks here take four layouts
// (two chunks share one, whose sums are added window by window), one chunk is all zeros
// and one all ones (a single window).
template <class C>
void expect_chunks_combine_to_the_cpus_sum(uint64_t seed) {
    SCOPED_TRACE(test::curve_name<C>());
    struct Chunk {
        size_t n;
        ScalarProfile scalars;
        uint32_t bits;  // 0: as prepare() chooses
        uint32_t table_stride;
    };
    const std::vector<Chunk> chunks = {{40, ScalarProfile::uniform, 5, 0}, {33, ScalarProfile::uniform, 5, 0},
                                       {20, ScalarProfile::zeros, 0, 0},   {25, ScalarProfile::ones, 0, 0},
                                       {30, ScalarProfile::uniform, 7, 0}, {28, ScalarProfile::mostly_boolean, 0, 0},
                                       {24, ScalarProfile::uniform, 4, 3}};
    std::vector<ec::Affine<C>> all_bases;
    std::vector<typename C::Scalar> all_scalars;
    const uint32_t slot = WindowLayout::windows_for(1);
    std::vector<ec::Xyzz<C>> window_sums(chunks.size() * slot);
    std::vector<WindowLayout> layouts;
    std::set<std::pair<uint32_t, uint32_t>> distinct;
    for (const Chunk& chunk : chunks) {
        const auto bases = test::make_bases<C>(chunk.n, BaseProfile::distinct, seed++);
        const auto scalars = test::make_scalars<typename C::Scalar>(chunk.n, chunk.scalars, seed++);
        const WindowSums<C> windows = emulate_window_sums(bases, scalars, montgomery_form<typename C::Scalar>(),
                                                          chunk.bits, 0, nullptr, chunk.table_stride);
        std::copy(windows.sums.begin(), windows.sums.end(), window_sums.begin() + layouts.size() * slot);
        layouts.push_back(windows.layout);
        distinct.insert({windows.layout.bits, windows.layout.windows});
        all_bases.insert(all_bases.end(), bases.begin(), bases.end());
        all_scalars.insert(all_scalars.end(), scalars.begin(), scalars.end());
    }
    ASSERT_EQ(layouts[2].windows, 0u) << "the chunk of zeros has no windows";
    ASSERT_EQ(layouts[3].windows, 1u) << "the chunk of ones has one window";
    ASSERT_EQ(layouts[0].bits, layouts[1].bits) << "two chunks share a layout";
    ASSERT_GE(distinct.size(), 5u);  // with the zeros' empty one
    const ec::Affine<C> expected = test::cpu_msm(all_bases, test::canonical_scalars(all_scalars));
    EXPECT_EQ(combine_window_sets<C>(window_sums.data(), slot, layouts).to_affine(), expected);
    // Each chunk alone, as the one-thread combination makes it, adds up to the same.
    ec::Jacobian<C> chunk_by_chunk = ec::Jacobian<C>::infinity();
    for (size_t k = 0; k < layouts.size(); ++k) {
        chunk_by_chunk = ec::add(chunk_by_chunk, combine_windows<C>(window_sums.data() + k * slot, layouts[k]));
    }
    EXPECT_EQ(chunk_by_chunk.to_affine(), expected);
}

TEST(MsmEmulation, ChunksWindowSumsCombineOnceOnTheHost) {
    expect_chunks_combine_to_the_cpus_sum<ec::G1Params>(1000);
    expect_chunks_combine_to_the_cpus_sum<ec::G2Params>(1100);
    expect_chunks_combine_to_the_cpus_sum<ec::bn254::G1Params>(1200);
}

TEST(MsmEmulation, Bn254MatchesTheCpu) {
    uint64_t seed = 1500;
    const AffineEmulation every_round{3, 1};
    for (ScalarProfile profile : test::kScalarProfiles) {
        expect_emulation_matches_cpu<ec::bn254::G1Params>(300, BaseProfile::distinct, profile, 0, 0, seed++);
        expect_emulation_matches_cpu<ec::bn254::G1Params>(200, BaseProfile::repeated, profile, 4, 3, seed++);
    }
    expect_emulation_matches_cpu<ec::bn254::G1Params>(300, BaseProfile::with_infinity, ScalarProfile::edges, 3, 50,
                                                      seed++, 0, every_round);
    expect_emulation_matches_cpu<ec::bn254::G1Params>(300, BaseProfile::distinct, ScalarProfile::uniform, 5, 7, seed++,
                                                      2);
    for (ScalarProfile profile : {ScalarProfile::uniform, ScalarProfile::mostly_boolean, ScalarProfile::r_minus_1}) {
        expect_emulation_matches_cpu<ec::bn254::G2Params>(64, BaseProfile::distinct, profile, 0, 0, seed++);
        expect_emulation_matches_cpu<ec::bn254::G2Params>(40, BaseProfile::repeated, profile, 3, 32, seed++, 0,
                                                          every_round);
    }
    expect_emulation_matches_cpu<ec::bn254::G2Params>(40, BaseProfile::with_infinity, ScalarProfile::edges, 0, 16,
                                                      seed++, 1, every_round);
}

TEST(MsmEmulation, G2MatchesTheCpu) {
    uint64_t seed = 500;
    for (ScalarProfile profile : {ScalarProfile::uniform, ScalarProfile::mostly_boolean, ScalarProfile::r_minus_1,
                                  ScalarProfile::ones, ScalarProfile::zeros}) {
        expect_emulation_matches_cpu<ec::G2Params>(64, BaseProfile::distinct, profile, 0, 0, seed++);
        expect_emulation_matches_cpu<ec::G2Params>(64, BaseProfile::repeated, profile, 4, 3, seed++);
    }
}

// Each kind of affine pair against the group law (Jacobian addition), the slope's
// inverse through the batch factor as the rounds take it (G2: through the norm).
template <class C>
void expect_pair_sums_match_the_group_law(uint64_t seed) {
    const auto bases = test::make_bases<C>(2, BaseProfile::distinct, seed);
    const ec::Affine<C> p = bases[0], q = bases[1], none = ec::Affine<C>::infinity();
    const struct {
        ec::Affine<C> left, right;
        PairKind kind;
    } pairs[] = {{p, q, PairKind::chord},  {q, p, PairKind::chord},     {p, p, PairKind::tangent},
                 {p, -p, PairKind::infinity}, {p, none, PairKind::first}, {none, q, PairKind::second},
                 {none, none, PairKind::first}};
    for (const auto& pair : pairs) {
        ASSERT_EQ(pair_kind(pair.left, pair.right), pair.kind);
        typename C::Field inverse = C::Field::zero();
        if (takes_factor(pair.kind, pair.left, pair.right)) {
            const typename C::Field denominator = pair_denominator(pair.kind, pair.left, pair.right);
            inverse = inverse_from_factor<C>(denominator, batch_factor<C>(denominator).inverse());
        }
        const ec::Affine<C> expected =
            ec::add(ec::Jacobian<C>::from_affine(pair.left), ec::Jacobian<C>::from_affine(pair.right)).to_affine();
        EXPECT_EQ(pair_sum(pair.kind, pair.left, pair.right, inverse), expected) << int(pair.kind);
    }
}

TEST(MsmAffineRounds, PairSumsMatchTheGroupLaw) {
    expect_pair_sums_match_the_group_law<ec::G1Params>(900);
    expect_pair_sums_match_the_group_law<ec::G2Params>(901);
    expect_pair_sums_match_the_group_law<ec::bn254::G1Params>(902);
    expect_pair_sums_match_the_group_law<ec::bn254::G2Params>(903);
}

// Level 0 in batched affine rounds, against the CPU: every scalar profile; the pairs that
// do not divide or take the tangent (repeated bases, with digits of both signs: P + P and
// P + (-P); infinite bases); rounds stopped by a buffer's capacity or by min_pairs; fewer
// slots than threads; over a table; one thread for all of level 0.
TEST(MsmAffineRounds, MatchTheCpu) {
    uint64_t seed = 800;
    const AffineEmulation every_round{3, 1};
    for (ScalarProfile profile : test::kScalarProfiles) {
        expect_emulation_matches_cpu<ec::G1Params>(300, BaseProfile::distinct, profile, 4, 64, seed++, 0,
                                                   every_round);
    }
    for (BaseProfile bases : {BaseProfile::repeated, BaseProfile::with_infinity}) {
        for (ScalarProfile profile : {ScalarProfile::uniform, ScalarProfile::ones, ScalarProfile::r_minus_1,
                                      ScalarProfile::edges, ScalarProfile::small}) {
            expect_emulation_matches_cpu<ec::G1Params>(200, bases, profile, 3, 50, seed++, 0, every_round);
        }
    }
    // c = 2: runs of ~150 entries, so a segment of 32 is one run: round 0 leaves 16
    // items (<= 20), round 1 would leave 8 (> 6) and does not run.
    expect_emulation_matches_cpu<ec::G1Params>(300, BaseProfile::distinct, ScalarProfile::uniform, 2, 32, seed++,
                                               0, AffineEmulation{2, 1, {20, 6}});
    expect_emulation_matches_cpu<ec::G1Params>(300, BaseProfile::distinct, ScalarProfile::uniform, 3, 100, seed++,
                                               0, AffineEmulation{5, 12});
    expect_emulation_matches_cpu<ec::G1Params>(150, BaseProfile::distinct, ScalarProfile::uniform, 5, 64, seed++,
                                               1, every_round);
    expect_emulation_matches_cpu<ec::G1Params>(100, BaseProfile::repeated, ScalarProfile::edges, 4, 1u << 20, seed++,
                                               1, every_round);
    expect_emulation_matches_cpu<ec::G2Params>(40, BaseProfile::distinct, ScalarProfile::uniform, 3, 32, seed++,
                                               0, every_round);
    expect_emulation_matches_cpu<ec::G2Params>(40, BaseProfile::repeated, ScalarProfile::edges, 3, 32, seed++, 0,
                                               every_round);
    expect_emulation_matches_cpu<ec::G2Params>(40, BaseProfile::with_infinity, ScalarProfile::r_minus_1, 0, 16,
                                               seed++, 1, every_round);
    // More slots than a warp's 32, as on the device.
    expect_emulation_matches_cpu<ec::G1Params>(300, BaseProfile::distinct, ScalarProfile::uniform, 3, 64, seed++,
                                               0, AffineEmulation{37, 1});
}

// The affine segment: whole waves of the slots, never above kAffineSegment, none below
// kMinAffineSegment (known answers for the H200's G2 slots, 132 SMs x 256).
TEST(MsmAffineRounds, SegmentFillsWholeWaves) {
    constexpr uint64_t kSlots = 33792;
    EXPECT_EQ(choose_affine_segment(kSlots * kMinAffineSegment - 1, kSlots), 0u);
    EXPECT_EQ(choose_affine_segment(kSlots * kMinAffineSegment, kSlots), kMinAffineSegment);
    EXPECT_EQ(choose_affine_segment(kSlots * kAffineSegment, kSlots), kAffineSegment);
    // One entry more takes two waves of half the segment, below the floor: none.
    EXPECT_EQ(choose_affine_segment(kSlots * kAffineSegment + 1, kSlots), 0u);
    EXPECT_EQ(choose_affine_segment(2 * kSlots * kMinAffineSegment, kSlots), kMinAffineSegment);
    // Scratch shorter than the floor buys nothing.
    EXPECT_EQ(choose_affine_segment(kSlots * kMinAffineSegment, kSlots, kMinAffineSegment - 1), 0u);
    // G2 over a table at 2^24 points, c = 22: 12 windows, 3 waves of 1986; with scratch
    // for 4096 entries a slot, 2 waves of 2979, for 6144 one of 5958. A mostly boolean
    // witness's B2 (at most 2.1 x 2^24 entries, one wave of 1,043): none.
    EXPECT_EQ(choose_affine_segment(12ull << 24, kSlots), 1986u);
    EXPECT_EQ(choose_affine_segment(12ull << 24, kSlots, 4096), 2979u);
    EXPECT_EQ(choose_affine_segment(12ull << 24, kSlots, 6144), 5958u);
    EXPECT_EQ(choose_affine_segment(35'232'154, kSlots, 6144), 0u);
    for (uint64_t entries : {uint64_t{54'525'952}, uint64_t{201'326'592}, 3 * kSlots * kAffineSegment - 7}) {
        const uint64_t segment = choose_affine_segment(entries, kSlots);
        ASSERT_GE(segment, kMinAffineSegment) << entries;
        ASSERT_LE(segment, kAffineSegment) << entries;
        const uint64_t threads = (entries + segment - 1) / segment;
        const uint64_t waves = (entries + kSlots * kAffineSegment - 1) / (kSlots * kAffineSegment);
        EXPECT_LE(threads, waves * kSlots) << entries << ": a partial wave more";
        EXPECT_GT(threads, (waves - 1) * kSlots) << entries;
    }
}

}  // namespace
}  // namespace zkbatch
