// A prime field in Montgomery form, written once for every field zkbatch uses
// (BLS12-381's Fr and Fp, BN254's Fq and Fr), for host C++ and CUDA device code.
//
// An element is N little-endian 64-bit limbs holding a*R mod m with R = 2^(64 N),
// always fully reduced (< m), so equal values have equal bits. "Canonical" means the
// plain integer a < m, as limbs, bytes or hex: what users see. A field is described by a
// small struct (fr.hpp, fp.hpp and bn254.hpp hold the four):
//
//   struct Description {
//       static constexpr int kLimbs = 4;
//       static constexpr const char* kName = "BN254 base field Fq";  // for error messages
//       ZKB_HOST_DEVICE static constexpr Limbs<4> modulus() { return {{...}}; }
//       using DeviceArithmetic = void;  // or a type with __device__ add, sub, mont_mul
//       // FFT fields only: the multiplicative generator (the coset shift) and a primitive
//       // 2^kTwoAdicity-th root of unity, canonical.
//       static constexpr uint64_t kGenerator = 5;
//       ZKB_HOST_DEVICE static constexpr Limbs<4> root_of_unity() { return {{...}}; }
//   };
//
// Everything else (R, R^2, R^3 mod m, -m^-1 mod 2^64, the two-adicity, the Montgomery
// forms of the constants) is derived from the modulus at compile time.
//
// On the host, multiplication is CIOS over the 64-bit limbs: in MULX/ADX assembly on
// x86-64 CPUs that have it (x86_mont_mul.hpp), else in portable C. On the device the
// description's DeviceArithmetic, where it names one, takes over add, sub, mont_mul and,
// where it has them, the lazy products (sum_times, ...): BLS12-381's run on 32-bit limbs
// in PTX carry chains (field32.hpp), with the same R, so the same bits.
// Device code cannot index namespace-scope constexpr arrays, so constants come from
// constexpr functions returning Limbs by value, held in local constexpr variables.
#pragma once

#include "core/ff/limbs.hpp"
#include "core/ff/safegcd.hpp"
#include "core/ff/x86_mont_mul.hpp"
#include "core/util/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace zkbatch::ff {

// N little-endian 64-bit limbs as a value: how descriptions give their constants, and
// how the derived ones come back.
template <int N>
struct Limbs {
    uint64_t limbs[N];

    ZKB_HOST_DEVICE constexpr bool operator==(const Limbs& other) const {
        for (int i = 0; i < N; ++i) {
            if (limbs[i] != other.limbs[i]) return false;
        }
        return true;
    }
};

namespace detail {

// ---- compile-time derivations from the modulus (plain shifts and subtractions) -------

template <int N>
ZKB_HOST_DEVICE constexpr bool less_than(const Limbs<N>& a, const Limbs<N>& b) {
    for (int i = N - 1; i >= 0; --i) {
        if (a.limbs[i] != b.limbs[i]) return a.limbs[i] < b.limbs[i];
    }
    return false;
}

// a * 2^bits mod m for a < m < 2^(64 N - 1), one doubling at a time.
template <int N>
ZKB_HOST_DEVICE constexpr Limbs<N> times_power_of_two(Limbs<N> a, int bits, const Limbs<N>& m) {
    for (int bit = 0; bit < bits; ++bit) {
        for (int i = N - 1; i > 0; --i) a.limbs[i] = (a.limbs[i] << 1) | (a.limbs[i - 1] >> 63);
        a.limbs[0] <<= 1;
        if (!less_than(a, m)) {
            uint64_t borrow = 0;
            for (int i = 0; i < N; ++i) a.limbs[i] = sub_borrow(a.limbs[i], m.limbs[i], borrow);
        }
    }
    return a;
}

// -m^-1 mod 2^64 for odd m, by Newton's iteration (an odd m is its own inverse mod 8, and
// each step doubles the correct low bits: 3 -> 6 -> 12 -> 24 -> 48 -> 96).
ZKB_HOST_DEVICE constexpr uint64_t negated_inverse(uint64_t m) {
    uint64_t inverse = m;
    for (int i = 0; i < 5; ++i) inverse *= 2 - m * inverse;
    return uint64_t{0} - inverse;
}

// v - k for a small k (no borrow out of v).
template <int N>
ZKB_HOST_DEVICE constexpr Limbs<N> minus_small(Limbs<N> v, uint64_t k) {
    uint64_t borrow = 0;
    v.limbs[0] = sub_borrow(v.limbs[0], k, borrow);
    for (int i = 1; i < N; ++i) v.limbs[i] = sub_borrow(v.limbs[i], 0, borrow);
    return v;
}

template <int N>
ZKB_HOST_DEVICE constexpr int bit_length(const Limbs<N>& v) {
    for (int i = N - 1; i >= 0; --i) {
        for (int bit = 63; bit >= 0; --bit) {
            if ((v.limbs[i] >> bit) & 1) return 64 * i + bit + 1;
        }
    }
    return 0;
}

// The largest s with 2^s dividing v - 1 (v odd and above 1).
template <int N>
ZKB_HOST_DEVICE constexpr uint32_t two_adicity(const Limbs<N>& v) {
    const Limbs<N> even = minus_small(v, 1);
    uint32_t s = 0;
    while (((even.limbs[s / 64] >> (s % 64)) & 1) == 0) ++s;
    return s;
}

template <class F>
struct PlainSquare {
    ZKB_HOST_DEVICE F operator()(const F& x) const { return x.sqr(); }
};

// x^e for a little-endian exponent of `count` limbs, square-and-multiply from the top
// set bit; F is any field type (one(), *, and sqr() unless `square` says otherwise, as
// Fp12's cyclotomic squaring does). The exponent is public, so its bits may steer
// branches.
template <class F, class Square = PlainSquare<F>>
ZKB_HOST_DEVICE F pow_by_limbs(const F& x, const uint64_t* exponent, int count, Square square = {}) {
    F result = F::one();
    bool started = false;
    for (int limb = count - 1; limb >= 0; --limb) {
        for (int bit = 63; bit >= 0; --bit) {
            if (started) result = square(result);
            if ((exponent[limb] >> bit) & 1) {
                result = started ? result * x : x;
                started = true;
            }
        }
    }
    return result;
}

}  // namespace detail

template <class Description>
struct MontgomeryField {
private:
    static constexpr int N = Description::kLimbs;

    // Limb-wise expressions written as one expression over every index (an initializer, a
    // fold) rather than a loop, force-inlined: the form the hand-written Fr and Fp had,
    // which their device code's machine code depends on (a loop or a lambda here changes
    // the order of instructions ptxas gets).
    static constexpr std::make_index_sequence<N> kIndices{};
    template <size_t... I>
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE constexpr uint64_t modulus_limb(int i, std::index_sequence<I...>) {
        constexpr uint64_t kModulus[N] = {Description::modulus().limbs[I]...};
        return kModulus[i];
    }
    template <size_t... I>
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE constexpr MontgomeryField of_limbs(const uint64_t* v,
                                                                              std::index_sequence<I...>) {
        return MontgomeryField{{v[I]...}};
    }
    template <size_t... I>
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE void copy_limbs(const uint64_t* from, uint64_t* to,
                                                           std::index_sequence<I...>) {
        ((to[I] = from[I]), ...);
    }
    template <size_t... I>
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE constexpr bool is_zero(const uint64_t* v, std::index_sequence<I...>) {
        return (... | v[I]) == 0;
    }

public:
    using FieldDescription = Description;
    static constexpr int kLimbs = N;
    static constexpr size_t kBytes = 8 * N;  // of a canonical value

    uint64_t limbs[N];  // Montgomery form, little-endian, < m

    // ---- the modulus and what is derived from it ----------------------------------------
    ZKB_HOST_DEVICE static constexpr Limbs<N> modulus() { return Description::modulus(); }
    // Limb i of m (a function, so device code can index it; after unrolling, an immediate).
    ZKB_HOST_DEVICE static constexpr uint64_t modulus_limb(int i) {
        return modulus_limb(i, kIndices);
    }
    // -m^-1 mod 2^64, the factor of each CIOS round.
    static constexpr uint64_t kMontInv = detail::negated_inverse(Description::modulus().limbs[0]);
    // m - 1 = 2^kTwoAdicity * t, t odd: the largest power-of-two domain.
    static constexpr uint32_t kTwoAdicity = detail::two_adicity(Description::modulus());
    static constexpr int kModulusBits = detail::bit_length(Description::modulus());

    // R = 2^(64 N), R^2 and R^3 mod m: one() is R; a Montgomery product by R^2 turns a
    // canonical value into its Montgomery form; R^3 serves the inverse.
    ZKB_HOST_DEVICE static constexpr Limbs<N> r_mod_modulus() {
        constexpr Limbs<N> kR = detail::times_power_of_two(Limbs<N>{{1}}, 64 * N, modulus());
        return kR;
    }
    ZKB_HOST_DEVICE static constexpr Limbs<N> r_squared() {
        constexpr Limbs<N> kRSquared = detail::times_power_of_two(r_mod_modulus(), 64 * N, modulus());
        return kRSquared;
    }
    ZKB_HOST_DEVICE static constexpr Limbs<N> r_cubed() {
        constexpr Limbs<N> kRCubed = detail::times_power_of_two(r_squared(), 64 * N, modulus());
        return kRCubed;
    }

    static_assert(N >= 2 && (Description::modulus().limbs[0] & 1) == 1, "an odd modulus of two limbs or more");
    static_assert(Description::modulus().limbs[N - 1] != 0, "the top limb of the modulus must be nonzero");
    // CIOS's "no final carry" shortcut (Gautam/gnark): the running value never needs an
    // extra limb when the top limb of m is below (2^64 - 1)/2 - 1. It also leaves the top
    // bit spare, so the sum of two reduced values fits N limbs.
    static_assert(Description::modulus().limbs[N - 1] < (~uint64_t{0} >> 1) - 1,
                  "mont_mul's no-final-carry CIOS needs the modulus' top limb below (2^64 - 1)/2 - 1");
    static_assert(kMontInv * Description::modulus().limbs[0] == ~uint64_t{0});

    // True when the little-endian integer v is < m (a valid canonical value).
    ZKB_HOST_DEVICE static constexpr bool is_canonical(const uint64_t v[N]) {
        for (int i = N - 1; i >= 0; --i) {
            if (v[i] != modulus_limb(i)) return v[i] < modulus_limb(i);
        }
        return false;  // equal to m
    }

    // ---- construction --------------------------------------------------------------
    ZKB_HOST_DEVICE static constexpr MontgomeryField zero() { return MontgomeryField{}; }
    ZKB_HOST_DEVICE static constexpr MontgomeryField one() { return from_representation(r_mod_modulus()); }
    // The element whose stored (Montgomery) limbs are `representation`, which must be < m.
    ZKB_HOST_DEVICE static constexpr MontgomeryField from_representation(const Limbs<N>& representation) {
        return of_limbs(representation.limbs, kIndices);
    }

    ZKB_HOST_DEVICE static MontgomeryField from_u64(uint64_t value) {
        MontgomeryField plain{};
        plain.limbs[0] = value;
        return mont_mul(plain, from_representation(r_squared()));
    }

    // `canonical` must be < m (see is_canonical; the host byte/hex parsers check it).
    ZKB_HOST_DEVICE static MontgomeryField from_canonical(const uint64_t canonical[N]) {
        MontgomeryField plain;
        for (int i = 0; i < N; ++i) plain.limbs[i] = canonical[i];
        return mont_mul(plain, from_representation(r_squared()));
    }

    ZKB_HOST_DEVICE void to_canonical(uint64_t canonical[N]) const {
        // Montgomery reduction alone (mont_mul by the integer 1 without its x*y half):
        // N rounds of t = (t + k*m) / 2^64 divide by R. Every digest and dump goes
        // through here, so it is worth half a multiplication per element.
        uint64_t t[N];
        copy_limbs(limbs, t, kIndices);
        ZKB_UNROLL
        for (int i = 0; i < N; ++i) {
            const uint64_t k = t[0] * kMontInv;
            uint64_t carry = 0;
            (void)detail::mul_add(t[0], k, modulus_limb(0), carry);  // low word is 0 by the choice of k
            ZKB_UNROLL
            for (int j = 1; j < N; ++j) t[j - 1] = detail::mul_add(t[j], k, modulus_limb(j), carry);
            t[N - 1] = carry;
        }
        subtract_modulus_if_needed(t);
        for (int i = 0; i < N; ++i) canonical[i] = t[i];
    }

    // ---- domain facts (FFT fields: the description gives kGenerator, root_of_unity) ----
    static constexpr bool kHasDomains = requires {
        Description::kGenerator;
        Description::root_of_unity();
    };
    // The multiplicative generator g, the coset shift of the quotient computation.
    ZKB_HOST_DEVICE static constexpr MontgomeryField coset_shift() {
        static_assert(kHasDomains, "domains need a description with kGenerator and root_of_unity()");
        constexpr Limbs<N> kShift = detail::times_power_of_two(Limbs<N>{{Description::kGenerator}}, 64 * N, modulus());
        return from_representation(kShift);
    }
    // ROOT = g^((m - 1)/2^kTwoAdicity), a primitive 2^kTwoAdicity-th root of unity.
    ZKB_HOST_DEVICE static constexpr MontgomeryField max_root_of_unity() {
        static_assert(kHasDomains, "domains need a description with kGenerator and root_of_unity()");
        constexpr Limbs<N> kRoot = detail::times_power_of_two(Description::root_of_unity(), 64 * N, modulus());
        return from_representation(kRoot);
    }
    // omega_n = ROOT^(2^(kTwoAdicity - log_n)), a primitive 2^log_n-th root of unity (the
    // domain generator of docs/architecture.md#the-scalar-field-fr-and-its-domains).
    // Precondition log_n <= kTwoAdicity; returns zero otherwise.
    ZKB_HOST_DEVICE static MontgomeryField root_of_unity(uint32_t log_n) {
        if (log_n > kTwoAdicity) return zero();
        MontgomeryField root = max_root_of_unity();
        for (uint32_t i = log_n; i < kTwoAdicity; ++i) root = root.sqr();
        return root;
    }

private:
    // The generic 64-bit arithmetic: every field's on the host, and on the device where
    // the description names no DeviceArithmetic.
    struct Portable {
        ZKB_HOST_DEVICE static ZKB_FORCEINLINE MontgomeryField add(const MontgomeryField& x, const MontgomeryField& y) {
            MontgomeryField sum;
            uint64_t carry = 0;
            // m < 2^(64 N - 1), so the sum of two reduced values fits N limbs.
            ZKB_UNROLL
            for (int i = 0; i < N; ++i) sum.limbs[i] = detail::add_carry(x.limbs[i], y.limbs[i], carry);
            subtract_modulus_if_needed(sum.limbs);
            return sum;
        }
        ZKB_HOST_DEVICE static ZKB_FORCEINLINE MontgomeryField sub(const MontgomeryField& x, const MontgomeryField& y) {
            MontgomeryField difference;
            uint64_t borrow = 0;
            ZKB_UNROLL
            for (int i = 0; i < N; ++i) difference.limbs[i] = detail::sub_borrow(x.limbs[i], y.limbs[i], borrow);
            // On underflow add m back (branch-free: add m & mask).
            const uint64_t add_mask = uint64_t{0} - borrow;
            uint64_t carry = 0;
            ZKB_UNROLL
            for (int i = 0; i < N; ++i) {
                difference.limbs[i] = detail::add_carry(difference.limbs[i], modulus_limb(i) & add_mask, carry);
            }
            return difference;
        }
        // CIOS with the no-final-carry shortcut (the static_assert above). Inputs < m give
        // an output < m. Measured on a 2-core EPYC under GCC 12 -O2, this compare-carry form
        // beat one built on unsigned __int128 additions and one on _addcarry_u64
        // intrinsics (bench_curve's BM_FpMul gives the figure).
        ZKB_HOST_DEVICE static ZKB_FORCEINLINE MontgomeryField mont_mul(const MontgomeryField& x,
                                                                        const MontgomeryField& y) {
            uint64_t t[N] = {};
            ZKB_UNROLL
            for (int i = 0; i < N; ++i) {
                uint64_t carry_a = 0;  // carry of t + x*y[i]
                t[0] = detail::mul_add(t[0], x.limbs[0], y.limbs[i], carry_a);
                const uint64_t k = t[0] * kMontInv;
                uint64_t carry_m = 0;  // carry of t + k*m; the low word of t[0] + k*m[0] is 0
                (void)detail::mul_add(t[0], k, modulus_limb(0), carry_m);
                ZKB_UNROLL
                for (int j = 1; j < N; ++j) {
                    t[j] = detail::mul_add(t[j], x.limbs[j], y.limbs[i], carry_a);
                    t[j - 1] = detail::mul_add(t[j], k, modulus_limb(j), carry_m);
                }
                t[N - 1] = carry_m + carry_a;
            }
            subtract_modulus_if_needed(t);
            return of_limbs(t, kIndices);
        }
    };
#if defined(__CUDA_ARCH__)
    using Arithmetic = std::conditional_t<std::is_void_v<typename Description::DeviceArithmetic>, Portable,
                                          typename Description::DeviceArithmetic>;
#else
    using Arithmetic = Portable;
#endif

public:
    // ---- arithmetic ----------------------------------------------------------------
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST MontgomeryField operator+(const MontgomeryField& other) const {
        return Arithmetic::add(*this, other);
    }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST MontgomeryField operator-(const MontgomeryField& other) const {
        return Arithmetic::sub(*this, other);
    }
    ZKB_HOST_DEVICE MontgomeryField operator-() const { return zero() - *this; }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST MontgomeryField operator*(const MontgomeryField& other) const {
        return mont_mul(*this, other);
    }
    ZKB_HOST_DEVICE MontgomeryField& operator+=(const MontgomeryField& other) { return *this = *this + other; }
    ZKB_HOST_DEVICE MontgomeryField& operator-=(const MontgomeryField& other) { return *this = *this - other; }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST MontgomeryField& operator*=(const MontgomeryField& other) {
        return *this = mont_mul(*this, other);
    }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST MontgomeryField sqr() const { return mont_mul(*this, *this); }
    ZKB_HOST_DEVICE MontgomeryField dbl() const { return *this + *this; }

    // x y / R mod m, for x, y < m.
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE MontgomeryField mont_mul(const MontgomeryField& x, const MontgomeryField& y) {
#if ZKB_X86_MONT_MUL
        if constexpr (N == 4 || N == 6) {
            if (detail::x86_mulx_adx()) {
                uint64_t t[N];
                detail::x86_mont_mul<N, kMontInv>(t, x.limbs, y.limbs, kHostModulus.limbs);
                if constexpr (N == 6) subtract_modulus_if_needed(t);  // 4 limbs: in the assembly
                return of_limbs(t, kIndices);
            }
        }
#endif
        return Arithmetic::mont_mul(x, y);
    }
#if ZKB_X86_MONT_MUL
    // The portable C product, whatever the CPU: what tests compare the assembly with.
    static MontgomeryField portable_mont_mul(const MontgomeryField& x, const MontgomeryField& y) {
        return Portable::mont_mul(x, y);
    }
    static constexpr Limbs<N> kHostModulus = Description::modulus();  // the assembly's memory operands
#endif

    // (a0 + a1) b, (a0 + a1)(b0 + b1) and a b - c d, for the products of an extension
    // field (Karatsuba's sums): device arithmetic that has them (all three or none) keeps
    // the sums unreduced or reduces both products at once (field32.hpp); the same bits.
    static constexpr bool kLazyProducts = requires(const MontgomeryField& x) {
        Arithmetic::sum_times(x, x, x);
        Arithmetic::sum_times_sum(x, x, x, x);
        Arithmetic::product_difference(x, x, x, x);
    };
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST static MontgomeryField sum_times(const MontgomeryField& a0,
                                                                       const MontgomeryField& a1,
                                                                       const MontgomeryField& b) {
        if constexpr (kLazyProducts) {
            return Arithmetic::sum_times(a0, a1, b);
        } else {
            return mont_mul(a0 + a1, b);
        }
    }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST static MontgomeryField sum_times_sum(const MontgomeryField& a0,
                                                                           const MontgomeryField& a1,
                                                                           const MontgomeryField& b0,
                                                                           const MontgomeryField& b1) {
        if constexpr (kLazyProducts) {
            return Arithmetic::sum_times_sum(a0, a1, b0, b1);
        } else {
            return mont_mul(a0 + a1, b0 + b1);
        }
    }
    ZKB_HOST_DEVICE ZKB_INLINE_ON_HOST static MontgomeryField product_difference(const MontgomeryField& a,
                                                                                const MontgomeryField& b,
                                                                                const MontgomeryField& c,
                                                                                const MontgomeryField& d) {
        if constexpr (kLazyProducts) {
            return Arithmetic::product_difference(a, b, c, d);
        } else {
            return mont_mul(a, b) - mont_mul(c, d);
        }
    }

    // x/2: x + m is even when x is odd (m is odd), and fits N limbs (the top bit is spare).
    ZKB_HOST_DEVICE MontgomeryField half() const {
        const uint64_t add_mask = uint64_t{0} - (limbs[0] & 1);
        uint64_t sum[N];
        uint64_t carry = 0;
        ZKB_UNROLL
        for (int i = 0; i < N; ++i) sum[i] = detail::add_carry(limbs[i], modulus_limb(i) & add_mask, carry);
        MontgomeryField result;
        ZKB_UNROLL
        for (int i = 0; i < N - 1; ++i) result.limbs[i] = (sum[i] >> 1) | (sum[i + 1] << 63);
        result.limbs[N - 1] = sum[N - 1] >> 1;
        return result;
    }

    // x^e for a little-endian exponent of `count` limbs (detail::pow_by_limbs).
    ZKB_HOST_DEVICE MontgomeryField pow(const uint64_t* exponent, int count) const {
        return detail::pow_by_limbs(*this, exponent, count);
    }
    ZKB_HOST_DEVICE MontgomeryField pow(uint64_t exponent) const { return pow(&exponent, 1); }

    // 1/x; the inverse of 0 is 0 (callers that care check is_zero first). Where the
    // modulus leaves the two spare bits they need (every field here but BLS12-381's Fr),
    // by Bernstein-Yang divsteps (safegcd.hpp: a fixed count of batches of 30 steps),
    // several times fewer instructions than Fermat's x^(m-2), which serves the others.
    static constexpr bool kInvertsByDivsteps = kModulusBits <= 64 * N - 2;
    ZKB_HOST_DEVICE MontgomeryField inverse() const {
        if constexpr (kInvertsByDivsteps) {
            // The divsteps see the integer x R: (x R)^-1, below 3m, reduced, times R^3 / R.
            MontgomeryField result = safegcd::Inverter<MontgomeryField>::inverse_below_3m(*this);
            subtract_modulus_if_needed(result.limbs);  // below 2m
            subtract_modulus_if_needed(result.limbs);  // below m
            return mont_mul(result, from_representation(r_cubed()));
        } else {
            constexpr Limbs<N> kExponent = detail::minus_small(modulus(), 2);
            return pow(kExponent.limbs, N);
        }
    }

    // For m = 3 mod 4, x^((m+1)/4) is a square root of x whenever x has one. Returns
    // false (root unspecified) when x is not a square; sqrt(0) = 0.
    ZKB_HOST_DEVICE bool sqrt(MontgomeryField& root) const {
        static_assert((Description::modulus().limbs[0] & 3) == 3 && ~Description::modulus().limbs[0] != 0,
                      "sqrt needs a modulus = 3 mod 4 (whose low limb + 1 does not carry)");
        uint64_t exponent[N];  // (m + 1) / 4; m + 1 does not carry out of the low limb
        for (int i = 0; i < N; ++i) {
            const uint64_t low = modulus_limb(i) + (i == 0 ? 1 : 0);
            const uint64_t high = i < N - 1 ? modulus_limb(i + 1) : 0;
            exponent[i] = (low >> 2) | (high << 62);
        }
        root = pow(exponent, N);
        return root.sqr() == *this;
    }

    ZKB_HOST_DEVICE constexpr bool is_zero() const {
        return is_zero(limbs, kIndices);
    }
    ZKB_HOST_DEVICE bool is_one() const { return *this == one(); }

    ZKB_HOST_DEVICE constexpr bool operator==(const MontgomeryField& other) const {
        uint64_t difference = 0;
        for (int i = 0; i < N; ++i) difference |= limbs[i] ^ other.limbs[i];
        return difference == 0;
    }
    ZKB_HOST_DEVICE constexpr bool operator!=(const MontgomeryField& other) const { return !(*this == other); }

    // The canonical value is greater than (m - 1) / 2 (Zcash's sign flag).
    ZKB_HOST_DEVICE bool is_lexicographically_largest() const {
        uint64_t canonical[N];
        to_canonical(canonical);
        for (int i = N - 1; i >= 0; --i) {
            // limb i of (m - 1) / 2 = m >> 1 (m is odd)
            const uint64_t half = (modulus_limb(i) >> 1) | (i < N - 1 ? modulus_limb(i + 1) << 63 : 0);
            if (canonical[i] != half) return canonical[i] > half;
        }
        return false;  // equal to (m - 1) / 2
    }

    // Replaces v by v - m when v >= m (v < 2m). Branch-free select.
    ZKB_HOST_DEVICE static ZKB_FORCEINLINE void subtract_modulus_if_needed(uint64_t v[N]) {
        uint64_t reduced[N];
        uint64_t borrow = 0;
        ZKB_UNROLL
        for (int i = 0; i < N; ++i) reduced[i] = detail::sub_borrow(v[i], modulus_limb(i), borrow);
        const uint64_t keep_mask = uint64_t{0} - borrow;  // borrow == 1: v < m, keep v
        ZKB_UNROLL
        for (int i = 0; i < N; ++i) v[i] = (v[i] & keep_mask) | (reduced[i] & ~keep_mask);
    }

    // ---- host-only conversions of canonical values ----------------------------------
    // kBytes little-endian bytes (dumps, digests, snarkjs's .wtns). Returns false and
    // leaves `out` untouched when they encode a value >= m.
    static bool try_from_canonical_le_bytes(const uint8_t* bytes, MontgomeryField& out) {
        uint64_t canonical[N];
        for (int limb = 0; limb < N; ++limb) {
            uint64_t word = 0;
            for (int byte = 7; byte >= 0; --byte) word = (word << 8) | bytes[limb * 8 + byte];
            canonical[limb] = word;
        }
        return try_from_canonical(canonical, out);
    }
    // Throws std::invalid_argument when the value is >= m.
    static MontgomeryField from_canonical_le_bytes(const uint8_t* bytes) {
        MontgomeryField value;
        if (!try_from_canonical_le_bytes(bytes, value)) {
            throw std::invalid_argument(std::string(Description::kName) + ": the " + std::to_string(kBytes) +
                                        " little-endian bytes encode a value >= the modulus " + modulus_abbreviated() +
                                        "; canonical field elements must be reduced");
        }
        return value;
    }
    void to_canonical_le_bytes(uint8_t* out) const {
        uint64_t canonical[N];
        to_canonical(canonical);
        for (int limb = 0; limb < N; ++limb) {
            for (int byte = 0; byte < 8; ++byte) out[limb * 8 + byte] = static_cast<uint8_t>(canonical[limb] >> (8 * byte));
        }
    }
    // kBytes big-endian bytes (the Zcash encodings). Returns false and leaves `out`
    // untouched when they encode a value >= m.
    static bool try_from_be_bytes(const uint8_t* bytes, MontgomeryField& out) {
        uint64_t canonical[N];
        for (int limb = 0; limb < N; ++limb) {
            uint64_t word = 0;
            const uint8_t* most_significant = bytes + 8 * (N - 1 - limb);
            for (int byte = 0; byte < 8; ++byte) word = (word << 8) | most_significant[byte];
            canonical[limb] = word;
        }
        return try_from_canonical(canonical, out);
    }
    void to_be_bytes(uint8_t* out) const {
        uint64_t canonical[N];
        to_canonical(canonical);
        for (int limb = 0; limb < N; ++limb) {
            uint8_t* most_significant = out + 8 * (N - 1 - limb);
            for (int byte = 0; byte < 8; ++byte) {
                most_significant[byte] = static_cast<uint8_t>(canonical[limb] >> (56 - 8 * byte));
            }
        }
    }
    // "0x" followed by 16 N lowercase hex digits, big-endian, canonical.
    std::string to_hex() const {
        uint64_t canonical[N];
        to_canonical(canonical);
        return detail::limbs_to_hex(canonical, N);
    }
    // Accepts an optional 0x/0X prefix and 1..16 N hex digits of a value < m.
    static bool try_from_hex(std::string_view hex, MontgomeryField& out) {
        uint64_t canonical[N];
        return detail::hex_to_limbs(hex, canonical, N) && try_from_canonical(canonical, out);
    }
    // Throws std::invalid_argument naming the field and the offending text.
    static MontgomeryField from_hex(std::string_view hex) {
        MontgomeryField value;
        if (!try_from_hex(hex, value)) {
            throw std::invalid_argument(std::string(Description::kName) + ": '" + std::string(hex) +
                                        "' is not a field element; expected up to " + std::to_string(16 * N) +
                                        " hex digits (optional 0x prefix) of a value below the modulus " +
                                        modulus_abbreviated());
        }
        return value;
    }

private:
    static bool try_from_canonical(const uint64_t canonical[N], MontgomeryField& out) {
        if (!is_canonical(canonical)) return false;
        out = from_canonical(canonical);
        return true;
    }
    // "0x73eda753...00000001": the modulus' first and last eight hex digits.
    static std::string modulus_abbreviated() {
        const std::string hex = detail::limbs_to_hex(modulus().limbs, N);
        const size_t first = hex.find_first_not_of('0', 2);
        return "0x" + hex.substr(first, 8) + "..." + hex.substr(hex.size() - 8);
    }
};

// Writes n elements as canonical little-endian values (n * F::kBytes bytes), the form of
// every user-visible dump and digest. `out` may be `in` itself (a backend's h, ABI v3):
// each element is read whole before its bytes are written.
template <class Description>
void to_canonical_le(const MontgomeryField<Description>* in, size_t n, uint8_t* out) {
    constexpr size_t kBytes = MontgomeryField<Description>::kBytes;
    for (size_t i = 0; i < n; ++i) in[i].to_canonical_le_bytes(out + kBytes * i);
}

}  // namespace zkbatch::ff
