#include "pipeline/pipeline.hpp"

#include "pipeline/bounded_queue.hpp"
#include "pipeline/canonical_output.hpp"
#include "pipeline/environment.hpp"
#include "pipeline/progress.hpp"
#include "proof/snarkjs_files.hpp"
#include "util/clock.hpp"

#include "core/circuit/synthetic.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/verifier.hpp"
#include "core/plugin/facts.hpp"
#include "core/plugin/request.hpp"
#include "core/util/parallel.hpp"
#include "core/quotient/identity.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <malloc.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <variant>

namespace zkbatch {

SyntheticInputs::SyntheticInputs(const Manifest& manifest)
    : log_n_(manifest.circuit.log_n), terms_per_row_(manifest.circuit.terms_per_row), seed_(manifest.job.seed) {}

void SyntheticInputs::fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned threads) const {
    circuit::synthesize({log_n_, terms_per_row_}, seed_, partition_index, static_cast<ff::Fr*>(buffers.a),
                        static_cast<ff::Fr*>(buffers.b), static_cast<ff::Fr*>(buffers.c), threads);
}

void CircuitInputs::fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned threads) const {
    if (buffers.z == nullptr || buffers.m != circuit_.variables())
        throw std::logic_error("the host buffers carry no witness of the circuit's length");
    circuit_.synthesize(partition_index, buffers.z, buffers.a, buffers.b, buffers.c, threads);
}

ReplayInputs::ReplayInputs(const InputSource& source, uint32_t count, uint32_t log_n, uint64_t witness_elements,
                           unsigned threads) {
    const int64_t start_ns = steady_now_ns();
    const uint64_t n = uint64_t{1} << log_n;
    sets_.resize(count);
    for (size_t j = 0; j < sets_.size(); ++j) {
        auto& set = sets_[j];
        set.z.resize(witness_elements), set.a.resize(n), set.b.resize(n), set.c.resize(n);
        zkb_host_buffers buffers{};
        buffers.n = n;
        buffers.a = set.a.data(), buffers.b = set.b.data(), buffers.c = set.c.data();
        buffers.m = witness_elements;
        buffers.z = witness_elements > 0 ? set.z.data() : nullptr;
        source.fill(j, buffers, threads);
    }
    setup_ms_ = ns_to_ms(steady_now_ns() - start_ns);
}

void ReplayInputs::fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned /*threads*/) const {
    const size_t which = partition_index % sets_.size();
    if (buffers.keeps_contents) {
        std::lock_guard lock(held_mutex_);
        const auto held = held_.find(buffers.a);
        if (held != held_.end() && held->second == which) return;
        held_.erase(buffers.a);  // being overwritten: holds nothing known until the copy ends
    }
    const auto& set = sets_[which];
    // One thread copies ~10 GB/s: a 2^24 partition's first copy would hold back the
    // GPU for 150 ms, so large copies are split over a few threads.
    const size_t n = set.a.size();
    const unsigned copy_threads = n >= (size_t{1} << 20) ? 4 : 1;
    for (auto [to, from] : {std::pair{buffers.a, &set.a}, {buffers.b, &set.b}, {buffers.c, &set.c}, {buffers.z, &set.z}}) {
        if (from->empty()) continue;  // no witness
        auto* destination = static_cast<ff::Fr*>(to);
        util::parallel_for(0, from->size(), copy_threads, [&, from = from](size_t begin, size_t end) {
            std::memcpy(destination + begin, from->data() + begin, (end - begin) * sizeof(ff::Fr));
        });
    }
    if (buffers.keeps_contents) {
        std::lock_guard lock(held_mutex_);
        held_[buffers.a] = which;
    }
}

std::vector<uint64_t> all_partitions(const Manifest& manifest) {
    std::vector<uint64_t> indices(manifest.job.partitions);
    for (uint64_t i = 0; i < indices.size(); ++i) indices[i] = i;
    return indices;
}

std::vector<DeviceRecord> device_records(const Backend& backend, uint32_t prove_workers_per_device) {
    std::vector<DeviceRecord> devices;
    for (size_t slot = 0; slot < backend.device_count(); ++slot) {
        DeviceRecord device{backend.device_index(slot), "", prove_workers_per_device};
        for (const auto& [key, value] : backend.facts(slot))
            if (key == plugin::fact::device_name) device.name = value;
        devices.push_back(std::move(device));
    }
    return devices;
}

int64_t union_length_ns(std::vector<std::pair<int64_t, int64_t>> intervals) {
    std::sort(intervals.begin(), intervals.end());
    int64_t total = 0, covered_until = INT64_MIN;
    for (auto [start, end] : intervals) {
        start = std::max(start, covered_until);
        if (end > start) {
            total += end - start;
            covered_until = end;
        }
    }
    return total;
}

namespace {

// One partition on its way through the pipeline.
struct WorkItem {
    zkb_host_buffers buffers{};
    bool has_buffers = false;
    size_t buffer_slot = 0;  // the backend (device slot) the buffers came from and go back to
    bool proved = false;  // prove returned ZKB_OK
    bool h_to_host = false;  // asked of the backend: the finalizer reads h
    std::optional<std::array<uint8_t, 16>> backend_digest;  // h's XXH3-128, when the backend formed it
    int64_t enqueued_ns = 0;
    PartitionRecord record;
};

// A phase the runner timed: its duration in the record and its interval on `lane`.
void time_phase(PartitionRecord& record, PhaseKey phase, std::string lane, int64_t start_ns, int64_t end_ns) {
    record.phases[phase].ms = ns_to_ms(end_ns - start_ns);
    PhaseInterval interval;
    interval.phase = phase.info().name;
    interval.lane = std::move(lane);
    interval.start_ns = start_ns;
    interval.end_ns = end_ns;
    record.intervals.push_back(std::move(interval));
}

class Pipeline {
public:
    explicit Pipeline(const PipelineSettings& settings)
        : settings_(settings),
          manifest_(*settings.manifest),
          backend_(*settings.backend),
          log_n_(manifest_.circuit.log_n),
          n_(uint64_t{1} << log_n_),
          prove_queue_(manifest_.pipeline.queue_depth),
          // Bounded too: when finalizers lag, provers wait, and the back-pressure reaches
          // synthesis instead of proved buffers piling up here.
          finalize_queue_(manifest_.pipeline.finalize_workers),
          progress_(settings.partitions.size(), settings.show_progress_line) {}

    RunSummary run() {
        const int64_t start_ns = steady_now_ns();
        // Consumers before producers: whatever starts, its partitions can be recorded.
        std::vector<std::thread> finalizers, provers, synthesis, watcher;
        for (uint32_t i = 0; i < manifest_.pipeline.finalize_workers; ++i)
            start_thread(finalizers, fmt::format("finalize worker {}", i), [this] { finalize_loop(); });
        if (!finalizers.empty()) start_thread(watcher, "the signal watcher", [this] { watch_signals(); });
        // pipeline.prove_workers per device, all taking from the one prove queue: a
        // device whose worker is free takes the next partition, so none idles while
        // work is queued, and a slower device simply takes fewer.
        const uint32_t per_device = manifest_.pipeline.prove_workers;
        for (size_t slot = 0; slot < backend_.device_count() && !stop_; ++slot)
            for (uint32_t k = 0; k < per_device && !stop_; ++k) {
                const uint32_t worker_index = static_cast<uint32_t>(slot) * per_device + k;
                start_thread(provers, fmt::format("prove worker {}", worker_index),
                             [this, worker_index, k, slot] { prove_worker(worker_index, k, slot); });
            }
        for (uint32_t i = 0; i < manifest_.pipeline.synthesis_workers && !stop_; ++i)
            start_thread(synthesis, fmt::format("synthesis worker {}", i), [this, i] { synthesis_worker(i); });

        for (auto& t : synthesis) t.join();
        prove_queue_.close();
        for (auto& t : provers) t.join();
        // Items nobody proved (every prove worker failed to start) still hold buffers.
        while (auto item = prove_queue_.pop()) release(*item);
        finalize_queue_.close();
        for (auto& t : finalizers) t.join();
        finished_ = true;
        for (auto& t : watcher) t.join();
        progress_.finish();

        RunSummary summary;
        const int64_t wall_ns = steady_now_ns() - start_ns;
        summary.ended_unix_ns = unix_now_ns();
        summary.wall_ms = ns_to_ms(wall_ns);
        summary.partitions_ok = partitions_ok_;
        summary.partitions_failed = partitions_failed_;
        for (auto& [device, intervals] : device_intervals_)
            summary.device_busy_ms[device] = ns_to_ms(union_length_ns(std::move(intervals)));
        summary.peak_rss_bytes = peak_rss_bytes();
        summary.error = run_error_;
        if (store_error_) std::rethrow_exception(store_error_);
        const bool all_ran = partitions_ok_ + partitions_failed_ == settings_.partitions.size();
        if (cancelled_)
            summary.status = RunStatus::cancelled;
        else if (partitions_failed_ > 0 || !all_ran)
            summary.status = RunStatus::failed;
        else
            summary.status = RunStatus::ok;
        return summary;
    }

private:
    // Starts `body` on a new thread in `threads`. The system may refuse (too many
    // threads or processes): then the run stops, saying why, instead of the exception
    // leaving the threads already started joinable, which would end the process.
    template <class Body>
    void start_thread(std::vector<std::thread>& threads, const std::string& what, Body body) {
        try {
            threads.emplace_back(std::move(body));
        } catch (const std::system_error& e) {
            request_stop(fmt::format("cannot start {}: {}", what, e.what()), true);
        }
    }

    // Stops new partitions from starting. `abandon` also skips proving queued ones.
    void request_stop(const std::string& why, bool abandon) {
        {
            std::lock_guard lock(error_mutex_);
            if (run_error_.empty()) run_error_ = why;
        }
        if (abandon) abandon_ = true;
        stop_ = true;
        prove_queue_.close();
    }

    void synthesis_worker(uint32_t worker) {
        const std::string lane = "synth." + std::to_string(worker);
        while (!stop_) {
            const uint64_t position = next_position_++;
            if (position >= settings_.partitions.size()) break;
            WorkItem item;
            item.record.partition_index = settings_.partitions[position];
            item.record.synth_worker = worker;
            synthesize(item, lane);
            if (item.record.status != PartitionStatus::ok) {
                finalize_queue_.push(item);  // recorded as failed, its buffers released
                continue;
            }
            if (!prove_queue_.push(item)) {  // the run is stopping
                release(item);
                break;
            }
        }
    }

    // Host buffers, then the inputs in them. A failure of either fails the partition.
    void synthesize(WorkItem& item, const std::string& lane) {
        PartitionRecord& record = item.record;
        const int64_t wait_start = steady_now_ns();
        try {
            // Round-robin over the devices' backends: each device's pinned pool
            // serves its share. Pinned memory is visible to every device, so any
            // device's worker may prove these buffers.
            item.buffer_slot = next_buffer_slot_++ % backend_.device_count();
            item.buffers = backend_.acquire_buffers(log_n_, item.buffer_slot);
            item.has_buffers = true;
        } catch (const std::exception& e) {
            record.status = PartitionStatus::failed;
            record.error = std::string("host buffers: ") + e.what();
            return;
        }
        const int64_t synth_start = steady_now_ns();
        time_phase(record, "pool_wait", lane, wait_start, synth_start);
        try {
            settings_.inputs->fill(record.partition_index, item.buffers, synthesis_threads_);
        } catch (const std::exception& e) {
            record.status = PartitionStatus::failed;
            record.error = std::string("synthesis: ") + e.what();
        }
        const int64_t synth_end = steady_now_ns();
        time_phase(record, "synth", lane, synth_start, synth_end);
        item.enqueued_ns = synth_end;
    }

    // `worker_index` counts the run's prove workers; `device_worker` those of the
    // device in `slot`.
    void prove_worker(uint32_t worker_index, uint32_t device_worker, size_t slot) {
        const std::string lane = "prove." + std::to_string(worker_index);
        const int32_t device_index = backend_.device_index(slot);
        std::unique_ptr<Worker> worker;
        try {
            worker = backend_.create_worker(device_worker, slot);
        } catch (const std::exception& e) {
            request_stop(fmt::format("prove worker {} (device {}): {}", worker_index, device_index, e.what()), true);
            return;
        }
        int64_t previous_end_ns = -1;
        while (auto item = prove_queue_.pop()) {
            if (abandon_) {
                release(*item);
                continue;
            }
            auto& record = item->record;
            record.prove_worker = worker_index;
            record.device_index = device_index;
            const int64_t start_ns = steady_now_ns();
            time_phase(record, "queue_wait", lane, item->enqueued_ns, start_ns);
            if (previous_end_ns >= 0) time_phase(record, "idle_gap", lane, previous_end_ns, start_ns);

            try {
                prove(*worker, *item, lane, start_ns);
            } catch (const std::exception& e) {  // the partition fails; the worker goes on
                record.status = PartitionStatus::failed;
                record.error = fmt::format("prove worker {}: {}", worker_index, e.what());
            }
            previous_end_ns = steady_now_ns();
            finalize_queue_.push(*item);
        }
    }

    void prove(const Worker& worker, WorkItem& item, const std::string& lane, int64_t start_ns) {
        PartitionRecord& record = item.record;
        // h comes to the host only where the runner reads it: the identity check, a dump.
        item.h_to_host = (checks_identity() && should_verify(record.partition_index)) || settings_.dump_dir.has_value();
        zkb_prove_request request =
            plugin::quotient_request(record.partition_index, log_n_, item.h_to_host, &item.buffers);
        if (groth16_) {
            request.workload = ZKB_WORKLOAD_GROTH16;
            curve::with_curve(curve_, [&](auto c) {  // r, s of the key's Fr
                using Curve = decltype(c);
                const auto blinding = manifest_.proof.randomness == ProofRandomness::derived
                                          ? groth16::derived_randomness<Curve>(manifest_.job.seed, record.partition_index)
                                          : groth16::random_randomness<Curve>();
                blinding.r.to_canonical_le_bytes(request.r);
                blinding.s.to_canonical_le_bytes(request.s);
            });
        }
        auto report = std::make_unique<zkb_prove_report>();
        std::string error;
        const int rc = worker.prove(request, report.get(), &error);
        time_phase(record, "prove", lane, start_ns, steady_now_ns());
        add_backend_phases(*report, record);
        if (rc != ZKB_OK) {
            record.status = PartitionStatus::failed;
            record.error = error;
            return;
        }
        item.proved = true;
        if (report->has_h_digest) item.backend_digest = std::to_array(report->h_digest);
        if (!groth16_) return;
        if (!report->has_proof) {
            item.proved = false;
            record.status = PartitionStatus::failed;
            record.error = "the backend returned no proof for a Groth16 partition (a bug in the backend)";
            return;
        }
        const size_t expected_bytes = groth16::proof_bytes(curve_);
        if (report->proof_bytes != expected_bytes) {
            item.proved = false;
            record.status = PartitionStatus::failed;
            record.error =
                fmt::format("the backend returned a proof of {} bytes where a {} proof takes {} (a bug in the backend)",
                            report->proof_bytes, curve::name(curve_), expected_bytes);
            return;
        }
        record.proof.assign(report->proof, report->proof + expected_bytes);
        record.proof_digest = digest_hex(record.proof.data(), record.proof.size());
    }

    bool checks_identity() const {
        return manifest_.verify.mode == VerifyMode::identity || manifest_.verify.mode == VerifyMode::sampled;
    }

    // Backend-reported intervals become phase intervals; those of a backend phase of the
    // phase table are summed per partition (three uploads make one h2d time and byte count).
    static void add_backend_phases(const zkb_prove_report& report, PartitionRecord& record) {
        const uint32_t count = std::min<uint32_t>(report.phase_count, ZKB_MAX_PHASES);
        for (uint32_t i = 0; i < count; ++i) {
            const zkb_phase& phase = report.phases[i];
            PhaseInterval piece;
            piece.phase.assign(phase.name, strnlen(phase.name, sizeof phase.name));
            piece.lane.assign(phase.lane, strnlen(phase.lane, sizeof phase.lane));
            piece.start_ns = static_cast<int64_t>(phase.start_ns);
            piece.end_ns = static_cast<int64_t>(phase.end_ns);
            piece.bytes = phase.bytes;
            piece.on_device = phase.on_device != 0;
            piece.device_index = phase.device_index;
            const auto known = PhaseKey::find(piece.phase);
            if (known && known->info().source == PhaseSource::backend) {
                PhaseValues::Value& total = record.phases[*known];
                total.ms = std::max(total.ms, 0.0) + ns_to_ms(piece.end_ns - piece.start_ns);
                if (known->info().moves_bytes) total.bytes += piece.bytes;
            }
            record.intervals.push_back(std::move(piece));
        }
        // A backend that times a proof's steps but no "compute" of its own: their sum.
        PhaseValues::Value& compute = record.phases["compute"];
        if (compute.ms >= 0) return;
        for (const std::string_view name : kProofComputePhases) {
            const PhaseValues::Value& step = record.phases[*PhaseKey::find(name)];
            if (step.ms >= 0) compute.ms = std::max(compute.ms, 0.0) + step.ms;
        }
    }

    bool should_verify(uint64_t index) const {
        switch (manifest_.verify.mode) {
            case VerifyMode::proof: return index % manifest_.verify.every == 0;
            case VerifyMode::identity: return true;
            case VerifyMode::sampled: return index % manifest_.verify.every == 0;
            case VerifyMode::none: return false;
        }
        return true;
    }

    void finalize_loop() {
        std::optional<std::random_device> entropy;  // x must be unpredictable to the backend
        while (auto item = finalize_queue_.pop()) {
            auto& record = item->record;
            try {
                if (item->proved) {
                    if (!entropy) entropy.emplace();
                    finalize_proved(*item, (*entropy)());
                }
            } catch (const std::exception& e) {  // a dump that cannot be written, ...
                record.status = PartitionStatus::failed;
                record.error = std::string("finalize: ") + e.what();
            }
            release(*item);
            if (manifest_.finalize.malloc_trim) {
                const int64_t trim_start = steady_now_ns();
                malloc_trim(0);
                const int64_t trim_end = steady_now_ns();
                time_phase(record, "malloc_trim", "finalize", trim_start, trim_end);
            }
            const bool ok = record.status == PartitionStatus::ok;
            {
                // One connection, several finalizers: writes and the run's tallies take turns.
                std::lock_guard lock(record_mutex_);
                for (const auto& piece : record.intervals)
                    if (piece.on_device) device_intervals_[record.device_index].emplace_back(piece.start_ns, piece.end_ns);
                if (!store_error_) {
                    try {
                        settings_.store->record_partition(settings_.run_id, record);
                    } catch (...) {
                        store_error_ = std::current_exception();
                        request_stop("the database could not be written", true);
                    }
                }
                (ok ? partitions_ok_ : partitions_failed_)++;
            }
            progress_.partition_done(record.partition_index, ok, record.error);
            if (!ok && manifest_.pipeline.on_error == OnPartitionError::stop)
                request_stop("partition " + std::to_string(record.partition_index) +
                                 " failed and pipeline.on_error = \"stop\"",
                             false);
        }
    }

    void finalize_proved(WorkItem& item, uint64_t x_seed) {
        auto& record = item.record;
        const int64_t start_ns = steady_now_ns();
        // h arrives canonical (plugin ABI v3), digested and dumped as it is; it is in host
        // memory where it was asked for (verified or dumped partitions) or the backend
        // formed no digest (ABI v4).
        const auto* h_bytes = static_cast<const uint8_t*>(item.buffers.h);
        const bool h_on_host = item.h_to_host || !item.backend_digest;
        std::optional<groth16::VerifyResult> proof_check;  // verify.mode = "proof", where it verifies
        if (groth16_) {
            // z_1..z_l of the key's Fr: the public inputs, as a verifier gets them.
            const uint64_t inputs = settings_.circuit->public_inputs();
            const bool check = should_verify(record.partition_index) && manifest_.verify.mode == VerifyMode::proof;
            record.public_inputs.resize(32 * inputs);
            std::visit(
                [&](const auto& key) {
                    using Fr = typename std::decay_t<decltype(key)>::Curve::Fr;
                    const auto* z = static_cast<const Fr*>(item.buffers.z);
                    for (uint64_t i = 0; i < inputs; ++i)
                        z[1 + i].to_canonical_le_bytes(record.public_inputs.data() + 32 * i);
                    if (check) proof_check = groth16::verify_encoded(key, record.proof.data(), z + 1, inputs);
                },
                *settings_.verifying_key);
            record.witness = settings_.circuit->partition_source(record.partition_index);
        }
        if (proof_check) {
            time_phase(record, "verify", "finalize", start_ns, steady_now_ns());
            record.verified = proof_check->ok;
            if (!proof_check->ok) {
                record.status = PartitionStatus::verify_failed;
                record.error = "verification failed: the proof does not verify: " + proof_check->detail;
            }
        } else if (should_verify(record.partition_index)) {
            const auto result = curve::with_curve(curve_, [&](auto c) {
                using Fr = typename decltype(c)::Fr;
                const zkb_host_buffers& buffers = item.buffers;
                return verify::check_quotient_canonical_h(
                    log_n_, static_cast<const Fr*>(buffers.a), static_cast<const Fr*>(buffers.b),
                    static_cast<const Fr*>(buffers.c), h_bytes, x_seed, verify_threads_);
            });
            const int64_t verify_end = steady_now_ns();
            time_phase(record, "verify", "finalize", start_ns, verify_end);
            record.verified = result.ok;
            if (!result.ok) {
                record.status = PartitionStatus::verify_failed;
                record.error = "verification failed: " + result.detail;
            }
        }
        const std::string backend_digest = item.backend_digest ? digest_hex(*item.backend_digest) : "";
        record.h_digest = h_on_host ? digest_hex(h_bytes, n_ * 32) : backend_digest;
        if (h_on_host && !backend_digest.empty() && backend_digest != record.h_digest) {
            // Both digests of one h: the backend's, formed on its device, must be XXH3's.
            const std::string mismatch = "the backend's h digest " + backend_digest + " differs from " +
                                         record.h_digest + ", the digest of the h it returned";
            if (record.status == PartitionStatus::ok) record.status = PartitionStatus::failed;
            record.error += (record.error.empty() ? "" : "; ") + mismatch;
        }
        if (settings_.dump_dir) {
            curve::with_curve(curve_, [&](auto c) {
                using Fr = typename decltype(c)::Fr;
                for (auto [name, data] : {std::pair{"a", item.buffers.a}, {"b", item.buffers.b}, {"c", item.buffers.c}})
                    dump_vector(*settings_.dump_dir, record.partition_index, name, static_cast<const Fr*>(data), n_);
            });
            dump_bytes(*settings_.dump_dir, record.partition_index, "h", h_bytes, n_ * 32);
            if (groth16_) {
                dump_bytes(*settings_.dump_dir, record.partition_index, "proof", record.proof.data(), record.proof.size());
                write_snarkjs_proof(*settings_.dump_dir, fmt::format("p{}", record.partition_index), curve_,
                                    record.proof, record.public_inputs);
            }
        }
        const int64_t end_ns = steady_now_ns();
        time_phase(record, "finalize", "finalize", start_ns, end_ns);
    }

    void release(WorkItem& item) {
        if (item.has_buffers) {
            backend_.release_buffers(item.buffers, item.buffer_slot);
            item.has_buffers = false;
        }
    }

    // Turns SIGINT/SIGTERM (counted by the caller's handler) into a stop request.
    void watch_signals() {
        if (!settings_.stop_signal) return;
        int seen = 0;
        while (!finished_) {
            const int signals = settings_.stop_signal->load();
            if (signals > seen) {
                seen = signals;
                cancelled_ = true;
                if (signals == 1)
                    spdlog::warn("stopping: no new partitions start; in-flight ones finish "
                                 "(interrupt again to abandon them)");
                else
                    spdlog::warn("abandoning in-flight partitions");
                request_stop("cancelled by signal", signals >= 2);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }

    const PipelineSettings& settings_;
    const Manifest& manifest_;
    const Backend& backend_;
    const bool groth16_ = manifest_.proof.system == ProofSystem::groth16;
    // The run's curve: the key's for Groth16; BLS12-381's for the quotient workload, whose
    // a, b and c are of its Fr.
    const curve::CurveId curve_ = groth16_ ? groth16::curve_of(*settings_.verifying_key) : curve::CurveId::bls12_381;
    const uint32_t log_n_;
    const uint64_t n_;
    // Threads for one partition's O(n) CPU work, a `sharers`-th of the cores each: from
    // 2^16 elements, below which starting threads would cost more than they save.
    unsigned partition_threads(unsigned sharers) const {
        return n_ >= (uint64_t{1} << 16) ? std::max(1u, std::thread::hardware_concurrency() / sharers) : 1;
    }
    // The check: seconds at 2^27 on one core, more than the GPU spends proving, so every
    // core once partitions are large.
    const unsigned verify_threads_ = partition_threads(1);
    // Each synthesis worker fills its partition on its share of the cores: a GPU proves a
    // PoRep-profile partition in less time than one core synthesizes it (the same bits on
    // any number of threads).
    const unsigned synthesis_threads_ = partition_threads(manifest_.pipeline.synthesis_workers);

    BoundedQueue<WorkItem> prove_queue_;
    BoundedQueue<WorkItem> finalize_queue_;
    Progress progress_;

    std::atomic<uint64_t> next_position_{0};  // into settings_.partitions
    std::atomic<uint64_t> next_buffer_slot_{0};
    std::atomic<bool> stop_{false}, abandon_{false}, cancelled_{false}, finished_{false};
    std::mutex error_mutex_;
    std::string run_error_;

    // Shared by the finalizers, under record_mutex_, until run() joins them.
    std::mutex record_mutex_;
    uint64_t partitions_ok_ = 0, partitions_failed_ = 0;
    std::map<int32_t, std::vector<std::pair<int64_t, int64_t>>> device_intervals_;  // by device index
    std::exception_ptr store_error_;
};

}  // namespace

RunSummary run_pipeline(const PipelineSettings& settings) { return Pipeline(settings).run(); }

}  // namespace zkbatch
