// KeyPlacement: which of a proving key's five queries live in pinned host memory and are
// copied to the device a chunk at a time as their MSMs run (a key larger than the card,
// as cuzk holds its parameters), the others resident in device memory. load_key streams
// the fewest queries that let the key and the workers fit (backend option key_placement).
// B2's points may also stay in host memory for its MSM to run on the host's cores
// (option b2_msm), as cuzk runs it.
#pragma once

#include "core/groth16/prover.hpp"

#include <array>
#include <cstddef>
#include <string>

namespace zkbatch::cuda {

// The order in which queries leave the device: H first, whose MSM of full-size scalars
// takes longer than its copy, so the copies hide under it (at 2^27 on an H100 its 12.9
// GB went up within the 872 ms of its MSM); then B2 (twice the bytes a point, but the
// slowest MSM a point), L, A and B1, whose scalars are mostly bits in a PoRep partition,
// so that their copies outlast their MSMs (docs/performance.md#the-porep-profile).
inline constexpr groth16::ProofMsm kStreamOrder[] = {groth16::ProofMsm::h, groth16::ProofMsm::b_g2,
                                                     groth16::ProofMsm::l, groth16::ProofMsm::a,
                                                     groth16::ProofMsm::b_g1};

// A query's name in facts and messages: "a", "b_g1", "b_g2", "l", "h".
inline const char* query_name(groth16::ProofMsm query) {
    switch (query) {
        case groth16::ProofMsm::a: return "a";
        case groth16::ProofMsm::b_g1: return "b_g1";
        case groth16::ProofMsm::b_g2: return "b_g2";
        case groth16::ProofMsm::l: return "l";
        case groth16::ProofMsm::h: return "h";
    }
    return "?";
}

class KeyPlacement {
public:
    // Every query resident.
    KeyPlacement() = default;
    // The first `count` queries of kStreamOrder streamed (5: all of them); with
    // `b2_on_host`, B2's MSM on the host's cores and the first `count` of the others
    // streamed (4: all of them).
    static KeyPlacement streaming_first(size_t count, bool b2_on_host = false) {
        KeyPlacement placement;
        placement.b2_on_host_ = b2_on_host;
        size_t streamed = 0;
        for (groth16::ProofMsm query : kStreamOrder) {
            if (streamed == count) break;
            if (b2_on_host && query == groth16::ProofMsm::b_g2) continue;
            placement.stream(query);
            ++streamed;
        }
        return placement;
    }

    // Whether a query's chunks are copied up from pinned host memory as its MSM runs.
    void stream(groth16::ProofMsm query) { streamed_[index(query)] = true; }
    bool streamed(groth16::ProofMsm query) const { return streamed_[index(query)]; }
    bool any_streamed() const {
        for (bool streamed : streamed_) {
            if (streamed) return true;
        }
        return false;
    }
    // Whether B2's MSM runs on the host's cores (backend option b2_msm = host): its points
    // then stay in pinned host memory and never go to the device.
    bool b2_on_host() const { return b2_on_host_; }
    // Whether a query's points are in pinned host memory: streamed, or B2's on the host.
    bool in_host_memory(groth16::ProofMsm query) const {
        return streamed(query) || (query == groth16::ProofMsm::b_g2 && b2_on_host_);
    }
    bool any_in_host_memory() const { return any_streamed() || b2_on_host_; }
    // The streamed queries as the fact cuda.key_streamed lists them, in kProofMsms' order
    // ("b_g2,h"), or "none".
    std::string names() const {
        std::string list;
        for (groth16::ProofMsm query : groth16::kProofMsms) {
            if (streamed(query)) list += (list.empty() ? "" : ",") + std::string(query_name(query));
        }
        return list.empty() ? "none" : list;
    }
    bool operator==(const KeyPlacement&) const = default;

private:
    static size_t index(groth16::ProofMsm query) { return static_cast<size_t>(query); }
    std::array<bool, 5> streamed_{};
    bool b2_on_host_ = false;
};

}  // namespace zkbatch::cuda
