// Fixed-base multiplication on the device, the points of a seeded proving key: what one
// thread of the kernel does, as host/device functions so tests run the same code on the
// host (as msm_steps.hpp does for the MSM).
//
// Point i = [s_i] G for one generator G and many scalars s_i:
//  1. fixed_base_sum: one mixed addition (XYZZ) per window of the scalar, of the entry of
//     ec::fixed_base_table for the window's digit (the table of G's multiples, made on
//     the host, read from device memory: 22 x 4096 points, 8.6 MB for G1 and 17 MB for
//     G2, which the L2 cache holds). No doubling: the windows' powers are in the table.
//  2. To affine, x = X / ZZ and y = Y / ZZZ, with one inversion per group of kGroupSize
//     points (invert_group: Montgomery's trick over the group's ZZZ, in one thread of a
//     warp, the others waiting), since ZZ^3 = ZZZ^2 gives 1 / ZZ = ZZ^2 / ZZZ^2.
// The affine form of a point is unique, so the bytes are those of the host's
// fixed_base_mul, whatever the order of additions.
#pragma once

#include "gpu/msm/msm_steps.hpp"
#include "core/ec/point.hpp"
#include "core/ff/fr.hpp"
#include "core/util/host_device.hpp"

#include <cstdint>

namespace zkbatch::cuda::fixed_base {

// The table's window width: ceil(255 / 12) = 22 additions a point; the host's
// fixed_base_mul uses at most this width too.
inline constexpr unsigned kTableBits = 12;
// Points per inversion: a warp.
inline constexpr uint32_t kGroupSize = 32;

// Where a kernel finds the table (device memory).
template <class C>
struct TableView {
    const ec::Affine<C>* points = nullptr;
    unsigned bits = kTableBits;
    unsigned windows = 0;
};

// [scalar] G, as the XYZZ sum of one table entry per window.
template <class C>
ZKB_HOST_DEVICE ec::Xyzz<C> fixed_base_sum(const TableView<C>& table, const ff::Fr& scalar) {
    uint64_t canonical[4];
    scalar.to_canonical(canonical);
    ec::Xyzz<C> sum = ec::Xyzz<C>::infinity();
    for (unsigned w = 0; w < table.windows; ++w) {
        const uint32_t digit = ec::scalar_window(canonical, w * table.bits, table.bits);
        if (digit != 0) sum = ec::xyzz_add_mixed(sum, msm::load_point(table.points + (uint64_t{w} << table.bits) + digit));
    }
    return sum;
}

// What the group inversion inverts for this point: ZZZ, or 1 at infinity (ZZZ = 0 has
// no inverse, and infinity needs none).
template <class C>
ZKB_HOST_DEVICE typename C::Field inversion_input(const ec::Xyzz<C>& sum) {
    return sum.is_infinity() ? C::Field::one() : sum.ZZZ;
}

// values[k] = values[k]^-1 for k < count, all nonzero, with one field inversion: prefix[k]
// holds the product of values[0..k) while the inverse of the whole product is taken
// apart again from the top.
template <class Field>
ZKB_HOST_DEVICE void invert_group(Field* values, Field* prefix, uint32_t count) {
    Field running = Field::one();
    for (uint32_t k = 0; k < count; ++k) {
        prefix[k] = running;
        running = running * values[k];
    }
    Field inverse = running.inverse();
    for (uint32_t k = count; k-- > 0;) {
        const Field value_inverse = inverse * prefix[k];
        inverse = inverse * values[k];
        values[k] = value_inverse;
    }
}

// The affine point of `sum` given 1 / ZZZ (inversion_input's inverse).
template <class C>
ZKB_HOST_DEVICE ec::Affine<C> to_affine(const ec::Xyzz<C>& sum, const typename C::Field& zzz_inverse) {
    if (sum.is_infinity()) return ec::Affine<C>::infinity();
    const typename C::Field zz_inverse = sum.ZZ.sqr() * zzz_inverse.sqr();
    return ec::Affine<C>{sum.X * zz_inverse, sum.Y * zzz_inverse};
}

}  // namespace zkbatch::cuda::fixed_base
