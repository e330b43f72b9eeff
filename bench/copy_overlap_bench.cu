// copy_overlap_bench: can this GPU upload and download at once? Times a pinned
// host->device copy and a device->host copy of the same size, each alone and then both
// together on two streams, with CUDA events. On a GPU whose copy engines overlap the two
// directions, "both" takes about as long as the longer one alone; if they are
// serialized, as long as the two added. zkbatch's end-to-end bound depends on which
// (core/cuda/KERNEL-NOTES.md, "End to end").
//
//   copy_overlap_bench [--mib 2048] [--repetitions 5]
#include <zkbatch/cuda/cuda_check.hpp>
#include <zkbatch/cuda/device_buffer.hpp>
#include <zkbatch/cuda/device_info.hpp>
#include <zkbatch/cuda/event.hpp>
#include <zkbatch/cuda/pinned_buffer.hpp>
#include <zkbatch/cuda/stream.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

// Median milliseconds from the first stream's start to the last stream's end.
template <class Enqueue>
double median_ms(const cuda::Stream& first, const cuda::Stream& second, int repetitions, Enqueue&& enqueue) {
    std::vector<double> samples;
    for (int i = -1; i < repetitions; ++i) {
        const cuda::Event start, joined, stop;
        start.record(first);
        second.wait(start);
        enqueue();
        joined.record(second);
        first.wait(joined);
        stop.record(first);
        stop.synchronize();
        if (i >= 0) samples.push_back(stop.milliseconds_since(start));
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

void run(size_t bytes, int repetitions) {
    ZKB_CUDA_CHECK(cudaSetDevice(0));
    const cuda::DeviceInfo device = cuda::DeviceInfo::query(0);
    int copy_engines = 0;
    ZKB_CUDA_CHECK(cudaDeviceGetAttribute(&copy_engines, cudaDevAttrAsyncEngineCount, 0));
    const cuda::PinnedBuffer upload_source(bytes), download_target(bytes);
    std::memset(upload_source.data(), 1, bytes);
    std::memset(download_target.data(), 0, bytes);
    const cuda::DeviceBuffer<char> upload_target(bytes), download_source(bytes);
    const cuda::Stream up, down;
    auto upload = [&] { up.copy_to_device(upload_target.data(), upload_source.data(), bytes); };
    auto download = [&] { down.copy_to_host(download_target.data(), download_source.data(), bytes); };
    const double up_ms = median_ms(up, down, repetitions, upload);
    const double down_ms = median_ms(up, down, repetitions, download);
    const double both_ms = median_ms(up, down, repetitions, [&] {
        upload();
        download();
    });
    const double gb = static_cast<double>(bytes) / 1e9;
    std::printf("# %s, asyncEngineCount %d; %.0f MiB each way, median of %d, pinned host memory\n\n", device.name.c_str(),
                copy_engines, static_cast<double>(bytes) / (1 << 20), repetitions);
    std::printf("| copy | ms | GB/s |\n|---|---|---|\n");
    std::printf("| upload alone | %.2f | %.1f |\n", up_ms, gb / up_ms * 1e3);
    std::printf("| download alone | %.2f | %.1f |\n", down_ms, gb / down_ms * 1e3);
    std::printf("| both at once | %.2f | %.1f (both directions) |\n", both_ms, 2 * gb / both_ms * 1e3);
    std::printf("\noverlap: both took %.0f%% of the sum of the two alone (50%%: fully overlapped, 100%%: serialized)\n",
                100 * both_ms / (up_ms + down_ms));
}

}  // namespace
}  // namespace zkbatch

int main(int argc, char** argv) {
    size_t mib = 2048;
    int repetitions = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--mib") {
            mib = std::stoul(argv[i + 1]);
        } else if (flag == "--repetitions") {
            repetitions = std::max(1, std::stoi(argv[i + 1]));
        } else {
            std::fprintf(stderr, "copy_overlap_bench: unknown option %s (known: --mib N, --repetitions N)\n", argv[i]);
            return 1;
        }
    }
    try {
        zkbatch::run(mib << 20, repetitions);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copy_overlap_bench: %s\n", e.what());
        return 1;
    }
}
