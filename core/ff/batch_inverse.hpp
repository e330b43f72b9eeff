// Montgomery's trick: the inverses of n field elements for one inversion and 3(n - 1)
// products. Host only (it needs scratch memory).
#pragma once

#include "core/ff/fp2.hpp"

#include <cstddef>
#include <vector>

namespace zkbatch::ff {

// values[i] = 1 / values[i] for every i; zeros stay zero (as F::inverse() has it) and
// do not spoil the others. `prefix` is scratch, resized to n.
template <class F>
void batch_inverse(F* values, size_t n, std::vector<F>& prefix) {
    prefix.resize(n);
    F running = F::one();  // the product of the nonzero values before i
    for (size_t i = 0; i < n; ++i) {
        prefix[i] = running;
        if (!values[i].is_zero()) running *= values[i];
    }
    F inverse = running.inverse();  // 1 / (the product of all nonzero values)
    for (size_t i = n; i-- > 0;) {
        if (values[i].is_zero()) continue;
        const F value_inverse = inverse * prefix[i];
        inverse *= values[i];  // now 1 / (the product of the nonzero values before i)
        values[i] = value_inverse;
    }
}

// Fp2 through the norms: 1/x = conj(x) / N(x) with N(x) = c0^2 + c1^2 in Fp, the norms
// inverted together in Fp. 7 Fp products per element instead of the 9 of three Fp2
// products (of the 17 an addition costs in the MSM's G2 affine buckets).
template <class Tower>
void batch_inverse(tower::Fp2<Tower>* values, size_t n, std::vector<typename Tower::BaseField>& norms,
                   std::vector<typename Tower::BaseField>& prefix) {
    norms.resize(n);
    for (size_t i = 0; i < n; ++i) norms[i] = values[i].norm();
    batch_inverse(norms.data(), n, prefix);
    for (size_t i = 0; i < n; ++i) values[i] = values[i].conjugate().scale(norms[i]);
}

// The field F's elements are built over: Fp for Fp2 (what batch_inverse's norms are in),
// F itself for a prime field.
template <class F>
struct BaseFieldOf {
    using type = F;
};
template <class Tower>
struct BaseFieldOf<tower::Fp2<Tower>> {
    using type = typename Tower::BaseField;
};

}  // namespace zkbatch::ff
