// Pippenger's affine buckets on AVX-512 IFMA lanes (lane_buckets.hpp).
#include "core/msm/lane_buckets.hpp"

#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/lanes52.hpp"
#include "core/util/parallel.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace zkbatch::msm {

bool lane_arithmetic_enabled() {
    static const bool enabled = [] {
        const char* setting = std::getenv("ZKBATCH_AVX512_IFMA");
        return ff::lanes52::cpu_supported() && !(setting && std::string_view(setting) == "0");
    }();
    return enabled;
}

namespace {

// A coordinate's field as parts over a prime field: Fp itself, or Fp2 = Fp[u]/(u^2 + 1).
template <class Field>
struct CoordinateField {
    using Fp = Field;
    static constexpr int kParts = 1;
};
template <class Tower>
struct CoordinateField<ff::tower::Fp2<Tower>> {
    using Fp = typename Tower::BaseField;
    static constexpr int kParts = 2;
};

// A point's words: x's parts, then y's, 52-bit limbs each.
template <class C>
struct Layout {
    using Fp = typename CoordinateField<typename C::Field>::Fp;
    static constexpr int kParts = CoordinateField<typename C::Field>::kParts;
    static constexpr int kLimbs = ff::lanes52::Constants<Fp>::L;
    static constexpr int kCoordinateWords = kParts * kLimbs;
    static constexpr int kPointWords = 2 * kCoordinateWords;
};

// Pairs added by one forward and one backward pass, and so per inversion: what the
// forward pass keeps of them (kGroupSlots<C> registers a group of eight: 1.9 KB for BN254's
// G1, 3.8 KB for its G2) stays in the core's L2 cache.
constexpr size_t kBlockPairs = 2048;
constexpr size_t kBlockGroups = kBlockPairs / ff::lanes52::kLanes;

// ax, bx, ay, dy, and for Fp2 dx (a coordinate each); the inverted d and the running
// product before it (an Fp each).
template <class C>
constexpr int kGroupSlots = (Layout<C>::kParts == 1 ? 4 : 5) * Layout<C>::kCoordinateWords + 2 * Layout<C>::kLimbs;

// A point's address with bit 0 set where the point's negation is meant (points are
// 8-byte aligned).
using PointRef = uintptr_t;
inline PointRef ref_of(const uint64_t* point, bool negated) {
    return reinterpret_cast<PointRef>(point) | PointRef{negated};
}
inline const uint64_t* address_of(PointRef ref) { return reinterpret_cast<const uint64_t*>(ref & ~PointRef{1}); }

#if ZKB_LANES52

using ff::lanes52::Lanes;

// A coordinate in eight lanes: one Lanes<Fp> a part.
template <class Fp, int Parts>
struct LaneCoordinate {
    Lanes<Fp> part[Parts];
};

template <class Fp, int P>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> add(const LaneCoordinate<Fp, P>& a, const LaneCoordinate<Fp, P>& b) {
    LaneCoordinate<Fp, P> r;
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) r.part[i] = ff::lanes52::add(a.part[i], b.part[i]);
    return r;
}
template <class Fp, int P>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> sub(const LaneCoordinate<Fp, P>& a, const LaneCoordinate<Fp, P>& b) {
    LaneCoordinate<Fp, P> r;
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) r.part[i] = ff::lanes52::sub(a.part[i], b.part[i]);
    return r;
}
template <class Fp, int P>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> canonical(const LaneCoordinate<Fp, P>& a) {
    LaneCoordinate<Fp, P> r;
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) r.part[i] = ff::lanes52::canonical(a.part[i]);
    return r;
}
template <class Fp, int P>
ZKB_LANES52_INLINE __mmask8 equal(const LaneCoordinate<Fp, P>& a, const LaneCoordinate<Fp, P>& b) {
    __mmask8 same = 0xff;
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) same &= ff::lanes52::equal(a.part[i], b.part[i]);
    return same;
}
template <class Fp, int P>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> blend(__mmask8 take_b, const LaneCoordinate<Fp, P>& a,
                                               const LaneCoordinate<Fp, P>& b) {
    LaneCoordinate<Fp, P> r;
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) {
        ZKB_UNROLL
        for (int j = 0; j < Lanes<Fp>::L; ++j) {
            r.part[i].limb[j] = _mm512_mask_blend_epi64(take_b, a.part[i].limb[j], b.part[i].limb[j]);
        }
    }
    return r;
}
// Products in Fp, or in Fp2 with u^2 = -1 (Karatsuba: three Fp products, two a square).
template <class Fp, int P>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> mul(const LaneCoordinate<Fp, P>& a, const LaneCoordinate<Fp, P>& b) {
    if constexpr (P == 1) {
        return {{ff::lanes52::mul(a.part[0], b.part[0])}};
    } else {
        const Lanes<Fp> v0 = ff::lanes52::mul(a.part[0], b.part[0]);
        const Lanes<Fp> v1 = ff::lanes52::mul(a.part[1], b.part[1]);
        const Lanes<Fp> s =
            ff::lanes52::mul(ff::lanes52::add(a.part[0], a.part[1]), ff::lanes52::add(b.part[0], b.part[1]));
        return {{ff::lanes52::sub(v0, v1), ff::lanes52::sub(s, ff::lanes52::add(v0, v1))}};
    }
}
template <class Fp, int P>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> sqr(const LaneCoordinate<Fp, P>& a) {
    if constexpr (P == 1) {
        return {{ff::lanes52::sqr(a.part[0])}};
    } else {
        const Lanes<Fp> c0 =
            ff::lanes52::mul(ff::lanes52::add(a.part[0], a.part[1]), ff::lanes52::sub(a.part[0], a.part[1]));
        return {{c0, ff::lanes52::mul(a.part[0], ff::lanes52::add(a.part[1], a.part[1]))}};
    }
}
// What the batch inversion inverts: x itself in Fp, the norm x0^2 + x1^2 in Fp2.
template <class Fp, int P>
ZKB_LANES52_INLINE Lanes<Fp> norm(const LaneCoordinate<Fp, P>& a) {
    if constexpr (P == 1) {
        return a.part[0];
    } else {
        return ff::lanes52::add(ff::lanes52::sqr(a.part[0]), ff::lanes52::sqr(a.part[1]));
    }
}
// 1/a in Fp2 from the inverse of its norm: conj(a) / N(a).
template <class Fp>
ZKB_LANES52_INLINE LaneCoordinate<Fp, 2> inverse_from_norm(const LaneCoordinate<Fp, 2>& a,
                                                           const Lanes<Fp>& norm_inverse) {
    return {{ff::lanes52::mul(a.part[0], norm_inverse), ff::lanes52::neg(ff::lanes52::mul(a.part[1], norm_inverse))}};
}

// An 8x8 transpose of 64-bit words: v[i] lane k becomes v[k] lane i. (Zero-masked forms, as
// in lanes52.hpp, for GCC 12.)
ZKB_LANES52_INLINE void transpose8(__m512i (&v)[8]) {
    __m512i t[8], u[8];
    ZKB_UNROLL
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_maskz_unpacklo_epi64(0xff, v[i], v[i + 1]);
        t[i + 1] = _mm512_maskz_unpackhi_epi64(0xff, v[i], v[i + 1]);
    }
    ZKB_UNROLL
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm512_maskz_shuffle_i64x2(0xff, t[i], t[i + 2], 0x88);
        u[i + 1] = _mm512_maskz_shuffle_i64x2(0xff, t[i], t[i + 2], 0xdd);
        u[i + 2] = _mm512_maskz_shuffle_i64x2(0xff, t[i + 1], t[i + 3], 0x88);
        u[i + 3] = _mm512_maskz_shuffle_i64x2(0xff, t[i + 1], t[i + 3], 0xdd);
    }
    v[0] = _mm512_maskz_shuffle_i64x2(0xff, u[0], u[4], 0x88);
    v[4] = _mm512_maskz_shuffle_i64x2(0xff, u[0], u[4], 0xdd);
    v[2] = _mm512_maskz_shuffle_i64x2(0xff, u[1], u[5], 0x88);
    v[6] = _mm512_maskz_shuffle_i64x2(0xff, u[1], u[5], 0xdd);
    v[1] = _mm512_maskz_shuffle_i64x2(0xff, u[2], u[6], 0x88);
    v[5] = _mm512_maskz_shuffle_i64x2(0xff, u[2], u[6], 0xdd);
    v[3] = _mm512_maskz_shuffle_i64x2(0xff, u[3], u[7], 0x88);
    v[7] = _mm512_maskz_shuffle_i64x2(0xff, u[3], u[7], 0xdd);
}

// words[w] lane k = rows[k][w] for w < Words: eight rows read contiguously and transposed
// (a gather a word measured slower: the pairs' points lie next to each other).
template <int Words>
ZKB_LANES52_INLINE void load_transposed(const uint64_t* const (&rows)[8], __m512i (&words)[Words]) {
    ZKB_UNROLL
    for (int first = 0; first < Words; first += 8) {
        const int count = Words - first < 8 ? Words - first : 8;
        const __mmask8 mask = static_cast<__mmask8>((1u << count) - 1);
        __m512i v[8];
        ZKB_UNROLL
        for (int k = 0; k < 8; ++k) v[k] = _mm512_maskz_loadu_epi64(mask, rows[k] + first);
        transpose8(v);
        ZKB_UNROLL
        for (int i = 0; i < count; ++i) words[first + i] = v[i];
    }
}

// rows[k][w] = words[w] lane k for w < Words and the lanes in `lanes`.
template <int Words>
ZKB_LANES52_INLINE void store_transposed(uint64_t* const (&rows)[8], __mmask8 lanes, const __m512i (&words)[Words]) {
    ZKB_UNROLL
    for (int first = 0; first < Words; first += 8) {
        const int count = Words - first < 8 ? Words - first : 8;
        const __mmask8 mask = static_cast<__mmask8>((1u << count) - 1);
        __m512i v[8];
        ZKB_UNROLL
        for (int i = 0; i < 8; ++i) v[i] = i < count ? words[first + i] : _mm512_setzero_si512();
        transpose8(v);
        ZKB_UNROLL
        for (int k = 0; k < 8; ++k) {
            if ((lanes >> k) & 1) _mm512_mask_storeu_epi64(rows[k] + first, mask, v[k]);
        }
    }
}

// A coordinate from `Words`-word lanes, starting at word `first`.
template <class Fp, int P, int Words>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> coordinate_at(const __m512i (&words)[Words], int first) {
    LaneCoordinate<Fp, P> r;
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) {
        ZKB_UNROLL
        for (int j = 0; j < Lanes<Fp>::L; ++j) r.part[i].limb[j] = words[first + i * Lanes<Fp>::L + j];
    }
    return r;
}
template <class Fp, int P, int Words>
ZKB_LANES52_INLINE void set_coordinate(__m512i (&words)[Words], int first, const LaneCoordinate<Fp, P>& value) {
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) {
        ZKB_UNROLL
        for (int j = 0; j < Lanes<Fp>::L; ++j) words[first + i * Lanes<Fp>::L + j] = value.part[i].limb[j];
    }
}

// Lanes kept in a block's buffer: `slot` counts __m512i from `base`.
template <class Fp, int P>
ZKB_LANES52_INLINE void store(uint64_t* base, size_t slot, const LaneCoordinate<Fp, P>& value) {
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) {
        ZKB_UNROLL
        for (int j = 0; j < Lanes<Fp>::L; ++j) {
            _mm512_storeu_si512(base + 8 * (slot + i * Lanes<Fp>::L + j), value.part[i].limb[j]);
        }
    }
}
template <class Fp, int P>
ZKB_LANES52_INLINE LaneCoordinate<Fp, P> load(const uint64_t* base, size_t slot) {
    LaneCoordinate<Fp, P> r;
    ZKB_UNROLL
    for (int i = 0; i < P; ++i) {
        ZKB_UNROLL
        for (int j = 0; j < Lanes<Fp>::L; ++j) {
            r.part[i].limb[j] = _mm512_loadu_si512(base + 8 * (slot + i * Lanes<Fp>::L + j));
        }
    }
    return r;
}

// The rows of refs[8g .. 8g + 8) for the given lanes (the others repeat the first: a valid
// address, never stored to), and the lanes whose point is negated.
inline __mmask8 rows_of(const PointRef* refs, size_t g, __mmask8 lanes, const uint64_t* (&rows)[8]) {
    unsigned negated = 0;
    for (int k = 0; k < 8; ++k) {
        const PointRef ref = refs[(lanes >> k) & 1 ? 8 * g + k : 8 * g];
        rows[k] = address_of(ref);
        negated |= static_cast<unsigned>(ref & 1) << k;
    }
    return static_cast<__mmask8>(negated & lanes);
}

// A point's coordinates from eight rows, its y negated in the `negated` lanes (loose).
template <class C, class Coordinate>
ZKB_LANES52_INLINE void load_points(const uint64_t* const (&rows)[8], __mmask8 negated, Coordinate& x, Coordinate& y) {
    using L = Layout<C>;
    __m512i words[L::kPointWords];
    load_transposed(rows, words);
    x = coordinate_at<typename L::Fp, L::kParts>(words, 0);
    y = coordinate_at<typename L::Fp, L::kParts>(words, L::kCoordinateWords);
    if (negated) y = blend(negated, y, sub(Coordinate{}, y));
}

// One block of pairs: sums[q] receives a[q] + b[q] for q < count <= kBlockPairs. No pair
// is P, -P.
template <class C>
ZKB_LANES52_TARGET void add_block(const PointRef* a, const PointRef* b, uint64_t* const* sums, size_t count,
                                  uint64_t* block) {
    using L = Layout<C>;
    using Fp = typename L::Fp;
    using Coordinate = LaneCoordinate<Fp, L::kParts>;
    constexpr int kFp = L::kLimbs;                    // __m512i of an Fp
    constexpr int kCoordinate = L::kCoordinateWords;  // of a coordinate
    constexpr int kD = kGroupSlots<C> - 2 * kFp;      // the slot of d, then the running product
    const size_t groups = (count + 7) / 8;

    auto lanes_of = [&](size_t g) -> __mmask8 {
        const size_t left = count - 8 * g;
        return left >= 8 ? __mmask8{0xff} : static_cast<__mmask8>((1u << left) - 1);
    };

    Coordinate one{};  // zero-initialized: 1 in Fp2 is (1, 0)
    one.part[0] = ff::lanes52::one<Fp>();
    Lanes<Fp> running = one.part[0];
    for (size_t g = 0; g < groups; ++g) {
        const __mmask8 lanes = lanes_of(g);
        const uint64_t* rows[8];
        Coordinate ax, ay, bx, by;
        load_points<C>(rows, rows_of(a, g, lanes, rows), ax, ay);
        load_points<C>(rows, rows_of(b, g, lanes, rows), bx, by);
        Coordinate dx = sub(bx, ax);
        Coordinate dy = sub(by, ay);
        if (const __mmask8 doubled = equal(ax, bx) & lanes) {
            // P + P: the tangent's slope 3 x^2 / 2 y.
            const Coordinate x2 = sqr(ax);
            dy = blend(doubled, dy, add(add(x2, x2), x2));
            dx = blend(doubled, dx, add(ay, ay));
        }
        dx = blend(static_cast<__mmask8>(~lanes), dx, one);  // lanes past the block's end
        const Lanes<Fp> d = norm(dx);

        uint64_t* group = block + 8 * kGroupSlots<C> * g;
        store(group, 0, ax);
        store(group, kCoordinate, bx);
        store(group, 2 * kCoordinate, ay);
        store(group, 3 * kCoordinate, dy);
        if constexpr (L::kParts == 2) store(group, 4 * kCoordinate, dx);
        store(group, kD, LaneCoordinate<Fp, 1>{{d}});
        store(group, kD + kFp, LaneCoordinate<Fp, 1>{{running}});
        running = ff::lanes52::mul(running, d);
    }

    Lanes<Fp> inverse = ff::lanes52::inverse(running);
    for (size_t g = groups; g-- > 0;) {
        const uint64_t* group = block + 8 * kGroupSlots<C> * g;
        const Lanes<Fp> d = load<Fp, 1>(group, kD).part[0];
        const Lanes<Fp> before = load<Fp, 1>(group, kD + kFp).part[0];
        const Lanes<Fp> d_inverse = ff::lanes52::mul(inverse, before);
        inverse = ff::lanes52::mul(inverse, d);

        const Coordinate ax = load<Fp, L::kParts>(group, 0);
        const Coordinate bx = load<Fp, L::kParts>(group, kCoordinate);
        const Coordinate ay = load<Fp, L::kParts>(group, 2 * kCoordinate);
        const Coordinate dy = load<Fp, L::kParts>(group, 3 * kCoordinate);
        Coordinate dx_inverse;
        if constexpr (L::kParts == 1) {
            dx_inverse = {{d_inverse}};
        } else {
            dx_inverse = inverse_from_norm(load<Fp, 2>(group, 4 * kCoordinate), d_inverse);
        }
        const Coordinate slope = mul(dy, dx_inverse);
        const Coordinate x3 = canonical(sub(sub(sqr(slope), ax), bx));
        const Coordinate y3 = canonical(sub(mul(slope, sub(ax, x3)), ay));

        const __mmask8 lanes = lanes_of(g);
        uint64_t* rows[8];
        ZKB_UNROLL
        for (int k = 0; k < 8; ++k) rows[k] = sums[(lanes >> k) & 1 ? 8 * g + k : 8 * g];
        __m512i words[L::kPointWords];
        set_coordinate(words, 0, x3);
        set_coordinate(words, kCoordinate, y3);
        store_transposed(rows, lanes, words);
    }
}

template <class C>
constexpr size_t block_words() {
    return kBlockGroups * 8 * kGroupSlots<C>;
}

// points[j] = bases[indices[j]] in radix 2^52, for j in [first, last).
template <class C>
ZKB_LANES52_TARGET void convert_points(const ec::Affine<C>* bases, const size_t* indices, size_t first, size_t last,
                                       uint64_t* points) {
    using L = Layout<C>;
    using Fp = typename L::Fp;
    constexpr int kLanes = ff::lanes52::kLanes;
    for (size_t j0 = first; j0 < last; j0 += kLanes) {
        const size_t lanes = std::min<size_t>(kLanes, last - j0);
        ZKB_UNROLL
        for (int coordinate = 0; coordinate < 2; ++coordinate) {
            ZKB_UNROLL
            for (int part = 0; part < L::kParts; ++part) {
                Fp values[kLanes];
                for (size_t k = 0; k < kLanes; ++k) {
                    const ec::Affine<C>& base = bases[indices[j0 + std::min(k, lanes - 1)]];
                    const Fp* parts = reinterpret_cast<const Fp*>(coordinate == 0 ? &base.x : &base.y);
                    values[k] = parts[part];
                }
                const Lanes<Fp> converted = ff::lanes52::to_lanes(values);
                alignas(64) uint64_t rows[L::kLimbs][kLanes];
                ZKB_UNROLL
                for (int j = 0; j < L::kLimbs; ++j) _mm512_store_si512(rows[j], converted.limb[j]);
                for (size_t k = 0; k < lanes; ++k) {
                    uint64_t* out =
                        points + (j0 + k) * L::kPointWords + coordinate * L::kCoordinateWords + part * L::kLimbs;
                    ZKB_UNROLL
                    for (int j = 0; j < L::kLimbs; ++j) out[j] = rows[j][k];
                }
            }
        }
    }
}

// The affine points of `count` packed ones.
template <class C>
ZKB_LANES52_TARGET void convert_back(const uint64_t* points, size_t count, ec::Affine<C>* out) {
    using L = Layout<C>;
    using Fp = typename L::Fp;
    constexpr int kLanes = ff::lanes52::kLanes;
    for (size_t j0 = 0; j0 < count; j0 += kLanes) {
        const size_t lanes = std::min<size_t>(kLanes, count - j0);
        ZKB_UNROLL
        for (int coordinate = 0; coordinate < 2; ++coordinate) {
            ZKB_UNROLL
            for (int part = 0; part < L::kParts; ++part) {
                alignas(64) uint64_t rows[L::kLimbs][kLanes] = {};
                for (size_t k = 0; k < lanes; ++k) {
                    const uint64_t* in =
                        points + (j0 + k) * L::kPointWords + coordinate * L::kCoordinateWords + part * L::kLimbs;
                    ZKB_UNROLL
                    for (int j = 0; j < L::kLimbs; ++j) rows[j][k] = in[j];
                }
                Lanes<Fp> lanes_value;
                ZKB_UNROLL
                for (int j = 0; j < L::kLimbs; ++j) lanes_value.limb[j] = _mm512_load_si512(rows[j]);
                Fp values[kLanes];
                ff::lanes52::from_lanes(lanes_value, values);
                for (size_t k = 0; k < lanes; ++k) {
                    Fp* parts = reinterpret_cast<Fp*>(coordinate == 0 ? &out[j0 + k].x : &out[j0 + k].y);
                    parts[part] = values[k];
                }
            }
        }
    }
}

#else  // no AVX-512 on this target: lane_arithmetic_enabled() is false and none of this runs

template <class C>
void add_block(const PointRef*, const PointRef*, uint64_t* const*, size_t, uint64_t*) {
    throw std::logic_error("AVX-512 IFMA lanes are not built for this target");
}
template <class C>
constexpr size_t block_words() {
    return 0;
}
template <class C>
void convert_points(const ec::Affine<C>*, const size_t*, size_t, size_t, uint64_t*) {
    throw std::logic_error("AVX-512 IFMA lanes are not built for this target");
}
template <class C>
void convert_back(const uint64_t*, size_t, ec::Affine<C>*) {
    throw std::logic_error("AVX-512 IFMA lanes are not built for this target");
}

#endif

// p - y for a canonical y != 0 in 52-bit limbs.
template <class C>
void negate_part(const uint64_t* y, uint64_t* out) {
    using L = Layout<C>;
    const auto& p = ff::lanes52::kConstants<typename L::Fp>.p;
    int64_t borrow = 0;
    ZKB_UNROLL
    for (int j = 0; j < L::kLimbs; ++j) {
        const int64_t d = static_cast<int64_t>(p[j]) - static_cast<int64_t>(y[j]) - borrow;
        borrow = d < 0 ? 1 : 0;
        out[j] = static_cast<uint64_t>(d) & ff::lanes52::kLimbMask;
    }
}

// The y of the point `ref` names, its negation applied.
template <class C>
void y_of(PointRef ref, uint64_t* y) {
    using L = Layout<C>;
    const uint64_t* from = address_of(ref) + L::kCoordinateWords;
    if ((ref & 1) == 0) {
        std::memcpy(y, from, L::kCoordinateWords * sizeof(uint64_t));
        return;
    }
    for (int part = 0; part < L::kParts; ++part) negate_part<C>(from + part * L::kLimbs, y + part * L::kLimbs);
}

// Whether a + b is infinity: equal x, y of opposite signs (both canonical).
template <class C>
bool cancel(PointRef a, PointRef b) {
    constexpr size_t kCoordinateBytes = Layout<C>::kCoordinateWords * sizeof(uint64_t);
    if (std::memcmp(address_of(a), address_of(b), kCoordinateBytes) != 0) return false;
    uint64_t ya[Layout<C>::kCoordinateWords], yb[Layout<C>::kCoordinateWords];
    y_of<C>(a, ya);
    y_of<C>(b, yb);
    return std::memcmp(ya, yb, kCoordinateBytes) != 0;
}

// The point `ref` names, its negation applied.
template <class C>
void copy_point(PointRef ref, uint64_t* to) {
    std::memcpy(to, address_of(ref), Layout<C>::kCoordinateWords * sizeof(uint64_t));
    y_of<C>(ref, to + Layout<C>::kCoordinateWords);
}

template <class C>
bool is_empty(const uint64_t* point) {
    ZKB_UNROLL
    for (int j = 0; j < Layout<C>::kPointWords; ++j) {
        if (point[j] != 0) return false;
    }
    return true;
}

}  // namespace

template <class C>
size_t LanePoints<C>::words_per_point() {
    return Layout<C>::kPointWords;
}

template <class C>
LanePoints<C>::LanePoints(const ec::Affine<C>* bases, const size_t* indices, size_t count, unsigned threads)
    : words_(count * Layout<C>::kPointWords) {
    util::parallel_for(0, count, threads, [&](size_t first, size_t last) {
        convert_points<C>(bases, indices, first, last, words_.data());
    });
}

template <class C>
LaneBuckets<C>::LaneBuckets(size_t bucket_count)
    : bucket_count_(bucket_count),
      buckets_(bucket_count * Layout<C>::kPointWords, 0),
      start_(bucket_count),
      length_(bucket_count) {}

template <class C>
void LaneBuckets<C>::release_scratch() {
    for (auto* words : {&refs_, &a_, &b_}) std::vector<uintptr_t>().swap(*words);
    std::vector<uint64_t>().swap(scratch_);
    std::vector<uint64_t>().swap(block_words_);
    std::vector<uint64_t*>().swap(sums_);
    std::vector<uint32_t>().swap(moves_);
}

template <class C>
void LaneBuckets<C>::add_chunk(const LanePoints<C>& points, size_t first, const int16_t* digits, size_t count) {
    constexpr size_t W = Layout<C>::kPointWords;
    block_words_.resize(block_words<C>());
    // Runs of references to the points (the buckets' values first), sorted by bucket.
    for (size_t k = 0; k < bucket_count_; ++k) length_[k] = is_empty<C>(&buckets_[k * W]) ? 0 : 1;
    for (size_t j = 0; j < count; ++j) {
        const int32_t digit = digits ? digits[j] : 1;
        if (digit != 0) ++length_[(digit > 0 ? digit : -digit) - 1];
    }
    uint32_t total = 0, total_sums = 0;
    for (size_t k = 0; k < bucket_count_; ++k) {
        start_[k] = total;
        total += length_[k];
        total_sums += (length_[k] + 1) / 2;
    }
    refs_.resize(total);
    for (size_t k = 0; k < bucket_count_; ++k) {
        length_[k] = 0;  // now the fill cursor
        if (!is_empty<C>(&buckets_[k * W])) refs_[start_[k] + length_[k]++] = ref_of(&buckets_[k * W], false);
    }
    for (size_t j = 0; j < count; ++j) {
        const int32_t digit = digits ? digits[j] : 1;
        if (digit == 0) continue;
        const size_t k = static_cast<size_t>((digit > 0 ? digit : -digit) - 1);
        refs_[start_[k] + length_[k]++] = ref_of(points.point(first + j), digit < 0);
    }

    // The first round adds the referenced pairs into the scratch, where the rounds after it
    // go on: run k's sums start at half its references.
    scratch_.resize(size_t{total_sums} * W);
    clear_round();
    uint32_t sums_start = 0;
    for (size_t k = 0; k < bucket_count_; ++k) {
        const PointRef* run = refs_.data() + start_[k];
        uint64_t* sums = scratch_.data() + size_t{sums_start} * W;
        uint32_t out = 0, j = 0;
        for (; j + 1 < length_[k]; j += 2) {
            if (cancel<C>(run[j], run[j + 1])) continue;  // a + (-a): the run loses both
            add_pair(run[j], run[j + 1], sums + size_t{out++} * W);
        }
        if (j < length_[k]) copy_point<C>(run[j], sums + size_t{out++} * W);
        start_[k] = sums_start;
        sums_start += (length_[k] + 1) / 2;
        length_[k] = out;
    }
    add_round();
    reduce_runs();
    for (size_t k = 0; k < bucket_count_; ++k) {
        if (length_[k] != 0) {
            std::memcpy(&buckets_[k * W], &scratch_[start_[k] * W], W * sizeof(uint64_t));
        } else {
            std::fill_n(&buckets_[k * W], W, uint64_t{0});
        }
    }
}

template <class C>
void LaneBuckets<C>::clear_round() {
    a_.clear();
    b_.clear();
    sums_.clear();
}

template <class C>
void LaneBuckets<C>::add_pair(uintptr_t a, uintptr_t b, uint64_t* sum) {
    a_.push_back(a);
    b_.push_back(b);
    sums_.push_back(sum);
}

template <class C>
void LaneBuckets<C>::add_round() {
    for (size_t begin = 0; begin < a_.size(); begin += kBlockPairs) {
        add_block<C>(a_.data() + begin, b_.data() + begin, sums_.data() + begin,
                     std::min(kBlockPairs, a_.size() - begin), block_words_.data());
    }
}

// Later rounds within the scratch: run k's pairs j, j + 1 summed into its front (the sum
// of pair q lands at q or before it, below every point a later pair reads).
template <class C>
void LaneBuckets<C>::reduce_runs() {
    constexpr size_t W = Layout<C>::kPointWords;
    for (;;) {
        clear_round();
        moves_.clear();
        bool more = false;
        for (size_t k = 0; k < bucket_count_; ++k) {
            uint64_t* run = scratch_.data() + size_t{start_[k]} * W;
            uint32_t out = 0, j = 0;
            for (; j + 1 < length_[k]; j += 2) {
                const PointRef a = ref_of(run + size_t{j} * W, false);
                const PointRef b = ref_of(run + size_t{j + 1} * W, false);
                if (cancel<C>(a, b)) continue;
                add_pair(a, b, run + size_t{out++} * W);
            }
            if (j < length_[k]) {
                // Moved after the round's sums: its place may be a pair's input.
                moves_.push_back(start_[k] + j);
                moves_.push_back(start_[k] + out++);
            }
            more |= out > 1;
            length_[k] = out;
        }
        add_round();
        for (size_t m = 0; m < moves_.size(); m += 2) {
            if (moves_[m] != moves_[m + 1]) {
                std::memcpy(&scratch_[moves_[m + 1] * W], &scratch_[moves_[m] * W], W * sizeof(uint64_t));
            }
        }
        if (!more) return;
    }
}

template <class C>
std::vector<ec::Affine<C>> LaneBuckets<C>::buckets() const {
    std::vector<ec::Affine<C>> out(bucket_count_);
    convert_back<C>(buckets_.data(), bucket_count_, out.data());
    return out;
}

template class LanePoints<ec::G1Params>;
template class LanePoints<ec::G2Params>;
template class LanePoints<ec::bn254::G1Params>;
template class LanePoints<ec::bn254::G2Params>;
template class LaneBuckets<ec::G1Params>;
template class LaneBuckets<ec::G2Params>;
template class LaneBuckets<ec::bn254::G1Params>;
template class LaneBuckets<ec::bn254::G2Params>;

}  // namespace zkbatch::msm
