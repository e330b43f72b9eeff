// DeviceProvingKey: a Groth16 proving key resident in device memory, where the MSM
// kernels read it. Both CUDA plugins hold their key this way (only their host memory
// policy for a, b, c, z and the outputs differs). Made once per backend by load_key,
// from a key in host memory (upload_proving_key) or, for a seeded setup, on the device
// itself (generate_proving_key): the same points either way, in groth16::ProvingKey's
// layout (ec::Affine, .zkey coordinates).
#pragma once

#include <zkbatch/cuda/device_buffer.hpp>
#include <zkbatch/cuda/stream.hpp>
#include <zkbatch/ec/curve.hpp>
#include <zkbatch/groth16/keys.hpp>
#include <zkbatch/groth16/setup.hpp>

#include <cstdint>
#include <string>

namespace zkbatch::cuda {

struct DeviceProvingKey {
    // Everything but the queries: sizes, H convention, verifying key, beta_g1, delta_g1.
    // Its spans are empty and its storage is null.
    groth16::ProvingKey header;
    DeviceBuffer<ec::G1Affine> a_query, b_g1_query, l_query, h_query;
    DeviceBuffer<ec::G2Affine> b_g2_query;

    uint64_t device_bytes() const {
        return a_query.bytes() + b_g1_query.bytes() + l_query.bytes() + h_query.bytes() + b_g2_query.bytes();
    }
};

// What a DeviceProvingKey of `key`'s shape holds in device memory (only the header's
// sizes are read: a key_header will do).
uint64_t device_key_bytes(const groth16::ProvingKey& key);

// The queries of `key` (host memory: a mapped key file or a read .zkey) copied to the
// current device, synchronously; the header keeps everything else. Throws CudaError.
DeviceProvingKey upload_proving_key(const groth16::ProvingKey& key);

// The seeded key made on the current device: `header` from groth16::key_header, each
// query's points its scalars (groth16::key_scalars) times a generator, by
// FixedBaseGenerator, the scalars copied up in chunks. The same bytes as
// groth16::generate_key. Synchronous; throws CudaError.
DeviceProvingKey generate_proving_key(groth16::ProvingKey header, const groth16::KeyScalars& scalars,
                                      unsigned host_threads);

// Device memory generate_proving_key needs beside the key: the generators' tables and a
// chunk of scalars.
uint64_t key_generation_scratch_bytes();

// The points digest of a key on the device: what its key file's header would carry
// (groth16::KeyPointsDigest), from its points downloaded in file order. Synchronous.
std::string device_key_points_digest(const DeviceProvingKey& key);

}  // namespace zkbatch::cuda
