// The backend-independent check of a quotient: at a random point x outside the
// domain, A(x)*B(x) - C(x) == h(x)*(x^n - 1), with A, B, C evaluated from a, b, c by
// the barycentric formula and h(x) by Horner; and h[n-1] == 0.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/fr.hpp"

#include <cstdint>
#include <string>

namespace zkbatch::verify {

struct IdentityResult {
    bool ok = false;
    std::string detail;  // on failure, which check failed ("h[n-1] != 0", "identity fails at x = 0x...")
};

// x is derived deterministically from x_seed (redrawn while x^n == 1). Uses up to
// `threads` threads; the verdict does not depend on the count. Over either curve's Fr
// (ff::Fr, BLS12-381's, or ff::bn254::Fr), for zkbatch's H convention (the coefficients).
template <class Fr = ff::Fr>
IdentityResult check_quotient(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c, const Fr* h, uint64_t x_seed,
                              unsigned threads = 1);

// The same check with h as backends return it (plugin ABI v3): n elements of 32
// canonical little-endian bytes; a, b, c in Montgomery form. An element >= r fails.
template <class Fr = ff::Fr>
IdentityResult check_quotient_canonical_h(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c,
                                          const uint8_t* h_canonical_le, uint64_t x_seed, unsigned threads = 1);

}  // namespace zkbatch::verify
