// h = (A*B - C) / (X^n - 1) by the 7-NTT coset method (zkbatch/prove/quotient.hpp).
//
// On the coset gH the vanishing polynomial X^n - 1 is the constant g^n - 1 (since
// (g*omega^i)^n = g^n), so the division is one multiplication per point.
#include <zkbatch/prove/quotient.hpp>

#include <zkbatch/ntt/ntt.hpp>
#include <zkbatch/util/parallel.hpp>

#include <algorithm>
#include <cstddef>

namespace zkbatch::prove {

void compute_quotient_cpu(uint32_t log_n, const ff::Fr* a, const ff::Fr* b, const ff::Fr* c,
                          ff::Fr* h, ff::Fr* scratch, unsigned threads) {
    using ff::Fr;
    const ntt::Domain& domain = ntt::Domain::get(log_n);
    const size_t n = domain.size();
    Fr* const a_values = h;  // A is transformed in the output buffer
    Fr* const b_values = scratch;
    Fr* const c_values = scratch + n;

    util::parallel_for(0, n, threads, [&](size_t first, size_t last) {
        std::copy(a + first, a + last, a_values + first);
        std::copy(b + first, b + last, b_values + first);
        std::copy(c + first, c + last, c_values + first);
    });

    // Evaluations on H -> coefficients (bit-reversed) -> evaluations on gH (natural).
    for (Fr* values : {a_values, b_values, c_values}) {
        ntt::inverse_ntt_natural_to_bitrev(domain, values, threads);
        ntt::coset_forward_ntt_bitrev_to_natural(domain, values, threads);
    }

    const Fr vanishing_on_coset_inv = (domain.coset_shift().pow(n) - Fr::one()).inverse();
    util::parallel_for(0, n, threads, [&](size_t first, size_t last) {
        for (size_t i = first; i < last; ++i) {
            a_values[i] = (a_values[i] * b_values[i] - c_values[i]) * vanishing_on_coset_inv;
        }
    });

    ntt::coset_inverse_ntt_natural(domain, h, threads);
}

}  // namespace zkbatch::prove
