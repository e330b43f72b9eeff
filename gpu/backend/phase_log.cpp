#include "gpu/backend/phase_log.hpp"

#include "core/plugin/error.hpp"

#include <algorithm>

namespace zkbatch::cuda {

namespace {

// Appends one interval on the runner's clock: work of device `device`, or of the host
// when it is -1.
void add_phase(zkb_prove_report* report, const char* name, const std::string& lane, int device, uint64_t start_ns,
               uint64_t end_ns, uint64_t bytes) {
    if (report->phase_count >= ZKB_MAX_PHASES) {
        throw plugin::Error(ZKB_ERR_INTERNAL, "more phases than ZKB_MAX_PHASES in one prove report");
    }
    zkb_phase& phase = report->phases[report->phase_count++];
    plugin::copy_text(phase.name, name);
    plugin::copy_text(phase.lane, lane);
    phase.start_ns = start_ns;
    phase.end_ns = end_ns;
    phase.bytes = bytes;
    phase.on_device = device >= 0 ? 1 : 0;
    phase.device_index = device;
}

// Appends one device interval, timed by two completed events.
void add_phase(zkb_prove_report* report, const char* name, const std::string& lane, int device,
               const Event& anchor, uint64_t anchor_ns, const Event& start, const Event& end, uint64_t bytes) {
    const auto to_ns = [&](const Event& event) {
        // Events right after the anchor can read a hair below it (timer resolution).
        const double milliseconds = std::max(0.0, static_cast<double>(event.milliseconds_since(anchor)));
        return anchor_ns + static_cast<uint64_t>(milliseconds * 1e6);
    };
    add_phase(report, name, lane, device, to_ns(start), to_ns(end), bytes);
}

}  // namespace

void PhaseLog::clear() {
    for (std::vector<Phase>& section : sections_) section.clear();
    h_digest_.reset();
}

void PhaseLog::add(Section section, const char* name, const std::string& lane, const Event& start, const Event& end,
                   uint64_t bytes) {
    sections_[static_cast<size_t>(section)].push_back(Phase{name, &lane, &start, &end, 0, 0, bytes});
}

void PhaseLog::add_host(Section section, const char* name, const std::string& lane, uint64_t start_ns,
                        uint64_t end_ns) {
    sections_[static_cast<size_t>(section)].push_back(Phase{name, &lane, nullptr, nullptr, start_ns, end_ns, 0});
}

void PhaseLog::write(zkb_prove_report* report, const Event& anchor, uint64_t anchor_ns) const {
    for (const std::vector<Phase>& section : sections_) {
        for (const Phase& phase : section) {
            if (phase.start != nullptr) {
                add_phase(report, phase.name, *phase.lane, device_, anchor, anchor_ns, *phase.start, *phase.end,
                          phase.bytes);
            } else {
                add_phase(report, phase.name, *phase.lane, -1, phase.start_ns, phase.end_ns, phase.bytes);
            }
        }
    }
    if (h_digest_) {
        report->has_h_digest = 1;
        std::copy(h_digest_->begin(), h_digest_->end(), report->h_digest);
    }
}

}  // namespace zkbatch::cuda
