// Points of a short Weierstrass curve y^2 = x^3 + b (a = 0) over a field of the tower,
// in three coordinate systems, and the group law on them; host and device code.
//
// C is a parameter struct (curve.hpp: BLS12-381's G1Params over Fp, G2Params over Fp2;
// bn254.hpp: BN254's over Fq, Fq2) with `using Field = ...`, `using Scalar = ...` (the
// field of the group order), `static constexpr Field b()` and, host only,
// `static const Affine<C>& generator()`; a G2's also names its twist (twist.hpp).
//
// - Affine<C>: (x, y), for storage and as the second operand of mixed additions. The
//   point at infinity is (0, 0), which is on none of the curves (b != 0). This is
//   the layout of snarkjs's .zkey points, so key sections load as arrays of it.
// - Jacobian<C>: (X, Y, Z) meaning (X/Z^2, Y/Z^3); Z = 0 is infinity. For arithmetic.
// - Xyzz<C>: (X, Y, ZZ, ZZZ) meaning (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is
//   infinity. Additions cost 8M + 2S (mixed) and 12M + 2S here against 7M + 4S and
//   11M + 5S in Jacobian, fewer products in all; the MSM keeps its running bucket sums,
//   and the buckets of its smaller windows, in it.
//
// Every addition handles infinity on either side, P == Q (it doubles) and P == -Q (it
// returns infinity), so callers never special-case them. The formulas are the
// Explicit-Formulas Database's for a = 0: dbl-2009-l, add-2007-bl, madd-2007-bl
// (Jacobian) and dbl-2008-s-1, add-2008-s, madd-2008-s (XYZZ).
#pragma once

#include "core/ff/batch_inverse.hpp"
#include "core/ff/fr.hpp"
#include "core/util/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace zkbatch::ec {

template <class C>
struct Affine {
    using Field = typename C::Field;
    Field x, y;

    ZKB_HOST_DEVICE static constexpr Affine infinity() { return Affine{Field::zero(), Field::zero()}; }
    ZKB_HOST_DEVICE bool is_infinity() const { return x.is_zero() && y.is_zero(); }
    // y^2 = x^3 + b; the point at infinity counts as on the curve (it is in the group).
    ZKB_HOST_DEVICE bool is_on_curve() const {
        return is_infinity() || y.sqr() == x.sqr() * x + C::b();
    }
    ZKB_HOST_DEVICE Affine operator-() const { return Affine{x, -y}; }  // -(0, 0) = (0, 0)
    ZKB_HOST_DEVICE bool operator==(const Affine& o) const { return x == o.x && y == o.y; }
    ZKB_HOST_DEVICE bool operator!=(const Affine& o) const { return !(*this == o); }
};

template <class C>
struct Jacobian {
    using Field = typename C::Field;
    Field X, Y, Z;

    ZKB_HOST_DEVICE static constexpr Jacobian infinity() { return Jacobian{Field::one(), Field::one(), Field::zero()}; }
    ZKB_HOST_DEVICE static Jacobian from_affine(const Affine<C>& a) {
        return a.is_infinity() ? infinity() : Jacobian{a.x, a.y, Field::one()};
    }
    ZKB_HOST_DEVICE bool is_infinity() const { return Z.is_zero(); }
    // Y^2 = X^3 + b Z^6.
    ZKB_HOST_DEVICE bool is_on_curve() const {
        if (is_infinity()) return true;
        const Field z2 = Z.sqr();
        return Y.sqr() == X.sqr() * X + C::b() * (z2.sqr() * z2);
    }
    // One inversion; batch_to_affine shares one among many points.
    ZKB_HOST_DEVICE Affine<C> to_affine() const {
        if (is_infinity()) return Affine<C>::infinity();
        const Field z_inverse = Z.inverse();
        const Field z_inverse2 = z_inverse.sqr();
        return Affine<C>{X * z_inverse2, Y * (z_inverse2 * z_inverse)};
    }
    ZKB_HOST_DEVICE Jacobian operator-() const { return Jacobian{X, -Y, Z}; }
    // The same point, whatever the representatives: X1 Z2^2 = X2 Z1^2, Y1 Z2^3 = Y2 Z1^3.
    ZKB_HOST_DEVICE bool operator==(const Jacobian& o) const {
        if (is_infinity() || o.is_infinity()) return is_infinity() && o.is_infinity();
        const Field z1z1 = Z.sqr();
        const Field z2z2 = o.Z.sqr();
        return X * z2z2 == o.X * z1z1 && Y * (z2z2 * o.Z) == o.Y * (z1z1 * Z);
    }
    ZKB_HOST_DEVICE bool operator!=(const Jacobian& o) const { return !(*this == o); }
};

template <class C>
struct Xyzz {
    using Field = typename C::Field;
    Field X, Y, ZZ, ZZZ;

    ZKB_HOST_DEVICE static constexpr Xyzz infinity() {
        return Xyzz{Field::one(), Field::one(), Field::zero(), Field::zero()};
    }
    ZKB_HOST_DEVICE static Xyzz from_affine(const Affine<C>& a) {
        return a.is_infinity() ? infinity() : Xyzz{a.x, a.y, Field::one(), Field::one()};
    }
    ZKB_HOST_DEVICE static Xyzz from_jacobian(const Jacobian<C>& j) {
        if (j.is_infinity()) return infinity();
        const Field zz = j.Z.sqr();
        return Xyzz{j.X, j.Y, zz, zz * j.Z};
    }
    ZKB_HOST_DEVICE bool is_infinity() const { return ZZ.is_zero(); }
    // With Z = ZZ: X/ZZ = (X ZZ)/ZZ^2 and Y/ZZZ = (Y ZZZ)/ZZZ^2 = (Y ZZZ)/ZZ^3.
    ZKB_HOST_DEVICE Jacobian<C> to_jacobian() const {
        if (is_infinity()) return Jacobian<C>::infinity();
        return Jacobian<C>{X * ZZ, Y * ZZZ, ZZ};
    }
    ZKB_HOST_DEVICE Xyzz operator-() const { return Xyzz{X, -Y, ZZ, ZZZ}; }
};

// ---- Jacobian group law ------------------------------------------------------------

// dbl-2009-l: 2M + 5S. Infinity stays infinity (Z3 = 2 Y Z = 0); no curve here has a
// point of order 2 (their groups' orders are odd), so Y = 0 never occurs on them.
template <class C>
ZKB_HOST_DEVICE ZKB_CALL_ON_DEVICE Jacobian<C> dbl(const Jacobian<C>& p) {
    using Field = typename C::Field;
    if (p.is_infinity()) return p;
    const Field a = p.X.sqr();
    const Field b = p.Y.sqr();
    const Field c = b.sqr();
    const Field d = ((p.X + b).sqr() - a - c).dbl();
    const Field e = a.dbl() + a;
    const Field f = e.sqr();
    Jacobian<C> r;
    r.X = f - d.dbl();
    r.Y = e * (d - r.X) - c.dbl().dbl().dbl();
    r.Z = (p.Y * p.Z).dbl();
    return r;
}

// add-2007-bl: 11M + 5S.
template <class C>
ZKB_HOST_DEVICE ZKB_CALL_ON_DEVICE Jacobian<C> add(const Jacobian<C>& p, const Jacobian<C>& q) {
    using Field = typename C::Field;
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    const Field z1z1 = p.Z.sqr();
    const Field z2z2 = q.Z.sqr();
    const Field u1 = p.X * z2z2;
    const Field u2 = q.X * z1z1;
    const Field s1 = p.Y * q.Z * z2z2;
    const Field s2 = q.Y * p.Z * z1z1;
    const Field h = u2 - u1;
    const Field rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl(p) : Jacobian<C>::infinity();
    const Field i = h.dbl().sqr();
    const Field j = h * i;
    const Field v = u1 * i;
    Jacobian<C> r;
    r.X = rr.sqr() - j - v.dbl();
    r.Y = rr * (v - r.X) - (s1 * j).dbl();
    r.Z = ((p.Z + q.Z).sqr() - z1z1 - z2z2) * h;
    return r;
}

// madd-2007-bl: 7M + 4S.
template <class C>
ZKB_HOST_DEVICE ZKB_CALL_ON_DEVICE Jacobian<C> add_mixed(const Jacobian<C>& p, const Affine<C>& q) {
    using Field = typename C::Field;
    if (q.is_infinity()) return p;
    if (p.is_infinity()) return Jacobian<C>::from_affine(q);
    const Field z1z1 = p.Z.sqr();
    const Field u2 = q.x * z1z1;
    const Field s2 = q.y * p.Z * z1z1;
    const Field h = u2 - p.X;
    const Field rr = (s2 - p.Y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl(p) : Jacobian<C>::infinity();
    const Field hh = h.sqr();
    const Field i = hh.dbl().dbl();
    const Field j = h * i;
    const Field v = p.X * i;
    Jacobian<C> r;
    r.X = rr.sqr() - j - v.dbl();
    r.Y = rr * (v - r.X) - (p.Y * j).dbl();
    r.Z = (p.Z + h).sqr() - z1z1 - hh;
    return r;
}

// ---- XYZZ group law ----------------------------------------------------------------

// dbl-2008-s-1: 6M + 3S.
template <class C>
ZKB_HOST_DEVICE ZKB_CALL_ON_DEVICE Xyzz<C> xyzz_dbl(const Xyzz<C>& p) {
    using Field = typename C::Field;
    if (p.is_infinity()) return p;
    const Field u = p.Y.dbl();
    const Field v = u.sqr();
    const Field w = u * v;
    const Field s = p.X * v;
    const Field x2 = p.X.sqr();
    const Field m = x2.dbl() + x2;
    Xyzz<C> r;
    r.X = m.sqr() - s.dbl();
    r.Y = Field::product_difference(m, s - r.X, w, p.Y);
    r.ZZ = v * p.ZZ;
    r.ZZZ = w * p.ZZZ;
    return r;
}

// madd-2008-s: 8M + 2S.
template <class C>
ZKB_HOST_DEVICE ZKB_CALL_ON_DEVICE Xyzz<C> xyzz_add_mixed(const Xyzz<C>& p, const Affine<C>& q) {
    using Field = typename C::Field;
    if (q.is_infinity()) return p;
    if (p.is_infinity()) return Xyzz<C>::from_affine(q);
    const Field u2 = q.x * p.ZZ;
    const Field s2 = q.y * p.ZZZ;
    const Field pp_ = u2 - p.X;
    const Field rr = s2 - p.Y;
    if (pp_.is_zero()) return rr.is_zero() ? xyzz_dbl(Xyzz<C>::from_affine(q)) : Xyzz<C>::infinity();
    const Field pp = pp_.sqr();
    const Field ppp = pp_ * pp;
    const Field qq = p.X * pp;
    Xyzz<C> r;
    r.X = rr.sqr() - ppp - qq.dbl();
    r.Y = Field::product_difference(rr, qq - r.X, p.Y, ppp);
    r.ZZ = p.ZZ * pp;
    r.ZZZ = p.ZZZ * ppp;
    return r;
}

// add-2008-s: 12M + 2S.
template <class C>
ZKB_HOST_DEVICE ZKB_CALL_ON_DEVICE Xyzz<C> xyzz_add(const Xyzz<C>& p, const Xyzz<C>& q) {
    using Field = typename C::Field;
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    const Field u1 = p.X * q.ZZ;
    const Field u2 = q.X * p.ZZ;
    const Field s1 = p.Y * q.ZZZ;
    const Field s2 = q.Y * p.ZZZ;
    const Field pp_ = u2 - u1;
    const Field rr = s2 - s1;
    if (pp_.is_zero()) return rr.is_zero() ? xyzz_dbl(p) : Xyzz<C>::infinity();
    const Field pp = pp_.sqr();
    const Field ppp = pp_ * pp;
    const Field qq = u1 * pp;
    Xyzz<C> r;
    r.X = rr.sqr() - ppp - qq.dbl();
    r.Y = Field::product_difference(rr, qq - r.X, s1, ppp);
    r.ZZ = p.ZZ * q.ZZ * pp;
    r.ZZZ = p.ZZZ * q.ZZZ * ppp;
    return r;
}

// ---- scalar multiplication ---------------------------------------------------------

// Bits [offset, offset + width) of a little-endian 256-bit scalar (width <= 32; bits
// past 256 read as 0): the window digits of fixed_base_mul and pippenger.
ZKB_HOST_DEVICE inline uint32_t scalar_window(const uint64_t scalar[4], unsigned offset, unsigned width) {
    const unsigned limb = offset / 64;
    const unsigned shift = offset % 64;
    if (limb >= 4) return 0;
    uint64_t bits = scalar[limb] >> shift;
    if (shift + width > 64 && limb + 1 < 4) bits |= scalar[limb + 1] << (64 - shift);
    return static_cast<uint32_t>(bits & ((uint64_t{1} << width) - 1));
}

// [k]P for a little-endian 256-bit k (any value; it need not be reduced mod r), by
// double-and-add from k's top set bit. Variable time: for public or test scalars, and
// as the device's simple reference; fixed_base_mul and pippenger are the fast paths.
template <class C>
ZKB_HOST_DEVICE Jacobian<C> scalar_mul(const Jacobian<C>& p, const uint64_t scalar[4]) {
    Jacobian<C> result = Jacobian<C>::infinity();
    bool started = false;
    for (int limb = 3; limb >= 0; --limb) {
        for (int bit = 63; bit >= 0; --bit) {
            if (started) result = dbl(result);
            if ((scalar[limb] >> bit) & 1) {
                result = started ? add(result, p) : p;
                started = true;
            }
        }
    }
    return result;
}

// [k]P for k in a scalar field of four limbs (Montgomery, as the field stores it):
// BLS12-381's Fr or BN254's.
template <class C, class ScalarDescription>
ZKB_HOST_DEVICE Jacobian<C> scalar_mul(const Jacobian<C>& p, const ff::MontgomeryField<ScalarDescription>& scalar) {
    static_assert(ff::MontgomeryField<ScalarDescription>::kLimbs == 4, "scalars are 256-bit");
    uint64_t canonical[4];
    scalar.to_canonical(canonical);
    return scalar_mul(p, canonical);
}

// ---- host only -----------------------------------------------------------------------

// C's standard generator, whichever curve C is on: C::generator(), defined with the curve.
template <class C>
const Affine<C>& generator() {
    return C::generator();
}

// out[i] = in[i].to_affine() for all i with one field inversion (ff::batch_inverse of
// the Z's). Points at infinity (Z = 0) come out as (0, 0).
template <class C>
void batch_to_affine(const Jacobian<C>* in, Affine<C>* out, size_t n) {
    using Field = typename C::Field;
    std::vector<Field> z_inverse(n);
    for (size_t i = 0; i < n; ++i) z_inverse[i] = in[i].Z;
    std::vector<Field> scratch;
    ff::batch_inverse(z_inverse.data(), n, scratch);
    for (size_t i = 0; i < n; ++i) {
        if (in[i].is_infinity()) {
            out[i] = Affine<C>::infinity();
            continue;
        }
        const Field z_inverse2 = z_inverse[i].sqr();
        out[i] = Affine<C>{in[i].X * z_inverse2, in[i].Y * (z_inverse2 * z_inverse[i])};
    }
}

}  // namespace zkbatch::ec
