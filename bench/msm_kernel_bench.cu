// msm_kernel_bench: the device MSM (gpu/msm/msm.hpp) on device-resident bases, timed
// with CUDA events, in the layout of sppark's MSM figures so the two compare line by
// line (docs/msm.md#numbers-today).
//
//   msm_kernel_bench [--curve bls12-381] [--log-n 16,18,20,22,24,26] [--g2-max-log-n 24] [--repetitions 11]
//                    [--sweep-log-n 20,24] [--sweep-bits 14,16,18,20,22]
//                    [--sweep-segments 32,64,128,256,512] [--boolean-share 0.9]
//                    [--tables 1] [--table-strides 1] [--affine 1] [--affine-log-n 22,24]
//                    [--g2-affine-segment 0] [--g1-affine-segment 2048] [--infinity-share 0]
//
// --curve: bls12-381 (the default) or bn254, the same kernels over either curve's groups.
// Bases: distinct subgroup points [k_i] G with random 64-bit k_i, made on the device once
// for the largest size (smaller sizes use a prefix); --infinity-share of them (a fraction,
// drawn per point) are infinity instead, as a Groth16 key's queries hold for variables a
// matrix never references (~4% of B's in a full-density synthetic circuit). Scalars:
// uniform below r, canonical, made on the device; the boolean row draws each
// scalar 0 or 1 with probability --boolean-share (half each) and uniform otherwise. Each
// figure is the median of --repetitions runs after two warm-ups: classification, the one
// host wait, digits, sort, accumulation, reduction and combination, all inside the events.
// "scalars from host": the scalars are copied from pinned host memory first (inside the
// events), bases stay resident.
// Validation: every window width a row uses is checked once against the CPU's
// msm::pippenger on 4096 of the same points, and every row's sum at full size against
// the same MSM with another window width (the two must be the same point).
// Then the same MSMs over base tables (--tables 1; msm.hpp's BaseTable, built once per
// size, its build timed apart; each sum checked equal to the row's), for each s of
// --table-strides a table of every s-th window (msm::TableShape, its width the cost
// model's at s): 1 is the whole table, G1 and G2; other strides G1 alone. Then a
// breakdown of each row's steps (medians, ms), a sweep of window widths and one of
// level-0 segments (entries per thread) at --sweep-log-n.
// --affine 1 (the default) gives the accumulators scratch for level 0 in batched affine
// rounds (msm_steps.hpp), which every row then uses where it pays; first, a comparison
// at --affine-log-n of level 0 without them and with them at several min_pairs, over a
// table and plain, each sum checked equal to the one without. --g2-affine-segment: the
// longest level-0 segment G2's rounds take (MsmCapacity::affine_segment); 0 chooses
// (g2_affine_segment below). --g1-affine-segment: G1's (its rows run without rounds, the
// default min_pairs; the comparison's rounds use it).
// Rows are sized to the device: each row's buffers are counted before they are
// allocated, and a row that does not fit in free device memory (or whose allocation
// fails anyway) is skipped with a "# ... skipped" line after its table; sizes whose
// set-up does not fit are dropped first.
#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/device_info.hpp"
#include "gpu/util/event.hpp"
#include "gpu/util/host_memory.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/util/nvtx.hpp"
#include "gpu/util/pinned_buffer.hpp"
#include "gpu/util/stream.hpp"
#include "core/curve/curves.hpp"
#include "core/ec/curve.hpp"
#include "core/msm/pippenger.hpp"
#include "core/util/splitmix64.hpp"

#include "row_memory.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace zkbatch {
namespace {

using bench::kSpareBytes;
using bench::free_device_bytes;
using bench::Skips;
using cuda::msm::BaseTable;
using cuda::msm::BucketAccumulator;
using cuda::msm::MsmCapacity;
using cuda::msm::PlanEvents;
using cuda::msm::RunEvents;
using cuda::msm::ScalarForm;
using cuda::msm::ScalarPlan;

constexpr uint32_t kThreads = 256;
// The point-making kernel's blocks: 128 threads launch whatever its register count (a
// scalar multiplication and an inversion, G2's included).
constexpr uint32_t kPointThreads = 128;
constexpr uint64_t kValidationPoints = 4096;

uint32_t blocks_for(uint64_t n, uint32_t threads = kThreads) {
    return static_cast<uint32_t>((n + threads - 1) / threads);
}

// Point i: [k_i] G for a random 64-bit k_i (distinct with overwhelming probability), or
// with probability infinity_share (in 2^-32 units) infinity.
template <class C>
__global__ void make_points_kernel(ec::Affine<C> generator, ec::Affine<C>* out, uint64_t n, uint64_t seed,
                                   uint32_t infinity_share) {
    const uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    util::SplitMix64 random(util::derive_key(seed, i));
    const uint64_t k[4] = {random.next() | 1, 0, 0, 0};
    out[i] = static_cast<uint32_t>(random.next()) < infinity_share
                 ? ec::Affine<C>::infinity()
                 : ec::scalar_mul(ec::Jacobian<C>::from_affine(generator), k).to_affine();
}

// A share in 0..1 as a threshold on a 32-bit draw.
uint32_t share_units(double share) { return static_cast<uint32_t>(std::clamp(share, 0.0, 1.0) * 4294967295.0); }

// Scalar i: uniform below 2^b for r's bit length b, minus r when at least r (r > 2^(b-1):
// close to uniform below r); with probability boolean_share (in 2^-32 units) 0 or 1
// instead.
template <class Fr>
__global__ void make_scalars_kernel(msm::Scalar* out, uint64_t n, uint64_t seed, uint32_t boolean_share) {
    const uint64_t i = uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i >= n) return;
    util::SplitMix64 random(util::derive_key(seed, i));
    msm::Scalar s;
    const uint64_t draw = random.next();
    if (static_cast<uint32_t>(draw) < boolean_share) {
        s = msm::Scalar{{(draw >> 32) & 1, 0, 0, 0}};
    } else {
        for (uint64_t& limb : s.limbs) limb = random.next();
        s.limbs[3] >>= 256 - Fr::kModulusBits;
        const ff::Limbs<4> r = Fr::modulus();
        bool at_least_r = true;
        for (int j = 3; j >= 0; --j) {
            if (s.limbs[j] != r.limbs[j]) {
                at_least_r = s.limbs[j] > r.limbs[j];
                break;
            }
        }
        if (at_least_r) {
            uint64_t borrow = 0;
            for (int j = 0; j < 4; ++j) s.limbs[j] = ff::detail::sub_borrow(s.limbs[j], r.limbs[j], borrow);
        }
    }
    out[i] = s;
}

struct Options {
    curve::CurveId curve = curve::CurveId::bls12_381;
    std::vector<uint32_t> log_ns = {16, 18, 20, 22, 24, 26};
    uint32_t g2_max_log_n = 24;
    int repetitions = 11;
    std::vector<uint32_t> sweep_log_ns = {20, 24};
    std::vector<uint32_t> sweep_bits = {14, 16, 18, 20, 22};
    std::vector<uint32_t> sweep_segments = {32, 64, 128, 256, 512};
    double boolean_share = 0.9;
    double infinity_share = 0.0;
    bool tables = true;
    std::vector<uint32_t> table_strides = {1};
    bool affine = true;
    std::vector<uint32_t> affine_log_ns = {22, 24};
    uint32_t g2_affine_segment = 0;
    uint32_t g1_affine_segment = cuda::msm::kAffineSegment;
    bool help = false;
};

constexpr const char* kUsage =
    "usage: msm_kernel_bench [--curve bls12-381] [--log-n 16,18,20,22,24,26] [--g2-max-log-n 24]\n"
    "                        [--repetitions 11]\n"
    "                        [--sweep-log-n 20,24] [--sweep-bits 14,16,18,20,22]\n"
    "                        [--sweep-segments 32,64,128,256,512] [--boolean-share 0.9]\n"
    "                        [--tables 1] [--table-strides 1] [--affine 1] [--affine-log-n 22,24]\n"
    "                        [--g2-affine-segment 0] [--g1-affine-segment 2048] [--infinity-share 0]\n"
    "The device MSM on device-resident bases, timed with CUDA events (this file's header says more).\n"
    "Rows that do not fit in the device's free memory (with 0.5 GiB to spare) are skipped, each named on a\n"
    "'# ... skipped' line with the memory it needs and the memory free; so are sizes whose set-up does not fit.\n";

std::vector<uint32_t> split_numbers(const std::string& text) {
    std::vector<uint32_t> numbers;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = std::min(text.find(',', start), text.size());
        if (end > start) numbers.push_back(static_cast<uint32_t>(std::stoul(text.substr(start, end - start))));
        start = end + 1;
    }
    return numbers;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            options.help = true;
            return options;
        }
        if (i + 1 >= argc) throw std::invalid_argument("missing value after " + flag);
        const std::string value = argv[++i];
        if (flag == "--curve") {
            const std::optional<curve::CurveId> curve = curve::curve_from_name(value);
            if (!curve) throw std::invalid_argument("--curve " + value + ": not bls12-381 or bn254");
            options.curve = *curve;
        } else if (flag == "--log-n") {
            options.log_ns = split_numbers(value);
        } else if (flag == "--g2-max-log-n") {
            options.g2_max_log_n = static_cast<uint32_t>(std::stoul(value));
        } else if (flag == "--repetitions") {
            options.repetitions = std::max(1, std::stoi(value));
        } else if (flag == "--sweep-log-n") {
            options.sweep_log_ns = split_numbers(value);
        } else if (flag == "--sweep-bits") {
            options.sweep_bits = split_numbers(value);
        } else if (flag == "--sweep-segments") {
            options.sweep_segments = split_numbers(value);
        } else if (flag == "--boolean-share") {
            options.boolean_share = std::stod(value);
        } else if (flag == "--infinity-share") {
            options.infinity_share = std::stod(value);
        } else if (flag == "--tables") {
            options.tables = std::stoi(value) != 0;
        } else if (flag == "--table-strides") {
            options.table_strides = split_numbers(value);
        } else if (flag == "--affine") {
            options.affine = std::stoi(value) != 0;
        } else if (flag == "--affine-log-n") {
            options.affine_log_ns = split_numbers(value);
        } else if (flag == "--g2-affine-segment") {
            options.g2_affine_segment = static_cast<uint32_t>(std::stoul(value));
        } else if (flag == "--g1-affine-segment") {
            options.g1_affine_segment = static_cast<uint32_t>(std::stoul(value));
        } else {
            throw std::invalid_argument("unknown option " + flag +
                                        " (known: --curve, --log-n, --g2-max-log-n, --repetitions, --sweep-log-n, "
                                        "--sweep-bits, --sweep-segments, --boolean-share, --infinity-share, "
                                        "--tables, --table-strides, --affine, --affine-log-n, --g2-affine-segment, "
                                        "--g1-affine-segment, --help)");
        }
    }
    if (options.log_ns.empty()) throw std::invalid_argument("--log-n names no size");
    return options;
}

double median(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    return samples.empty() ? 0.0 : samples[samples.size() / 2];
}

// The steps' medians of one row.
struct Breakdown {
    std::map<std::string, std::vector<double>> samples;
    void add(const std::string& step, double ms) { samples[step].push_back(ms); }
    double at(const std::string& step) const {
        const auto found = samples.find(step);
        return found == samples.end() ? 0.0 : median(found->second);
    }
};

// "G1" or "G2".
template <class C>
const char* group_name() {
    return cuda::msm::kOverExtension<C> ? "G2" : "G1";
}

// What an MSM of one curve runs on: bases (made here, or someone else's), an accumulator
// and the result.
template <class C>
struct Curve {
    uint64_t max_points;
    cuda::DeviceBuffer<ec::Affine<C>> own_bases;
    const ec::Affine<C>* bases;
    BucketAccumulator<C> accumulator;
    cuda::DeviceBuffer<ec::Jacobian<C>> result;

    // Makes `points` bases, `infinity_share` (2^-32 units) of them infinity.
    Curve(const MsmCapacity& capacity, uint64_t points, uint64_t seed, uint32_t infinity_share)
        : max_points(points), own_bases(points), bases(own_bases.data()), accumulator(capacity), result(1) {
        make_points_kernel<C><<<blocks_for(points, kPointThreads), kPointThreads>>>(ec::generator<C>(), own_bases.data(),
                                                                                   points, seed, infinity_share);
        ZKB_CUDA_CHECK_LAUNCH("make_points_kernel");
        ZKB_CUDA_CHECK(cudaDeviceSynchronize());
    }
    // Uses another curve's bases.
    Curve(const MsmCapacity& capacity, const Curve& other)
        : max_points(other.max_points), bases(other.bases), accumulator(capacity), result(1) {}

    ec::Affine<C> sum_affine() const {
        ec::Jacobian<C> sum;
        result.copy_to_host(&sum, 1);
        return sum.to_affine();
    }
};

// The benchmark over one curve description's groups (curve/description.hpp).
template <class Description>
class Bench {
    using G1Params = typename Description::G1Params;
    using G2Params = typename Description::G2Params;
    using G1Affine = ec::Affine<G1Params>;
    using G2Affine = ec::Affine<G2Params>;

public:
    explicit Bench(const Options& options) : options_(options) { size_for_log_ns(); }

    // G2's rounds in segments of up to 6144 entries (47 GB of scratch on a 141 GB device)
    // make G2 over a table at 2^24 a quarter faster (docs/msm.md#where-the-rounds-pay):
    // the longest of 6144, 4096 and 2048 whose accumulator takes at most half
    // the free memory and leaves room for the largest base table the rows build (of those
    // that fit at all), else the shortest that may pay. Beside a G1 table at 2^26 (66 GB)
    // no more than that fits.
    uint32_t g2_affine_segment() const {
        if (options_.g2_affine_segment != 0) return options_.g2_affine_segment;
        if (options_.tables && max_log_n_ >= 26) return cuda::msm::kMinAffineSegment;
        const uint64_t free_bytes = free_device_bytes();
        const auto accumulator_bytes = [&](uint32_t segment) {
            MsmCapacity capacity = capacity_;
            capacity.affine_segment = segment;
            return BucketAccumulator<G2Params>::device_bytes_for(capacity);
        };
        // What the set-up allocates after G2's accumulator: its bases and the scalars.
        const uint64_t after = (uint64_t{1} << g2_log_n()) * sizeof(G2Affine) +
                               2 * capacity_.max_points * sizeof(msm::Scalar);
        const uint64_t shortest = accumulator_bytes(cuda::msm::kMinAffineSegment) + after + kSpareBytes;
        uint64_t table_room = 0;
        for (const uint64_t table : table_bytes_of_rows()) {
            if (shortest + table <= free_bytes) table_room = std::max(table_room, table);
        }
        for (const uint32_t segment : {6144u, 4096u, 2048u}) {
            const uint64_t accumulator = accumulator_bytes(segment);
            if (accumulator <= free_bytes / 2 && accumulator + after + kSpareBytes + table_room <= free_bytes) {
                return segment;
            }
        }
        return cuda::msm::kMinAffineSegment;
    }

    void run() {
        ZKB_CUDA_CHECK(cudaSetDevice(0));
        const cuda::DeviceInfo device = cuda::DeviceInfo::query(0);
        char infinity_note[48] = "";
        if (options_.infinity_share > 0) {
            std::snprintf(infinity_note, sizeof infinity_note, ", %.1f%% of them infinity",
                          options_.infinity_share * 100);
        }
        std::printf("# %s, %s, %d SMs, driver %s; median of %d after 2 warm-ups, CUDA events, bases on the "
                    "device%s\n",
                    std::string(curve::name(Description::kId)).c_str(), device.name.c_str(), device.sm_count,
                    device.driver_version.c_str(), options_.repetitions, infinity_note);
        const std::unique_ptr<Setup> setup = make_setup();
        skips_.print();
        if (setup == nullptr) return;
        std::printf("# set-up (points, scalars, buffers: plan %.2f GiB, G1 %.2f GiB with affine segments up "
                    "to %u, G2 %.2f GiB with affine segments up to %u): %.1f s\n\n",
                    setup->plan.device_bytes() / 1073741824.0, setup->g1.accumulator.device_bytes() / 1073741824.0,
                    setup->g1_capacity.affine_segment, setup->g2.accumulator.device_bytes() / 1073741824.0,
                    setup->g2_capacity.affine_segment, setup->seconds);
        std::fflush(stdout);

        validate_small(setup->plan, setup->g1, setup->uniform);
        validate_small(setup->plan, setup->g2, setup->uniform);
        validate_small(setup->plan, setup->g1, setup->boolean);
        if (options_.affine) compare_affine(setup->plan, setup->g1, setup->g2, setup->uniform);

        Breakdowns breakdowns;
        const RowSums sums = run_rows(*setup, breakdowns);
        if (options_.tables) run_table_rows(*setup, sums, breakdowns);
        print_breakdowns(breakdowns);
        sweep(setup->g1, setup->uniform);
        if (failures_ > 0) throw std::runtime_error(std::to_string(failures_) + " check(s) failed");
    }

private:
    using Breakdowns = std::vector<std::pair<std::string, Breakdown>>;
    // Each size's sums over the bases, which the rows over tables must equal.
    struct RowSums {
        std::map<uint32_t, G1Affine> g1;
        std::map<uint32_t, G2Affine> g2;
    };

    // What the rows run on, sized for the largest size and made once: the plan, each
    // curve's bases and accumulator, the scalars (and the uniform ones in pinned memory).
    struct Setup {
        explicit Setup(const Bench& bench)
            : plan(bench.capacity_),
              g1_capacity(bench.g1_capacity()),
              g1(g1_capacity, bench.capacity_.max_points, 11, share_units(bench.options_.infinity_share)),
              g2_capacity(bench.g2_capacity()),  // in the memory the plan and G1 leave
              g2(g2_capacity, uint64_t{1} << bench.g2_log_n(), 12, share_units(bench.options_.infinity_share)),
              uniform(bench.capacity_.max_points),
              boolean(bench.capacity_.max_points) {
            const uint64_t n = bench.capacity_.max_points;
            using Fr = typename Description::Fr;
            make_scalars_kernel<Fr><<<blocks_for(n), kThreads>>>(uniform.data(), n, 21, 0);
            ZKB_CUDA_CHECK_LAUNCH("make_scalars_kernel");
            make_scalars_kernel<Fr><<<blocks_for(n), kThreads>>>(boolean.data(), n, 22,
                                                                 share_units(bench.options_.boolean_share));
            ZKB_CUDA_CHECK_LAUNCH("make_scalars_kernel");
            ZKB_CUDA_CHECK(cudaDeviceSynchronize());
            host_scalars = cuda::PinnedBuffer(n * sizeof(msm::Scalar));
            uniform.copy_to_host(static_cast<msm::Scalar*>(host_scalars.data()), n);
            seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }

        std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
        ScalarPlan plan;
        MsmCapacity g1_capacity;
        Curve<G1Params> g1;
        MsmCapacity g2_capacity;
        Curve<G2Params> g2;
        cuda::DeviceBuffer<msm::Scalar> uniform, boolean;
        cuda::PinnedBuffer host_scalars;
        double seconds = 0;  // to make it
    };

    // The capacity and largest size of options_.log_ns. Rows force the widths the
    // automatic choice picks at their size (the validation at 4096 points reuses them) and
    // the next one down (the full-size cross-check).
    void size_for_log_ns() {
        max_log_n_ = *std::max_element(options_.log_ns.begin(), options_.log_ns.end());
        capacity_ = MsmCapacity{};
        capacity_.max_points = uint64_t{1} << max_log_n_;
        capacity_.affine_rounds = options_.affine;
        for (uint32_t log_n : options_.log_ns) {
            const uint32_t bits = cuda::msm::choose_window_bits(uint64_t{1} << log_n, capacity_.max_window_bits);
            capacity_.forced_window_bits.push_back(bits);
            capacity_.forced_window_bits.push_back(bits - 1);
            if (!options_.tables) continue;
            capacity_.shared_tables.push_back(table_shape(log_n, 1));  // the affine comparison's
            for (uint32_t stride : options_.table_strides) capacity_.shared_tables.push_back(table_shape(log_n, stride));
        }
    }

    uint32_t g2_log_n() const { return std::min(options_.g2_max_log_n, max_log_n_); }

    MsmCapacity g1_capacity() const {
        MsmCapacity capacity = capacity_;
        capacity.affine_segment = options_.g1_affine_segment;
        return capacity;
    }

    // G2's, with segments up to `segment` (0: g2_affine_segment's choice, in the memory
    // free now). G2 runs over whole tables alone: no room for the strided ones' bucket sets.
    MsmCapacity g2_capacity(uint32_t segment = 0) const {
        MsmCapacity capacity = capacity_;
        capacity.affine_segment = segment != 0 ? segment : g2_affine_segment();
        std::erase_if(capacity.shared_tables, [](const cuda::msm::TableShape& shape) { return shape.stride != 1; });
        return capacity;
    }

    // What the set-up allocates on the device, with G2's rounds at the shortest segments
    // its choice can make (or those asked for).
    uint64_t setup_bytes() const {
        const uint64_t n = capacity_.max_points;
        const uint32_t g2_segment =
            options_.g2_affine_segment != 0 ? options_.g2_affine_segment : cuda::msm::kMinAffineSegment;
        return ScalarPlan::device_bytes_for(capacity_) + n * sizeof(G1Affine) +
               BucketAccumulator<G1Params>::device_bytes_for(g1_capacity()) + sizeof(ec::Jacobian<G1Params>) +
               (uint64_t{1} << g2_log_n()) * sizeof(G2Affine) +
               BucketAccumulator<G2Params>::device_bytes_for(g2_capacity(g2_segment)) +
               sizeof(ec::Jacobian<G2Params>) + 2 * n * sizeof(msm::Scalar);
    }

    // The set-up for the sizes asked for, less the largest ones while it does not fit
    // (each noted as skipped); null when not even the smallest's does.
    std::unique_ptr<Setup> make_setup() {
        while (true) {
            const std::string what = row_name("2^", max_log_n_) + " rows (their plan, bases and scalars)";
            std::unique_ptr<Setup> setup;
            if (skips_.fits(what, setup_bytes()) &&
                skips_.run_or_skip(what, [&] { setup = std::make_unique<Setup>(*this); })) {
                return setup;
            }
            std::erase(options_.log_ns, max_log_n_);
            if (options_.log_ns.empty()) return nullptr;
            size_for_log_ns();
        }
    }

    // The device bytes of every base table a row builds.
    std::vector<uint64_t> table_bytes_of_rows() const {
        std::vector<uint64_t> bytes;
        if (!options_.tables) return bytes;
        for (uint32_t log_n : options_.log_ns) {
            for (uint32_t stride : options_.table_strides) {
                add_table_bytes<G1Params>(bytes, log_n, stride);
                if (log_n <= g2_log_n() && stride == 1) add_table_bytes<G2Params>(bytes, log_n, stride);
            }
        }
        for (uint32_t log_n : options_.affine_log_ns) {
            if (!options_.affine || log_n > max_log_n_) continue;
            add_table_bytes<G1Params>(bytes, log_n, 1);
            if (log_n <= options_.g2_max_log_n) add_table_bytes<G2Params>(bytes, log_n, 1);
        }
        return bytes;
    }

    // A shape BaseTable refuses adds nothing: its row reports it.
    template <class C>
    static void add_table_bytes(std::vector<uint64_t>& bytes, uint32_t log_n, uint32_t stride) {
        try {
            bytes.push_back(BaseTable<C>::device_bytes_for(uint64_t{1} << log_n, table_shape(log_n, stride)));
        } catch (const std::invalid_argument&) {
        }
    }

    // The rows over the bases, one per size: G1 resident, with scalars from the host, G2,
    // G1 over boolean scalars, and G1's sum checked against a narrower window's.
    RowSums run_rows(Setup& setup, Breakdowns& breakdowns) {
        std::printf("| log n | G1 resident ms | G1 scalars from host ms | G2 resident ms | window bits | "
                    "G1 %.0f%%-boolean resident ms | full-size check |\n",
                    options_.boolean_share * 100);
        std::printf("|---|---|---|---|---|---|---|\n");
        RowSums sums;
        for (uint32_t log_n : options_.log_ns) {
            // Nsight Compute picks the table's launches by this range (tools/gpu-bench.sh's profile step).
            const cuda::NvtxRange range("table 2^" + std::to_string(log_n));
            skips_.run_or_skip(row_name("2^", log_n) + " over the bases",
                               [&] { run_row(setup, log_n, sums, breakdowns); });
        }
        skips_.print();
        return sums;
    }

    void run_row(Setup& setup, uint32_t log_n, RowSums& sums, Breakdowns& breakdowns) {
        ScalarPlan& plan = setup.plan;
        const uint64_t points = uint64_t{1} << log_n;
        Breakdown g1_steps, g2_steps, boolean_steps, host_steps;
        const double g1_ms = time_msm(plan, setup.g1, setup.uniform.data(), nullptr, points, 0, g1_steps);
        const G1Affine g1_sum = setup.g1.sum_affine();
        const double host_ms =
            time_msm(plan, setup.g1, setup.uniform.data(), setup.host_scalars.data(), points, 0, host_steps);
        const uint32_t bits = plan.layout().bits;
        std::string g2_cell = "-";
        std::optional<G2Affine> g2_sum;
        bool checks = setup.g1.sum_affine() == g1_sum;
        if (log_n <= g2_log_n()) {
            const double g2_ms = time_msm(plan, setup.g2, setup.uniform.data(), nullptr, points, 0, g2_steps);
            g2_cell = format_ms(g2_ms);
            g2_sum = setup.g2.sum_affine();
        }
        const double boolean_ms = time_msm(plan, setup.g1, setup.boolean.data(), nullptr, points, 0, boolean_steps);
        const uint32_t boolean_bits = plan.layout().bits;
        // The same sum with the next narrower window: a different digit split of the
        // same scalars, so any indexing error shows as a different point.
        time_msm(plan, setup.g1, setup.uniform.data(), nullptr, points, bits - 1, g1_steps, 1);
        checks = checks && setup.g1.sum_affine() == g1_sum;
        std::printf("| %u | %s | %s | %s | %u (boolean: %u) | %s | %s |\n", log_n, format_ms(g1_ms).c_str(),
                    format_ms(host_ms).c_str(), g2_cell.c_str(), bits, boolean_bits, format_ms(boolean_ms).c_str(),
                    checks ? "equal" : "DIFFERENT");
        std::fflush(stdout);
        if (!checks) failures_++;
        sums.g1[log_n] = g1_sum;
        if (g2_sum) {
            sums.g2[log_n] = *g2_sum;
            breakdowns.emplace_back(row_name("G2 2^", log_n), g2_steps);
        }
        breakdowns.emplace_back(row_name("G1 2^", log_n), g1_steps);
        breakdowns.emplace_back(row_name("G1 bool 2^", log_n), boolean_steps);
    }

    // The same MSMs over base tables, for each size and stride, each table built (and
    // counted against free memory) in its row.
    void run_table_rows(Setup& setup, const RowSums& sums, Breakdowns& breakdowns) {
        std::printf("\n## Over base tables (multiple k of the bases times 2^(c s k), built once per size and "
                    "stride s; plan and run inside the events, as above)\n\n");
        std::printf("| log n | stride | G1 table ms | G2 table ms | window bits (windows, multiples) | "
                    "G1 table GiB, build ms | G2 table GiB, build ms | sums against the rows above |\n");
        std::printf("|---|---|---|---|---|---|---|---|\n");
        for (uint32_t log_n : options_.log_ns) {
            for (uint32_t stride : options_.table_strides) {
                std::string range_name = row_name("tables 2^", log_n);
                range_name += '/';
                range_name += std::to_string(stride);
                const cuda::NvtxRange range(range_name);
                run_table_row(setup, log_n, stride, sums, breakdowns);
            }
        }
        skips_.print();
    }

    void run_table_row(Setup& setup, uint32_t log_n, uint32_t stride, const RowSums& sums, Breakdowns& breakdowns) {
        std::string over = " over a table";
        if (stride != 1) {
            over += " of stride ";
            over += std::to_string(stride);
        }
        if (!sums.g1.contains(log_n)) {
            skips_.note(row_name("2^", log_n) + over + ": skipped, its row over the bases did not run");
            return;
        }
        const cuda::msm::TableShape shape = table_shape(log_n, stride);
        const std::optional<TableRow> g1_row = time_table_if_it_fits(
            row_name("2^", log_n) + " G1" + over, setup.plan, setup.g1, setup.uniform.data(), log_n, shape,
            sums.g1.at(log_n), breakdowns);
        if (!g1_row) return;
        TableRow g2_row;
        if (log_n <= g2_log_n() && stride == 1 && sums.g2.contains(log_n)) {
            g2_row = time_table_if_it_fits(row_name("2^", log_n) + " G2" + over, setup.plan, setup.g2,
                                           setup.uniform.data(), log_n, shape, sums.g2.at(log_n), breakdowns)
                         .value_or(TableRow{});
        }
        const bool equal = g1_row->equal && g2_row.equal;
        std::printf("| %u | %u | %s | %s | %u (%u, %u) | %s | %s | %s |\n", log_n, stride,
                    format_ms(g1_row->ms).c_str(), g2_row.cell(g2_row.ms).c_str(), shape.window_bits,
                    cuda::msm::WindowLayout::windows_for(shape.window_bits), shape.multiples(),
                    g1_row->build_cell().c_str(), g2_row.build_cell().c_str(), equal ? "equal" : "DIFFERENT");
        std::fflush(stdout);
        if (!equal) failures_++;
    }

    void print_breakdowns(const Breakdowns& breakdowns) {
        std::printf("\n## Steps (median ms): plan = classify, count (incl. the host wait), entries, sort; "
                    "run = accumulate, reduce, combine\n\n");
        std::printf("| row | classify | count | entries | sort | accumulate | reduce | combine | total |\n");
        std::printf("|---|---|---|---|---|---|---|---|---|\n");
        for (const auto& [name, steps] : breakdowns) {
            std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", name.c_str(),
                        steps.at("classify"), steps.at("count"), steps.at("entries"), steps.at("sort"),
                        steps.at("accumulate"), steps.at("reduce"), steps.at("combine"), steps.at("total"));
        }
        std::fflush(stdout);
    }

    static cuda::msm::TableShape table_shape(uint32_t log_n, uint32_t stride) {
        return {cuda::msm::choose_window_bits(uint64_t{1} << log_n, cuda::msm::kMaxWindowBits, stride), stride};
    }

    struct TableRow {
        bool ran = false;
        double ms = 0, build_ms = 0, gib = 0;
        bool equal = true;
        std::string cell(double value) const { return ran ? format_ms(value) : "-"; }
        std::string build_cell() const {
            if (!ran) return "-";
            char text[64];
            std::snprintf(text, sizeof text, "%.1f, %.0f", gib, build_ms);
            return text;
        }
    };

    // The row's MSM over a table of its bases, built here (its build timed once) and freed
    // at the end; its sum against `expected`, the row's own.
    template <class C>
    TableRow time_table(ScalarPlan& plan, Curve<C>& curve, const msm::Scalar* scalars, uint32_t log_n,
                        cuda::msm::TableShape shape, const ec::Affine<C>& expected,
                        std::vector<std::pair<std::string, Breakdown>>& breakdowns) {
        const uint64_t points = uint64_t{1} << log_n;
        BaseTable<C> table(points, shape);
        TableRow row;
        row.ran = true;
        row.gib = table.device_bytes() / 1073741824.0;
        const cuda::Stream stream;
        const cuda::Event start, stop;
        start.record(stream);
        table.build(curve.bases, points, stream);
        stop.record(stream);
        stop.synchronize();
        row.build_ms = stop.milliseconds_since(start);
        Breakdown steps;
        row.ms = time_msm(plan, curve, scalars, nullptr, points, 0, steps, -1, 0, &table);
        row.equal = curve.sum_affine() == expected;
        std::string name = std::string(group_name<C>()) + " table";
        if (shape.stride != 1) {
            name += '/';
            name += std::to_string(shape.stride);
        }
        name += " 2^";
        breakdowns.emplace_back(row_name(name.c_str(), log_n), steps);
        return row;
    }

    // time_table where the table fits (the row `what` is noted as skipped otherwise).
    template <class C>
    std::optional<TableRow> time_table_if_it_fits(const std::string& what, ScalarPlan& plan, Curve<C>& curve,
                                                  const msm::Scalar* scalars, uint32_t log_n,
                                                  cuda::msm::TableShape shape, const ec::Affine<C>& expected,
                                                  Breakdowns& breakdowns) {
        std::optional<TableRow> row;
        if (skips_.fits(what, BaseTable<C>::device_bytes_for(uint64_t{1} << log_n, shape))) {
            skips_.run_or_skip(what, [&] { row = time_table(plan, curve, scalars, log_n, shape, expected, breakdowns); });
        }
        return row;
    }

    // Level 0 without batched affine rounds and with them at a few min_pairs around the
    // count model's (G1 150, G2 50), over a table (built here) and plain: medians, each
    // sum checked against the first.
    void compare_affine(ScalarPlan& plan, Curve<G1Params>& g1, Curve<G2Params>& g2,
                        const cuda::DeviceBuffer<msm::Scalar>& scalars) {
        std::printf("\n## Level 0 in batched affine rounds (median ms; min_pairs 0 = no rounds)\n\n");
        std::printf("| MSM | min_pairs | over a table ms (accumulate) | plain ms (accumulate) |\n|---|---|---|---|\n");
        for (uint32_t log_n : options_.affine_log_ns) {
            if (log_n > max_log_n_) continue;
            compare_affine_rows(plan, g1, scalars, log_n);
            if (log_n <= options_.g2_max_log_n) compare_affine_rows(plan, g2, scalars, log_n);
        }
        std::fflush(stdout);
        skips_.print();
    }

    template <class C>
    void compare_affine_rows(ScalarPlan& plan, Curve<C>& curve, const cuda::DeviceBuffer<msm::Scalar>& scalars,
                             uint32_t log_n) {
        const uint64_t points = uint64_t{1} << log_n;
        constexpr bool g1 = !cuda::msm::kOverExtension<C>;
        std::unique_ptr<BaseTable<C>> table;
        const std::string what = row_name(g1 ? "G1 2^" : "G2 2^", log_n) + " over a table, level 0 in affine rounds";
        if (options_.tables && skips_.fits(what, BaseTable<C>::device_bytes_for(points, table_shape(log_n, 1)))) {
            skips_.run_or_skip(what, [&] {
                auto built = std::make_unique<BaseTable<C>>(points, table_shape(log_n, 1));
                const cuda::Stream stream;
                built->build(curve.bases, points, stream);
                stream.synchronize();
                table = std::move(built);
            });
        }
        ec::Affine<C> table_sum{}, plain_sum{};
        // One cell: the MSM (over `over`, or plain) timed; its sum, the first time (min_pairs
        // 0), becomes `reference`, which later ones must equal.
        const auto cell = [&](uint32_t min_pairs, const BaseTable<C>* over, ec::Affine<C>& reference) {
            Breakdown steps;
            const double ms = time_msm(plan, curve, scalars.data(), nullptr, points, 0, steps, -1, 0, over);
            if (min_pairs == 0) reference = curve.sum_affine();
            const bool equal = curve.sum_affine() == reference;
            if (!equal) failures_++;
            return format_ms(ms) + " (" + format_ms(steps.at("accumulate")) + ")" + (equal ? "" : " DIFFERENT");
        };
        for (uint32_t min_pairs : g1 ? std::vector<uint32_t>{0, 50, 150, 300} : std::vector<uint32_t>{0, 16, 50, 100}) {
            curve.accumulator.set_affine_min_pairs(min_pairs);
            const std::string table_cell = table ? cell(min_pairs, table.get(), table_sum) : "-";
            const std::string plain_cell = cell(min_pairs, nullptr, plain_sum);
            std::printf("| %s 2^%u | %u | %s | %s |\n", g1 ? "G1" : "G2", log_n, min_pairs, table_cell.c_str(),
                        plain_cell.c_str());
            std::fflush(stdout);
        }
        curve.accumulator.set_affine_min_pairs(cuda::msm::default_affine_min_pairs<C>());
    }

    // (Appended, not "literal" + std::string: GCC 12 reports a false -Wrestrict there.)
    static std::string row_name(const char* prefix, uint32_t log_n) {
        std::string name = prefix;
        name += std::to_string(log_n);
        return name;
    }

    static std::string format_ms(double ms) {
        char text[32];
        std::snprintf(text, sizeof text, ms < 10 ? "%.3f" : ms < 100 ? "%.2f" : "%.1f", ms);
        return text;
    }

    // Median device time of plan + run (+ the scalars' upload when host_scalars is
    // given), over the curve's bases or `table`; the last run's sum stays in curve.result.
    template <class C>
    double time_msm(ScalarPlan& plan, Curve<C>& curve, const msm::Scalar* scalars, const void* host_scalars,
                    uint64_t points, uint32_t window_bits, Breakdown& steps, int repetitions = -1,
                    uint32_t first_segment = 0, const BaseTable<C>* table = nullptr) {
        if (repetitions < 0) repetitions = options_.repetitions;
        const cuda::Stream stream;
        const cuda::Event start, stop;
        PlanEvents plan_events;
        RunEvents run_events;
        std::vector<double> totals;
        for (int i = -2; i < repetitions; ++i) {
            ZKB_CUDA_CHECK(cudaMemsetAsync(curve.result.data(), 0xa5, sizeof(ec::Jacobian<C>), stream.handle()));
            start.record(stream);
            if (host_scalars != nullptr) {
                stream.copy_to_device(const_cast<msm::Scalar*>(scalars), host_scalars, points * sizeof(msm::Scalar));
            }
            if (table != nullptr) {
                plan.prepare_shared(scalars, ScalarForm::canonical, points, stream, table->shape(), &plan_events);
                curve.accumulator.run(plan, *table, curve.result.data(), stream, first_segment, &run_events);
            } else {
                plan.prepare(scalars, ScalarForm::canonical, points, stream, window_bits, &plan_events);
                curve.accumulator.run(plan, curve.bases, curve.result.data(), stream, first_segment, &run_events);
            }
            stop.record(stream);
            stop.synchronize();
            if (i < 0) continue;
            totals.push_back(stop.milliseconds_since(start));
            steps.add("total", totals.back());
            steps.add("classify", plan_events.classified.milliseconds_since(plan_events.start));
            steps.add("count", plan_events.counted.milliseconds_since(plan_events.classified));
            steps.add("entries", plan_events.entries_written.milliseconds_since(plan_events.counted));
            steps.add("sort", plan_events.sorted.milliseconds_since(plan_events.entries_written));
            steps.add("accumulate", run_events.accumulated.milliseconds_since(run_events.start));
            steps.add("reduce", run_events.buckets_reduced.milliseconds_since(run_events.accumulated));
            steps.add("combine", run_events.combined.milliseconds_since(run_events.buckets_reduced));
        }
        return median(totals);
    }

    // The first 4096 points and scalars at every forced width, against the CPU.
    template <class C>
    void validate_small(ScalarPlan& plan, Curve<C>& curve, const cuda::DeviceBuffer<msm::Scalar>& scalars) {
        const uint64_t count = std::min<uint64_t>(kValidationPoints, curve.max_points);
        std::vector<ec::Affine<C>> bases(count);
        std::vector<msm::Scalar> host(count);
        ZKB_CUDA_CHECK(cudaMemcpy(bases.data(), curve.bases, count * sizeof(ec::Affine<C>),
                                  cudaMemcpyDeviceToHost));
        ZKB_CUDA_CHECK(cudaMemcpy(host.data(), scalars.data(), count * sizeof(msm::Scalar), cudaMemcpyDeviceToHost));
        const ec::Affine<C> expected =
            msm::pippenger(bases.data(), host.data(), count, std::max(1u, std::thread::hardware_concurrency()))
                .to_affine();
        std::vector<uint32_t> widths = capacity_.forced_window_bits;
        std::sort(widths.begin(), widths.end());
        widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
        widths.insert(widths.begin(), 0);  // the automatic choice at this size
        std::string failed;
        const cuda::Stream stream;
        for (uint32_t bits : widths) {
            ZKB_CUDA_CHECK(cudaMemset(curve.result.data(), 0xa5, sizeof(ec::Jacobian<C>)));
            plan.prepare(scalars.data(), ScalarForm::canonical, count, stream, bits);
            curve.accumulator.run(plan, curve.bases, curve.result.data(), stream);
            stream.synchronize();
            if (curve.sum_affine() != expected) {
                failed += ' ';  // (appends, not "literal" + string: GCC 12 warns on that falsely)
                failed += std::to_string(plan.layout().bits);
            }
        }
        std::printf("# validation, %s, %llu points, window widths 0 (auto)", group_name<C>(),
                    static_cast<unsigned long long>(count));
        for (uint32_t bits : widths) {
            if (bits != 0) std::printf(" %u", bits);
        }
        std::printf(" against the CPU: %s%s\n", failed.empty() ? "equal" : "DIFFERENT at bits", failed.c_str());
        if (!failed.empty()) failures_++;
        std::fflush(stdout);
    }

    // The sweep's own capacity, for sizes up to 2^max_log_n: the widths need more entries
    // than the rows do, the segments more spills.
    MsmCapacity sweep_capacity(uint32_t max_log_n) const {
        MsmCapacity capacity;
        capacity.max_points = uint64_t{1} << max_log_n;
        capacity.forced_window_bits = options_.sweep_bits;
        capacity.min_forced_segment = 1u << 30;
        for (uint32_t segment : options_.sweep_segments) {
            capacity.min_forced_segment = std::min(capacity.min_forced_segment, std::max(segment, 1u));
        }
        return capacity;
    }

    // Window widths and level-0 segments side by side at a few sizes, over a plan and an
    // accumulator of sweep_capacity; the largest sizes are left out while those do not fit.
    void sweep(const Curve<G1Params>& g1, const cuda::DeviceBuffer<msm::Scalar>& scalars) {
        std::vector<uint32_t> sizes;
        for (uint32_t log_n : options_.sweep_log_ns) {
            if (log_n <= max_log_n_) sizes.push_back(log_n);
        }
        std::unique_ptr<ScalarPlan> plan;
        std::unique_ptr<Curve<G1Params>> curve;
        while (!sizes.empty() && plan == nullptr) {
            const uint32_t largest = *std::max_element(sizes.begin(), sizes.end());
            const MsmCapacity capacity = sweep_capacity(largest);
            const std::string what = row_name("2^", largest) + " sweep rows (their plan and accumulator)";
            const uint64_t bytes = ScalarPlan::device_bytes_for(capacity) +
                                   BucketAccumulator<G1Params>::device_bytes_for(capacity) +
                                   sizeof(ec::Jacobian<G1Params>);
            if (skips_.fits(what, bytes)) {
                skips_.run_or_skip(what, [&] {
                    auto made_plan = std::make_unique<ScalarPlan>(capacity);
                    auto made_curve = std::make_unique<Curve<G1Params>>(capacity, g1);
                    plan = std::move(made_plan);
                    curve = std::move(made_curve);
                });
            }
            if (plan == nullptr) std::erase(sizes, largest);
        }
        skips_.print();
        if (plan == nullptr) return;
        run_sweep(*plan, *curve, scalars, sizes);
    }

    void run_sweep(ScalarPlan& plan, Curve<G1Params>& curve, const cuda::DeviceBuffer<msm::Scalar>& scalars,
                   const std::vector<uint32_t>& sizes) {
        const int repetitions = std::max(3, options_.repetitions / 2);
        const auto table = [&](const char* title, const std::vector<uint32_t>& values, const char* name,
                               bool widths) {
            if (values.empty()) return;
            std::printf("\n## G1 %s (median ms; sort and accumulate in parentheses)\n\n| log n |", title);
            for (uint32_t value : values) std::printf(" %s = %u |", name, value);
            std::printf("\n|---|");
            for (size_t i = 0; i < values.size(); ++i) std::printf("---|");
            std::printf("\n");
            for (uint32_t log_n : sizes) {
                std::printf("| %u |", log_n);
                G1Affine first{};
                bool equal = true;
                for (size_t i = 0; i < values.size(); ++i) {
                    Breakdown steps;
                    const double ms = time_msm(plan, curve, scalars.data(), nullptr, uint64_t{1} << log_n,
                                               widths ? values[i] : 0, steps, repetitions, widths ? 0 : values[i]);
                    const G1Affine sum = curve.sum_affine();
                    if (i == 0) first = sum;
                    equal = equal && sum == first;
                    std::printf(" %s (%.1f, %.1f) |", format_ms(ms).c_str(), steps.at("sort"),
                                steps.at("accumulate"));
                    std::fflush(stdout);
                }
                std::printf("%s\n", equal ? "" : " SUMS DIFFER");
                if (!equal) failures_++;
            }
        };
        table("window widths", options_.sweep_bits, "c", true);
        table("level-0 segments (entries per thread; automatic c)", options_.sweep_segments, "L0", false);
    }

    Options options_;
    MsmCapacity capacity_;
    uint32_t max_log_n_ = 0;
    int failures_ = 0;
    Skips skips_;
};

}  // namespace
}  // namespace zkbatch

int main(int argc, char** argv) {
    try {
        const zkbatch::Options options = zkbatch::parse(argc, argv);
        if (options.help) {
            std::fputs(zkbatch::kUsage, stdout);
            return 0;
        }
        zkbatch::curve::with_curve(options.curve, [&](auto curve) { zkbatch::Bench<decltype(curve)>(options).run(); });
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "msm_kernel_bench: %s\n", e.what());
        return 1;
    }
}
