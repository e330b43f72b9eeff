// h = (A*B - C) / (X^n - 1) by the 7-NTT coset method (core/quotient/quotient.hpp).
//
// On the coset gH the vanishing polynomial X^n - 1 is the constant g^n - 1 (since
// (g*omega^i)^n = g^n), so the division is one multiplication per point.
#include "core/quotient/quotient.hpp"

#include "core/ntt/ntt.hpp"
#include "core/util/parallel.hpp"

#include <algorithm>
#include <cstddef>

namespace zkbatch::prove {

namespace {

// a, b, c (evaluations on H) into out, scratch and scratch + n as evaluations on the
// domain's coset (natural order): the first six NTTs of both quotient variants.
template <class Fr>
void evaluate_on_coset(const ntt::generic::Domain<Fr>& domain, const Fr* a, const Fr* b, const Fr* c, Fr* out,
                       Fr* scratch, unsigned threads) {
    const size_t n = domain.size();
    Fr* const a_values = out;  // A is transformed in the output buffer
    Fr* const b_values = scratch;
    Fr* const c_values = scratch + n;
    util::parallel_for(0, n, threads, [&](size_t first, size_t last) {
        std::copy(a + first, a + last, a_values + first);
        std::copy(b + first, b + last, b_values + first);
        std::copy(c + first, c + last, c_values + first);
    });
    // Evaluations on H -> coefficients (bit-reversed) -> evaluations on the coset (natural).
    for (Fr* values : {a_values, b_values, c_values}) {
        ntt::inverse_ntt_natural_to_bitrev(domain, values, threads);
        ntt::coset_forward_ntt_bitrev_to_natural(domain, values, threads);
    }
}

// out[i] = (out[i] * scratch[i] - scratch[n + i]) * factor.
template <class Fr>
void pointwise(size_t n, Fr* out, const Fr* scratch, const Fr& factor, unsigned threads) {
    util::parallel_for(0, n, threads, [&](size_t first, size_t last) {
        for (size_t i = first; i < last; ++i) out[i] = (out[i] * scratch[i] - scratch[n + i]) * factor;
    });
}

}  // namespace

template <class Fr>
void compute_quotient_cpu(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c, Fr* h, Fr* scratch, unsigned threads) {
    const auto& domain = ntt::generic::Domain<Fr>::get(log_n);
    evaluate_on_coset(domain, a, b, c, h, scratch, threads);
    const Fr vanishing_on_coset_inv = (domain.coset_shift().pow(domain.size()) - Fr::one()).inverse();
    pointwise(domain.size(), h, scratch, vanishing_on_coset_inv, threads);
    ntt::coset_inverse_ntt_natural(domain, h, threads);
}

template <class Fr>
void compute_odd_coset_quotient_cpu(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c, Fr* out, Fr* scratch,
                                    unsigned threads) {
    const auto& domain = ntt::generic::Domain<Fr>::get(log_n, ntt::Roots::snarkjs);
    evaluate_on_coset(domain, a, b, c, out, scratch, threads);
    pointwise(domain.size(), out, scratch, Fr::one(), threads);
}

template void compute_quotient_cpu(uint32_t, const ff::bls12_381::Fr*, const ff::bls12_381::Fr*,
                                   const ff::bls12_381::Fr*, ff::bls12_381::Fr*, ff::bls12_381::Fr*, unsigned);
template void compute_quotient_cpu(uint32_t, const ff::bn254::Fr*, const ff::bn254::Fr*, const ff::bn254::Fr*,
                                   ff::bn254::Fr*, ff::bn254::Fr*, unsigned);
template void compute_odd_coset_quotient_cpu(uint32_t, const ff::bls12_381::Fr*, const ff::bls12_381::Fr*,
                                             const ff::bls12_381::Fr*, ff::bls12_381::Fr*, ff::bls12_381::Fr*,
                                             unsigned);
template void compute_odd_coset_quotient_cpu(uint32_t, const ff::bn254::Fr*, const ff::bn254::Fr*,
                                             const ff::bn254::Fr*, ff::bn254::Fr*, ff::bn254::Fr*, unsigned);

}  // namespace zkbatch::prove
