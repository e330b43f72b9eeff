// Proof bytes and the prover (core/groth16/proof.hpp, prover.hpp), the prover
// instantiated for both curves.
#include "core/groth16/proof.hpp"
#include "core/groth16/prover.hpp"

#include "core/ff/random.hpp"
#include "core/util/splitmix64.hpp"

#include <sys/random.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

namespace zkbatch::groth16 {

namespace {

constexpr uint64_t kProofTag = 0x7a6b622d70726f6fULL;  // "zkb-proo"

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

template <class Group>
ec::Jacobian<Group> times(const ec::Affine<Group>& point, const typename Group::Scalar& scalar) {
    return ec::scalar_mul(ec::Jacobian<Group>::from_affine(point), scalar);
}

// 64-bit words from the kernel's random source, for ff::uniform_element.
struct SystemRandom {
    uint64_t next() {
        uint64_t word;
        uint8_t* cursor = reinterpret_cast<uint8_t*>(&word);
        size_t left = sizeof word;
        while (left > 0) {
            const ssize_t got = ::getrandom(cursor, left, 0);
            if (got < 0) {
                if (errno == EINTR) continue;
                throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
            }
            cursor += got, left -= static_cast<size_t>(got);
        }
        return word;
    }
};

}  // namespace

template <class Curve>
void encode_proof(const generic::Proof<Curve>& proof, uint8_t* out) {
    constexpr size_t g1 = ec::kCompressedBytes<typename Curve::G1Params>;
    ec::to_compressed(proof.a, out);
    ec::to_compressed(proof.b, out + g1);
    ec::to_compressed(proof.c, out + kProofBytesOf<Curve> - g1);
}

template <class Curve>
bool decode_proof(const uint8_t* bytes, generic::Proof<Curve>& proof, std::string* why) {
    constexpr size_t g1 = ec::kCompressedBytes<typename Curve::G1Params>;
    constexpr size_t g2 = ec::kCompressedBytes<typename Curve::G2Params>;
    auto refuse = [why](const char* point, ec::DecodeError error) {
        if (why) *why = std::string("proof point ") + point + ": " + ec::describe(error);
        return false;
    };
    if (const auto error = ec::from_compressed(bytes, g1, proof.a); error != ec::DecodeError::ok)
        return refuse("A", error);
    if (const auto error = ec::from_compressed(bytes + g1, g2, proof.b); error != ec::DecodeError::ok)
        return refuse("B", error);
    if (const auto error = ec::from_compressed(bytes + g1 + g2, g1, proof.c); error != ec::DecodeError::ok)
        return refuse("C", error);
    return true;
}

template <class Curve>
generic::ProofRandomness<Curve> derived_randomness(uint64_t job_seed, uint64_t partition_index) {
    using Fr = typename Curve::Fr;
    const uint64_t key = util::derive_key(util::derive_key(kProofTag, job_seed), partition_index);
    util::SplitMix64 r_stream(util::derive_key(key, 0)), s_stream(util::derive_key(key, 1));
    return {ff::uniform_element<Fr>(r_stream), ff::uniform_element<Fr>(s_stream)};
}

template <class Curve>
generic::ProofRandomness<Curve> random_randomness() {
    using Fr = typename Curve::Fr;
    SystemRandom source;
    return {ff::uniform_element<Fr>(source), ff::uniform_element<Fr>(source)};
}

const char* phase_name(ProofMsm msm) {
    switch (msm) {
        case ProofMsm::a: return "msm.a";
        case ProofMsm::b_g1: return "msm.b_g1";
        case ProofMsm::b_g2: return "msm.b_g2";
        case ProofMsm::l: return "msm.l";
        case ProofMsm::h: return "msm.h";
    }
    return "msm";
}

template <class Curve>
generic::Proof<Curve> prove(const generic::ProvingKey<Curve>& key, const msm::Scalar* z, const msm::Scalar* h_scalars,
                            const generic::ProofRandomness<Curve>& blinding, unsigned threads, const MsmTimer& on_msm) {
    auto timed = [&](ProofMsm which, auto&& run) {
        const int64_t start_ns = now_ns();
        auto sum = run();
        if (on_msm) on_msm(which, start_ns, now_ns());
        return sum;
    };
    const uint64_t m = key.num_variables, private_start = key.num_public + 1;
    generic::MsmSums<Curve> sums;
    sums.a = timed(ProofMsm::a, [&] { return msm::pippenger(key.a_query.data(), z, m, threads); });
    sums.b_g1 = timed(ProofMsm::b_g1, [&] { return msm::pippenger(key.b_g1_query.data(), z, m, threads); });
    sums.b_g2 = timed(ProofMsm::b_g2, [&] { return msm::pippenger(key.b_g2_query.data(), z, m, threads); });
    sums.l = timed(ProofMsm::l, [&] {
        return msm::pippenger(key.l_query.data(), z + private_start, key.private_variables(), threads);
    });
    sums.h = timed(ProofMsm::h, [&] { return msm::pippenger(key.h_query.data(), h_scalars, key.h_points(), threads); });
    return combine(key, sums, blinding);
}

template <class Curve>
generic::Proof<Curve> combine(const generic::ProvingKey<Curve>& key, const generic::MsmSums<Curve>& sums,
                              const generic::ProofRandomness<Curve>& blinding) {
    const typename Curve::Fr& r = blinding.r;
    const typename Curve::Fr& s = blinding.s;
    const curve::G1<Curve> a = ec::add(ec::add_mixed(sums.a, key.vk.alpha_g1), times(key.delta_g1, r));
    const curve::G2<Curve> b = ec::add(ec::add_mixed(sums.b_g2, key.vk.beta_g2), times(key.vk.delta_g2, s));
    const curve::G1<Curve> b1 = ec::add(ec::add_mixed(sums.b_g1, key.beta_g1), times(key.delta_g1, s));
    curve::G1<Curve> c = ec::add(sums.l, sums.h);
    c = ec::add(c, ec::scalar_mul(a, s));
    c = ec::add(c, ec::scalar_mul(b1, r));
    c = ec::add(c, -times(key.delta_g1, r * s));
    return {a.to_affine(), b.to_affine(), c.to_affine()};
}

#define ZKB_PROVER_INSTANTIATE(Curve)                                                                           \
    template void encode_proof(const generic::Proof<Curve>&, uint8_t*);                                        \
    template bool decode_proof(const uint8_t*, generic::Proof<Curve>&, std::string*);                          \
    template generic::ProofRandomness<Curve> derived_randomness<Curve>(uint64_t, uint64_t);                    \
    template generic::ProofRandomness<Curve> random_randomness<Curve>();                                       \
    template generic::Proof<Curve> combine(const generic::ProvingKey<Curve>&, const generic::MsmSums<Curve>&,  \
                                           const generic::ProofRandomness<Curve>&);                             \
    template generic::Proof<Curve> prove(const generic::ProvingKey<Curve>&, const msm::Scalar*, const msm::Scalar*, \
                                         const generic::ProofRandomness<Curve>&, unsigned, const MsmTimer&);
ZKB_PROVER_INSTANTIATE(curve::Bls12_381)
ZKB_PROVER_INSTANTIATE(curve::Bn254)
#undef ZKB_PROVER_INSTANTIATE

}  // namespace zkbatch::groth16
