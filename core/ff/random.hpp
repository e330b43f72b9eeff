// Uniformly random field elements from a 64-bit generator (e.g. util::SplitMix64).
#pragma once

#include "core/ff/fr.hpp"

#include <cstdint>

namespace zkbatch::ff {

// Draws F::kLimbs 64-bit words, clears the bits above the modulus' length and rejects
// values >= m (for BLS12-381's Fr, bit 255 and about 9% of draws), so the result is
// uniform on [0, m). The accepted words are used directly as the Montgomery
// representation: a uniform representation is a uniform element, and it saves the
// conversion. Consumes kLimbs words per attempt.
template <class F, class Generator>
F uniform_element(Generator& generator) {
    constexpr int kTopBits = F::kModulusBits - 64 * (F::kLimbs - 1);
    constexpr uint64_t kTopMask = kTopBits == 64 ? ~uint64_t{0} : (uint64_t{1} << kTopBits) - 1;
    for (;;) {
        F value;
        for (uint64_t& word : value.limbs) word = generator.next();
        value.limbs[F::kLimbs - 1] &= kTopMask;
        if (F::is_canonical(value.limbs)) return value;
    }
}

// BLS12-381's Fr, the prover's scalars.
template <class Generator>
Fr uniform_fr(Generator& generator) {
    return uniform_element<Fr>(generator);
}

}  // namespace zkbatch::ff
