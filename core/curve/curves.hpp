// Both curve descriptions, and run-time dispatch from a CurveId to the description type:
// what code that learns its curve from a file or a manifest calls the templates through.
#pragma once

#include "core/curve/bls12_381.hpp"
#include "core/curve/bn254.hpp"
#include "core/curve/curve_id.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace zkbatch::curve {

// visit(Bls12_381{}) or visit(Bn254{}), by id; what it returns. A generic lambda takes
// the description as `auto curve` and names it `decltype(curve)`.
template <class Visit>
decltype(auto) with_curve(CurveId id, Visit&& visit) {
    switch (id) {
        case CurveId::bls12_381: return std::forward<Visit>(visit)(Bls12_381{});
        case CurveId::bn254: return std::forward<Visit>(visit)(Bn254{});
    }
    throw std::invalid_argument("unknown curve id " + std::to_string(static_cast<int>(id)));
}

}  // namespace zkbatch::curve
