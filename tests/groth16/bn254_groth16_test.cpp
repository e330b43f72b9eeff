// Groth16 over BN254, the second instance of the curve-generic prover: seeded keys in
// both H conventions (bellman's coefficients, and snarkjs's odd coset with an H-query
// built here from the Lagrange basis of the domain of size 2n), proofs that BN254's
// pairing equation accepts, and tampered proofs, inputs and keys that it rejects. The
// oracle is the pairing equation (core/pairing/bn254.hpp, checked against noble);
// prover_test.cpp checks the key's queries against an O(n^2) interpolation on both curves.
#include "core/circuit/porep_profile.hpp"
#include "core/circuit/synthetic_r1cs.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"
#include "core/ntt/ntt.hpp"
#include "core/quotient/quotient.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using circuit::R1csShape;
using circuit::SyntheticR1cs;
using Curve = curve::Bn254;
using Fr = Curve::Fr;
using ProvingKey = groth16::generic::ProvingKey<Curve>;
using Proof = groth16::generic::Proof<Curve>;
using G1 = curve::G1<Curve>;
using G2 = curve::G2<Curve>;

std::vector<msm::Scalar> canonical(const std::vector<Fr>& values) {
    std::vector<msm::Scalar> scalars(values.size());
    for (size_t i = 0; i < values.size(); ++i) scalars[i] = msm::to_scalar(values[i]);
    return scalars;
}

// A seeded key in the H convention asked for. For odd_coset, H_j = [L^(2n)_(2j+1)(tau) / delta]1
// with L^(2n)_k(tau) = (tau^2n - 1) / 2n * w^k / (tau - w^k), w = omega'_2n: what snarkjs's
// zkey_new.js writes. BN254's snarkjs roots are its own, so the queries interpolated over
// the field's domain serve both conventions.
struct Key {
    ProvingKey key;
    std::shared_ptr<std::vector<curve::G1Affine<Curve>>> odd_h;  // the odd-coset H-query's storage
};

Key make_key(const SyntheticR1cs& circuit, uint64_t setup_seed, groth16::HConvention convention) {
    const uint32_t log_n = circuit.shape().log_n;
    const auto secrets = groth16::toxic_waste_from_seed<Curve>(setup_seed, log_n);
    Key made{groth16::generate_key(circuit, secrets, 2), nullptr};
    if (convention == groth16::HConvention::coefficients) return made;
    const auto& snarkjs = ntt::generic::Domain<Fr>::get(log_n, ntt::Roots::snarkjs);
    EXPECT_EQ(snarkjs.omega(), Fr::root_of_unity(log_n)) << "BN254's snarkjs roots are its own";
    const uint64_t n = circuit.rows();
    const Fr w = snarkjs.coset_shift();
    const Fr scale = (secrets.tau.pow(2 * n) - Fr::one()) * Fr::from_u64(2 * n).inverse() * secrets.delta.inverse();
    std::vector<Fr> scalars(n);
    for (uint64_t j = 0; j < n; ++j) {
        const Fr point = w.pow(2 * j + 1);
        scalars[j] = scale * point * (secrets.tau - point).inverse();
    }
    made.odd_h = std::make_shared<std::vector<curve::G1Affine<Curve>>>(n);
    ec::fixed_base_mul(ec::generator<Curve::G1Params>(), scalars.data(), n, made.odd_h->data(), 2);
    made.key.h_convention = groth16::HConvention::odd_coset;
    made.key.h_query = *made.odd_h;
    made.key.check_sizes();
    return made;
}

struct Partition {
    std::vector<Fr> z, h;
};

Partition synthesize_and_quotient(const SyntheticR1cs& circuit, groth16::HConvention convention, uint64_t job_seed,
                                  uint64_t index) {
    const uint64_t n = circuit.rows();
    Partition p{std::vector<Fr>(circuit.variables()), std::vector<Fr>(n)};
    std::vector<Fr> a(n), b(n), c(n), scratch(2 * n);
    circuit.synthesize(job_seed, index, p.z.data(), a.data(), b.data(), c.data(), 2);
    const uint32_t log_n = circuit.shape().log_n;
    if (convention == groth16::HConvention::coefficients) {
        prove::compute_quotient_cpu(log_n, a.data(), b.data(), c.data(), p.h.data(), scratch.data(), 2);
    } else {
        prove::compute_odd_coset_quotient_cpu(log_n, a.data(), b.data(), c.data(), p.h.data(), scratch.data(), 2);
    }
    return p;
}

Proof prove(const ProvingKey& key, const Partition& p, const groth16::generic::ProofRandomness<Curve>& blinding,
            unsigned threads = 2) {
    const std::vector<msm::Scalar> z = canonical(p.z), h = canonical(p.h);
    return groth16::prove(key, z.data(), h.data(), blinding, threads);
}

groth16::VerifyResult verify(const ProvingKey& key, const Proof& proof, const Partition& p) {
    return groth16::verify(key.vk, proof, p.z.data() + 1, key.num_public);
}

bool same(const Proof& x, const Proof& y) { return x.a == y.a && x.b == y.b && x.c == y.c; }

const groth16::HConvention kConventions[] = {groth16::HConvention::coefficients, groth16::HConvention::odd_coset};

TEST(Bn254Groth16, ProofsVerifyInBothHConventions) {
    const R1csShape shapes[] = {{1, 1, 0, 0.5, 1}, {2, 2, 1, 0.0, 2}, {5, 3, 3, 0.9, 3}, {8, 4, 1, 1.0, 4},
                                {10, 2, 7, 0.5, 5}};
    for (const auto convention : kConventions) {
        for (const R1csShape& shape : shapes) {
            const SyntheticR1cs circuit(shape);
            const Key key = make_key(circuit, 9, convention);
            for (uint64_t index : {0u, 1u}) {
                const Partition p = synthesize_and_quotient(circuit, convention, 17, index);
                const auto result = verify(key.key, prove(key.key, p, groth16::derived_randomness<Curve>(17, index)), p);
                EXPECT_TRUE(result.ok) << groth16::to_string(convention) << " log_n " << shape.log_n << " partition "
                                       << index << ": " << result.detail;
            }
        }
    }
}

// A valid proof of one circuit and partition, then each way of breaking it.
class Bn254Tampered : public ::testing::TestWithParam<groth16::HConvention> {
protected:
    Bn254Tampered()
        : circuit_({6, 3, 3, 0.7, 21}),
          key_(make_key(circuit_, 3, GetParam())),
          partition_(synthesize_and_quotient(circuit_, GetParam(), 5, 0)),
          proof_(prove(key_.key, partition_, groth16::derived_randomness<Curve>(5, 0))) {}

    SyntheticR1cs circuit_;
    Key key_;
    Partition partition_;
    Proof proof_;
};

TEST_P(Bn254Tampered, TheUntouchedProofVerifies) { EXPECT_TRUE(verify(key_.key, proof_, partition_).ok); }

TEST_P(Bn254Tampered, ChangedPointsAreCaught) {
    // Each point moved by a generator (still a valid group element), and A and C swapped.
    const G1 g1 = G1::from_affine(ec::generator<Curve::G1Params>());
    const G2 g2 = G2::from_affine(ec::generator<Curve::G2Params>());
    Proof changed = proof_;
    changed.a = ec::add(G1::from_affine(proof_.a), g1).to_affine();
    EXPECT_FALSE(verify(key_.key, changed, partition_).ok) << "A";
    changed = proof_;
    changed.b = ec::add(G2::from_affine(proof_.b), g2).to_affine();
    EXPECT_FALSE(verify(key_.key, changed, partition_).ok) << "B";
    changed = proof_;
    changed.c = ec::add(G1::from_affine(proof_.c), g1).to_affine();
    EXPECT_FALSE(verify(key_.key, changed, partition_).ok) << "C";
    changed = proof_;
    std::swap(changed.a, changed.c);
    EXPECT_FALSE(verify(key_.key, changed, partition_).ok) << "A and C swapped";
}

TEST_P(Bn254Tampered, ChangedPublicInputsAndOtherPartitionsAreCaught) {
    for (size_t i = 1; i <= key_.key.num_public; ++i) {
        Partition changed = partition_;
        changed.z[i] += Fr::one();
        EXPECT_FALSE(verify(key_.key, proof_, changed).ok) << "input " << i;
    }
    const Partition other = synthesize_and_quotient(circuit_, GetParam(), 5, 1);
    const Proof other_proof = prove(key_.key, other, groth16::derived_randomness<Curve>(5, 1));
    EXPECT_TRUE(verify(key_.key, other_proof, other).ok);
    EXPECT_FALSE(verify(key_.key, other_proof, partition_).ok);
    const auto too_few = groth16::verify(key_.key.vk, proof_, partition_.z.data() + 1, key_.key.num_public - 1);
    EXPECT_FALSE(too_few.ok);
    EXPECT_NE(too_few.detail.find("public inputs"), std::string::npos) << too_few.detail;
}

TEST_P(Bn254Tampered, AnotherKeysVerifyingKeyRejects) {
    const Key other = make_key(circuit_, 4, GetParam());
    EXPECT_FALSE(verify(other.key, proof_, partition_).ok);
}

TEST_P(Bn254Tampered, AQuotientOfTheWrongConventionIsCaught) {
    // h of the other convention against this key's H-query: a proof that does not verify.
    const auto other = GetParam() == groth16::HConvention::coefficients ? groth16::HConvention::odd_coset
                                                                        : groth16::HConvention::coefficients;
    Partition wrong = synthesize_and_quotient(circuit_, other, 5, 0);
    wrong.h.resize(key_.key.h_points(), Fr::zero());
    EXPECT_FALSE(verify(key_.key, prove(key_.key, wrong, groth16::derived_randomness<Curve>(5, 0)), partition_).ok);
}

INSTANTIATE_TEST_SUITE_P(HConventions, Bn254Tampered, ::testing::ValuesIn(kConventions),
                         [](const auto& convention) { return std::string(groth16::to_string(convention.param)); });

TEST(Bn254Groth16, SameSeedsSameProofOtherwiseDifferent) {
    const SyntheticR1cs circuit({7, 3, 2, 0.8, 8});
    const Key key = make_key(circuit, 1, groth16::HConvention::coefficients);
    const Key same_key = make_key(circuit, 1, groth16::HConvention::coefficients);
    const Partition p = synthesize_and_quotient(circuit, groth16::HConvention::coefficients, 3, 2);
    const Proof first = prove(key.key, p, groth16::derived_randomness<Curve>(3, 2), 1);
    EXPECT_TRUE(same(first, prove(same_key.key, p, groth16::derived_randomness<Curve>(3, 2), 2)));  // threads don't matter
    EXPECT_FALSE(same(first, prove(key.key, p, groth16::derived_randomness<Curve>(3, 3))));
    const Proof random = prove(key.key, p, groth16::random_randomness<Curve>());
    EXPECT_FALSE(same(first, random));
    EXPECT_TRUE(verify(key.key, random, p).ok);
}

TEST(Bn254Groth16, DerivedRandomnessIsDeterministicAndPerPartition) {
    const auto first = groth16::derived_randomness<Curve>(11, 4);
    const auto again = groth16::derived_randomness<Curve>(11, 4);
    EXPECT_EQ(first.r, again.r);
    EXPECT_EQ(first.s, again.s);
    EXPECT_NE(first.r, first.s);
    for (const auto& other : {groth16::derived_randomness<Curve>(11, 5), groth16::derived_randomness<Curve>(12, 4)}) {
        EXPECT_NE(first.r, other.r);
        EXPECT_NE(first.s, other.s);
    }
    EXPECT_FALSE(first.r.is_zero() || first.s.is_zero());
    // The same streams as BLS12-381's, drawn below BN254's r: not BLS12-381's values.
    const auto bls = groth16::derived_randomness(11, 4);
    EXPECT_NE(first.r.to_hex(), bls.r.to_hex());
}

TEST(Bn254Groth16, VerifyingKeyBytesRoundTripAndRefuseBadPoints) {
    const SyntheticR1cs circuit({3, 2, 2, 0.5, 1});
    const ProvingKey key = make_key(circuit, 2, groth16::HConvention::coefficients).key;
    std::vector<uint8_t> bytes = groth16::verifying_key_bytes(key.vk);
    EXPECT_EQ(bytes.size(), 64 + 3 * 128 + 64 * key.vk.ic.size()) << "BN254's points are 64 and 128 bytes";
    groth16::generic::VerifyingKey<Curve> read;
    std::string why;
    ASSERT_TRUE(groth16::verifying_key_from_bytes(bytes.data(), bytes.size(), read, &why)) << why;
    EXPECT_EQ(groth16::verifying_key_bytes(read), bytes);
    bytes[64 + 5] ^= 1;  // [beta]2's x, off the curve (or out of the subgroup)
    EXPECT_FALSE(groth16::verifying_key_from_bytes(bytes.data(), bytes.size(), read, &why));
}

TEST(Bn254Groth16, ThePorepProfileIsRefusedByName) {
    const SyntheticR1cs circuit({10, 0, 3, circuit::kPorepBitShare, 7, circuit::R1csProfile::porep});
    try {
        (void)groth16::generate_key(circuit, groth16::toxic_waste_from_seed<Curve>(1, 10), 1);
        FAIL() << "a porep circuit over BN254's Fr was accepted";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("porep"), std::string::npos) << error.what();
    }
}

}  // namespace
}  // namespace zkbatch
