// ProofMsms: the five MSMs of one Groth16 proof on the device (ARCHITECTURE.md, "The
// whole proof"), over a key resident in device memory (DeviceProvingKey):
//   A = sum z_i [u_i]1, B1 = sum z_i [v_i]1, B2 = sum z_i [v_i]2   one plan of z, shared
//   L = sum_private z_i L_i, H = sum_j h_j H_j                     a second plan, reused
// The G1 MSMs run one after another on the caller's stream; B2, the largest (G2 costs
// about four G1 MSMs), runs beside them on a second stream as soon as z's plan is
// sorted. Only the five sums (1.2 KB) come back to the host, where groth16::combine
// makes the proof. One per prove worker, allocated once for the key's sizes.
#pragma once

#include <zkbatch/cuda/device_buffer.hpp>
#include <zkbatch/cuda/device_key.hpp>
#include <zkbatch/cuda/event.hpp>
#include <zkbatch/cuda/msm.hpp>
#include <zkbatch/cuda/pinned_buffer.hpp>
#include <zkbatch/cuda/stream.hpp>
#include <zkbatch/ff/fr.hpp>
#include <zkbatch/groth16/prover.hpp>

#include <cstdint>

namespace zkbatch::cuda {

class ProofMsms {
public:
    // For a key of `header`'s sizes (m variables, h_points() H points).
    explicit ProofMsms(const groth16::ProvingKey& header);

    // Device bytes a ProofMsms for `header` allocates (the plans, both accumulators, the
    // sums), before allocating anything: what load_key adds up per worker.
    static uint64_t device_bytes_for(const groth16::ProvingKey& header);

    // Enqueues the five MSMs on `stream` (B2 on the second stream) once `inputs_ready`
    // has completed: z holds key.header.num_variables elements (device, Montgomery form),
    // h the key's h_points() scalars (device, canonical). Blocks the host at each plan's
    // counts (ScalarPlan::prepare), then waits for the sums and returns them.
    groth16::MsmSums run(const DeviceProvingKey& key, const ff::Fr* z, const ff::Fr* h, const Stream& stream,
                         const Event& inputs_ready);

    // After run: each MSM's interval as events, msm_start() .. a_done() for A (z's plan
    // included), a_done() .. b_g1_done() for B1, b_g1_done() .. l_done() for L (its plan
    // included), l_done() .. h_done() for H (its plan included); B2 has its own pair on
    // the second stream.
    const Event& msm_start() const { return events_[0]; }
    const Event& a_done() const { return events_[1]; }
    const Event& b_g1_done() const { return events_[2]; }
    const Event& l_done() const { return events_[3]; }
    const Event& h_done() const { return events_[4]; }
    const Event& b_g2_start() const { return b_g2_events_[0]; }
    const Event& b_g2_done() const { return b_g2_events_[1]; }

private:
    msm::ScalarPlan z_plan_;   // A, B1 and B2
    msm::ScalarPlan lh_plan_;  // L, then H
    msm::BucketAccumulator<ec::G1Params> g1_;
    msm::BucketAccumulator<ec::G2Params> g2_;
    Stream g2_stream_;
    DeviceBuffer<ec::G1> g1_sums_;  // A, B1, L, H
    DeviceBuffer<ec::G2> g2_sum_;
    PinnedBuffer host_sums_;
    Event events_[5];
    Event b_g2_events_[2];
};

}  // namespace zkbatch::cuda
