#include <zkbatch/cuda/device_key.hpp>

#include <span>

namespace zkbatch::cuda {

namespace {

template <class Point>
DeviceBuffer<Point> upload(std::span<const Point> points) {
    DeviceBuffer<Point> buffer(points.size());
    if (!points.empty()) buffer.copy_from_host(points.data(), points.size());
    return buffer;
}

}  // namespace

uint64_t device_key_bytes(const groth16::ProvingKey& key) {
    return sizeof(ec::G1Affine) * (key.a_query.size() + key.b_g1_query.size() + key.l_query.size() +
                                   key.h_query.size()) +
           sizeof(ec::G2Affine) * key.b_g2_query.size();
}

DeviceProvingKey upload_proving_key(const groth16::ProvingKey& key) {
    DeviceProvingKey device;
    device.a_query = upload(key.a_query);
    device.b_g1_query = upload(key.b_g1_query);
    device.b_g2_query = upload(key.b_g2_query);
    device.l_query = upload(key.l_query);
    device.h_query = upload(key.h_query);
    device.header = key;
    device.header.a_query = {};
    device.header.b_g1_query = {};
    device.header.b_g2_query = {};
    device.header.l_query = {};
    device.header.h_query = {};
    device.header.storage.reset();
    return device;
}

}  // namespace zkbatch::cuda
