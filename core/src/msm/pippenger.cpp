// Pippenger's MSM (pippenger.hpp).
#include <zkbatch/msm/pippenger.hpp>
#include <zkbatch/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <vector>

namespace zkbatch::msm {

namespace {

constexpr unsigned kMaxWindowBits = 16;  // digits fit int16_t
// Ones are summed in chunks of this many points, one task each.
constexpr size_t kOnesChunk = size_t{1} << 14;

// Windows for c-bit signed digits of scalars < 2^255: with c * windows >= 257 the top
// window's value plus an incoming carry stays below 2^(c-1), so no carry leaves it.
unsigned window_count(unsigned bits) { return (257 + bits - 1) / bits; }

bool is_zero(const Scalar& s) { return (s.limbs[0] | s.limbs[1] | s.limbs[2] | s.limbs[3]) == 0; }
bool is_one(const Scalar& s) { return s.limbs[0] == 1 && (s.limbs[1] | s.limbs[2] | s.limbs[3]) == 0; }

// Signed digits of one scalar: digit_w in [-2^(c-1), 2^(c-1)), sum digit_w 2^(c w) = s.
// Written to digits[w * stride + index].
void signed_digits(const Scalar& s, unsigned bits, unsigned windows, int16_t* digits, size_t stride) {
    const int32_t half = int32_t{1} << (bits - 1);
    const int32_t full = int32_t{1} << bits;
    int32_t carry = 0;
    for (unsigned w = 0; w < windows; ++w) {
        int32_t value = static_cast<int32_t>(ec::scalar_window(s.limbs, w * bits, bits)) + carry;
        carry = value >= half ? 1 : 0;
        value -= carry * full;
        digits[w * stride] = static_cast<int16_t>(value);
    }
}

// One window: every point into its digit's bucket, then sum_k k * bucket_k by running
// sums from the top bucket down (2 additions per bucket).
template <class C>
ec::Xyzz<C> window_sum(const ec::Affine<C>* bases, const size_t* indices, const int16_t* digits, size_t count,
                       unsigned bits) {
    std::vector<ec::Xyzz<C>> buckets(size_t{1} << (bits - 1), ec::Xyzz<C>::infinity());
    for (size_t j = 0; j < count; ++j) {
        const int32_t digit = digits[j];
        if (digit > 0) {
            buckets[digit - 1] = ec::xyzz_add_mixed(buckets[digit - 1], bases[indices[j]]);
        } else if (digit < 0) {
            buckets[-digit - 1] = ec::xyzz_add_mixed(buckets[-digit - 1], -bases[indices[j]]);
        }
    }
    ec::Xyzz<C> running = ec::Xyzz<C>::infinity();
    ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
    for (size_t k = buckets.size(); k-- > 0;) {
        running = ec::xyzz_add(running, buckets[k]);
        sum = ec::xyzz_add(sum, running);
    }
    return sum;
}

template <class C>
ec::Xyzz<C> sum_of(const ec::Affine<C>* bases, const size_t* indices, size_t count) {
    ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
    for (size_t j = 0; j < count; ++j) sum = ec::xyzz_add_mixed(sum, bases[indices[j]]);
    return sum;
}

}  // namespace

unsigned pippenger_window_bits(size_t n) {
    // Cost per window: n mixed additions (8M + 2S) and 2^(c-1) buckets of two full
    // additions (12M + 2S) each, weighted 10 : 14 by their products.
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned bits = 1; bits <= kMaxWindowBits; ++bits) {
        const double per_window = 10.0 * double(n) + 14.0 * double(size_t{1} << bits);
        const double cost = double(window_count(bits)) * per_window;
        if (bits == 1 || cost < best_cost) {
            best = bits;
            best_cost = cost;
        }
    }
    return best;
}

template <class C>
ec::Jacobian<C> pippenger(const ec::Affine<C>* bases, const Scalar* scalars, size_t n, unsigned threads) {
    std::vector<size_t> ones;
    std::vector<size_t> full;
    for (size_t i = 0; i < n; ++i) {
        if (is_zero(scalars[i]) || bases[i].is_infinity()) continue;
        (is_one(scalars[i]) ? ones : full).push_back(i);
    }

    const unsigned bits = pippenger_window_bits(full.size());
    const unsigned windows = full.empty() ? 0 : window_count(bits);
    std::vector<int16_t> digits(size_t{windows} * full.size());  // [window][point]
    util::parallel_for(0, full.size(), threads, [&](size_t first, size_t last) {
        for (size_t j = first; j < last; ++j) {
            signed_digits(scalars[full[j]], bits, windows, digits.data() + j, full.size());
        }
    });

    // Tasks 0..windows-1 are the windows, the rest chunks of the ones.
    const size_t one_chunks = (ones.size() + kOnesChunk - 1) / kOnesChunk;
    const size_t tasks = windows + one_chunks;
    std::vector<ec::Xyzz<C>> results(tasks, ec::Xyzz<C>::infinity());
    std::atomic<size_t> next_task{0};
    const unsigned workers = static_cast<unsigned>(std::min<size_t>(std::max(1u, threads), tasks));
    util::parallel_for(0, workers, workers, [&](size_t, size_t) {
        for (size_t task; (task = next_task.fetch_add(1)) < tasks;) {
            if (task < windows) {
                results[task] = window_sum(bases, full.data(), digits.data() + task * full.size(), full.size(), bits);
            } else {
                const size_t begin = (task - windows) * kOnesChunk;
                const size_t count = std::min(kOnesChunk, ones.size() - begin);
                results[task] = sum_of(bases, ones.data() + begin, count);
            }
        }
    });

    // sum_w 2^(c w) S_w by Horner from the top window, then the ones.
    ec::Jacobian<C> total = ec::Jacobian<C>::infinity();
    for (size_t w = windows; w-- > 0;) {
        for (unsigned i = 0; i < bits; ++i) total = ec::dbl(total);
        total = ec::add(total, results[w].to_jacobian());
    }
    for (size_t task = windows; task < tasks; ++task) total = ec::add(total, results[task].to_jacobian());
    return total;
}

template ec::G1 pippenger<ec::G1Params>(const ec::G1Affine*, const Scalar*, size_t, unsigned);
template ec::G2 pippenger<ec::G2Params>(const ec::G2Affine*, const Scalar*, size_t, unsigned);

}  // namespace zkbatch::msm
