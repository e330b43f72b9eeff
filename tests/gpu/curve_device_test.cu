// The BLS12-381 field and curve arithmetic of core/ff/fp.hpp, fp2.hpp and
// core/ec/point.hpp run on the device against the same code on the host (itself
// checked against GMP and noble in curve_tests and curve_interop_tests): one
// implementation, two compilers, same bits. The device path is still the 64-bit host
// code (a 32-bit PTX version is the GPU issue's); this keeps it compiling under nvcc
// with -Werror and, on a GPU, exact.
#include "test_support.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "core/ec/curve.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fp;
using ff::Fp2;
using ff::Fr;

struct CurveInput {
    Fp a, b;
    Fp2 c, d;
    ec::G1 p, q;
    ec::G1Affine q_affine;
    ec::G2 r, s;
    ec::G2Affine s_affine;
    Fr k;
};

constexpr int kFpResults = 5;
constexpr int kPointResults = 8;
struct CurveOutput {
    Fp fp[kFpResults];
    Fp2 fp2[kFpResults];
    ec::G1 g1[kPointResults];
    ec::G2 g2[kPointResults];
};

template <class F>
ZKB_HOST_DEVICE void field_ops(const F& x, const F& y, F* out) {
    out[0] = x + y;
    out[1] = x - y;
    out[2] = x * y;
    out[3] = x.sqr();
    out[4] = x.inverse();
}

// Every group-law routine, infinity and equal points included.
template <class C>
ZKB_HOST_DEVICE void point_ops(const ec::Jacobian<C>& p, const ec::Jacobian<C>& q, const ec::Affine<C>& q_affine,
                               const Fr& k, ec::Jacobian<C>* out) {
    using X = ec::Xyzz<C>;
    out[0] = ec::add(p, q);
    out[1] = ec::dbl(p);
    out[2] = ec::add_mixed(p, q_affine);
    out[3] = ec::xyzz_add_mixed(X::from_jacobian(p), q_affine).to_jacobian();
    out[4] = ec::xyzz_add(X::from_jacobian(p), X::from_jacobian(q)).to_jacobian();
    out[5] = ec::xyzz_dbl(X::from_jacobian(p)).to_jacobian();
    out[6] = ec::scalar_mul(p, k);
    out[7] = ec::add(ec::add_mixed(ec::Jacobian<C>::infinity(), q_affine), -q);  // infinity
}

ZKB_HOST_DEVICE void curve_ops(const CurveInput& in, CurveOutput* out) {
    field_ops(in.a, in.b, out->fp);
    field_ops(in.c, in.d, out->fp2);
    point_ops(in.p, in.q, in.q_affine, in.k, out->g1);
    point_ops(in.r, in.s, in.s_affine, in.k, out->g2);
}

__global__ void curve_ops_kernel(const CurveInput* in, CurveOutput* out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) curve_ops(in[i], out + i);
}

Fp random_fp(std::mt19937_64& rng) {
    uint64_t canonical[6] = {rng(), rng(), rng(), rng(), rng(), rng() >> 4};  // < 2^380 < p
    return Fp::from_canonical(canonical);
}

Fr random_fr(std::mt19937_64& rng) {
    uint64_t canonical[4] = {rng(), rng(), rng(), rng() >> 2};  // < 2^254 < r
    return Fr::from_canonical(canonical);
}

TEST(DeviceCurve, FieldAndPointOperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    std::mt19937_64 rng(50);
    const uint32_t count = 256;
    std::vector<CurveInput> inputs(count);
    const ec::G1 g1 = ec::G1::from_affine(ec::g1_generator());
    const ec::G2 g2 = ec::G2::from_affine(ec::g2_generator());
    for (uint32_t i = 0; i < count; ++i) {
        CurveInput& in = inputs[i];
        in.a = random_fp(rng);
        in.b = random_fp(rng);
        in.c = Fp2{random_fp(rng), random_fp(rng)};
        in.d = Fp2{random_fp(rng), random_fp(rng)};
        in.k = random_fr(rng);
        // A non-trivial Z: doubled points.
        in.p = ec::dbl(ec::scalar_mul(g1, random_fr(rng)));
        in.q = ec::dbl(ec::scalar_mul(g1, random_fr(rng)));
        in.r = ec::dbl(ec::scalar_mul(g2, random_fr(rng)));
        in.s = ec::dbl(ec::scalar_mul(g2, random_fr(rng)));
    }
    // Edge cases: zero operands, P == Q, P == -Q, infinity.
    inputs[0].b = Fp::zero();
    inputs[1].a = Fp::zero();
    inputs[1].d = Fp2::zero();
    inputs[2].q = inputs[2].p;
    inputs[2].s = inputs[2].r;
    inputs[3].q = -inputs[3].p;
    inputs[3].s = -inputs[3].r;
    inputs[4].p = ec::G1::infinity();
    inputs[4].r = ec::G2::infinity();
    inputs[5].q = ec::G1::infinity();
    inputs[5].s = ec::G2::infinity();
    inputs[6].k = Fr::zero();
    inputs[7].k = -Fr::one();
    for (CurveInput& in : inputs) {
        in.q_affine = in.q.to_affine();
        in.s_affine = in.s.to_affine();
    }

    cuda::DeviceBuffer<CurveInput> device_in(count);
    cuda::DeviceBuffer<CurveOutput> device_out(count);
    device_in.copy_from_host(inputs.data(), count);
    curve_ops_kernel<<<(count + 63) / 64, 64>>>(device_in.data(), device_out.data(), count);
    ZKB_CUDA_CHECK_LAUNCH("curve_ops_kernel");
    ZKB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<CurveOutput> out(count);
    device_out.copy_to_host(out.data(), count);

    const char* const field_names[kFpResults] = {"x+y", "x-y", "x*y", "x^2", "x^-1"};
    const char* const point_names[kPointResults] = {"add",      "dbl",      "add_mixed",  "xyzz_add_mixed",
                                                    "xyzz_add", "xyzz_dbl", "scalar_mul", "P + (-P)"};
    int mismatches = 0;
    for (uint32_t i = 0; i < count && mismatches < 10; ++i) {
        CurveOutput expected;
        curve_ops(inputs[i], &expected);
        for (int op = 0; op < kFpResults; ++op) {
            if (out[i].fp[op] != expected.fp[op]) {
                ++mismatches;
                ADD_FAILURE() << "Fp " << field_names[op] << " differs at " << i;
            }
            if (out[i].fp2[op] != expected.fp2[op]) {
                ++mismatches;
                ADD_FAILURE() << "Fp2 " << field_names[op] << " differs at " << i;
            }
        }
        for (int op = 0; op < kPointResults; ++op) {
            if (std::memcmp(&out[i].g1[op], &expected.g1[op], sizeof(ec::G1)) != 0) {
                ++mismatches;
                ADD_FAILURE() << "G1 " << point_names[op] << " differs at " << i;
            }
            if (std::memcmp(&out[i].g2[op], &expected.g2[op], sizeof(ec::G2)) != 0) {
                ++mismatches;
                ADD_FAILURE() << "G2 " << point_names[op] << " differs at " << i;
            }
        }
    }
    // The host results themselves are right (the point of comparing with them).
    EXPECT_EQ(out[2].g1[0], ec::dbl(inputs[2].p));
    EXPECT_TRUE(out[3].g2[0].is_infinity());
    EXPECT_TRUE(out[9].g1[7].is_infinity());
    EXPECT_EQ(out[9].fp[2] * out[9].fp[4], inputs[9].b) << "(a b) / a";
}

}  // namespace
}  // namespace zkbatch
