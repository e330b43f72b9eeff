// The phases of a partition, in pipeline order: the one list from which the schema's
// phase_name rows and partition_phase view (store/schema.cpp), the partition row's
// columns and binds (store/store.cpp), the pipeline's per-partition sums of backend
// phases (pipeline/pipeline.cpp) and the report's order (report/report_figures.cpp)
// all come.
//
// To add a phase: add its row below, in pipeline order, and a schema migration
// (store/schema.cpp) that adds its partition column: `<column>_ms REAL`, and for a copy
// `<column>_bytes INTEGER` (column: the name with '.' as '_', so msm.a is msm_a_ms).
// Every migration ends by rebuilding phase_name and partition_phase from this table.
// A phase the backend reports (PhaseSource::backend) needs nothing else: the pipeline
// sums its intervals into the partition's value. docs/schema.md lists the phases.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkbatch {

enum class PhaseSource {
    runner,   // timed by the pipeline on the runner's clock
    backend,  // reported by the backend in its prove report: the sum of its intervals
    derived,  // computed from other phases' intervals; no partition column
};

struct PhaseInfo {
    std::string_view name;         // phase_interval.phase and phase_name.phase
    PhaseSource source;
    bool moves_bytes;              // a copy: it has a bytes column, and a GB/s in phase_summary
    std::string_view description;  // phase_name.description
};

// The backend phases of a Groth16 proof whose sum is the partition's compute time when
// the backend reports no "compute" of its own (cpu-ref does so: its phases are serial).
inline constexpr std::string_view kProofComputePhases[] = {"quotient", "msm.a", "msm.b_g1", "msm.b_g2", "msm.l",
                                                           "msm.h"};

inline constexpr PhaseInfo kPhases[] = {
    {"pool_wait", PhaseSource::runner, false, "waiting for host buffers from the backend (pinned-pool back-pressure)"},
    {"synth", PhaseSource::runner, false, "CPU synthesis of a, b, c into the host buffers"},
    {"queue_wait", PhaseSource::runner, false, "synthesized, waiting for a prove worker"},
    {"h2d", PhaseSource::backend, true, "host-to-device copy of a, b, c (device events)"},
    {"compute", PhaseSource::backend, false,
     "the prove call's computation: its kernels on a GPU (device events); for a Groth16 proof the sum of the "
     "quotient and the MSMs below when the backend reports those"},
    {"quotient", PhaseSource::backend, false, "the quotient h: 7 NTTs, or snarkjs's 6 and the odd-coset product"},
    {"msm.a", PhaseSource::backend, false, "the A-query MSM, sum z_i [u_i]1 (G1)"},
    {"msm.b_g1", PhaseSource::backend, false, "the B-query MSM in G1, sum z_i [v_i]1"},
    {"msm.b_g2", PhaseSource::backend, false, "the B-query MSM in G2, sum z_i [v_i]2"},
    {"msm.l", PhaseSource::backend, false, "the L-query MSM over the private witness (G1)"},
    {"msm.h", PhaseSource::backend, false, "the H-query MSM over h (G1)"},
    {"d2h", PhaseSource::backend, true,
     "device-to-host copies: h's digest block sums, and h where the runner reads it (device events)"},
    {"prove", PhaseSource::runner, false, "the whole prove call, runner clock"},
    {"finalize", PhaseSource::runner, false, "verification, digest and dump, without malloc_trim"},
    {"verify", PhaseSource::runner, false,
     "inside finalize: the proof's pairing equation, or the quotient's polynomial identity"},
    {"malloc_trim", PhaseSource::runner, false, "malloc_trim(0) after finalize, when enabled"},
    {"idle_gap", PhaseSource::runner, false, "the prove worker idle before this partition"},
    {"partition", PhaseSource::derived, false, "derived: first synth start to last finalize end"},
};
inline constexpr size_t kPhaseCount = std::size(kPhases);

// A phase of kPhases, by its position there. From a literal it is checked when
// compiling (`PhaseKey("synth")`; a misspelt name does not build); a name known only at
// run time (a backend's report) goes through find().
class PhaseKey {
public:
    consteval PhaseKey(const char* name) : index_(position_of(name)) {}  // NOLINT: implicit on purpose
    static std::optional<PhaseKey> find(std::string_view name);
    static PhaseKey at(size_t index) { return PhaseKey(index, 0); }
    size_t index() const { return index_; }
    const PhaseInfo& info() const { return kPhases[index_]; }

private:
    constexpr PhaseKey(size_t index, int) : index_(index) {}
    static consteval size_t position_of(std::string_view name) {
        for (size_t i = 0; i < kPhaseCount; ++i)
            if (kPhases[i].name == name) return i;
        throw "not a phase of kPhases (store/phases.hpp)";  // only reachable when compiling
    }
    size_t index_;
};

// One partition's measurement of every phase, by position in kPhases.
class PhaseValues {
public:
    struct Value {
        double ms = -1;      // -1: not measured (stored as NULL)
        uint64_t bytes = 0;  // bytes moved, for a phase that moves_bytes
    };
    Value& operator[](PhaseKey key) { return values_[key.index()]; }
    const Value& operator[](PhaseKey key) const { return values_[key.index()]; }

private:
    std::array<Value, kPhaseCount> values_{};
};

// The partition table's columns of a stored phase: "h2d_ms", "h2d_bytes" ('.' as '_').
std::string ms_column(const PhaseInfo& phase);
std::string bytes_column(const PhaseInfo& phase);

}  // namespace zkbatch
