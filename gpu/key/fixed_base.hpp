// FixedBaseGenerator<C>: many scalars times one base on the device (fixed_base_steps.hpp),
// the points of a proving key made on the GPU. Holds the base's table in device memory.
#pragma once

#include "gpu/util/device_buffer.hpp"
#include "gpu/key/fixed_base_steps.hpp"
#include "gpu/util/stream.hpp"
#include "core/ec/curve.hpp"
#include "core/ff/fr.hpp"

#include <cstdint>

namespace zkbatch::cuda {

template <class C>
class FixedBaseGenerator {
public:
    // Makes the table on the host (`threads` threads) and copies it to the current device.
    FixedBaseGenerator(const ec::Affine<C>& base, unsigned threads);

    // out[i] = [scalars[i]] base, affine, for i < count; scalars (Fr, Montgomery form) and
    // out in device memory. Enqueued on `stream`.
    void multiply(const ff::Fr* scalars, uint64_t count, ec::Affine<C>* out, const Stream& stream) const;

    // The table's bytes in device memory, for a backend's room check before it makes one.
    static uint64_t table_bytes();

private:
    DeviceBuffer<ec::Affine<C>> table_;
};

extern template class FixedBaseGenerator<ec::G1Params>;
extern template class FixedBaseGenerator<ec::G2Params>;

}  // namespace zkbatch::cuda
