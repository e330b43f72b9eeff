// The field arithmetic of zkbatch/ff/fr.hpp run on the device against the same code on
// the host (itself checked against GMP in math_tests): one implementation, two
// compilers, same bits.
#include "test_support.hpp"

#include <zkbatch/cuda/cuda_check.hpp>
#include <zkbatch/cuda/device_buffer.hpp>
#include <zkbatch/ff/fr.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;

constexpr int kResultsPerPair = 8;

ZKB_HOST_DEVICE void field_ops(const Fr& x, const Fr& y, Fr* out) {
    out[0] = x + y;
    out[1] = x - y;
    out[2] = x * y;
    out[3] = x.sqr();
    out[4] = -x;
    out[5] = x.inverse();
    out[6] = x.pow(y.limbs[0]);
    out[7] = ff::root_of_unity(static_cast<uint32_t>(y.limbs[1] % 33));
}

__global__ void field_ops_kernel(const Fr* x, const Fr* y, Fr* out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) field_ops(x[i], y[i], out + kResultsPerPair * i);
}

TEST(DeviceField, OperationsMatchTheHostBitForBit) {
    ZKB_REQUIRE_GPU();
    std::vector<Fr> x = test::random_vector(4096, 11);
    std::vector<Fr> y = test::random_vector(4096, 12);
    // Edge values: 0, 1, r - 1, and pairs whose sum or difference wraps.
    const Fr minus_one = -Fr::one();
    const Fr edges[][2] = {{Fr::zero(), Fr::zero()}, {Fr::one(), Fr::zero()}, {minus_one, Fr::one()},
                           {minus_one, minus_one},   {Fr::zero(), Fr::one()}, {Fr::one(), minus_one}};
    for (size_t i = 0; i < std::size(edges); ++i) {
        x[i] = edges[i][0];
        y[i] = edges[i][1];
    }
    const uint32_t count = static_cast<uint32_t>(x.size());

    cuda::DeviceBuffer<Fr> device_x(count), device_y(count), device_out(size_t{count} * kResultsPerPair);
    device_x.copy_from_host(x.data(), count);
    device_y.copy_from_host(y.data(), count);
    field_ops_kernel<<<(count + 127) / 128, 128>>>(device_x.data(), device_y.data(), device_out.data(), count);
    ZKB_CUDA_CHECK_LAUNCH("field_ops_kernel");
    ZKB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<Fr> out(device_out.size());
    device_out.copy_to_host(out.data(), out.size());

    const char* const names[kResultsPerPair] = {"x+y", "x-y", "x*y", "x^2", "-x", "x^-1", "x^y0", "root"};
    Fr expected[kResultsPerPair];
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

}  // namespace
}  // namespace zkbatch
