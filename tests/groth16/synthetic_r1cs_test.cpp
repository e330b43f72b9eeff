// The synthetic R1CS: every row satisfied when the sparse matrices are evaluated on the
// witness, the shape's knobs doing what they say, and the streams frozen by known
// answers from an independent model (tools/models/synthetic_r1cs.py).
#include "core/circuit/synthetic_r1cs.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

namespace zkbatch {
namespace {

using circuit::Matrix;
using circuit::R1csShape;
using circuit::SyntheticR1cs;
using ff::Fr;

struct Synthesis {
    std::vector<Fr> z, a, b, c;
};

Synthesis synthesize(const SyntheticR1cs& circuit, uint64_t job_seed, uint64_t partition, unsigned threads = 1) {
    Synthesis out{std::vector<Fr>(circuit.variables()), std::vector<Fr>(circuit.rows()),
                  std::vector<Fr>(circuit.rows()), std::vector<Fr>(circuit.rows())};
    circuit.synthesize(job_seed, partition, out.z.data(), out.a.data(), out.b.data(), out.c.data(), threads);
    return out;
}

// <M_j, z> for the three matrices of row j, from the terms alone.
std::array<Fr, 3> evaluate_row(const SyntheticR1cs& circuit, uint64_t row, const std::vector<Fr>& z) {
    std::array<Fr, 3> sums{Fr::zero(), Fr::zero(), Fr::zero()};
    circuit.for_each_term(row, [&](Matrix matrix, uint64_t variable, const Fr& coefficient) {
        EXPECT_LT(variable, z.size());
        sums[static_cast<int>(matrix)] += coefficient * z.at(variable);
    });
    return sums;
}

TEST(SyntheticR1cs, EveryRowIsSatisfiedAndSynthesisWritesItsSums) {
    for (uint32_t log_n : {1u, 2u, 5u, 8u, 12u}) {
        for (uint32_t inputs : {0u, 1u, 3u}) {
            if (inputs > (1u << log_n) - 1) continue;
            for (double share : {0.0, 0.5, 0.9, 1.0}) {
                const SyntheticR1cs circuit({log_n, 3, inputs, share, 77});
                const Synthesis s = synthesize(circuit, 5, 2);
                ASSERT_EQ(s.z[0], Fr::one());
                for (uint64_t row = 0; row < circuit.rows(); ++row) {
                    const auto [a, b, c] = evaluate_row(circuit, row, s.z);
                    ASSERT_EQ(a * b, c) << "log_n " << log_n << " share " << share << " row " << row;
                    ASSERT_EQ(a, s.a[row]);
                    ASSERT_EQ(b, s.b[row]);
                    ASSERT_EQ(c, s.c[row]);
                }
            }
        }
    }
}

// Both profiles: the PoRep one's chains run on across blocks.
TEST(SyntheticR1cs, ThreadCountDoesNotChangeTheBits) {
    const R1csShape shapes[] = {{13, 4, 2, 0.7, 9}, {13, 0, 4, 0.6, 9, circuit::R1csProfile::porep}};
    for (const R1csShape& shape : shapes) {
        const SyntheticR1cs circuit(shape);
        const Synthesis one = synthesize(circuit, 3, 1, 1);
        for (unsigned threads : {2u, 3u, 8u}) {
            const Synthesis many = synthesize(circuit, 3, 1, threads);
            EXPECT_EQ(one.z, many.z);
            EXPECT_EQ(one.a, many.a);
            EXPECT_EQ(one.b, many.b);
            EXPECT_EQ(one.c, many.c);
        }
    }
}

TEST(SyntheticR1cs, BooleanShareSetsTheRowKindsAndTheWitness) {
    const uint32_t log_n = 14;
    for (double share : {0.0, 0.25, 0.9, 1.0}) {
        const SyntheticR1cs circuit({log_n, 2, 4, share, 1});
        const Synthesis s = synthesize(circuit, 1, 0);
        uint64_t boolean_rows = 0, boolean_ones = 0, full_values = 0;
        for (uint64_t row = 0; row < circuit.constraint_rows(); ++row) {
            const Fr& value = s.z[circuit.public_inputs() + 1 + row];
            const bool is_bit = value == Fr::zero() || value == Fr::one();
            if (circuit.is_boolean_row(row)) {
                ++boolean_rows;
                ASSERT_TRUE(is_bit) << "boolean row " << row;
                boolean_ones += value == Fr::one();
            } else {
                // A product is 0 when a sum reads only zeros (booleans that came out 0);
                // otherwise it is a full field element (0/1 with probability ~2^-254).
                const bool a_or_b_zero = s.a[row].is_zero() || s.b[row].is_zero();
                full_values += !is_bit || a_or_b_zero;
            }
        }
        const double rows = static_cast<double>(circuit.constraint_rows());
        // Binomial: 6 standard deviations either way.
        const double spread = 6 * std::sqrt(rows * share * (1 - share)) + 1;
        EXPECT_NEAR(static_cast<double>(boolean_rows), rows * share, spread) << "share " << share;
        if (boolean_rows > 100) {
            EXPECT_NEAR(static_cast<double>(boolean_ones), boolean_rows / 2.0, 6 * std::sqrt(boolean_rows / 4.0));
        }
        EXPECT_EQ(full_values, circuit.constraint_rows() - boolean_rows);
    }
}

TEST(SyntheticR1cs, ProductRowsReadOnlyTheWindowBeforeTheirBlock) {
    const SyntheticR1cs circuit({12, 5, 3, 0.3, 4});
    ASSERT_EQ(circuit.block_rows(), 64u);
    ASSERT_EQ(circuit.window_variables(), 256u);
    for (uint64_t row = 0; row < circuit.constraint_rows(); ++row) {
        if (circuit.is_boolean_row(row)) continue;
        const uint64_t block_first_variable = 3 + 1 + (row / 64) * 64;
        const uint64_t lowest = block_first_variable > 256 ? block_first_variable - 256 : 0;
        uint64_t a_terms = 0, b_terms = 0;
        circuit.for_each_term(row, [&](Matrix matrix, uint64_t variable, const Fr&) {
            if (matrix == Matrix::c) {
                EXPECT_EQ(variable, 3 + 1 + row);
                return;
            }
            (matrix == Matrix::a ? a_terms : b_terms)++;
            EXPECT_GE(variable, lowest) << "row " << row;
            EXPECT_LT(variable, block_first_variable) << "row " << row;
        });
        EXPECT_EQ(a_terms, 5u);
        EXPECT_EQ(b_terms, 5u);
    }
}

// A circuit whose A and B columns were mostly empty would give a prover mostly
// points at infinity to add: the MSMs would measure an easier job than real ones.
TEST(SyntheticR1cs, MostVariablesAppearInAOrB) {
    const SyntheticR1cs circuit({14, 4, 2, 0.9, 11});
    std::vector<bool> referenced(circuit.variables(), false);
    for (uint64_t row = 0; row < circuit.rows(); ++row)
        circuit.for_each_term(row, [&](Matrix matrix, uint64_t variable, const Fr&) {
            if (matrix != Matrix::c) referenced[variable] = true;
        });
    uint64_t count = 0;
    for (bool r : referenced) count += r;
    EXPECT_GT(static_cast<double>(count), 0.95 * static_cast<double>(circuit.variables()));
}

TEST(SyntheticR1cs, CircuitSeedFixesTheMatricesAndJobSeedTheWitness) {
    const R1csShape shape{10, 3, 2, 0.5, 100};
    R1csShape other_circuit = shape;
    other_circuit.seed = 101;
    const SyntheticR1cs base(shape), same(shape), other(other_circuit);
    auto terms = [](const SyntheticR1cs& circuit) {
        std::vector<std::pair<uint64_t, Fr>> all;
        for (uint64_t row = 0; row < circuit.rows(); ++row)
            circuit.for_each_term(row, [&](Matrix, uint64_t variable, const Fr& coefficient) {
                all.emplace_back(variable, coefficient);
            });
        return all;
    };
    EXPECT_EQ(terms(base), terms(same));
    EXPECT_NE(terms(base), terms(other));
    EXPECT_EQ(base.description(), same.description());
    EXPECT_NE(base.description(), other.description());

    const Synthesis p0 = synthesize(base, 7, 0), p0_again = synthesize(same, 7, 0);
    const Synthesis p1 = synthesize(base, 7, 1), seed8 = synthesize(base, 8, 0);
    EXPECT_EQ(p0.z, p0_again.z);
    EXPECT_NE(p0.z, p1.z);
    EXPECT_NE(p0.z, seed8.z);
    EXPECT_NE(p0.z[1], p1.z[1]);  // public inputs are per partition
}

TEST(SyntheticR1cs, RefusesShapesOutsideTheirRange) {
    EXPECT_THROW(SyntheticR1cs({0, 1, 0, 0.5, 1}), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs({29, 1, 0, 0.5, 1}), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs({8, 0, 0, 0.5, 1}), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs({4, 1, 16, 0.5, 1}), std::invalid_argument);
    EXPECT_NO_THROW(SyntheticR1cs({4, 1, 15, 0.5, 1}));
    EXPECT_THROW(SyntheticR1cs({8, 1, 0, -0.1, 1}), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs({8, 1, 0, 1.5, 1}), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs({8, 1, 0, std::nan(""), 1}), std::invalid_argument);
}

// Frozen values of the streams, computed by an independent model of the layout the
// header documents (tools/models/synthetic_r1cs.py, which CI runs and which checks the
// same values). A change here changes every synthetic circuit, key and proof.
TEST(SyntheticR1cs, KnownAnswers) {
    struct Case {
        R1csShape shape;
        uint64_t job_seed, partition;
        const char *z1, *a_first, *b_first, *b_last;
        uint64_t first_product, last_product, boolean_rows;
    };
    const Case cases[] = {
        {{6, 2, 2, 0.5, 3}, 1, 0, "0x52dd7e8c4954e90134dd9971ceeabb997d321d4e528dce3fa84d1d662103fa74",
         "0x19b001eaaaeb81f288d590324867af39ecfb2f2e376003b9781c1c7365aff29f",
         "0x44dfb32308ed2ffb42b47aaef2388088de97a2e574555708e62ea7ef34e0af78",
         "0x0000000000000000000000000000000000000000000000000000000000000000", 2, 59, 24},
        {{12, 3, 1, 0.9, 1}, 7, 5, "0x34aca1901a7f29a80e69c30805db6f03a6a47ebbffd29be9c6f98ed49a7dcb98",
         "0x0b2f512bcc95739e9a0186ff8b28266a877492b55c30c850eb678a3bab97baed",
         "0x2cd24a3f3b2f495a2a8ffe1cb9931949e5bc5e93a55134c5bfcfc2fb3e14afed",
         "0x5dfc69e80b6ab51f8ce970303c26499dd40e74df85a70771060219d36ca0e874", 11, 4090, 3677},
    };
    for (const Case& k : cases) {
        const SyntheticR1cs circuit(k.shape);
        const Synthesis s = synthesize(circuit, k.job_seed, k.partition);
        std::vector<uint64_t> products;
        uint64_t boolean_rows = 0;
        for (uint64_t row = 0; row < circuit.constraint_rows(); ++row) {
            if (circuit.is_boolean_row(row)) ++boolean_rows;
            else products.push_back(row);
        }
        ASSERT_FALSE(products.empty());
        EXPECT_EQ(boolean_rows, k.boolean_rows);
        EXPECT_EQ(products.front(), k.first_product);
        EXPECT_EQ(products.back(), k.last_product);
        EXPECT_EQ(s.z[1].to_hex(), k.z1);
        EXPECT_EQ(s.a[products.front()].to_hex(), k.a_first);
        EXPECT_EQ(s.b[products.front()].to_hex(), k.b_first);
        EXPECT_EQ(s.b[products.back()].to_hex(), k.b_last);
        EXPECT_TRUE(s.z[circuit.public_inputs() + 1 + products.back()].is_zero());
    }
}

}  // namespace
}  // namespace zkbatch
