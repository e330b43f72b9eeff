// The pipeline: synthesis workers -> bounded queue -> prove workers -> finalizer.
//
// One Pipeline exists per run. Synthesis writes straight into host buffers that the
// backend owns; a full queue or an exhausted buffer pool blocks synthesis (that wait
// is recorded), so memory never grows without bound. The finalizers (several, since
// verification and the digest are O(n) CPU work that can outlast a GPU prove) verify,
// digest, dump, release the buffers, optionally trim the heap, and write each
// partition to the store in its own transaction.
#pragma once

#include "manifest/manifest.hpp"
#include "plugin_host/plugin_host.hpp"
#include "proof/job_circuit.hpp"
#include "store/store.hpp"

#include "core/ff/fr.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <optional>
#include <vector>

namespace zkbatch {

// Where a partition's inputs come from. fill() writes a, b, c of `partition_index`
// (and the witness z, when the buffers carry one) into buffers the backend handed out,
// on up to `threads` threads; an exception it throws fails that partition, with its
// message, and the run goes on as pipeline.on_error says. Called from several
// synthesis workers at once.
class InputSource {
public:
    virtual ~InputSource() = default;
    virtual void fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned threads) const = 0;
};

// The quotient workload's synthetic circuit of the manifest's shape and job seed
// (circuit/synthetic.hpp): a, b, c, no witness.
class SyntheticInputs final : public InputSource {
public:
    explicit SyntheticInputs(const Manifest& manifest);
    void fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned threads) const override;

private:
    uint32_t log_n_, terms_per_row_;
    uint64_t seed_;
};

// A Groth16 job's circuit (proof/job_circuit.hpp): z, a, b, c of each partition.
class CircuitInputs final : public InputSource {
public:
    explicit CircuitInputs(const JobCircuit& circuit) : circuit_(circuit) {}
    void fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned threads) const override;

private:
    const JobCircuit& circuit_;
};

// `pipeline.replay_inputs = k`: k input sets made once by another source, before the
// run, and copied into each partition's buffers (partition p gets set p mod k), so the
// GPU side can be measured without synthesis being the bottleneck.
class ReplayInputs final : public InputSource {
public:
    // Sets j = 0..count-1 are what `source` makes for partition j, so a replay run's
    // partitions 0..k-1 have an ordinary run's results. `witness_elements` is m (0
    // without a witness).
    ReplayInputs(const InputSource& source, uint32_t count, uint32_t log_n, uint64_t witness_elements,
                 unsigned threads);
    uint32_t set_count() const { return static_cast<uint32_t>(sets_.size()); }
    // Puts set (partition_index mod k) into the buffers: a copy, skipped when the
    // backend kept the buffers' contents and they already hold that set.
    void fill(uint64_t partition_index, const zkb_host_buffers& buffers, unsigned threads) const override;
    double setup_ms() const { return setup_ms_; }

private:
    struct InputSet {
        std::vector<ff::Fr> z, a, b, c;
    };
    std::vector<InputSet> sets_;
    double setup_ms_ = 0;
    // Which set a kept buffer set (by its `a` address) holds. Only buffers with
    // keeps_contents are entered: heap memory may come back at a reused address.
    mutable std::mutex held_mutex_;
    mutable std::unordered_map<const void*, size_t> held_;
};

struct PipelineSettings {
    const Manifest* manifest = nullptr;
    const Backend* backend = nullptr;
    Store* store = nullptr;
    int64_t run_id = 0;
    // The partition indices to prove, in this order (all of the job, one block of an
    // experiment, the missing ones of a resumed run, one shard's).
    std::vector<uint64_t> partitions;
    const InputSource* inputs = nullptr;             // SyntheticInputs, CircuitInputs or ReplayInputs
    // Groth16 runs (proof.system = "groth16"): the circuit, for its public inputs and a
    // partition's witness file, and the verifying key verify.mode = "proof" checks with.
    const JobCircuit* circuit = nullptr;
    const groth16::AnyVerifyingKey* verifying_key = nullptr;
    std::optional<std::filesystem::path> dump_dir;   // --dump DIR
    // Raised by signal handlers: 1 = stop starting partitions, 2 = abandon in-flight ones.
    const std::atomic<int>* stop_signal = nullptr;
    bool show_progress_line = false;                 // a live line on a terminal
};

// Runs settings.partitions and returns what happened (the caller writes the run's
// summary with Store::finish_run, combining several calls for a run proved in blocks).
// A partition whose synthesis, prove or finalize throws fails with the message; a
// worker thread the system refuses to start stops the run (summary.error says why).
// Throws StoreError when the store cannot be written: partitions recorded before that
// stay intact.
RunSummary run_pipeline(const PipelineSettings& settings);

// The devices of a run as the store records them: index, name (the device.name fact
// of its backend), prove workers on it.
std::vector<DeviceRecord> device_records(const Backend& backend, uint32_t prove_workers_per_device);

// Every partition index of the job: 0 .. job.partitions - 1.
std::vector<uint64_t> all_partitions(const Manifest& manifest);

// Length of the union of [start, end) intervals, in ns: the time a device was busy.
int64_t union_length_ns(std::vector<std::pair<int64_t, int64_t>> intervals);

}  // namespace zkbatch
