#include <zkbatch/cuda/proof_msms.hpp>

#include <algorithm>
#include <cstring>

namespace zkbatch::cuda {

namespace {

constexpr size_t kG1Sums = 4;  // A, B1, L, H, in that order in g1_sums_

msm::MsmCapacity capacity_for(uint64_t points) {
    msm::MsmCapacity capacity;
    capacity.max_points = points;
    return capacity;
}

// z's plan: m scalars. L's and H's: the larger of the two.
msm::MsmCapacity z_capacity(const groth16::ProvingKey& header) { return capacity_for(header.num_variables); }
msm::MsmCapacity lh_capacity(const groth16::ProvingKey& header) {
    return capacity_for(std::max(header.private_variables(), header.h_points()));
}
// The G1 accumulator serves both plans; the G2 one only z's.
msm::MsmCapacity g1_capacity(const groth16::ProvingKey& header) {
    return capacity_for(std::max(header.num_variables, lh_capacity(header).max_points));
}

uint64_t sums_bytes() { return kG1Sums * sizeof(ec::G1) + sizeof(ec::G2); }

}  // namespace

ProofMsms::ProofMsms(const groth16::ProvingKey& header)
    : z_plan_(z_capacity(header)),
      lh_plan_(lh_capacity(header)),
      g1_(g1_capacity(header)),
      g2_(z_capacity(header)),
      g1_sums_(kG1Sums),
      g2_sum_(1),
      host_sums_(sums_bytes()) {}

uint64_t ProofMsms::device_bytes_for(const groth16::ProvingKey& header) {
    return msm::ScalarPlan::device_bytes_for(z_capacity(header)) +
           msm::ScalarPlan::device_bytes_for(lh_capacity(header)) +
           msm::BucketAccumulator<ec::G1Params>::device_bytes_for(g1_capacity(header)) +
           msm::BucketAccumulator<ec::G2Params>::device_bytes_for(z_capacity(header)) + sums_bytes();
}

groth16::MsmSums ProofMsms::run(const DeviceProvingKey& key, const ff::Fr* z, const ff::Fr* h, const Stream& stream,
                                const Event& inputs_ready) {
    const groth16::ProvingKey& header = key.header;
    const uint64_t m = header.num_variables, private_start = header.num_public + 1;
    ec::G1* const sums = g1_sums_.data();
    stream.wait(inputs_ready);
    events_[0].record(stream);
    z_plan_.prepare(z, msm::ScalarForm::montgomery, m, stream);
    // B2 starts once z's entries are sorted, beside the G1 MSMs.
    g2_stream_.wait(z_plan_.ready());
    b_g2_events_[0].record(g2_stream_);
    g2_.run(z_plan_, key.b_g2_query.data(), g2_sum_.data(), g2_stream_);
    b_g2_events_[1].record(g2_stream_);

    g1_.run(z_plan_, key.a_query.data(), sums + 0, stream);
    events_[1].record(stream);
    g1_.run(z_plan_, key.b_g1_query.data(), sums + 1, stream);
    events_[2].record(stream);
    // lh_plan_ is re-prepared for H on the same stream, after L's run has read it.
    lh_plan_.prepare(z + private_start, msm::ScalarForm::montgomery, header.private_variables(), stream);
    g1_.run(lh_plan_, key.l_query.data(), sums + 2, stream);
    events_[3].record(stream);
    lh_plan_.prepare(h, msm::ScalarForm::canonical, header.h_points(), stream);
    g1_.run(lh_plan_, key.h_query.data(), sums + 3, stream);
    events_[4].record(stream);

    stream.wait(b_g2_events_[1]);
    auto* host = static_cast<unsigned char*>(host_sums_.data());
    stream.copy_to_host(host, sums, kG1Sums * sizeof(ec::G1));
    stream.copy_to_host(host + kG1Sums * sizeof(ec::G1), g2_sum_.data(), sizeof(ec::G2));
    stream.synchronize();

    ec::G1 g1[kG1Sums];
    std::memcpy(static_cast<void*>(g1), host, sizeof g1);
    groth16::MsmSums result;
    result.a = g1[0];
    result.b_g1 = g1[1];
    result.l = g1[2];
    result.h = g1[3];
    std::memcpy(static_cast<void*>(&result.b_g2), host + sizeof g1, sizeof(ec::G2));
    return result;
}

}  // namespace zkbatch::cuda
