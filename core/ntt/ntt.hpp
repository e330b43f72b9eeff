// The CPU number-theoretic transforms over Fr on the domain H = {omega^i} of size
// n = 2^log_n, and on its coset gH (g = 7).
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
#pragma once

#include "core/ff/fr.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zkbatch::ntt {

using ff::Fr;

// The largest domain the tables may be built for: 2^28 elements already means 4 GiB
// of twiddles (the field itself allows 2^32).
inline constexpr uint32_t kMaxLogN = 28;

// Which roots of unity a domain uses. The domain as a set is always the n-th roots of
// unity; the generator fixes which row is which point.
enum class Roots {
    // omega = ROOT^(2^(32 - log_n)), ROOT = 7^((r-1)/2^32), as blst, bellman and
    // arkworks have it; coset shift g = 7. Every zkbatch circuit, and the quotient.
    zkbatch,
    // snarkjs's (ffjavascript's): ROOT' = 5^((r-1)/2^32), 5 being the smallest
    // quadratic non-residue, where ffjavascript looks first. The coset shift is the
    // primitive 2n-th root omega'_2n, so "the coset" is the odd points of the size-2n
    // domain: what a .zkey's H-query expects (docs/formats.md#how-snarkjs-computes-its-proof).
    snarkjs,
};

// One evaluation domain with everything the transforms precompute for it. One Domain
// exists per (log_n, roots) per process, built on first use by get() and never freed.
class Domain {
public:
    // Thread-safe; throws std::invalid_argument if log_n > kMaxLogN.
    static const Domain& get(uint32_t log_n, Roots roots = Roots::zkbatch);

    uint32_t log_n() const { return log_n_; }
    size_t size() const { return size_t{1} << log_n_; }
    const Fr& omega() const { return omega_; }          // primitive n-th root of unity
    const Fr& omega_inv() const { return omega_inv_; }
    const Fr& size_inv() const { return size_inv_; }    // n^-1
    const Fr& coset_shift() const { return coset_shift_; }          // g = 7, or omega'_2n (Roots::snarkjs)
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
void bit_reverse(Fr* values, uint32_t log_n, unsigned threads);

// Evaluations on H (natural) -> coefficients (bit-reversed), scaled by n^-1.
void inverse_ntt_natural_to_bitrev(const Domain& domain, Fr* values, unsigned threads);
// Coefficients (bit-reversed) -> evaluations on H (natural).
void forward_ntt_bitrev_to_natural(const Domain& domain, Fr* values, unsigned threads);
// Coefficients (bit-reversed) -> evaluations on gH (natural): coefficient k is scaled
// by g^k (at its bit-reversed position), then forward_ntt_bitrev_to_natural.
void coset_forward_ntt_bitrev_to_natural(const Domain& domain, Fr* values, unsigned threads);
// Evaluations on gH (natural) -> coefficients (natural): unscaled DIF, then
// coefficient k scaled by g^-k * n^-1, then bit reversal.
void coset_inverse_ntt_natural(const Domain& domain, Fr* values, unsigned threads);

// Coefficients (natural) -> evaluations on H (natural).
void forward_ntt_natural(const Domain& domain, Fr* values, unsigned threads);
// Evaluations on H (natural) -> coefficients (natural).
void inverse_ntt_natural(const Domain& domain, Fr* values, unsigned threads);

}  // namespace zkbatch::ntt
