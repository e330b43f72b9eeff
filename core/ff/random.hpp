// Uniformly random field elements from a 64-bit generator (e.g. util::SplitMix64).
#pragma once

#include "core/ff/fr.hpp"

#include <cstdint>

namespace zkbatch::ff {

// Draws four 64-bit words, clears bit 255 and rejects values >= r (about 9% of
// draws), so the result is uniform on [0, r). The accepted words are used directly as
// the Montgomery representation: a uniform representation is a uniform element, and
// it saves the conversion. Consumes 4 words per attempt.
template <class Generator>
Fr uniform_fr(Generator& generator) {
    for (;;) {
        uint64_t words[4];
        for (uint64_t& word : words) word = generator.next();
        words[3] &= 0x7fffffffffffffffULL;
        if (Fr::is_canonical(words)) return Fr{{words[0], words[1], words[2], words[3]}};
    }
}

}  // namespace zkbatch::ff
