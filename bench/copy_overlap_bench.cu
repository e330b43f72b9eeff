// copy_overlap_bench: can this GPU upload and download at once? Times a pinned
// host->device copy and a device->host copy of the same size, each alone and then both
// together on two streams, with CUDA events. On a GPU whose copy engines overlap the two
// directions, "both" takes about as long as the longer one alone; if they are
// serialized, as long as the two added. zkbatch's end-to-end bound depends on which
// (docs/ntt.md#copies-and-streams).
//
// Then zkbatch's prove workers in miniature: each of --workers host threads proves
// --partitions partitions of --partition-mib (three uploads, each followed by a quarter
// of --kernel-ms of GPU-filling "kernels", the last quarter, then the download), with
// the copies on each of CudaWorker's stream arrangements (copy_streams = worker, an
// upload and a download stream per worker, copy_streams = device), streams created in
// the backend's order. With the directions overlapped a partition takes about
// max(uploads, kernels); where the copies queue behind each other, about the uploads
// plus the download. The driver's work queues can be changed with
// CUDA_DEVICE_MAX_CONNECTIONS in the environment; the header prints its value.
//
//   copy_overlap_bench [--mib 2048] [--repetitions 5] [--workers 3] [--partitions 8]
//                      [--partition-mib 512] [--kernel-ms 32.6]
#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/device_info.hpp"
#include "gpu/util/event.hpp"
#include "gpu/util/pinned_buffer.hpp"
#include "gpu/util/stream.hpp"

#include "event_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace zkbatch {
namespace {

// Median milliseconds from the first stream's start to the last stream's end.
template <class Enqueue>
double median_ms(const cuda::Stream& first, const cuda::Stream& second, int repetitions, Enqueue&& enqueue) {
    const cuda::Event fork, joined;
    return bench::median_event_ms(first, 1, repetitions, [&] {
        fork.record(first);
        second.wait(fork);
        enqueue();
        joined.record(second);
        first.wait(joined);
    });
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

// Stands in for a partition's kernels: every SM's thread slots busy for `ns`, so the
// "kernels" of different workers take turns on the GPU as the real NTTs do.
__global__ void __launch_bounds__(1024) occupy_gpu(uint64_t ns) {
    uint64_t start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

// The stream arrangements of CudaWorker's copies (gpu/backend/backend.cpp), each
// created in the order the backend creates them.
enum class Arrangement {
    worker_stream,      // copy_streams = worker: one copy stream per worker, the download
                        // waits for the kernels on the device
    worker_split,       // an upload and a download stream per worker, device-side wait
    device_shared,      // copy_streams = device: one upload and one download stream per
                        // device, the download enqueued once the kernels are done
};

const char* describe(Arrangement arrangement) {
    switch (arrangement) {
        case Arrangement::worker_stream: return "a copy stream per worker (copy_streams = worker)";
        case Arrangement::worker_split: return "an upload and a download stream per worker";
        case Arrangement::device_shared: return "shared upload + download streams (copy_streams = device)";
    }
    return "";
}

// The device's shared copy streams, when the arrangement has them.
struct SharedStreams {
    explicit SharedStreams(Arrangement arrangement) {
        if (arrangement != Arrangement::device_shared) return;
        upload.emplace();
        download.emplace();
    }
    std::optional<cuda::Stream> upload, download;
    std::mutex upload_mutex, download_mutex;
};

// One prove worker's copies and kernels: three uploads, each followed by a quarter of
// the kernel time, the last quarter, then the download of h.
class ProveWorker {
public:
    ProveWorker(size_t bytes, uint64_t kernel_ns, Arrangement arrangement, SharedStreams& shared, int sm_count)
        : bytes_(bytes), kernel_ns_(kernel_ns), arrangement_(arrangement), shared_(shared), sm_count_(sm_count),
          h_(bytes) {
        if (arrangement != Arrangement::device_shared) own_upload_.emplace();
        if (arrangement == Arrangement::worker_split) own_download_.emplace();
        for (int i = 0; i < 3; ++i) {
            sources_.emplace_back(bytes);
            std::memset(sources_.back().data(), i + 1, bytes);
            targets_.emplace_back(bytes);
        }
    }

    void prove_partitions(int partitions) {
        ZKB_CUDA_CHECK(cudaSetDevice(0));
        const bool shared = arrangement_ == Arrangement::device_shared;
        const cuda::Stream& up = shared ? *shared_.upload : *own_upload_;
        const cuda::Stream& down = shared ? *shared_.download : own_download_ ? *own_download_ : *own_upload_;
        for (int p = 0; p < partitions; ++p) {
            for (int i = 0; i < 3; ++i) {
                {
                    std::unique_lock<std::mutex> lock;
                    if (shared) lock = std::unique_lock(shared_.upload_mutex);
                    up.copy_to_device(targets_[i].data(), sources_[i].data(), bytes_);
                    uploaded_[i].record(up);
                }
                compute_.wait(uploaded_[i]);
                launch_kernel();
            }
            launch_kernel();
            computed_.record(compute_);
            if (shared) {
                computed_.synchronize();
            } else {
                down.wait(computed_);
            }
            {
                std::unique_lock<std::mutex> lock;
                if (shared) lock = std::unique_lock(shared_.download_mutex);
                down.copy_to_host(h_.data(), targets_[1].data(), bytes_);
                downloaded_.record(down);
            }
            downloaded_.synchronize();
        }
        compute_.synchronize();
    }

private:
    void launch_kernel() {
        occupy_gpu<<<2 * sm_count_, 1024, 0, compute_.handle()>>>(kernel_ns_ / 4);
        ZKB_CUDA_CHECK(cudaGetLastError());
    }

    size_t bytes_;
    uint64_t kernel_ns_;
    Arrangement arrangement_;
    SharedStreams& shared_;
    int sm_count_;
    // Streams in CudaWorker's order: compute, then its own copy stream(s).
    cuda::Stream compute_;
    std::optional<cuda::Stream> own_upload_, own_download_;
    std::vector<cuda::PinnedBuffer> sources_;
    std::vector<cuda::DeviceBuffer<char>> targets_;
    cuda::PinnedBuffer h_;
    cuda::Event uploaded_[3], computed_, downloaded_;
};

// Wall milliseconds of `workers` threads each proving `partitions` partitions.
double workers_ms(std::vector<std::unique_ptr<ProveWorker>>& workers, int partitions) {
    std::vector<std::exception_ptr> errors(workers.size());
    const auto start = std::chrono::steady_clock::now();
    {
        std::vector<std::jthread> threads;
        for (size_t w = 0; w < workers.size(); ++w) {
            threads.emplace_back([&, w] {
                try {
                    workers[w]->prove_partitions(partitions);
                } catch (...) {
                    errors[w] = std::current_exception();
                }
            });
        }
    }
    for (const auto& error : errors)
        if (error) std::rethrow_exception(error);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void print_worker_pattern(const Rates& rates, size_t bytes, double kernel_ms, int workers, int partitions,
                          int repetitions) {
    int sm_count = 0;
    ZKB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    const double gb = static_cast<double>(bytes) / 1e9;
    const double uploads_ms = 3 * gb * rates.upload_ms_per_gb;
    const double download_ms = gb * rates.download_ms_per_gb;
    std::printf("## Prove workers: %d workers x %d partitions; per partition 3 uploads and 1 download of %.0f MiB "
                "and %.1f ms of GPU-filling kernels\n\n",
                workers, partitions, static_cast<double>(bytes) / (1 << 20), kernel_ms);
    std::printf("Per partition at the rates alone: uploads %.1f ms, download %.1f ms. With the directions overlapped "
                "a partition takes max(uploads, kernels) = %.1f ms; served one at a time, the copies alone take "
                "%.1f ms.\n\n",
                uploads_ms, download_ms, std::max(uploads_ms, kernel_ms), uploads_ms + download_ms);
    std::printf("| copies on | ms per partition (median of %d) |\n|---|---|\n", repetitions);
    for (const Arrangement arrangement :
         {Arrangement::worker_stream, Arrangement::worker_split, Arrangement::device_shared}) {
        SharedStreams shared(arrangement);  // before the workers' streams, as the backend does
        std::vector<std::unique_ptr<ProveWorker>> pool;
        for (int w = 0; w < workers; ++w)
            pool.push_back(std::make_unique<ProveWorker>(bytes, static_cast<uint64_t>(kernel_ms * 1e6), arrangement,
                                                         shared, sm_count));
        std::vector<double> samples;
        for (int r = -1; r < repetitions; ++r) {
            const double wall_ms = workers_ms(pool, partitions);
            if (r >= 0) samples.push_back(wall_ms / (static_cast<double>(workers) * partitions));
        }
        std::sort(samples.begin(), samples.end());
        std::printf("| %s | %.2f |\n", describe(arrangement), samples[samples.size() / 2]);
    }
}

void run(size_t bytes, int repetitions, int workers, int partitions, size_t partition_bytes, double kernel_ms) {
    ZKB_CUDA_CHECK(cudaSetDevice(0));
    const cuda::DeviceInfo device = cuda::DeviceInfo::query(0);
    int copy_engines = 0;
    ZKB_CUDA_CHECK(cudaDeviceGetAttribute(&copy_engines, cudaDevAttrAsyncEngineCount, 0));
    const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    std::printf("# %s, asyncEngineCount %d, CUDA_DEVICE_MAX_CONNECTIONS %s; median of %d, pinned host memory\n\n",
                device.name.c_str(), copy_engines, connections ? connections : "unset (8)", repetitions);
    const Rates rates = print_directions(bytes, repetitions);
    print_worker_pattern(rates, partition_bytes, kernel_ms, workers, partitions, repetitions);
}

}  // namespace
}  // namespace zkbatch

int main(int argc, char** argv) {
    size_t mib = 2048;
    size_t partition_mib = 512;  // one 2^24 vector of 32-byte elements
    int repetitions = 5;
    int workers = 3;
    int partitions = 8;
    double kernel_ms = 32.6;  // a 2^24 quotient's kernels, as when the arrangements were compared
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
        } else if (flag == "--kernel-ms") {
            kernel_ms = std::stod(value);
        } else {
            std::fprintf(stderr, "copy_overlap_bench: unknown option %s (known: --mib, --repetitions, --workers, "
                                 "--partitions, --partition-mib, --kernel-ms)\n", argv[i]);
            return 1;
        }
    }
    try {
        zkbatch::run(mib << 20, repetitions, workers, partitions, partition_mib << 20, kernel_ms);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copy_overlap_bench: %s\n", e.what());
        return 1;
    }
}
