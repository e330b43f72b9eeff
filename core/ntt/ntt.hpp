// The CPU number-theoretic transforms over an FFT field F (a scalar field Fr: BLS12-381's,
// BN254's) on the domain H = {omega^i} of size n = 2^log_n, and on its coset gH (g the
// field's multiplicative generator: 7 for BLS12-381, 5 for BN254).
//
// Orders. "natural": element i is at index i. "bit-reversed": element i is at index
// bitrev(i), the log_n-bit reversal of i. With A(X) = sum_k coeffs[k] X^k:
//   evaluations on H   e[i] = A(omega^i)
//   evaluations on gH  e[i] = A(g * omega^i)
//
// The quotient uses the pairs that need no permutation step:
//   inverse_ntt_natural_to_bitrev        DIF (Gentleman-Sande): evaluations on H,
//                                        natural -> coefficients, bit-reversed
//   coset_forward_ntt_bitrev_to_natural  DIT (Cooley-Tukey): coefficients,
//                                        bit-reversed -> evaluations on gH, natural
//   coset_inverse_ntt_natural            evaluations on gH, natural -> coefficients,
//                                        natural (DIF, coset scaling, bit reversal)
// and tests and tools get the plain natural-order pair forward_ntt_natural /
// inverse_ntt_natural.
//
// All transforms are in place, use up to `threads` threads, and give bit-identical
// results for every thread count (field arithmetic is exact; the order of operations
// on each element does not depend on the split).
//
// Written once over F (generic::Domain<F> and the function templates), instantiated in
// ntt.cpp for both curves' Fr; ntt::Domain is BLS12-381's.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fr.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zkbatch::ntt {

// The largest domain the tables may be built for: 2^28 elements already means 4 GiB
// of twiddles (BLS12-381's Fr allows 2^32; BN254's allows 2^28 exactly).
inline constexpr uint32_t kMaxLogN = 28;

// Which roots of unity a domain uses. The domain as a set is always the n-th roots of
// unity; the generator fixes which row is which point.
enum class Roots {
    // The field's: omega = ROOT^(2^(s - log_n)) for its ROOT = g^((r-1)/2^s) (ff/fr.hpp,
    // ff/bn254.hpp), as blst, bellman and arkworks have it; coset shift g. Every zkbatch
    // circuit, and the quotient.
    zkbatch,
    // snarkjs's (ffjavascript's): ROOT' = q^((r-1)/2^s) for q the smallest quadratic
    // non-residue, where ffjavascript looks first (5 for both curves: for BN254 that is
    // the field's own ROOT). The coset shift is the primitive 2n-th root omega'_2n, so
    // "the coset" is the odd points of the size-2n domain: what a .zkey's H-query
    // expects (docs/formats.md#how-snarkjs-computes-its-proof). Needs log_n < s.
    snarkjs,
};

// The largest log_n a domain of F with these roots may have.
template <class F>
constexpr uint32_t max_log_n(Roots roots) {
    const uint32_t field_limit = roots == Roots::zkbatch ? F::kTwoAdicity : F::kTwoAdicity - 1;
    return field_limit < kMaxLogN ? field_limit : kMaxLogN;
}

// The primitive 2^log_n-th root of unity of a family, and the coset shift of its domain of
// 2^log_n: g, or snarkjs's omega'_2n. What every domain of the family is built from, the
// CPU's and the device's. Throw std::invalid_argument where the root would be of an order
// above 2^(the field's 2-adicity) (snarkjs's coset shift: from log_n = the 2-adicity).
template <class Fr>
Fr root_of_unity(Roots roots, uint32_t log_n);
template <class Fr>
Fr coset_shift(Roots roots, uint32_t log_n);

namespace generic {

// One evaluation domain of F with everything the transforms precompute for it. One
// Domain exists per (F, log_n, roots) per process, built on first use by get() and never
// freed.
template <class F>
class Domain {
public:
    using Fr = F;

    // Thread-safe; throws std::invalid_argument if log_n > max_log_n<F>(roots).
    static const Domain& get(uint32_t log_n, Roots roots = Roots::zkbatch);

    uint32_t log_n() const { return log_n_; }
    size_t size() const { return size_t{1} << log_n_; }
    const Fr& omega() const { return omega_; }          // primitive n-th root of unity
    const Fr& omega_inv() const { return omega_inv_; }
    const Fr& size_inv() const { return size_inv_; }    // n^-1
    const Fr& coset_shift() const { return coset_shift_; }          // g, or omega'_2n (Roots::snarkjs)
    const Fr& coset_shift_inv() const { return coset_shift_inv_; }  // g^-1

    // omega^k and omega^-k for k in [0, n/2): butterflies of span m use every
    // (n / 2m)-th entry.
    const Fr* twiddles() const { return twiddles_.data(); }
    const Fr* inverse_twiddles() const { return inverse_twiddles_.data(); }

    // g^bitrev(p) and g^-bitrev(p) * n^-1: the coset scale factor of the coefficient
    // stored at bit-reversed position p, as the product of two sqrt(n)-sized tables
    // (low and high bits of p), so no n-sized table is needed.
    Fr coset_scale_bitrev(size_t position) const {
        return coset_low_[position & low_mask_] * coset_high_[position >> low_bits_];
    }
    Fr coset_unscale_bitrev(size_t position) const {
        return coset_inv_low_[position & low_mask_] * coset_inv_high_[position >> low_bits_];
    }

    Domain(const Domain&) = delete;
    Domain& operator=(const Domain&) = delete;

private:
    Domain(uint32_t log_n, Roots roots);

    uint32_t log_n_;
    uint32_t low_bits_;
    size_t low_mask_;
    Fr omega_, omega_inv_, size_inv_, coset_shift_, coset_shift_inv_;
    std::vector<Fr> twiddles_, inverse_twiddles_;
    std::vector<Fr> coset_low_, coset_high_, coset_inv_low_, coset_inv_high_;
};

}  // namespace generic

// BLS12-381's domains: the prover's until it takes a curve.
using Domain = generic::Domain<ff::Fr>;

extern template class generic::Domain<ff::bls12_381::Fr>;
extern template class generic::Domain<ff::bn254::Fr>;

// The log_n-bit reversal of index (log_n <= 32; 0 bits -> 0).
inline size_t bit_reverse_index(size_t index, uint32_t log_n) {
    if (log_n == 0) return 0;
    uint64_t v = index;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = __builtin_bswap64(v);
    return static_cast<size_t>(v >> (64 - log_n));
}

// Permutes values[0, 2^log_n) into bit-reversed order (its own inverse).
template <class F>
void bit_reverse(F* values, uint32_t log_n, unsigned threads);

// Evaluations on H (natural) -> coefficients (bit-reversed), scaled by n^-1.
template <class F>
void inverse_ntt_natural_to_bitrev(const generic::Domain<F>& domain, F* values, unsigned threads);
// Coefficients (bit-reversed) -> evaluations on H (natural).
template <class F>
void forward_ntt_bitrev_to_natural(const generic::Domain<F>& domain, F* values, unsigned threads);
// Coefficients (bit-reversed) -> evaluations on gH (natural): coefficient k is scaled
// by g^k (at its bit-reversed position), then forward_ntt_bitrev_to_natural.
template <class F>
void coset_forward_ntt_bitrev_to_natural(const generic::Domain<F>& domain, F* values, unsigned threads);
// Evaluations on gH (natural) -> coefficients (natural): unscaled DIF, then
// coefficient k scaled by g^-k * n^-1, then bit reversal.
template <class F>
void coset_inverse_ntt_natural(const generic::Domain<F>& domain, F* values, unsigned threads);

// Coefficients (natural) -> evaluations on H (natural).
template <class F>
void forward_ntt_natural(const generic::Domain<F>& domain, F* values, unsigned threads);
// Evaluations on H (natural) -> coefficients (natural).
template <class F>
void inverse_ntt_natural(const generic::Domain<F>& domain, F* values, unsigned threads);

}  // namespace zkbatch::ntt
