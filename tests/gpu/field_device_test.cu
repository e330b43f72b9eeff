// The field and curve arithmetic of zkbatch/ff and zkbatch/ec run on the device against
// the same code on the host (itself checked against GMP and the group laws in math_tests
// and curve_tests): one implementation, two compilers, same bits. On the device every
// field runs on field32.hpp (PTX carry chains), so these tests are also what shows the
// PTX instructions do what the host model of them (HostChain) does.
#include "test_support.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/util/device_buffer.hpp"
#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/bn254.hpp"
#include "core/ff/bn254_tower.hpp"
#include "core/ff/fp2.hpp"
#include "core/ff/fr.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;

constexpr int kResultsPerPair = 8;

// For the fields of 8 limbs (BLS12-381's Fr, BN254's Fq and Fr): the last result is a
// domain's root of unity where the field has domains, half of x otherwise.
template <class F>
ZKB_HOST_DEVICE void field_ops(const F& x, const F& y, F* out) {
    out[0] = x + y;
    out[1] = x - y;
    out[2] = x * y;
    out[3] = x.sqr();
    out[4] = -x;
    out[5] = x.inverse();
    out[6] = x.pow(y.limbs[0]);
    if constexpr (F::kHasDomains) {
        out[7] = F::root_of_unity(static_cast<uint32_t>(y.limbs[1] % (F::kTwoAdicity + 1)));
    } else {
        out[7] = x.half();
    }
}

template <class F>
__global__ void field_ops_kernel(const F* x, const F* y, F* out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) field_ops(x[i], y[i], out + kResultsPerPair * i);
}

// x op y for every pair on the device, against the host's.
template <class F>
void expect_device_ops_match_the_host(std::vector<F> x, std::vector<F> y) {
    // Edge values: 0, 1, m - 1, and pairs whose sum or difference wraps.
    const F minus_one = -F::one();
    const F edges[][2] = {{F::zero(), F::zero()}, {F::one(), F::zero()}, {minus_one, F::one()},
                          {minus_one, minus_one}, {F::zero(), F::one()}, {F::one(), minus_one}};
    for (size_t i = 0; i < std::size(edges); ++i) {
        x[i] = edges[i][0];
        y[i] = edges[i][1];
    }
    const uint32_t count = static_cast<uint32_t>(x.size());

    cuda::DeviceBuffer<F> device_x(count), device_y(count), device_out(size_t{count} * kResultsPerPair);
    device_x.copy_from_host(x.data(), count);
    device_y.copy_from_host(y.data(), count);
    field_ops_kernel<<<(count + 127) / 128, 128>>>(device_x.data(), device_y.data(), device_out.data(), count);
    ZKB_CUDA_CHECK_LAUNCH("field_ops_kernel");
    ZKB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<F> out(device_out.size());
    device_out.copy_to_host(out.data(), out.size());

    const char* const names[kResultsPerPair] = {"x+y", "x-y", "x*y", "x^2", "-x", "x^-1", "x^y0", "root or x/2"};
    F expected[kResultsPerPair];
    int mismatches = 0;
    for (uint32_t i = 0; i < count && mismatches < 10; ++i) {
        field_ops(x[i], y[i], expected);
        for (int op = 0; op < kResultsPerPair; ++op) {
            if (out[size_t{i} * kResultsPerPair + op] != expected[op]) {
                ++mismatches;
                ADD_FAILURE() << names[op] << " differs at pair " << i << ": x = " << x[i].to_hex()
                              << ", y = " << y[i].to_hex();
            }
        }
    }
}

TEST(DeviceField, OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    expect_device_ops_match_the_host(test::random_vector(4096, 11), test::random_vector(4096, 12));
}

// Uniform elements of F below its modulus (the top two bits cleared, values >= m redrawn).
template <class F>
std::vector<F> random_elements(size_t count, uint64_t seed) {
    std::mt19937_64 generator(seed);
    std::vector<F> values;
    while (values.size() < count) {
        uint64_t canonical[F::kLimbs];
        for (uint64_t& limb : canonical) limb = generator();
        canonical[F::kLimbs - 1] >>= 2;
        if (F::is_canonical(canonical)) values.push_back(F::from_canonical(canonical));
    }
    return values;
}

TEST(DeviceField, Bn254OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    expect_device_ops_match_the_host(random_elements<ff::bn254::Fq>(4096, 21), random_elements<ff::bn254::Fq>(4096, 22));
    expect_device_ops_match_the_host(random_elements<ff::bn254::Fr>(4096, 23), random_elements<ff::bn254::Fr>(4096, 24));
}

// ---- Fp and Fp2 ----------------------------------------------------------------------

using ff::Fp;
using ff::Fp2;

// Random canonical values below 2^380 < p, as Montgomery forms.
Fp random_fp(std::mt19937_64& rng) {
    uint64_t canonical[6];
    for (uint64_t& limb : canonical) limb = rng();
    canonical[5] &= (uint64_t{1} << 60) - 1;
    return Fp::from_canonical(canonical);
}

// Edge values of Fp: 0, 1, -1, 2, -2, and the raw limbs p - 1 (the largest residue).
std::vector<Fp> fp_values(size_t count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    uint64_t p_minus_one[6];
    for (int i = 0; i < 6; ++i) p_minus_one[i] = Fp::modulus_limb(i);
    p_minus_one[0] -= 1;
    std::vector<Fp> values = {Fp::zero(), Fp::one(), -Fp::one(), Fp::from_u64(2), -Fp::from_u64(2),
                              Fp{{p_minus_one[0], p_minus_one[1], p_minus_one[2], p_minus_one[3], p_minus_one[4],
                                  p_minus_one[5]}}};
    while (values.size() < count) values.push_back(random_fp(rng));
    return values;
}

constexpr int kFpResults = 9;
constexpr int kFp2Results = 7;
const char* const kFpNames[kFpResults] = {"x+y", "x-y", "x*y", "x^2", "-x", "x^-1", "x/2", "2x*2y", "x*y-2y*(x+y)"};
const char* const kFp2Names[kFp2Results] = {"x+y", "x-y", "x*y", "x^2", "x^-1", "xi*x*conj(y)", "lazy x*y"};

// A base field's operations, its lazy products among them (BLS12-381's Fp, BN254's Fq).
template <class F>
ZKB_HOST_DEVICE void fp_ops(const F& x, const F& y, F* out) {
    out[0] = x + y;
    out[1] = x - y;
    out[2] = x * y;
    out[3] = x.sqr();
    out[4] = -x;
    out[5] = x.inverse();
    out[6] = x.half();
    out[7] = x.dbl() * y.dbl();
    out[8] = F::product_difference(x, y, y.dbl(), x + y);
}

template <class F2>
ZKB_HOST_DEVICE void fp2_ops(const F2& x, const F2& y, F2* out) {
    out[0] = x + y;
    out[1] = x - y;
    out[2] = x * y;
    out[3] = x.sqr();
    out[4] = x.inverse();
    out[5] = x.mul_by_nonresidue() * y.conjugate();
    out[6] = F2::lazy_product(x, y);
}

template <class F>
__global__ void fp_ops_kernel(const F* x, const F* y, F* out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) fp_ops(x[i], y[i], out + kFpResults * i);
}

template <class F2>
__global__ void fp2_ops_kernel(const F2* x, const F2* y, F2* out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) fp2_ops(x[i], y[i], out + kFp2Results * i);
}

// Runs `kernel` on (x, y) pairs and compares each result with `host` on the same pair.
template <class T, int kResults, class Kernel, class Host>
void expect_device_equals_host(const std::vector<T>& x, const std::vector<T>& y, Kernel kernel, Host host,
                               const char* const* names) {
    const uint32_t count = static_cast<uint32_t>(x.size());
    cuda::DeviceBuffer<T> device_x(count), device_y(count), device_out(size_t{count} * kResults);
    device_x.copy_from_host(x.data(), count);
    device_y.copy_from_host(y.data(), count);
    kernel<<<(count + 63) / 64, 64>>>(device_x.data(), device_y.data(), device_out.data(), count);
    ZKB_CUDA_CHECK_LAUNCH("field ops kernel");
    ZKB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> out(device_out.size());
    device_out.copy_to_host(out.data(), out.size());
    T expected[kResults];
    int mismatches = 0;
    for (uint32_t i = 0; i < count && mismatches < 10; ++i) {
        host(x[i], y[i], expected);
        for (int op = 0; op < kResults; ++op) {
            if (std::memcmp(&out[size_t{i} * kResults + op], &expected[op], sizeof(T)) != 0) {
                ++mismatches;
                ADD_FAILURE() << names[op] << " differs at pair " << i;
            }
        }
    }
}

TEST(DeviceField, FpOperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    std::vector<Fp> x = fp_values(4096, 21);
    std::vector<Fp> y = fp_values(4096, 22);
    // Every pair of edge values, so sums and differences wrap both ways.
    for (size_t i = 0; i < 6; ++i) {
        for (size_t k = 0; k < 6; ++k) {
            x[100 + 6 * i + k] = x[i];
            y[100 + 6 * i + k] = y[k];
        }
    }
    expect_device_equals_host<Fp, kFpResults>(x, y, fp_ops_kernel<Fp>, fp_ops<Fp>, kFpNames);
}

TEST(DeviceField, Fp2OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    const std::vector<Fp> values = fp_values(4096, 23);
    std::vector<Fp2> x, y;
    for (size_t i = 0; i < 1024; ++i) {
        x.push_back(Fp2{values[i], values[(i * 5 + 1) % 4096]});
        y.push_back(Fp2{values[(i * 7 + 2) % 4096], values[(i * 11 + 3) % 4096]});
    }
    expect_device_equals_host<Fp2, kFp2Results>(x, y, fp2_ops_kernel<Fp2>, fp2_ops<Fp2>, kFp2Names);
}

// BN254's Fq and Fq2, whose device products are the lazy ones of field32.hpp too.
TEST(DeviceField, Bn254FqAndFq2OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    using ff::bn254::Fq;
    using ff::bn254::Fq2;
    std::vector<Fq> x = random_elements<Fq>(4096, 25);
    std::vector<Fq> y = random_elements<Fq>(4096, 26);
    const Fq edges[] = {Fq::zero(), Fq::one(), -Fq::one(), Fq::from_u64(2), -Fq::from_u64(2)};
    for (size_t i = 0; i < std::size(edges); ++i) {
        for (size_t k = 0; k < std::size(edges); ++k) {
            x[5 * i + k] = edges[i];
            y[5 * i + k] = edges[k];
        }
    }
    expect_device_equals_host<Fq, kFpResults>(x, y, fp_ops_kernel<Fq>, fp_ops<Fq>, kFpNames);
    std::vector<Fq2> x2, y2;
    for (size_t i = 0; i < 1024; ++i) {
        x2.push_back(Fq2{x[i], x[(i * 5 + 1) % 4096]});
        y2.push_back(Fq2{y[(i * 7 + 2) % 4096], y[(i * 11 + 3) % 4096]});
    }
    expect_device_equals_host<Fq2, kFp2Results>(x2, y2, fp2_ops_kernel<Fq2>, fp2_ops<Fq2>, kFp2Names);
}

// ---- G1 and G2 --------------------------------------------------------------------------

// The group law in every coordinate system, with its special cases carried by the
// inputs: P == Q (the additions double), P == -Q, P at infinity, Q at infinity (and so
// the affine (0, 0)). One kernel per operation: a kernel with every G2 formula inlined
// keeps nvcc's optimizer busy for many minutes.
template <class C>
struct CurveInput {
    ec::Jacobian<C> p, q;
    ec::Affine<C> q_affine;  // q's affine form (from the host)
};

template <class C>
ZKB_HOST_DEVICE ec::Xyzz<C> xyzz_of(const ec::Jacobian<C>& point) {
    return ec::Xyzz<C>::from_jacobian(point);
}

#define ZKB_CURVE_OP(name, result_type, expression)                                              \
    struct name {                                                                              \
        static constexpr const char* kName = #name;                                            \
        template <class C>                                                                     \
        using Out = result_type<C>;                                                            \
        template <class C>                                                                     \
        ZKB_HOST_DEVICE static Out<C> apply(const CurveInput<C>& in) {                         \
            const ec::Jacobian<C>& p = in.p;                                                   \
            const ec::Jacobian<C>& q = in.q;                                                   \
            const ec::Affine<C>& qa = in.q_affine;                                             \
            (void)p, (void)q, (void)qa;                                                        \
            return expression;                                                                 \
        }                                                                                      \
    };
ZKB_CURVE_OP(Dbl, ec::Jacobian, ec::dbl(p))
ZKB_CURVE_OP(Add, ec::Jacobian, ec::add(p, q))
ZKB_CURVE_OP(AddMixed, ec::Jacobian, ec::add_mixed(p, qa))
ZKB_CURVE_OP(XyzzDbl, ec::Xyzz, ec::xyzz_dbl(xyzz_of(p)))
ZKB_CURVE_OP(XyzzAdd, ec::Xyzz, ec::xyzz_add(xyzz_of(p), xyzz_of(q)))
ZKB_CURVE_OP(XyzzAddMixed, ec::Xyzz, ec::xyzz_add_mixed(xyzz_of(p), qa))
ZKB_CURVE_OP(XyzzAddMixedInfinity, ec::Xyzz, ec::xyzz_add_mixed(xyzz_of(p), ec::Affine<C>::infinity()))
ZKB_CURVE_OP(ToAffine, ec::Affine, ec::add(p, q).to_affine())
#undef ZKB_CURVE_OP

template <class Op, class C>
__global__ void curve_op_kernel(const CurveInput<C>* in, typename Op::template Out<C>* out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = Op::template apply<C>(in[i]);
}

template <class C, class Op>
void expect_op_matches(const std::vector<CurveInput<C>>& inputs, const cuda::DeviceBuffer<CurveInput<C>>& device_in) {
    using Out = typename Op::template Out<C>;
    const uint32_t count = static_cast<uint32_t>(inputs.size());
    cuda::DeviceBuffer<Out> device_out(count);
    curve_op_kernel<Op, C><<<(count + 31) / 32, 32>>>(device_in.data(), device_out.data(), count);
    ZKB_CUDA_CHECK_LAUNCH("curve_op_kernel");
    ZKB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<Out> out(count);
    device_out.copy_to_host(out.data(), count);
    for (uint32_t i = 0; i < count; ++i) {
        const Out expected = Op::template apply<C>(inputs[i]);
        EXPECT_EQ(std::memcmp(&out[i], &expected, sizeof expected), 0) << Op::kName << " differs at pair " << i;
    }
}

template <class C>
void expect_curve_ops_match() {
    using Point = ec::Jacobian<C>;
    std::mt19937_64 rng(sizeof(ec::Affine<C>));
    const Point generator = Point::from_affine(ec::generator<C>());
    std::vector<CurveInput<C>> inputs(64);
    for (CurveInput<C>& input : inputs) {
        uint64_t k1[4] = {rng(), rng(), rng(), rng() >> 2}, k2[4] = {rng(), rng(), rng(), rng() >> 2};
        input.p = ec::scalar_mul(generator, k1);
        input.q = ec::scalar_mul(generator, k2);
    }
    inputs[1].p = inputs[1].q;   // P == Q: the additions double
    inputs[2].p = -inputs[2].q;  // P == -Q: infinity
    inputs[3].p = Point::infinity();
    inputs[4].q = Point::infinity();
    for (CurveInput<C>& input : inputs) input.q_affine = input.q.to_affine();
    cuda::DeviceBuffer<CurveInput<C>> device_in(inputs.size());
    device_in.copy_from_host(inputs.data(), inputs.size());
    expect_op_matches<C, Dbl>(inputs, device_in);
    expect_op_matches<C, Add>(inputs, device_in);
    expect_op_matches<C, AddMixed>(inputs, device_in);
    expect_op_matches<C, XyzzDbl>(inputs, device_in);
    expect_op_matches<C, XyzzAdd>(inputs, device_in);
    expect_op_matches<C, XyzzAddMixed>(inputs, device_in);
    expect_op_matches<C, XyzzAddMixedInfinity>(inputs, device_in);
    expect_op_matches<C, ToAffine>(inputs, device_in);
    // The host results themselves are right (curve_tests checks the formulas); spot-check
    // that the special cases came out as the group law says.
    EXPECT_TRUE(Add::apply<C>(inputs[2]).is_infinity());
    EXPECT_TRUE(ToAffine::apply<C>(inputs[2]).is_infinity());
    EXPECT_EQ(Add::apply<C>(inputs[1]), Dbl::apply<C>(inputs[1]));
    EXPECT_EQ(Add::apply<C>(inputs[3]), inputs[3].q);
    EXPECT_EQ(AddMixed::apply<C>(inputs[4]), inputs[4].p);
}

TEST(DeviceCurve, G1OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    expect_curve_ops_match<ec::G1Params>();
}

TEST(DeviceCurve, G2OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    expect_curve_ops_match<ec::G2Params>();
}

TEST(DeviceCurve, Bn254G1AndG2OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    expect_curve_ops_match<ec::bn254::G1Params>();
    expect_curve_ops_match<ec::bn254::G2Params>();
}

}  // namespace
}  // namespace zkbatch
