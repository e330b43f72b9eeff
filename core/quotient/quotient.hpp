// The quotient computation on the CPU (docs/architecture.md#the-quotient):
// h = (A*B - C) / (X^n - 1), from a, b, c given as evaluations on the domain of size
// n = 2^log_n in natural order; h is written as n coefficients in natural order
// (h[n-1] = 0 for a satisfied circuit). 3 inverse NTTs, 3 coset forward NTTs,
// the pointwise step with (g^n - 1)^-1, one coset inverse NTT. Montgomery form.
// Written over the scalar field Fr (ntt.hpp's domains of it); instantiated in
// quotient.cpp for BLS12-381's and BN254's.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fr.hpp"

#include <cstdint>

namespace zkbatch::prove {

// `scratch` must hold 2*n elements; a, b, c are not modified. Uses up to `threads`
// threads (1 = the calling thread only). The result does not depend on `threads`.
template <class Fr>
void compute_quotient_cpu(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c, Fr* h, Fr* scratch, unsigned threads);

// snarkjs's variant, for a .zkey's H-query (docs/formats.md#how-snarkjs-computes-its-proof):
// a, b, c are evaluations on snarkjs's domain (ntt::Roots::snarkjs, natural
// order); `out` receives A*B - C at the odd points omega'_2n^(2j+1) of the size-2n
// domain, j = 0..n-1 in natural order: 3 inverse NTTs, 3 NTTs on that coset, the
// pointwise step, and no division and no final inverse NTT (the key absorbs both).
template <class Fr>
void compute_odd_coset_quotient_cpu(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c, Fr* out, Fr* scratch,
                                    unsigned threads);

}  // namespace zkbatch::prove
