// The backend-independent quotient check (core/quotient/identity.hpp).
//
// Barycentric evaluation on H = {omega^i}: for x outside H,
//   A(x) = (x^n - 1)/n * sum_i a_i * omega^i / (x - omega^i),
// so A, B and C share the weights omega^i / (x - omega^i); all n inversions are done
// with one field inversion by Montgomery's batch trick.
#include "core/quotient/identity.hpp"

#include "core/ff/random.hpp"
#include "core/util/parallel.hpp"
#include "core/util/splitmix64.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace zkbatch::verify {

namespace {

constexpr uint64_t kVerifyTag = 0x7a6b622d76657269ULL;  // "zkb-veri"

// The check, with h read through `h_at(i)` (Montgomery in memory, or canonical bytes
// converted per element: the Horner step then costs one more multiplication).
template <class Fr, typename HAt>
IdentityResult check_with(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c, const HAt& h_at, uint64_t x_seed,
                          unsigned threads) {
    if (log_n > Fr::kTwoAdicity) {
        return {false, "log_n = " + std::to_string(log_n) +
                           " exceeds the field's largest domain (log_n <= " + std::to_string(Fr::kTwoAdicity) + ")"};
    }
    const size_t n = size_t{1} << log_n;
    if (const Fr last = h_at(n - 1); !last.is_zero()) {
        return {false, "h[n-1] != 0 (h[" + std::to_string(n - 1) + "] = " + last.to_hex() +
                           "): the quotient has degree n-1, so A*B - C is not divisible by X^n - 1"};
    }

    util::SplitMix64 generator(util::derive_key(kVerifyTag, x_seed));
    Fr x = ff::uniform_element<Fr>(generator);
    while (x.pow(n) == Fr::one()) x = ff::uniform_element<Fr>(generator);  // x in H: redraw
    const Fr vanishing_at_x = x.pow(n) - Fr::one();
    const Fr omega = Fr::root_of_unity(log_n);

    // The sums run over blocks of indices, each with its own batch inversion, so memory
    // stays at a few blocks and the blocks can run on several threads. Field addition is
    // exact, so the result does not depend on how blocks are shared out.
    struct Partial {
        Fr sum_a = Fr::zero(), sum_b = Fr::zero(), sum_c = Fr::zero();
        Fr h_at_x = Fr::zero();  // sum of h_i * x^i over the block
    };
    constexpr size_t kBlock = size_t{1} << 14;
    const size_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<Partial> partials(blocks);
    util::parallel_for(0, blocks, threads, [&](size_t first_block, size_t end_block) {
        std::vector<Fr> powers(std::min(n, kBlock)), differences(powers.size()), prefix(powers.size());
        for (size_t block = first_block; block < end_block; ++block) {
            const size_t begin = block * kBlock, count = std::min(kBlock, n - begin);
            // differences[i] = x - omega^(begin+i); prefix[i] = differences[0] * ... * differences[i].
            Fr omega_power = omega.pow(begin);
            Fr running = Fr::one();
            for (size_t i = 0; i < count; ++i) {
                powers[i] = omega_power;
                differences[i] = x - omega_power;
                running *= differences[i];
                prefix[i] = running;
                omega_power *= omega;
            }
            // Walk back: inverse_of_prefix = (d_0 ... d_i)^-1, so d_i^-1 = inverse_of_prefix * prefix[i-1].
            Fr inverse_of_prefix = running.inverse();
            Partial& partial = partials[block];
            for (size_t i = count; i-- > 0;) {
                const Fr difference_inv = i > 0 ? inverse_of_prefix * prefix[i - 1] : inverse_of_prefix;
                inverse_of_prefix *= differences[i];
                const Fr weight = powers[i] * difference_inv;
                partial.sum_a += a[begin + i] * weight;
                partial.sum_b += b[begin + i] * weight;
                partial.sum_c += c[begin + i] * weight;
                partial.h_at_x = partial.h_at_x * x + h_at(begin + i);  // Horner within the block
            }
            partial.h_at_x *= x.pow(begin);
        }
    });
    Partial total;
    for (const Partial& partial : partials) {
        total.sum_a += partial.sum_a;
        total.sum_b += partial.sum_b;
        total.sum_c += partial.sum_c;
        total.h_at_x += partial.h_at_x;
    }
    const Fr scale = vanishing_at_x * Fr::from_u64(n).inverse();
    const Fr a_x = total.sum_a * scale;
    const Fr b_x = total.sum_b * scale;
    const Fr c_x = total.sum_c * scale;

    if (a_x * b_x - c_x != total.h_at_x * vanishing_at_x) {
        return {false, "identity A(x)*B(x) - C(x) == h(x)*(x^n - 1) fails at x = " + x.to_hex() +
                           " (n = " + std::to_string(n) + "): h is not the quotient of these a, b, c"};
    }
    return {true, ""};
}

}  // namespace

template <class Fr>
IdentityResult check_quotient(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c, const Fr* h, uint64_t x_seed,
                              unsigned threads) {
    return check_with(log_n, a, b, c, [h](size_t i) { return h[i]; }, x_seed, threads);
}

template <class Fr>
IdentityResult check_quotient_canonical_h(uint32_t log_n, const Fr* a, const Fr* b, const Fr* c,
                                          const uint8_t* h_canonical_le, uint64_t x_seed, unsigned threads) {
    // A value >= r is no field element: remember the first one and fail after the sums.
    std::atomic<size_t> first_bad{SIZE_MAX};
    const auto h_at = [&](size_t i) {
        Fr value;
        if (!Fr::try_from_canonical_le_bytes(h_canonical_le + 32 * i, value)) {
            size_t expected = first_bad.load();
            while (i < expected && !first_bad.compare_exchange_weak(expected, i)) {
            }
            return Fr::zero();
        }
        return value;
    };
    IdentityResult result = check_with(log_n, a, b, c, h_at, x_seed, threads);
    if (const size_t bad = first_bad.load(); bad != SIZE_MAX) {
        return {false, "h[" + std::to_string(bad) + "] is not a canonical field element (its 32 "
                       "little-endian bytes encode a value >= r): the backend did not return h "
                       "in canonical form (ABI v3)"};
    }
    return result;
}

#define ZKB_IDENTITY_INSTANTIATE(Fr)                                                                                  \
    template IdentityResult check_quotient(uint32_t, const Fr*, const Fr*, const Fr*, const Fr*, uint64_t, unsigned); \
    template IdentityResult check_quotient_canonical_h(uint32_t, const Fr*, const Fr*, const Fr*, const uint8_t*,     \
                                                       uint64_t, unsigned);
ZKB_IDENTITY_INSTANTIATE(ff::Fr)
ZKB_IDENTITY_INSTANTIATE(ff::bn254::Fr)
#undef ZKB_IDENTITY_INSTANTIATE

}  // namespace zkbatch::verify
