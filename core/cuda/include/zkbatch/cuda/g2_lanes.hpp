// G2 points held by pairs of threads, for the MSM's level 0 (msm_steps.hpp, sum_runs).
//
// A G2 mixed XYZZ addition wants more registers than a thread may have: at 255 it spills
// and runs 8 warps an SM, its FMA pipe half as busy as G1's at 12 (core/cuda/MSM-NOTES.md,
// v1-v5), and capping it at 168 or 128 registers spilled more and ran slower (v7). Here
// two neighbouring lanes of a warp (2k, 2k + 1) hold one point: the even lane the c0 half
// of every Fp2 value, the odd lane the c1 half. Sums and differences stay in their lane; a
// product fetches the partner's halves by shuffles and each lane computes its own half,
//   even: c0 = a0 b0 - a1 b1,   odd: c1 = a1 b0 + a0 b1,
// two Fp products a lane (four a pair against Karatsuba's three in one thread), with half
// a point's registers each. Every value stays fully reduced, so the halves are bit for
// bit the c0 and c1 of ff::Fp2's arithmetic.
//
// Every branch of the formulas tests a pair-wide predicate (is_zero asks both halves), so
// both lanes of a pair always take the same path and meet at each shuffle. CUDA only: the
// host never splits a point (its emulation of the kernels runs whole G2 points).
#pragma once

#include <zkbatch/cuda/msm_steps.hpp>
#include <zkbatch/ec/curve.hpp>
#include <zkbatch/ec/point.hpp>
#include <zkbatch/ff/fp.hpp>
#include <zkbatch/util/host_device.hpp>

#include <cstdint>

namespace zkbatch::cuda::lanes {

__device__ ZKB_FORCEINLINE bool odd_lane() { return (threadIdx.x & 1) != 0; }

// This lane and its partner (one-dimensional blocks of whole warps).
__device__ ZKB_FORCEINLINE unsigned pair_mask() { return 3u << (threadIdx.x & 30); }

__device__ ZKB_FORCEINLINE ff::Fp partner_half(const ff::Fp& half) {
    ff::Fp other;
    ZKB_UNROLL
    for (int i = 0; i < 6; ++i) other.limbs[i] = __shfl_xor_sync(pair_mask(), half.limbs[i], 1);
    return other;
}

// Both lanes' flags, and-ed. The shuffle runs before the test: both lanes must reach it.
__device__ ZKB_FORCEINLINE bool both(bool mine) {
    const int theirs = __shfl_xor_sync(pair_mask(), mine ? 1 : 0, 1);
    return mine && theirs != 0;
}

// One lane's half of an Fp2 value: c0 on the even lane, c1 on the odd one.
struct Fp2Half {
    ff::Fp c;

    ZKB_HOST_DEVICE static constexpr Fp2Half zero() { return Fp2Half{ff::Fp::zero()}; }
    // Fp2's one is (1, 0). Host code never holds halves; its branch exists because
    // Xyzz::infinity, which calls this, is a host-and-device constexpr function.
    ZKB_HOST_DEVICE static Fp2Half one() {
#if defined(__CUDA_ARCH__)
        return Fp2Half{odd_lane() ? ff::Fp::zero() : ff::Fp::one()};
#else
        return Fp2Half{ff::Fp::one()};
#endif
    }

    __device__ Fp2Half operator+(const Fp2Half& o) const { return Fp2Half{c + o.c}; }
    __device__ Fp2Half operator-(const Fp2Half& o) const { return Fp2Half{c - o.c}; }
    __device__ Fp2Half operator-() const { return Fp2Half{-c}; }
    __device__ Fp2Half dbl() const { return Fp2Half{c.dbl()}; }

    // even: a0 b0 - a1 b1; odd: a1 b0 + a0 b1.
    __device__ Fp2Half operator*(const Fp2Half& o) const {
        const ff::Fp a_other = partner_half(c), b_other = partner_half(o.c);
        const bool odd = odd_lane();
        const ff::Fp mine = c * (odd ? b_other : o.c);
        const ff::Fp theirs = a_other * (odd ? o.c : b_other);
        return Fp2Half{odd ? mine + theirs : mine - theirs};
    }
    // even: (a0 + a1)(a0 - a1); odd: 2 a1 a0. One product a lane.
    __device__ Fp2Half sqr() const {
        const ff::Fp other = partner_half(c);
        const bool odd = odd_lane();
        return Fp2Half{(c + (odd ? c : other)) * (odd ? other : c - other)};
    }

    __device__ bool is_zero() const { return both(c.is_zero()); }
    __device__ bool operator==(const Fp2Half& o) const { return both(c == o.c); }
};

// G2 as pairs of lanes see it: a split curve (msm_steps.hpp, Stored) over whole G2
// points in memory, each lane reading and writing its halves.
struct G2Halves {
    using Field = Fp2Half;
    using Stored = ec::G2Params;
    static constexpr uint32_t kThreadsPerPoint = 2;

    __device__ static ec::Affine<G2Halves> load_part(const ec::Affine<ec::G2Params>* source) {
        const bool odd = odd_lane();
        return ec::Affine<G2Halves>{Fp2Half{msm::load_point(odd ? &source->x.c1 : &source->x.c0)},
                                    Fp2Half{msm::load_point(odd ? &source->y.c1 : &source->y.c0)}};
    }
    __device__ static void store_part(ec::Xyzz<ec::G2Params>* destination, const ec::Xyzz<G2Halves>& value) {
        const bool odd = odd_lane();
        msm::store_point(odd ? &destination->X.c1 : &destination->X.c0, value.X.c);
        msm::store_point(odd ? &destination->Y.c1 : &destination->Y.c0, value.Y.c);
        msm::store_point(odd ? &destination->ZZ.c1 : &destination->ZZ.c0, value.ZZ.c);
        msm::store_point(odd ? &destination->ZZZ.c1 : &destination->ZZZ.c0, value.ZZZ.c);
    }
};

}  // namespace zkbatch::cuda::lanes
