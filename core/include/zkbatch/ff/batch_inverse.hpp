// Montgomery's trick: the inverses of n field elements for one inversion and 3(n - 1)
// products. Host only (it needs scratch memory).
#pragma once

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

}  // namespace zkbatch::ff
