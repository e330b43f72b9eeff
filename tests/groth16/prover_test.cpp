// The Groth16 prover and verifier on seeded keys: proofs verify, for every shape and
// witness profile; tampered proofs and inputs do not; the same seeds give the same
// bytes; the key's queries are the circuit's polynomials at tau, as an O(n^2)
// interpolation computes them (over BLS12-381 and BN254).
#include "core/circuit/porep_profile.hpp"
#include "core/circuit/synthetic_r1cs.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"
#include "core/quotient/quotient.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using circuit::R1csShape;
using circuit::SyntheticR1cs;
using ff::Fr;
using groth16::ProvingKey;

std::vector<msm::Scalar> canonical(const std::vector<Fr>& values) {
    std::vector<msm::Scalar> scalars(values.size());
    for (size_t i = 0; i < values.size(); ++i) values[i].to_canonical(scalars[i].limbs);
    return scalars;
}

struct Partition {
    std::vector<Fr> z, a, b, c, h;
};

Partition synthesize_and_quotient(const SyntheticR1cs& circuit, uint64_t job_seed, uint64_t index) {
    const uint64_t n = circuit.rows();
    Partition p{std::vector<Fr>(circuit.variables()), std::vector<Fr>(n), std::vector<Fr>(n), std::vector<Fr>(n),
                std::vector<Fr>(n)};
    circuit.synthesize(job_seed, index, p.z.data(), p.a.data(), p.b.data(), p.c.data());
    std::vector<Fr> scratch(2 * n);
    prove::compute_quotient_cpu(circuit.shape().log_n, p.a.data(), p.b.data(), p.c.data(), p.h.data(), scratch.data(), 2);
    return p;
}

std::array<uint8_t, groth16::kProofBytes> prove_bytes(const ProvingKey& key, const Partition& p,
                                                      const groth16::ProofRandomness& blinding, unsigned threads = 2) {
    const std::vector<msm::Scalar> z = canonical(p.z), h = canonical(p.h);
    std::array<uint8_t, groth16::kProofBytes> bytes{};
    groth16::encode_proof(groth16::prove(key, z.data(), h.data(), blinding, threads), bytes.data());
    return bytes;
}

groth16::VerifyResult verify_bytes(const ProvingKey& key, const std::array<uint8_t, groth16::kProofBytes>& bytes,
                                   const Partition& p) {
    return groth16::verify_encoded(key.vk, bytes.data(), p.z.data() + 1, key.num_public);
}

TEST(Groth16, ProofsVerifyForEveryShapeAndWitnessProfile) {
    const R1csShape shapes[] = {{1, 1, 0, 0.5, 1},
                                {2, 2, 1, 0.0, 2},
                                {5, 3, 3, 0.9, 3},
                                {8, 4, 1, 1.0, 4},
                                {10, 2, 7, 0.5, 5},
                                {11, 4, 1, 0.9, 6},
                                {10, 0, 3, circuit::kPorepBitShare, 7, circuit::R1csProfile::porep},
                                {11, 0, 2, 0.6, 8, circuit::R1csProfile::porep}};
    for (const R1csShape& shape : shapes) {
        const SyntheticR1cs circuit(shape);
        const ProvingKey key = groth16::generate_key(circuit, groth16::toxic_waste_from_seed(9, shape.log_n), 2);
        for (uint64_t index : {0u, 1u}) {
            const Partition p = synthesize_and_quotient(circuit, 17, index);
            const auto bytes = prove_bytes(key, p, groth16::derived_randomness(17, index));
            const auto result = verify_bytes(key, bytes, p);
            EXPECT_TRUE(result.ok) << "log_n " << shape.log_n << " partition " << index << ": " << result.detail;
        }
    }
}

class TamperedProof : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        circuit_ = new SyntheticR1cs({6, 3, 3, 0.7, 21});
        key_ = new ProvingKey(groth16::generate_key(*circuit_, groth16::toxic_waste_from_seed(3, 6), 2));
        partition_ = new Partition(synthesize_and_quotient(*circuit_, 5, 0));
        proof_ = prove_bytes(*key_, *partition_, groth16::derived_randomness(5, 0));
    }
    static void TearDownTestSuite() {
        delete circuit_;
        delete key_;
        delete partition_;
    }
    static SyntheticR1cs* circuit_;
    static ProvingKey* key_;
    static Partition* partition_;
    static std::array<uint8_t, groth16::kProofBytes> proof_;
};
SyntheticR1cs* TamperedProof::circuit_ = nullptr;
ProvingKey* TamperedProof::key_ = nullptr;
Partition* TamperedProof::partition_ = nullptr;
std::array<uint8_t, groth16::kProofBytes> TamperedProof::proof_{};

TEST_F(TamperedProof, TheUntouchedProofVerifies) { EXPECT_TRUE(verify_bytes(*key_, proof_, *partition_).ok); }

TEST_F(TamperedProof, EveryChangedByteIsCaught) {
    // Every byte of A, B and C, one bit each: either no longer a valid point or a
    // valid point that fails the pairing equation.
    for (size_t byte = 0; byte < proof_.size(); ++byte) {
        auto bytes = proof_;
        bytes[byte] ^= static_cast<uint8_t>(1u << (byte % 8));
        EXPECT_FALSE(verify_bytes(*key_, bytes, *partition_).ok) << "byte " << byte;
    }
}

TEST_F(TamperedProof, SwappedOrReplacedPointsAreCaught) {
    auto swapped = proof_;  // A and C exchanged
    std::memcpy(swapped.data(), proof_.data() + 144, 48);
    std::memcpy(swapped.data() + 144, proof_.data(), 48);
    EXPECT_FALSE(verify_bytes(*key_, swapped, *partition_).ok);
    // Another partition's (valid) proof for this partition's inputs.
    const Partition other = synthesize_and_quotient(*circuit_, 5, 1);
    const auto other_proof = prove_bytes(*key_, other, groth16::derived_randomness(5, 1));
    EXPECT_TRUE(verify_bytes(*key_, other_proof, other).ok);
    EXPECT_FALSE(verify_bytes(*key_, other_proof, *partition_).ok);
}

TEST_F(TamperedProof, ChangedPublicInputsAreCaught) {
    for (size_t i = 1; i <= key_->num_public; ++i) {
        Partition changed = *partition_;
        changed.z[i] += Fr::one();
        EXPECT_FALSE(verify_bytes(*key_, proof_, changed).ok) << "input " << i;
    }
    const auto too_few = groth16::verify_encoded(key_->vk, proof_.data(), partition_->z.data() + 1, key_->num_public - 1);
    EXPECT_FALSE(too_few.ok);
    EXPECT_NE(too_few.detail.find("public inputs"), std::string::npos) << too_few.detail;
}

TEST_F(TamperedProof, AnotherKeysVerifyingKeyRejects) {
    const ProvingKey other = groth16::generate_key(*circuit_, groth16::toxic_waste_from_seed(4, 6), 1);
    EXPECT_FALSE(verify_bytes(other, proof_, *partition_).ok);
}

TEST(Groth16, SameSeedsSameBytesOtherwiseDifferent) {
    const SyntheticR1cs circuit({7, 3, 2, 0.8, 8});
    const ProvingKey key = groth16::generate_key(circuit, groth16::toxic_waste_from_seed(1, 7), 2);
    const ProvingKey same_key = groth16::generate_key(circuit, groth16::toxic_waste_from_seed(1, 7), 1);
    const Partition p = synthesize_and_quotient(circuit, 3, 2);
    const auto first = prove_bytes(key, p, groth16::derived_randomness(3, 2), 1);
    EXPECT_EQ(first, prove_bytes(same_key, p, groth16::derived_randomness(3, 2), 2));  // threads don't matter
    EXPECT_NE(first, prove_bytes(key, p, groth16::derived_randomness(3, 3)));
    EXPECT_NE(first, prove_bytes(key, synthesize_and_quotient(circuit, 4, 2), groth16::derived_randomness(4, 2)));
    const auto random = prove_bytes(key, p, groth16::random_randomness());
    EXPECT_NE(first, random);
    EXPECT_TRUE(verify_bytes(key, random, p).ok);
}

// u_i(tau) by Lagrange interpolation of column i of A, O(n^2), shares no code with the
// setup's batched basis: the key's A-query must be [u_i(tau)]1, on either curve.
template <class Curve>
class KeyQueries : public ::testing::Test {};
struct CurveNames {
    template <class Curve>
    static std::string GetName(int) {
        return Curve::kId == curve::CurveId::bls12_381 ? "Bls12_381" : "Bn254";
    }
};
using Curves = ::testing::Types<curve::Bls12_381, curve::Bn254>;
TYPED_TEST_SUITE(KeyQueries, Curves, CurveNames);

TYPED_TEST(KeyQueries, AreTheColumnPolynomialsAtTau) {
    using Curve = TypeParam;
    using F = typename Curve::Fr;
    const uint32_t log_n = 5;
    const SyntheticR1cs circuit({log_n, 2, 2, 0.5, 12});
    const auto secrets = groth16::toxic_waste_from_seed<Curve>(7, log_n);
    const auto key = groth16::generate_key(circuit, secrets, 1);
    const uint64_t n = circuit.rows();
    std::vector<F> domain(n);
    const F omega = F::root_of_unity(log_n);
    F power = F::one();
    for (uint64_t j = 0; j < n; ++j, power *= omega) domain[j] = power;
    auto lagrange = [&](uint64_t j) {  // prod_{k != j} (tau - w_k) / (w_j - w_k)
        F numerator = F::one(), denominator = F::one();
        for (uint64_t k = 0; k < n; ++k) {
            if (k == j) continue;
            numerator *= secrets.tau - domain[k];
            denominator *= domain[j] - domain[k];
        }
        return numerator * denominator.inverse();
    };
    std::vector<F> u(n, F::zero()), v(n, F::zero());
    for (uint64_t row = 0; row < n; ++row) {
        const F basis = lagrange(row);
        circuit.for_each_term<F>(row, [&](circuit::Matrix matrix, uint64_t variable, const F& coefficient) {
            if (matrix == circuit::Matrix::a) u[variable] += coefficient * basis;
            if (matrix == circuit::Matrix::b) v[variable] += coefficient * basis;
        });
    }
    const auto g1 = curve::G1<Curve>::from_affine(ec::generator<typename Curve::G1Params>());
    const auto g2 = curve::G2<Curve>::from_affine(ec::generator<typename Curve::G2Params>());
    for (uint64_t i = 0; i < n; ++i) {
        EXPECT_TRUE(ec::scalar_mul(g1, u[i]).to_affine() == key.a_query[i]) << "A-query " << i;
        EXPECT_TRUE(ec::scalar_mul(g1, v[i]).to_affine() == key.b_g1_query[i]) << "B-query (G1) " << i;
        EXPECT_TRUE(ec::scalar_mul(g2, v[i]).to_affine() == key.b_g2_query[i]) << "B-query (G2) " << i;
    }
    // H_j = tau^j Z(tau) / delta.
    const F z_tau = secrets.tau.pow(n) - F::one();
    EXPECT_TRUE(ec::scalar_mul(g1, z_tau * secrets.delta.inverse()).to_affine() == key.h_query[0]);
    EXPECT_TRUE(ec::scalar_mul(g1, secrets.tau * z_tau * secrets.delta.inverse()).to_affine() == key.h_query[1]);
}

}  // namespace
}  // namespace zkbatch
