// copy_overlap_bench: can this GPU upload and download at once? Times a pinned
// host->device copy and a device->host copy of the same size, each alone and then both
// together on two streams, with CUDA events. On a GPU whose copy engines overlap the two
// directions, "both" takes about as long as the longer one alone; if they are
// serialized, as long as the two added. zkbatch's end-to-end bound depends on which
// (core/cuda/KERNEL-NOTES.md, "End to end").
//
// Then the copies of zkbatch's prove workers without their kernels: each of --workers
// host threads proves --partitions partitions of --partition-mib, three uploads and then
// one download that waits for them, and synchronizes, as CudaWorker::prove does. Once
// with one copy stream per worker (zkbatch up to 2026-11-30), once with an upload and a
// download stream per worker (CudaWorker now). The driver's work queues can be changed
// with CUDA_DEVICE_MAX_CONNECTIONS in the environment; the header prints its value.
//
//   copy_overlap_bench [--mib 2048] [--repetitions 5] [--workers 3] [--partitions 8]
//                      [--partition-mib 512]
#include <zkbatch/cuda/cuda_check.hpp>
#include <zkbatch/cuda/device_buffer.hpp>
#include <zkbatch/cuda/device_info.hpp>
#include <zkbatch/cuda/event.hpp>
#include <zkbatch/cuda/pinned_buffer.hpp>
#include <zkbatch/cuda/stream.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
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

struct Rates {
    double upload_ms_per_gb = 0;
    double download_ms_per_gb = 0;
};

// Each direction alone and both at once, `bytes` each way; returns the rates alone.
Rates print_directions(size_t bytes, int repetitions) {
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
    std::printf("## Each direction alone and both at once: %.0f MiB each way\n\n", static_cast<double>(bytes) / (1 << 20));
    std::printf("| copy | ms | GB/s |\n|---|---|---|\n");
    std::printf("| upload alone | %.2f | %.1f |\n", up_ms, gb / up_ms * 1e3);
    std::printf("| download alone | %.2f | %.1f |\n", down_ms, gb / down_ms * 1e3);
    std::printf("| both at once | %.2f | %.1f (both directions) |\n", both_ms, 2 * gb / both_ms * 1e3);
    std::printf("\noverlap: both took %.0f%% of the sum of the two alone (50%%: fully overlapped, 100%%: serialized)\n\n",
                100 * both_ms / (up_ms + down_ms));
    return {up_ms / gb, down_ms / gb};
}

// One prove worker's copies: three uploads, then a download that waits for them.
class CopyWorker {
public:
    CopyWorker(size_t bytes, bool split_streams) : bytes_(bytes), split_streams_(split_streams), h_(bytes) {
        for (int i = 0; i < 3; ++i) {
            sources_.emplace_back(bytes);
            std::memset(sources_.back().data(), i + 1, bytes);
            targets_.emplace_back(bytes);
        }
    }
    void prove_partitions(int partitions) const {
        ZKB_CUDA_CHECK(cudaSetDevice(0));
        const cuda::Stream& down = split_streams_ ? download_ : upload_;
        for (int p = 0; p < partitions; ++p) {
            for (int i = 0; i < 3; ++i) upload_.copy_to_device(targets_[i].data(), sources_[i].data(), bytes_);
            uploaded_.record(upload_);
            down.wait(uploaded_);  // stands in for the kernels, which wait for every upload
            down.copy_to_host(h_.data(), targets_[1].data(), bytes_);
            down.synchronize();
            upload_.synchronize();
        }
    }

private:
    size_t bytes_;
    bool split_streams_;
    std::vector<cuda::PinnedBuffer> sources_;
    std::vector<cuda::DeviceBuffer<char>> targets_;
    cuda::PinnedBuffer h_;
    cuda::Stream upload_, download_;
    cuda::Event uploaded_;
};

// Median wall milliseconds of `workers` threads each proving `partitions` partitions.
double median_workers_ms(const std::vector<CopyWorker>& workers, int partitions, int repetitions) {
    std::vector<double> samples;
    for (int r = -1; r < repetitions; ++r) {
        std::vector<std::exception_ptr> errors(workers.size());
        const auto start = std::chrono::steady_clock::now();
        {
            std::vector<std::jthread> threads;
            for (size_t w = 0; w < workers.size(); ++w) {
                threads.emplace_back([&, w] {
                    try {
                        workers[w].prove_partitions(partitions);
                    } catch (...) {
                        errors[w] = std::current_exception();
                    }
                });
            }
        }
        for (const auto& error : errors)
            if (error) std::rethrow_exception(error);
        if (r >= 0) samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

void print_worker_pattern(const Rates& rates, size_t bytes, int workers, int partitions, int repetitions) {
    const double gb = static_cast<double>(bytes) / 1e9;
    const double total = static_cast<double>(workers) * partitions;
    const double uploads_ms = total * 3 * gb * rates.upload_ms_per_gb;
    const double downloads_ms = total * gb * rates.download_ms_per_gb;
    std::printf("## Prove workers' copies: %d workers x %d partitions, 3 uploads + 1 download of %.0f MiB each\n\n",
                workers, partitions, static_cast<double>(bytes) / (1 << 20));
    std::printf("At the rates alone: uploads %.1f ms, downloads %.1f ms; overlapped the wall is the uploads', "
                "serialized their sum (%.1f ms).\n\n", uploads_ms, downloads_ms, uploads_ms + downloads_ms);
    std::printf("| streams per worker | wall ms | ms per partition | wall / serialized sum |\n|---|---|---|---|\n");
    for (const bool split : {false, true}) {
        std::vector<CopyWorker> pool;
        pool.reserve(static_cast<size_t>(workers));
        for (int w = 0; w < workers; ++w) pool.emplace_back(bytes, split);
        const double wall_ms = median_workers_ms(pool, partitions, repetitions);
        std::printf("| %s | %.1f | %.2f | %.0f%% |\n", split ? "upload + download" : "one copy stream", wall_ms,
                    wall_ms / total, 100 * wall_ms / (uploads_ms + downloads_ms));
    }
}

void run(size_t bytes, int repetitions, int workers, int partitions, size_t partition_bytes) {
    ZKB_CUDA_CHECK(cudaSetDevice(0));
    const cuda::DeviceInfo device = cuda::DeviceInfo::query(0);
    int copy_engines = 0;
    ZKB_CUDA_CHECK(cudaDeviceGetAttribute(&copy_engines, cudaDevAttrAsyncEngineCount, 0));
    const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    std::printf("# %s, asyncEngineCount %d, CUDA_DEVICE_MAX_CONNECTIONS %s; median of %d, pinned host memory\n\n",
                device.name.c_str(), copy_engines, connections ? connections : "unset (8)", repetitions);
    const Rates rates = print_directions(bytes, repetitions);
    print_worker_pattern(rates, partition_bytes, workers, partitions, repetitions);
}

}  // namespace
}  // namespace zkbatch

int main(int argc, char** argv) {
    size_t mib = 2048;
    size_t partition_mib = 512;  // one 2^24 vector of 32-byte elements
    int repetitions = 5;
    int workers = 3;
    int partitions = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--mib") {
            mib = std::stoul(value);
        } else if (flag == "--repetitions") {
            repetitions = std::max(1, std::stoi(value));
        } else if (flag == "--workers") {
            workers = std::max(1, std::stoi(value));
        } else if (flag == "--partitions") {
            partitions = std::max(1, std::stoi(value));
        } else if (flag == "--partition-mib") {
            partition_mib = std::stoul(value);
        } else {
            std::fprintf(stderr, "copy_overlap_bench: unknown option %s (known: --mib, --repetitions, --workers, "
                                 "--partitions, --partition-mib)\n", argv[i]);
            return 1;
        }
    }
    try {
        zkbatch::run(mib << 20, repetitions, workers, partitions, partition_mib << 20);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copy_overlap_bench: %s\n", e.what());
        return 1;
    }
}
