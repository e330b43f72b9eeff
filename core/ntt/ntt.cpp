// Radix-2 in-place NTTs; see core/ntt/ntt.hpp for the orders.
#include "core/ntt/ntt.hpp"

#include "core/util/parallel.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace zkbatch::ntt {

namespace {

// Below this size a stage is a few microseconds of work, less than starting a thread.
constexpr size_t kMinParallelSize = size_t{1} << 12;

unsigned threads_for(size_t n, unsigned threads) { return n >= kMinParallelSize ? threads : 1; }

// Visits butterflies [first, last) of one stage, numbered k = block * span + j: the pair
// (block * 2 * span + j, block * 2 * span + j + span) with twiddle index j.
template <class Fr, class Butterfly>
void for_each_butterfly(Fr* values, size_t span, size_t first, size_t last, Butterfly&& butterfly) {
    size_t k = first;
    while (k < last) {
        const size_t block = k / span;
        const size_t j_begin = k % span;
        const size_t j_end = std::min(span, j_begin + (last - k));
        Fr* low = values + block * 2 * span;
        Fr* high = low + span;
        for (size_t j = j_begin; j < j_end; ++j) butterfly(low[j], high[j], j);
        k += j_end - j_begin;
    }
}

// Butterflies [first, last) of the stage of span 1, where every twiddle is w^0 = 1 and
// both directions' butterflies are the same sum and difference.
template <class Fr>
void span_one_stage(Fr* values, size_t first, size_t last) {
    for_each_butterfly(values, 1, first, last, [](Fr& low, Fr& high, size_t) {
        const Fr sum = low + high;
        high = low - high;
        low = sum;
    });
}

// Gentleman-Sande (decimation in frequency): natural in, bit-reversed out, no 1/n.
// `twiddles` holds w^k for k < n/2 where w is the transform's root.
template <class Fr>
void dif_stages(Fr* values, uint32_t log_n, const Fr* twiddles, unsigned threads) {
    const size_t half_n = (size_t{1} << log_n) / 2;
    threads = threads_for(2 * half_n, threads);
    for (size_t span = half_n; span >= 1; span /= 2) {
        const size_t twiddle_stride = half_n / span;
        util::parallel_for(0, half_n, threads, [&](size_t first, size_t last) {
            if (span == 1) return span_one_stage(values, first, last);
            for_each_butterfly(values, span, first, last, [&](Fr& low, Fr& high, size_t j) {
                const Fr sum = low + high;
                high = (low - high) * twiddles[j * twiddle_stride];
                low = sum;
            });
        });
    }
}

// Cooley-Tukey (decimation in time): bit-reversed in, natural out.
template <class Fr>
void dit_stages(Fr* values, uint32_t log_n, const Fr* twiddles, unsigned threads) {
    const size_t n = size_t{1} << log_n;
    const size_t half_n = n / 2;
    threads = threads_for(n, threads);
    for (size_t span = 1; span < n; span *= 2) {
        const size_t twiddle_stride = half_n / span;
        util::parallel_for(0, half_n, threads, [&](size_t first, size_t last) {
            if (span == 1) return span_one_stage(values, first, last);
            for_each_butterfly(values, span, first, last, [&](Fr& low, Fr& high, size_t j) {
                const Fr product = high * twiddles[j * twiddle_stride];
                high = low - product;
                low = low + product;
            });
        });
    }
}

template <class ElementFn>
void for_each_element(size_t n, unsigned threads, ElementFn&& fn) {
    util::parallel_for(0, n, threads_for(n, threads), [&](size_t first, size_t last) {
        for (size_t i = first; i < last; ++i) fn(i);
    });
}

// powers[k] = base^k for k < count.
template <class Fr>
std::vector<Fr> powers_of(const Fr& base, size_t count) {
    std::vector<Fr> powers(count);
    Fr power = Fr::one();
    for (size_t k = 0; k < count; ++k) {
        powers[k] = power;
        power *= base;
    }
    return powers;
}

// ffjavascript's primitive 2^s-th root q^((r-1)/2^s), q = 5 its first non-residue
// (Roots::snarkjs). BLS12-381's generator is 7, so its ROOT' differs from ROOT, canonical:
// 0x212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f. BN254's generator is
// 5 itself, so ROOT' is its ROOT (ff/bn254.hpp: ffjavascript's Fr.w[28]).
template <class Fr>
Fr snarkjs_max_root() {
    if constexpr (std::is_same_v<Fr, ff::bls12_381::Fr>) {
        return Fr::from_hex("0x212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f");
    } else {
        static_assert(std::is_same_v<Fr, ff::bn254::Fr>, "a new field: give ffjavascript's ROOT' here");
        return Fr::max_root_of_unity();
    }
}

}  // namespace

template <class Fr>
Fr root_of_unity(Roots roots, uint32_t log_n) {
    if (log_n > Fr::kTwoAdicity) {
        throw std::invalid_argument("no root of unity of order 2^" + std::to_string(log_n) +
                                    " in a field of 2-adicity " + std::to_string(Fr::kTwoAdicity));
    }
    if (roots == Roots::zkbatch) return Fr::root_of_unity(log_n);
    Fr root = snarkjs_max_root<Fr>();
    for (uint32_t i = log_n; i < Fr::kTwoAdicity; ++i) root = root.sqr();
    return root;
}

template <class Fr>
Fr coset_shift(Roots roots, uint32_t log_n) {
    return roots == Roots::zkbatch ? Fr::coset_shift() : root_of_unity<Fr>(roots, log_n + 1);
}

namespace generic {

template <class Fr>
Domain<Fr>::Domain(uint32_t log_n, Roots roots)
    : log_n_(log_n),
      low_bits_(log_n / 2),
      low_mask_((size_t{1} << (log_n / 2)) - 1),
      omega_(root_of_unity<Fr>(roots, log_n)),
      omega_inv_(omega_.inverse()),
      size_inv_(Fr::from_u64(uint64_t{1} << log_n).inverse()),
      coset_shift_(ntt::coset_shift<Fr>(roots, log_n)),
      coset_shift_inv_(coset_shift_.inverse()) {
    const size_t n = size_t{1} << log_n;
    twiddles_ = powers_of(omega_, n / 2);
    inverse_twiddles_ = powers_of(omega_inv_, n / 2);

    // Position p = (high << low_bits) | low has bitrev(p) =
    // (bitrev_low_bits(low) << high_bits) | bitrev_high_bits(high).
    const uint32_t high_bits = log_n - low_bits_;
    const size_t low_count = size_t{1} << low_bits_;
    const size_t high_count = size_t{1} << high_bits;
    const std::vector<Fr> g_powers = powers_of(coset_shift_, high_count);
    const std::vector<Fr> g_inv_powers = powers_of(coset_shift_inv_, high_count);
    const std::vector<Fr> g_step_powers = powers_of(coset_shift_.pow(uint64_t{1} << high_bits), low_count);
    const std::vector<Fr> g_inv_step_powers = powers_of(coset_shift_inv_.pow(uint64_t{1} << high_bits), low_count);
    coset_high_.resize(high_count);
    coset_inv_high_.resize(high_count);
    for (size_t high = 0; high < high_count; ++high) {
        const size_t exponent = bit_reverse_index(high, high_bits);
        coset_high_[high] = g_powers[exponent];
        coset_inv_high_[high] = g_inv_powers[exponent] * size_inv_;
    }
    coset_low_.resize(low_count);
    coset_inv_low_.resize(low_count);
    for (size_t low = 0; low < low_count; ++low) {
        const size_t exponent = bit_reverse_index(low, low_bits_);
        coset_low_[low] = g_step_powers[exponent];
        coset_inv_low_[low] = g_inv_step_powers[exponent];
    }
}

template <class Fr>
const Domain<Fr>& Domain<Fr>::get(uint32_t log_n, Roots roots) {
    if (const uint32_t largest = max_log_n<Fr>(roots); log_n > largest) {
        throw std::invalid_argument("NTT domain of 2^" + std::to_string(log_n) +
                                    " elements requested; the largest supported is 2^" +
                                    std::to_string(largest) + " (log_n <= " + std::to_string(largest) + ")");
    }
    static std::mutex mutex;
    static std::array<std::array<std::unique_ptr<const Domain>, kMaxLogN + 1>, 2> domains;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& domain = domains[roots == Roots::zkbatch ? 0 : 1][log_n];
    if (!domain) domain.reset(new Domain(log_n, roots));
    return *domain;
}

template class Domain<ff::bls12_381::Fr>;
template class Domain<ff::bn254::Fr>;

}  // namespace generic

template <class Fr>
void bit_reverse(Fr* values, uint32_t log_n, unsigned threads) {
    const size_t n = size_t{1} << log_n;
    // Each pair {i, bitrev(i)} is swapped by whichever chunk owns the smaller index,
    // so chunks never touch the same pair.
    for_each_element(n, threads, [&](size_t i) {
        const size_t j = bit_reverse_index(i, log_n);
        if (i < j) std::swap(values[i], values[j]);
    });
}

template <class Fr>
void inverse_ntt_natural_to_bitrev(const generic::Domain<Fr>& domain, Fr* values, unsigned threads) {
    dif_stages(values, domain.log_n(), domain.inverse_twiddles(), threads);
    const Fr size_inv = domain.size_inv();
    for_each_element(domain.size(), threads, [&](size_t i) { values[i] *= size_inv; });
}

template <class Fr>
void forward_ntt_bitrev_to_natural(const generic::Domain<Fr>& domain, Fr* values, unsigned threads) {
    dit_stages(values, domain.log_n(), domain.twiddles(), threads);
}

template <class Fr>
void coset_forward_ntt_bitrev_to_natural(const generic::Domain<Fr>& domain, Fr* values, unsigned threads) {
    for_each_element(domain.size(), threads, [&](size_t p) { values[p] *= domain.coset_scale_bitrev(p); });
    dit_stages(values, domain.log_n(), domain.twiddles(), threads);
}

template <class Fr>
void coset_inverse_ntt_natural(const generic::Domain<Fr>& domain, Fr* values, unsigned threads) {
    dif_stages(values, domain.log_n(), domain.inverse_twiddles(), threads);
    for_each_element(domain.size(), threads, [&](size_t p) { values[p] *= domain.coset_unscale_bitrev(p); });
    bit_reverse(values, domain.log_n(), threads);
}

template <class Fr>
void forward_ntt_natural(const generic::Domain<Fr>& domain, Fr* values, unsigned threads) {
    bit_reverse(values, domain.log_n(), threads);
    forward_ntt_bitrev_to_natural(domain, values, threads);
}

template <class Fr>
void inverse_ntt_natural(const generic::Domain<Fr>& domain, Fr* values, unsigned threads) {
    inverse_ntt_natural_to_bitrev(domain, values, threads);
    bit_reverse(values, domain.log_n(), threads);
}

// Each transform for both curves' Fr.
#define ZKB_NTT_INSTANTIATE(Fr)                                                                       \
    template Fr root_of_unity<Fr>(Roots, uint32_t);                                                   \
    template Fr coset_shift<Fr>(Roots, uint32_t);                                                     \
    template void bit_reverse<Fr>(Fr*, uint32_t, unsigned);                                           \
    template void inverse_ntt_natural_to_bitrev<Fr>(const generic::Domain<Fr>&, Fr*, unsigned);       \
    template void forward_ntt_bitrev_to_natural<Fr>(const generic::Domain<Fr>&, Fr*, unsigned);       \
    template void coset_forward_ntt_bitrev_to_natural<Fr>(const generic::Domain<Fr>&, Fr*, unsigned); \
    template void coset_inverse_ntt_natural<Fr>(const generic::Domain<Fr>&, Fr*, unsigned);           \
    template void forward_ntt_natural<Fr>(const generic::Domain<Fr>&, Fr*, unsigned);                 \
    template void inverse_ntt_natural<Fr>(const generic::Domain<Fr>&, Fr*, unsigned);
ZKB_NTT_INSTANTIATE(ff::bls12_381::Fr)
ZKB_NTT_INSTANTIATE(ff::bn254::Fr)
#undef ZKB_NTT_INSTANTIATE

}  // namespace zkbatch::ntt
