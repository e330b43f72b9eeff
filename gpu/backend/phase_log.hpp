// PhaseLog: what one prove reports (CudaWorker::prove). Each step of a schedule records
// its own phases as it enqueues its work, so the report lists exactly the steps that ran;
// the log is written into the report once that work is done, when the device intervals'
// events can be read.
#pragma once

#include "gpu/util/event.hpp"
#include "core/plugin/abi.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zkbatch::cuda {

// Two events around one step's work on a stream: its interval in the report.
struct TimedSpan {
    Event start, end;
};

class PhaseLog {
public:
    // Where a phase is listed. A report lists its phases by kind, not in the order they
    // ran (z goes up first, each input's NTTs follow its upload), and tests and the
    // results database rely on that order: the quotient's uploads (a, b and c, or h made
    // on the host), z's upload, the kernel groups of the quotient and the digest, what
    // comes back (the digest's block sums, its chain on the host, h), the MSMs, and the
    // host's combination of their sums.
    enum class Section { quotient_uploads, z_upload, kernels, results, msms, proof };

    // Device intervals are of device `device`.
    explicit PhaseLog(int device) : device_(device) {}

    // Forgets the previous prove's phases (keeping the memory).
    void clear();
    // A device interval between two events recorded on the device's streams; `lane` and
    // the events must outlive write(), `name` is static text.
    void add(Section section, const char* name, const std::string& lane, const Event& start, const Event& end,
             uint64_t bytes = 0);
    void add(Section section, const char* name, const std::string& lane, const TimedSpan& span, uint64_t bytes = 0) {
        add(section, name, lane, span.start, span.end, bytes);
    }
    // A host interval, on the runner's clock.
    void add_host(Section section, const char* name, const std::string& lane, uint64_t start_ns, uint64_t end_ns);
    // h's digest, chained on the host from the device's block sums.
    void set_h_digest(const std::array<uint8_t, 16>& digest) { h_digest_ = digest; }

    // Appends the phases to `report`, section by section, each section in the order its
    // phases were added, and the digest if one was set. Device events (all completed) are
    // mapped onto the runner's clock through `anchor`, which completed at `anchor_ns`.
    // Throws plugin::Error(ZKB_ERR_INTERNAL) past ZKB_MAX_PHASES.
    void write(zkb_prove_report* report, const Event& anchor, uint64_t anchor_ns) const;

private:
    struct Phase {
        const char* name;
        const std::string* lane;
        const Event* start;  // null for a host interval
        const Event* end;
        uint64_t start_ns, end_ns;  // a host interval's
        uint64_t bytes;
    };
    static constexpr size_t kSections = static_cast<size_t>(Section::proof) + 1;

    int device_;
    std::array<std::vector<Phase>, kSections> sections_;
    std::optional<std::array<uint8_t, 16>> h_digest_;
};

}  // namespace zkbatch::cuda
