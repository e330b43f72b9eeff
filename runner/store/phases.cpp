// The phase table's helpers (phases.hpp).
#include "store/phases.hpp"

#include <algorithm>

namespace zkbatch {

std::optional<PhaseKey> PhaseKey::find(std::string_view name) {
    for (size_t i = 0; i < kPhaseCount; ++i)
        if (kPhases[i].name == name) return PhaseKey(i, 0);
    return std::nullopt;
}

namespace {
std::string column_stem(std::string_view phase_name) {
    std::string stem(phase_name);
    std::replace(stem.begin(), stem.end(), '.', '_');
    return stem;
}
}  // namespace

std::string ms_column(const PhaseInfo& phase) { return column_stem(phase.name) + "_ms"; }
std::string bytes_column(const PhaseInfo& phase) { return column_stem(phase.name) + "_bytes"; }

}  // namespace zkbatch
