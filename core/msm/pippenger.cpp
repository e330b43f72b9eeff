// Pippenger's MSM (pippenger.hpp).
#include "core/msm/pippenger.hpp"
#include "core/ff/batch_inverse.hpp"
#include "core/msm/lane_buckets.hpp"
#include "core/util/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <type_traits>
#include <vector>

namespace zkbatch::msm {

namespace {

constexpr unsigned kMaxWindowBits = 16;  // digits fit int16_t
// Ones are summed in chunks of this many points, one task each.
constexpr size_t kOnesChunk = size_t{1} << 14;

// Windows for c-bit signed digits of scalars below 2^b (b = 255 for BLS12-381, 254 for
// BN254): with c * windows >= b + 2 the top window's value plus an incoming carry stays
// below 2^(c-1), so no carry leaves it.
template <class C>
unsigned window_count(unsigned bits) {
    constexpr unsigned kDigitBits = C::Scalar::kModulusBits + 2;
    return (kDigitBits + bits - 1) / bits;
}

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

// Buckets kept in affine form and filled by rounds of affine additions that share one
// inversion (ff::batch_inverse): 5M + 1S per addition against XYZZ's 8M + 2S, worth it
// once a window has enough points to amortize an inversion per round.
//
// A chunk of points is sorted by bucket (counting sort, each bucket's current value
// first), then every bucket's run is added up pairwise, all runs at once, halving them
// each round until one point (or none: P + (-P)) is left.
template <class C>
class AffineBuckets {
public:
    using Field = typename C::Field;
    using BaseField = typename ff::BaseFieldOf<Field>::type;

    explicit AffineBuckets(size_t bucket_count)
        : buckets_(bucket_count, ec::Affine<C>::infinity()), start_(bucket_count), length_(bucket_count) {}

    // Adds bases[indices[j]] times the sign of digits[j] to bucket |digits[j]| - 1 (a
    // null `digits` means +1 each, into bucket 0).
    void add_chunk(const ec::Affine<C>* bases, const size_t* indices, const int16_t* digits, size_t count) {
        const size_t bucket_count = buckets_.size();
        for (size_t k = 0; k < bucket_count; ++k) length_[k] = buckets_[k].is_infinity() ? 0 : 1;
        for (size_t j = 0; j < count; ++j) {
            const int32_t digit = digits ? digits[j] : 1;
            if (digit != 0) ++length_[(digit > 0 ? digit : -digit) - 1];
        }
        uint32_t total = 0;
        for (size_t k = 0; k < bucket_count; ++k) {
            start_[k] = total;
            total += length_[k];
        }
        scratch_.resize(total);
        for (size_t k = 0; k < bucket_count; ++k) {
            length_[k] = 0;  // now the fill cursor
            if (!buckets_[k].is_infinity()) scratch_[start_[k] + length_[k]++] = buckets_[k];
        }
        for (size_t j = 0; j < count; ++j) {
            const int32_t digit = digits ? digits[j] : 1;
            if (digit == 0) continue;
            const size_t k = static_cast<size_t>((digit > 0 ? digit : -digit) - 1);
            const ec::Affine<C>& base = bases[indices[j]];
            scratch_[start_[k] + length_[k]++] = digit > 0 ? base : -base;
        }
        reduce_runs();
        for (size_t k = 0; k < bucket_count; ++k) {
            buckets_[k] = length_[k] != 0 ? scratch_[start_[k]] : ec::Affine<C>::infinity();
        }
    }

    const std::vector<ec::Affine<C>>& buckets() const { return buckets_; }

private:
    void reduce_runs() {
        const size_t bucket_count = buckets_.size();
        for (;;) {
            // Denominators of every pair's slope: x2 - x1, or 2y for a doubling; a pair
            // P, -P needs none (1 keeps the batch free of zeros).
            denominators_.clear();
            for (size_t k = 0; k < bucket_count; ++k) {
                const ec::Affine<C>* run = scratch_.data() + start_[k];
                for (uint32_t j = 0; j + 1 < length_[k]; j += 2) {
                    const ec::Affine<C>& a = run[j];
                    const ec::Affine<C>& b = run[j + 1];
                    denominators_.push_back(a.x != b.x ? b.x - a.x : (a.y == b.y ? a.y.dbl() : Field::one()));
                }
            }
            if (denominators_.empty()) return;
            if constexpr (std::is_same_v<Field, BaseField>) {
                ff::batch_inverse(denominators_.data(), denominators_.size(), prefix_);
            } else {
                ff::batch_inverse(denominators_.data(), denominators_.size(), norms_, prefix_);
            }
            size_t pair = 0;
            for (size_t k = 0; k < bucket_count; ++k) {
                if (length_[k] < 2) continue;
                ec::Affine<C>* run = scratch_.data() + start_[k];
                uint32_t out = 0;  // sums go to the front of the run; out <= j / 2
                for (uint32_t j = 0; j + 1 < length_[k]; j += 2) {
                    const ec::Affine<C> a = run[j];
                    const ec::Affine<C> b = run[j + 1];
                    const Field& inverse = denominators_[pair++];
                    Field slope;
                    if (a.x != b.x) {
                        slope = (b.y - a.y) * inverse;
                    } else if (a.y == b.y) {
                        const Field x2 = a.x.sqr();
                        slope = (x2.dbl() + x2) * inverse;
                    } else {
                        continue;  // a + (-a) = infinity: the run loses both
                    }
                    const Field x3 = slope.sqr() - a.x - b.x;
                    run[out++] = ec::Affine<C>{x3, slope * (a.x - x3) - a.y};
                }
                if (length_[k] & 1) run[out++] = run[length_[k] - 1];
                length_[k] = out;
            }
        }
    }

    std::vector<ec::Affine<C>> buckets_;  // infinity = empty
    std::vector<uint32_t> start_, length_;
    std::vector<ec::Affine<C>> scratch_;  // one chunk's runs
    std::vector<Field> denominators_;
    std::vector<BaseField> norms_, prefix_;  // batch_inverse's scratch
};

// Windows and ones sums with at least this many points use AffineBuckets; below it an
// inversion per round costs more than the products it saves. Measured (single thread,
// CPU time, this 2-core EPYC): XYZZ buckets win up to 2^8 points (G1 7.6 against
// 9.0 ms), break even at 2^9 (13.1 ms both), and lose from 2^10 (G1 25.0 against
// 18.4 ms, G2 70.0 against 51.3 ms) to 2^13 (G1 147 against 83 ms).
constexpr size_t kAffineMinimum = size_t{1} << 9;

// Points per AffineBuckets chunk: bounds its scratch memory, and keeps the extra
// addition per bucket per chunk (its carried value) under 1/8 of the work.
size_t affine_chunk(unsigned bits) { return std::max(size_t{1} << 16, size_t{1} << (bits + 2)); }

// sum_k (k + 1) * bucket_k by running sums from the top bucket down (2 additions per
// bucket).
template <class C, class Bucket>
ec::Xyzz<C> weighted_bucket_sum(const std::vector<Bucket>& buckets) {
    ec::Xyzz<C> running = ec::Xyzz<C>::infinity();
    ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
    for (size_t k = buckets.size(); k-- > 0;) {
        if constexpr (std::is_same_v<Bucket, ec::Affine<C>>) {
            running = ec::xyzz_add_mixed(running, buckets[k]);
        } else {
            running = ec::xyzz_add(running, buckets[k]);
        }
        sum = ec::xyzz_add(sum, running);
    }
    return sum;
}

// One window: every point into its digit's bucket, then the weighted bucket sum.
template <class C>
ec::Xyzz<C> window_sum(const ec::Affine<C>* bases, const size_t* indices, const int16_t* digits, size_t count,
                       unsigned bits) {
    const size_t bucket_count = size_t{1} << (bits - 1);
    if (count >= kAffineMinimum) {
        AffineBuckets<C> buckets(bucket_count);
        const size_t chunk = affine_chunk(bits);
        for (size_t begin = 0; begin < count; begin += chunk) {
            buckets.add_chunk(bases, indices + begin, digits + begin, std::min(chunk, count - begin));
        }
        return weighted_bucket_sum<C>(buckets.buckets());
    }
    std::vector<ec::Xyzz<C>> buckets(bucket_count, ec::Xyzz<C>::infinity());
    for (size_t j = 0; j < count; ++j) {
        const int32_t digit = digits[j];
        if (digit > 0) {
            buckets[digit - 1] = ec::xyzz_add_mixed(buckets[digit - 1], bases[indices[j]]);
        } else if (digit < 0) {
            buckets[-digit - 1] = ec::xyzz_add_mixed(buckets[-digit - 1], -bases[indices[j]]);
        }
    }
    return weighted_bucket_sum<C>(buckets);
}

// Points converted to radix 2^52 at a time by windows_on_lanes: at most 2^20 x 256 bytes
// (BLS12-381's G2), where converting a 2^27-point B2 whole would take 34 GB.
constexpr size_t kLanePiece = size_t{1} << 20;

// Every window of at least kAffineMinimum points on AVX-512 IFMA lanes (LaneBuckets), into
// sums[0..windows): the bases a piece at a time, each piece added into every window's
// buckets, the windows run by up to `threads` threads.
template <class C>
void windows_on_lanes(const ec::Affine<C>* bases, const std::vector<size_t>& full, const int16_t* digits, unsigned bits,
                      unsigned windows, unsigned threads, ec::Xyzz<C>* sums) {
    const size_t chunk = affine_chunk(bits);
    const size_t piece = (kLanePiece + chunk - 1) / chunk * chunk;
    std::vector<LaneBuckets<C>> buckets;
    buckets.reserve(windows);
    for (unsigned w = 0; w < windows; ++w) buckets.emplace_back(size_t{1} << (bits - 1));
    for (size_t first = 0; first < full.size(); first += piece) {
        const size_t count = std::min(piece, full.size() - first);
        const LanePoints<C> points(bases, full.data() + first, count, threads);
        util::parallel_for(0, windows, threads, [&](size_t first_window, size_t last_window) {
            for (size_t w = first_window; w < last_window; ++w) {
                const int16_t* window_digits = digits + w * full.size() + first;
                for (size_t begin = 0; begin < count; begin += chunk) {
                    buckets[w].add_chunk(points, begin, window_digits + begin, std::min(chunk, count - begin));
                }
                buckets[w].release_scratch();
            }
        });
    }
    util::parallel_for(0, windows, threads, [&](size_t first_window, size_t last_window) {
        for (size_t w = first_window; w < last_window; ++w) sums[w] = weighted_bucket_sum<C>(buckets[w].buckets());
    });
}

// sum_j bases[indices[j]], on lanes where `lanes` says so.
template <class C>
ec::Xyzz<C> sum_of(const ec::Affine<C>* bases, const size_t* indices, size_t count, bool lanes) {
    if (count >= kAffineMinimum) {
        if (lanes) {
            const LanePoints<C> points(bases, indices, count, 1);
            LaneBuckets<C> bucket(1);
            bucket.add_chunk(points, 0, nullptr, count);
            return ec::Xyzz<C>::from_affine(bucket.buckets()[0]);
        }
        AffineBuckets<C> bucket(1);
        bucket.add_chunk(bases, indices, nullptr, count);
        return ec::Xyzz<C>::from_affine(bucket.buckets()[0]);
    }
    ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
    for (size_t j = 0; j < count; ++j) sum = ec::xyzz_add_mixed(sum, bases[indices[j]]);
    return sum;
}

}  // namespace

// The window width minimizing the cost for scalars of BLS12-381's 255 bits; BN254's
// 254 change no choice of it that matters.
unsigned pippenger_window_bits(size_t n) {
    // Cost per window in field products: n bucket additions (affine 6, XYZZ mixed 10)
    // and 2^(c-1) buckets of two additions in the weighted sum (24 from affine buckets,
    // 28 from XYZZ ones).
    const bool affine = n >= kAffineMinimum;
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned bits = 1; bits <= kMaxWindowBits; ++bits) {
        const double buckets = double(size_t{1} << (bits - 1));
        const double per_window = affine ? 6.0 * double(n) + 24.0 * buckets : 10.0 * double(n) + 28.0 * buckets;
        const double cost = double(window_count<ec::G1Params>(bits)) * per_window;
        if (bits == 1 || cost < best_cost) {
            best = bits;
            best_cost = cost;
        }
    }
    return best;
}

std::string_view best_arithmetic_name() { return lane_arithmetic_enabled() ? "avx512-ifma" : "portable"; }

template <class C>
ec::Jacobian<C> pippenger(const ec::Affine<C>* bases, const Scalar* scalars, size_t n, unsigned threads,
                          Arithmetic arithmetic) {
    std::vector<size_t> ones;
    std::vector<size_t> full;
    for (size_t i = 0; i < n; ++i) {
        if (is_zero(scalars[i]) || bases[i].is_infinity()) continue;
        (is_one(scalars[i]) ? ones : full).push_back(i);
    }

    const unsigned bits = pippenger_window_bits(full.size());
    const unsigned windows = full.empty() ? 0 : window_count<C>(bits);
    std::vector<int16_t> digits(size_t{windows} * full.size());  // [window][point]
    util::parallel_for(0, full.size(), threads, [&](size_t first, size_t last) {
        for (size_t j = first; j < last; ++j) {
            signed_digits(scalars[full[j]], bits, windows, digits.data() + j, full.size());
        }
    });

    // Tasks 0..windows-1 are the windows, the rest chunks of the ones. On lanes, the
    // windows run first, all together, a piece of the bases at a time.
    const bool lanes = arithmetic == Arithmetic::best_available && lane_arithmetic_enabled();
    const bool windows_lanes = lanes && full.size() >= kAffineMinimum;
    const size_t one_chunks = (ones.size() + kOnesChunk - 1) / kOnesChunk;
    const size_t tasks = windows + one_chunks;
    std::vector<ec::Xyzz<C>> results(tasks, ec::Xyzz<C>::infinity());
    if (windows_lanes) windows_on_lanes(bases, full, digits.data(), bits, windows, threads, results.data());
    std::atomic<size_t> next_task{windows_lanes ? windows : 0};
    const size_t pool = tasks - next_task.load();
    const unsigned workers = static_cast<unsigned>(std::min<size_t>(std::max(1u, threads), pool));
    util::parallel_for(0, workers, workers, [&](size_t, size_t) {
        for (size_t task; (task = next_task.fetch_add(1)) < tasks;) {
            if (task < windows) {
                results[task] = window_sum(bases, full.data(), digits.data() + task * full.size(), full.size(), bits);
            } else {
                const size_t begin = (task - windows) * kOnesChunk;
                const size_t count = std::min(kOnesChunk, ones.size() - begin);
                results[task] = sum_of(bases, ones.data() + begin, count, lanes);
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

template ec::G1 pippenger<ec::G1Params>(const ec::G1Affine*, const Scalar*, size_t, unsigned, Arithmetic);
template ec::G2 pippenger<ec::G2Params>(const ec::G2Affine*, const Scalar*, size_t, unsigned, Arithmetic);
template ec::bn254::G1 pippenger<ec::bn254::G1Params>(const ec::bn254::G1Affine*, const Scalar*, size_t, unsigned,
                                                      Arithmetic);
template ec::bn254::G2 pippenger<ec::bn254::G2Params>(const ec::bn254::G2Affine*, const Scalar*, size_t, unsigned,
                                                      Arithmetic);

}  // namespace zkbatch::msm
