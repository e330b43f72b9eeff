// ntt_kernel_bench: the CUDA backends' NTT and quotient kernels on device-resident data,
// timed with CUDA events, in the layout of sppark's NTT figures (docs/ntt.md#numbers-today)
// so the two compare line by line.
//
//   ntt_kernel_bench [--log-n 20,22,24,26,27] [--repetitions 15] [--plans 10:11,8:10]
//
// Inputs are random field elements (never zeros), filled on the device once per size;
// every transform runs in place on the previous one's output, which stays uniformly
// random. Each figure is the median of --repetitions runs after two warm-up runs.
// Table set-up (DeviceDomainTables) is timed separately and excluded, as in sppark's.
// --plans lists max_stages_per_pass:max_tile_log pairs to compare pass plans (the
// first is the backends' default, NttPlan::for_log_n's defaults).
// A row whose buffers (a, b, c and its plan's tables) do not fit in free device memory,
// or whose allocation fails anyway, is skipped with a "# ... skipped" line after the table.
#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/device_info.hpp"
#include "gpu/ntt/domain_tables.hpp"
#include "gpu/util/event.hpp"
#include "gpu/ntt/ntt_kernels.hpp"
#include "gpu/util/stream.hpp"
#include "core/util/splitmix64.hpp"

#include "event_timing.hpp"
#include "row_memory.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using cuda::ntt::Direction;
using cuda::ntt::NttPlan;
using ff::Fr;
using LaunchSequence = cuda::ntt::LaunchSequence<Fr>;

// Element i: four SplitMix64 words of (seed, i), top two bits cleared (< 2^254 < r), read
// as a Montgomery representation: a uniform-enough random field element.
__global__ void fill_random_kernel(Fr* data, uint32_t n, uint64_t seed) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    util::SplitMix64 generator(seed * 0x9e3779b97f4a7c15ULL + i);
    Fr value;
    for (uint64_t& limb : value.limbs) limb = generator.next();
    value.limbs[3] >>= 2;
    data[i] = value;
}

void fill_random(Fr* data, uint32_t log_n, uint64_t seed) {
    const uint32_t n = 1u << log_n;
    fill_random_kernel<<<(n + 255) / 256, 256>>>(data, n, seed);
    ZKB_CUDA_CHECK_LAUNCH("fill_random_kernel");
    ZKB_CUDA_CHECK(cudaDeviceSynchronize());
}

struct Options {
    std::vector<uint32_t> log_ns = {20, 22, 24, 26};
    int repetitions = 15;
    std::vector<std::pair<uint32_t, uint32_t>> plans = {{cuda::ntt::kMaxStagesPerPass, cuda::ntt::kDefaultTileLog}};
    bool help = false;
};

constexpr const char* kUsage =
    "usage: ntt_kernel_bench [--log-n 20,22,24,26] [--repetitions 15] [--plans STAGES:TILE_LOG,...]\n"
    "The CUDA NTT and quotient kernels on device-resident data, timed with CUDA events (this file's header\n"
    "says more). --plans' first pair is the backends' default plan.\n"
    "Rows that do not fit in the device's free memory (with 0.5 GiB to spare) are skipped, each named on a\n"
    "'# ... skipped' line with the memory it needs and the memory free.\n";

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find(separator, start), text.size());
        parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
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
        if (flag == "--log-n") {
            options.log_ns.clear();
            for (const std::string& part : split(value, ',')) options.log_ns.push_back(std::stoul(part));
        } else if (flag == "--repetitions") {
            options.repetitions = std::max(1, std::stoi(value));
        } else if (flag == "--plans") {
            options.plans.clear();
            for (const std::string& part : split(value, ',')) {
                const std::vector<std::string> pair = split(part, ':');
                if (pair.size() != 2) throw std::invalid_argument("--plans wants STAGES:TILE_LOG pairs, got " + part);
                options.plans.emplace_back(std::stoul(pair[0]), std::stoul(pair[1]));
            }
        } else {
            throw std::invalid_argument("unknown option " + flag +
                                        " (known: --log-n LIST, --repetitions N, --plans STAGES:TILE_LOG,..., --help)");
        }
    }
    return options;
}

// a, b and c of one size, random, on the device.
struct Vectors {
    explicit Vectors(uint32_t log_n) : a(size_t{1} << log_n), b(size_t{1} << log_n), c(size_t{1} << log_n) {
        fill_random(a.data(), log_n, 1);
        fill_random(b.data(), log_n, 2);
        fill_random(c.data(), log_n, 3);
    }
    static uint64_t device_bytes(uint32_t log_n) { return 3 * (uint64_t{1} << log_n) * sizeof(Fr); }

    cuda::DeviceBuffer<Fr> a, b, c;
};

// Device memory DeviceDomainTables of `plan` allocates.
uint64_t tables_bytes(const NttPlan& plan) {
    const cuda::ntt::DomainSeeds<Fr> seeds(plan, ntt::Roots::zkbatch);
    return (seeds.storage.size() + cuda::ntt::DomainSeeds<Fr>::kPowerTables * seeds.table_size()) * sizeof(Fr);
}

// One row: `plan`'s tables built (timed apart), then each transform timed over `vectors`.
void run_row(const Options& options, const cuda::Stream& stream, const NttPlan& plan, uint32_t max_stages,
             const Vectors& vectors) {
    const uint32_t log_n = plan.log_n;
    const auto setup_start = std::chrono::steady_clock::now();
    const cuda::ntt::DeviceDomainTables<Fr> tables(plan);
    const double setup_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - setup_start).count();
    const cuda::ntt::DomainTablesView<Fr>& view = tables.view();
    Fr* const a = vectors.a.data();
    Fr* const b = vectors.b.data();
    Fr* const c = vectors.c.data();
    auto timed = [&](auto&& build) {
        return bench::median_event_ms(stream, 2, options.repetitions, [&] {
            LaunchSequence sequence;
            build(sequence);
            cuda::ntt::enqueue(sequence, stream);
        });
    };
    const double forward_nn = timed([&](LaunchSequence& s) {
        cuda::ntt::append_dif(s, view, a, Direction::forward);
        cuda::ntt::append_bit_reverse(s, a, log_n);
    });
    const double forward_rn = timed([&](LaunchSequence& s) { cuda::ntt::append_dit(s, view, a, Direction::forward); });
    const double inverse_nr = timed([&](LaunchSequence& s) { cuda::ntt::append_dif(s, view, a, Direction::inverse); });
    const double input = timed([&](LaunchSequence& s) { s = cuda::ntt::quotient_input_steps(view, a); });
    const double output = timed([&](LaunchSequence& s) { s = cuda::ntt::quotient_output_steps(view, a, b, c, b); });
    const double quotient = bench::median_event_ms(stream, 2, options.repetitions, [&] {
        for (Fr* vector : {a, b, c}) cuda::ntt::enqueue(cuda::ntt::quotient_input_steps(view, vector), stream);
        cuda::ntt::enqueue(cuda::ntt::quotient_output_steps(view, a, b, c, b), stream);
    });
    // The lean schedule's kernels over seeded tables (c transformed where it lies: the
    // backend uploads it into b, the same work).
    const cuda::ntt::DeviceDomainTables<Fr> seeded(plan, cuda::ntt::PowerTables::seeded);
    const double lean_quotient = bench::median_event_ms(stream, 2, options.repetitions, [&] {
        const cuda::ntt::DomainTablesView<Fr>& lean = seeded.view();
        for (Fr* vector : {a, b}) cuda::ntt::enqueue(cuda::ntt::quotient_input_steps(lean, vector), stream);
        cuda::ntt::enqueue(cuda::ntt::pointwise_product_steps(lean, a, b), stream);
        cuda::ntt::enqueue(cuda::ntt::quotient_input_steps(lean, c), stream);
        cuda::ntt::enqueue(cuda::ntt::pointwise_difference_steps(lean, a, c), stream);
        cuda::ntt::enqueue(cuda::ntt::quotient_output_steps<Fr>(lean, a, nullptr, nullptr, b), stream);
    });
    std::printf("| %u | %u passes, <= %u stages, tiles 2^%u | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f |\n",
                log_n, plan.pass_count, max_stages, plan.tile_log, forward_nn, forward_rn, inverse_nr, input, output,
                quotient, lean_quotient, setup_ms);
    std::fflush(stdout);
}

void run(const Options& options) {
    ZKB_CUDA_CHECK(cudaSetDevice(0));
    cuda::ntt::prepare_device(0);
    const cuda::DeviceInfo device = cuda::DeviceInfo::query(0);
    std::printf("# %s, %d SMs, driver %s; median of %d after 2 warm-ups, CUDA events, data on the device\n\n",
                device.name.c_str(), device.sm_count, device.driver_version.c_str(), options.repetitions);
    std::printf("| log n | plan | forward NN ms | forward RN ms | inverse NR ms | quotient input ms | "
                "quotient output ms | quotient (7 NTTs + pointwise) ms | lean quotient, seeded tables ms | "
                "tables set-up ms |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
    const cuda::Stream stream;
    bench::Skips skips;
    for (uint32_t log_n : options.log_ns) {
        // Made for the first row of this size that fits, and kept for the others.
        std::unique_ptr<Vectors> vectors;
        for (const auto& [stages, tile_log] : options.plans) {
            const uint32_t max_stages = stages;
            const NttPlan plan = NttPlan::for_log_n(log_n, max_stages, tile_log);
            // (Appended, not "literal" + std::string: GCC 12 reports a false -Wrestrict there.)
            std::string what = "2^";
            what += std::to_string(log_n);
            what += " with plan ";
            what += std::to_string(max_stages);
            what += ':';
            what += std::to_string(tile_log);
            const uint64_t bytes = tables_bytes(plan) + (vectors ? 0 : Vectors::device_bytes(log_n));
            if (!skips.fits(what, bytes)) continue;
            skips.run_or_skip(what, [&] {
                if (!vectors) vectors = std::make_unique<Vectors>(log_n);
                run_row(options, stream, plan, max_stages, *vectors);
            });
        }
    }
    skips.print();
}

}  // namespace
}  // namespace zkbatch

int main(int argc, char** argv) {
    try {
        const zkbatch::Options options = zkbatch::parse(argc, argv);
        if (options.help) {
            std::fputs(zkbatch::kUsage, stdout);
            return 0;
        }
        zkbatch::run(options);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ntt_kernel_bench: %s\n", e.what());
        return 1;
    }
}
