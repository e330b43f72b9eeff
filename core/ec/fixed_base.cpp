// fixed_base_mul: many scalars times one base (key generation), through a table of the
// base's window multiples.
#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/util/parallel.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace zkbatch::ec {

namespace {

constexpr unsigned kScalarBits = 255;  // r < 2^255 (BLS12-381's; BN254's r < 2^254)
constexpr unsigned kMaxWindowBits = 12;  // a 22 x 4096-point table: 17 MiB for G2
// Points converted to affine per batch inversion.
constexpr size_t kBatch = 1024;

}  // namespace

unsigned fixed_base_windows(unsigned bits) { return (kScalarBits + bits - 1) / bits; }

template <class C>
std::vector<Affine<C>> fixed_base_table(const Affine<C>& base, unsigned bits, unsigned threads) {
    if (bits < 1 || bits > 16) throw std::invalid_argument("fixed_base_table: window bits must be 1..16");
    const unsigned windows = fixed_base_windows(bits);
    const size_t row = size_t{1} << bits;
    // The windows' first entries, [2^(w bits)] base, by doubling.
    std::vector<Jacobian<C>> starts(windows);
    starts[0] = Jacobian<C>::from_affine(base);
    for (unsigned w = 1; w < windows; ++w) {
        starts[w] = starts[w - 1];
        for (unsigned i = 0; i < bits; ++i) starts[w] = dbl(starts[w]);
    }
    std::vector<Affine<C>> start_affine(windows);
    batch_to_affine(starts.data(), start_affine.data(), windows);

    std::vector<Affine<C>> table(windows * row);
    util::parallel_for(0, windows, threads, [&](size_t first, size_t last) {
        std::vector<Jacobian<C>> multiples(row);
        for (size_t w = first; w < last; ++w) {
            multiples[0] = Jacobian<C>::infinity();
            for (size_t d = 1; d < row; ++d) multiples[d] = add_mixed(multiples[d - 1], start_affine[w]);
            batch_to_affine(multiples.data(), table.data() + w * row, row);
        }
    });
    return table;
}

template std::vector<G1Affine> fixed_base_table<G1Params>(const G1Affine&, unsigned, unsigned);
template std::vector<G2Affine> fixed_base_table<G2Params>(const G2Affine&, unsigned, unsigned);

unsigned fixed_base_window_bits(size_t n) {
    // Cost in mixed additions: each of the ceil(255/w) windows has a table row of 2^w
    // entries and costs every point one addition.
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned bits = 1; bits <= kMaxWindowBits; ++bits) {
        const double cost = double(fixed_base_windows(bits)) * (double(n) + double(size_t{1} << bits));
        if (bits == 1 || cost < best_cost) {
            best = bits;
            best_cost = cost;
        }
    }
    return best;
}

template <class C>
void fixed_base_mul(const Affine<C>& base, const typename C::Scalar* scalars, size_t n, Affine<C>* out,
                    unsigned threads) {
    if (n == 0) return;
    if (base.is_infinity()) {
        std::fill(out, out + n, Affine<C>::infinity());
        return;
    }
    const unsigned bits = fixed_base_window_bits(n);
    const unsigned windows = fixed_base_windows(bits);
    const size_t row = size_t{1} << bits;
    const std::vector<Affine<C>> table = fixed_base_table(base, bits, threads);

    const size_t batches = (n + kBatch - 1) / kBatch;
    util::parallel_for(0, batches, threads, [&](size_t first_batch, size_t last_batch) {
        std::vector<Jacobian<C>> results(kBatch);
        for (size_t batch = first_batch; batch < last_batch; ++batch) {
            const size_t begin = batch * kBatch;
            const size_t count = std::min(kBatch, n - begin);
            for (size_t i = 0; i < count; ++i) {
                uint64_t scalar[4];
                scalars[begin + i].to_canonical(scalar);
                Jacobian<C> sum = Jacobian<C>::infinity();
                for (unsigned w = 0; w < windows; ++w) {
                    const uint32_t digit = scalar_window(scalar, w * bits, bits);
                    if (digit != 0) sum = add_mixed(sum, table[w * row + digit]);
                }
                results[i] = sum;
            }
            batch_to_affine(results.data(), out + begin, count);
        }
    });
}

template void fixed_base_mul<G1Params>(const G1Affine&, const ff::Fr*, size_t, G1Affine*, unsigned);
template void fixed_base_mul<G2Params>(const G2Affine&, const ff::Fr*, size_t, G2Affine*, unsigned);
template void fixed_base_mul<bn254::G1Params>(const bn254::G1Affine&, const ff::bn254::Fr*, size_t, bn254::G1Affine*,
                                              unsigned);
template void fixed_base_mul<bn254::G2Params>(const bn254::G2Affine&, const ff::bn254::Fr*, size_t, bn254::G2Affine*,
                                              unsigned);

}  // namespace zkbatch::ec
