#include "manifest/limits.hpp"

#include "util/parse_number.hpp"

#include "core/plugin/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace zkbatch {

namespace {

constexpr uint64_t kFieldElementBytes = 32;

uint64_t saturating_mul(uint64_t a, uint64_t b) {
    uint64_t product = 0;
    return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<uint64_t>::max() : product;
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
    uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}

// cpu-ref by name or by file (".../libzkbatch-cpu-ref.so"). "auto" may become cpu-ref,
// so it is counted as one: the estimate should err on the large side.
bool may_be_cpu_ref(std::string_view backend_name) {
    if (backend_name == "auto" || backend_name == "cpu-ref") return true;
    return std::filesystem::path(backend_name).filename() == "libzkbatch-cpu-ref.so";
}

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::string text(4096, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    return text;
}

// The memory limit of this process's cgroup and the file it came from, if one is set.
// cgroup v2: "0::/path" in /proc/self/cgroup, limit in memory.max ("max" = none);
// v1: "N:memory:/path" (or a list containing memory), limit in memory.limit_in_bytes
// (a huge number = none). In a container the path may not be visible; the mount's
// root then holds the container's own limit.
std::optional<AvailableMemory> cgroup_memory_limit() {
    const std::optional<std::string> self = read_small_file("/proc/self/cgroup");
    if (!self) return std::nullopt;
    std::vector<std::filesystem::path> candidates;
    std::istringstream lines(*self);
    for (std::string line; std::getline(lines, line);) {
        const size_t first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path = line.substr(second + 1);
        if (controllers.empty()) {
            candidates.push_back(std::filesystem::path("/sys/fs/cgroup") / path.substr(1) / "memory.max");
            candidates.emplace_back("/sys/fs/cgroup/memory.max");
        } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
            candidates.push_back(std::filesystem::path("/sys/fs/cgroup/memory") / path.substr(1) /
                                 "memory.limit_in_bytes");
            candidates.emplace_back("/sys/fs/cgroup/memory/memory.limit_in_bytes");
        }
    }
    std::optional<AvailableMemory> tightest;
    for (const auto& file : candidates) {
        const std::optional<std::string> text = read_small_file(file);
        // "max": none. The kernel ends the number with a newline.
        const std::optional<uint64_t> limit =
            text ? parse_number<uint64_t>(std::string_view(*text).substr(0, text->find_last_not_of(" \n") + 1))
                 : std::nullopt;
        // v1 writes "no limit" as the largest page-aligned int64.
        if (!limit || *limit >= (uint64_t{1} << 62)) continue;
        if (!tightest || *limit < tightest->bytes) tightest = AvailableMemory{*limit, file.string()};
    }
    return tightest;
}

// GiB for what a machine may have; TiB and PiB for what no machine has.
std::string gib(uint64_t bytes) {
    const double gib = static_cast<double>(bytes) / (1ull << 30);
    if (gib >= 1024.0 * 1024.0) return fmt::format("{:.1f} PiB", gib / (1024.0 * 1024.0));
    if (gib >= 1024.0) return fmt::format("{:.1f} TiB", gib / 1024.0);
    return fmt::format("{:.2f} GiB", gib);
}

}  // namespace

HostMemoryEstimate estimate_host_memory(const Manifest& m, std::string_view backend_name) {
    HostMemoryEstimate e;
    const auto& p = m.pipeline;
    e.vector_bytes = saturating_mul(uint64_t{1} << std::min<uint32_t>(m.circuit.log_n, 63), kFieldElementBytes);
    // "all" counts as one device: the number is known only once the backend is loaded.
    e.devices = p.devices.indices.empty() ? 1 : p.devices.indices.size();
    e.buffer_sets = uint64_t{p.synthesis_workers} + p.queue_depth + e.devices * p.prove_workers +
                    2ull * p.finalize_workers;
    // A backend with a pool of buffer sets per device (cuda-pinned's pool_sets) never
    // has more out at once: the pipeline waits for a free one instead.
    if (const auto pool_sets = plugin::find_uint_option(m.backend.options_for(std::string(backend_name)), "pool_sets"))
        e.buffer_sets = std::min(e.buffer_sets, saturating_mul(*pool_sets, e.devices));
    // A Groth16 set and replayed input set also carry the witness z (m = n variables for
    // a synthetic circuit).
    const bool groth16 = m.proof.system == ProofSystem::groth16;
    e.set_vectors = groth16 ? 5 : 4;
    e.buffer_bytes = saturating_mul(saturating_mul(e.buffer_sets, e.set_vectors), e.vector_bytes);
    e.witness_bytes = saturating_mul(p.synthesis_workers, e.vector_bytes);
    e.replay_bytes = saturating_mul(saturating_mul(p.replay_inputs, groth16 ? 4 : 3), e.vector_bytes);
    const bool cpu_ref = may_be_cpu_ref(backend_name);
    e.scratch_bytes = cpu_ref ? saturating_mul(saturating_mul(p.prove_workers, 2), e.vector_bytes) : 0;
    e.ntt_table_bytes = e.vector_bytes;
    // setup.key = "backend": the key's scalars (u, v, the L and H scalars: about 4V) on the
    // host while the key is made, and cpu-ref keeps the key itself (18V of points).
    if (groth16 && m.circuit.kind == CircuitKind::synthetic && m.setup.key == KeySource::backend)
        e.key_bytes = saturating_mul(cpu_ref ? 22 : 4, e.vector_bytes);
    for (uint64_t part :
         {e.buffer_bytes, e.witness_bytes, e.replay_bytes, e.scratch_bytes, e.ntt_table_bytes, e.key_bytes})
        e.total_bytes = saturating_add(e.total_bytes, part);
    return e;
}

HostMemoryEstimate with_key_held(HostMemoryEstimate e, uint64_t host_key_bytes) {
    if (e.total_bytes != std::numeric_limits<uint64_t>::max())  // saturated stays saturated
        e.total_bytes = saturating_add(e.total_bytes - e.key_bytes, host_key_bytes);
    e.key_bytes = 0;
    e.held_key_bytes = host_key_bytes;
    return e;
}

std::optional<uint64_t> parse_mem_available_bytes(std::string_view meminfo) {
    constexpr std::string_view kKey = "MemAvailable:";
    for (size_t start = 0; start < meminfo.size();) {
        const size_t end = std::min(meminfo.find('\n', start), meminfo.size());
        std::string_view line = meminfo.substr(start, end - start);
        start = end + 1;
        if (!line.starts_with(kKey)) continue;
        line.remove_prefix(kKey.size());
        line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
        // "22905488 kB": the kernel always writes kibibytes here.
        if (!line.ends_with(" kB")) return std::nullopt;
        const std::optional<uint64_t> kib = parse_number<uint64_t>(line.substr(0, line.size() - 3));
        if (!kib || *kib > std::numeric_limits<uint64_t>::max() / 1024) return std::nullopt;
        return *kib * 1024;
    }
    return std::nullopt;
}

std::optional<AvailableMemory> available_host_memory() {
    std::ifstream in("/proc/meminfo");
    std::stringstream text;
    text << in.rdbuf();
    std::optional<AvailableMemory> available;
    if (const auto bytes = parse_mem_available_bytes(text.str()))
        available = AvailableMemory{*bytes, "MemAvailable in /proc/meminfo"};
    if (auto limit = cgroup_memory_limit(); limit && (!available || limit->bytes < available->bytes))
        available = std::move(limit);
    return available;
}

std::optional<std::string> host_memory_shortfall(const Manifest& m, const HostMemoryEstimate& e,
                                                 const AvailableMemory& available) {
    if (e.total_bytes <= available.bytes) return std::nullopt;
    std::string parts = fmt::format("{} buffer sets of {} alive at once (synthesis_workers {} + queue_depth {} + "
                                    "{} device(s) × prove_workers {} + 2 × finalize_workers {}, or the backend's "
                                    "pool_sets per device if fewer) × {} × 2^{} × 32 B = {}",
                                    e.buffer_sets, e.set_vectors == 5 ? "a/b/c/h/z" : "a/b/c/h",
                                    m.pipeline.synthesis_workers, m.pipeline.queue_depth, e.devices,
                                    m.pipeline.prove_workers, m.pipeline.finalize_workers, e.set_vectors,
                                    m.circuit.log_n, gib(e.buffer_bytes));
    parts += fmt::format(", synthesis witnesses {}", gib(e.witness_bytes));
    if (e.replay_bytes > 0) parts += fmt::format(", replay inputs {}", gib(e.replay_bytes));
    if (e.scratch_bytes > 0) parts += fmt::format(", cpu-ref worker scratch {}", gib(e.scratch_bytes));
    parts += fmt::format(", NTT tables {}", gib(e.ntt_table_bytes));
    if (e.key_bytes > 0) parts += fmt::format(", the proving key the backend makes {}", gib(e.key_bytes));
    if (e.held_key_bytes > 0)
        parts += fmt::format(
            ", the proving key's points the backend holds in host memory {} (a GPU backend "
            "streams from there the queries its device cannot hold)",
            gib(e.held_key_bytes));
    return fmt::format(
        "this run needs about {} of host memory but only {} {} ({}): {}. Lower "
        "circuit.log_n (each step down halves it), pipeline.queue_depth, synthesis_workers, "
        "prove_workers, finalize_workers or replay_inputs, {}or run on a machine with more memory",
        gib(e.total_bytes), gib(available.bytes),
        e.held_key_bytes > 0 ? "was available before the key was loaded" : "is available", available.source, parts,
        e.held_key_bytes > 0 ? "prove on a GPU with room for more of the key (or raise backend.options.device_memory "
                               "where it caps the plan), "
                             : "");
}

void require_host_memory_for_setup(const Manifest& manifest, uint64_t key_file_bytes) {
    const std::optional<AvailableMemory> available = available_host_memory();
    if (!available) return;
    const uint64_t scalar_bytes = saturating_mul(
        4, saturating_mul(uint64_t{1} << std::min<uint32_t>(manifest.circuit.log_n, 63), kFieldElementBytes));
    const uint64_t needed = saturating_add(key_file_bytes, scalar_bytes);
    if (needed <= available->bytes) return;
    throw ManifestError(
        manifest.source_path.string(), 0, 0, "",
        fmt::format("making the seeded proving key of 2^{} needs about {} of host memory (its points {}, its scalars "
                    "{} while they are made) but only {} is available ({}). Lower circuit.log_n (each step down "
                    "halves it), let a GPU backend make the key (setup.key = \"backend\"), or make it on a machine "
                    "with more memory and copy the file into setup.cache_dir",
                    manifest.circuit.log_n, gib(needed), gib(key_file_bytes), gib(scalar_bytes),
                    gib(available->bytes), available->source));
}

void require_host_memory(const Manifest& manifest, const HostMemoryEstimate& estimate,
                         const std::optional<AvailableMemory>& available) {
    if (!available) return;
    if (auto message = host_memory_shortfall(manifest, estimate, *available))
        throw ManifestError(manifest.source_path.string(), 0, 0, "", *message);
}

}  // namespace zkbatch
