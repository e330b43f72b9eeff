// The synthetic circuit: satisfied, deterministic, keyed by (seed, partition), and
// frozen by known answers.
#include "gmp_oracle.hpp"

#include "core/circuit/synthetic.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace zkbatch {
namespace {

using ff::Fr;

struct Circuit {
    std::vector<Fr> a, b, c;
};

Circuit synthesize(uint32_t log_n, uint32_t terms_per_row, uint64_t seed, uint64_t partition) {
    const size_t n = size_t{1} << log_n;
    Circuit circuit{std::vector<Fr>(n), std::vector<Fr>(n), std::vector<Fr>(n)};
    circuit::synthesize({log_n, terms_per_row}, seed, partition, circuit.a.data(), circuit.b.data(),
                        circuit.c.data());
    return circuit;
}

TEST(Synthetic, EveryConstraintIsSatisfied) {
    for (uint32_t log_n : {0u, 1u, 5u, 12u}) {
        for (uint32_t terms : {1u, 4u}) {
            const Circuit circuit = synthesize(log_n, terms, 42, 3);
            for (size_t i = 0; i < circuit.a.size(); ++i) {
                ASSERT_EQ(circuit.a[i] * circuit.b[i], circuit.c[i]) << "row " << i;
                ASSERT_TRUE(Fr::is_canonical(circuit.a[i].limbs));
            }
        }
    }
}

TEST(Synthetic, SameInputsGiveSameBits) {
    const Circuit first = synthesize(10, 3, 1234, 5);
    const Circuit second = synthesize(10, 3, 1234, 5);
    EXPECT_EQ(first.a, second.a);
    EXPECT_EQ(first.b, second.b);
    EXPECT_EQ(first.c, second.c);
}

TEST(Synthetic, SeedPartitionAndShapeChangeTheCircuit) {
    const Circuit base = synthesize(8, 3, 1234, 5);
    const Circuit other_seed = synthesize(8, 3, 1235, 5);
    const Circuit other_partition = synthesize(8, 3, 1234, 6);
    const Circuit other_terms = synthesize(8, 4, 1234, 5);
    for (const Circuit* other : {&other_seed, &other_partition, &other_terms}) {
        size_t equal_rows = 0;
        for (size_t i = 0; i < base.a.size(); ++i) equal_rows += base.a[i] == other->a[i];
        EXPECT_EQ(equal_rows, 0u);
    }
    // One more term per row changes the very first row.
    EXPECT_NE(synthesize(8, 1, 1, 0).a[0], synthesize(8, 2, 1, 0).a[0]);
}

TEST(Synthetic, RejectsZeroTermsPerRow) {
    Fr a, b, c;
    EXPECT_THROW(circuit::synthesize({0, 0}, 1, 0, &a, &b, &c), std::invalid_argument);
}

// Frozen values of the generator, cross-checked against an independent Python model of
// the stream layout documented in core/circuit/synthetic.cpp: tools/models/synthetic.py, which
// ctest runs (synthetic_model_known_answers) with these same values. A change here
// changes every generated workload (and every recorded digest): make it deliberately
// or not at all, and change the model with it.
TEST(Synthetic, KnownAnswers) {
    const Circuit circuit = synthesize(4, 3, 1, 0);
    EXPECT_EQ(circuit.a[0].to_hex(), "0x06e381364a91777eb53cbbdac82f7f7d4bbd89d0ab5aa111c3f9b43e925e2c04");
    EXPECT_EQ(circuit.b[5].to_hex(), "0x1afb838508bc714962cfea4198960d71c7757dd569bd4c8b88896da5942cd6af");
    EXPECT_EQ(circuit.c[15].to_hex(), "0x592c16f8dd7d6bf8840327a6ac26cc4bb91979b61030c027b88f38aa0ac948b5");
    EXPECT_EQ(synthesize(0, 1, 0, 0).a[0].to_hex(),
              "0x025bbdcb74dc871b4cd6b5dbe20cf0aa99da6b791da120f73c1f3430d6d8893d");
}

}  // namespace
TEST(Synthesis, ThreadCountDoesNotChangeTheBits) {
    const uint32_t log_n = 12;
    const size_t n = size_t{1} << log_n;
    std::vector<ff::Fr> a1(n), b1(n), c1(n), a3(n), b3(n), c3(n);
    circuit::synthesize({log_n, 3}, 21, 4, a1.data(), b1.data(), c1.data(), 1);
    circuit::synthesize({log_n, 3}, 21, 4, a3.data(), b3.data(), c3.data(), 3);
    EXPECT_EQ(a1, a3);
    EXPECT_EQ(b1, b3);
    EXPECT_EQ(c1, c3);
}

}  // namespace zkbatch
