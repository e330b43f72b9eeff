// The synthetic R1CS's PoRep profile: every row satisfied; the published counts at 2^27
// from the layout alone; the same counts read back from the rows and the witness at small
// sizes; the placement of bits and full-size values; and the streams frozen by known
// answers from an independent model (tools/models/synthetic_r1cs.py).
#include "core/circuit/porep_profile.hpp"
#include "core/circuit/synthetic_r1cs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

using circuit::kPorepBitShare;
using circuit::Matrix;
using circuit::PorepAux;
using circuit::PorepCounts;
using circuit::R1csProfile;
using circuit::R1csShape;
using circuit::SyntheticR1cs;
using ff::Fr;

R1csShape porep(uint32_t log_n, uint32_t public_inputs, double bit_share = kPorepBitShare, uint64_t seed = 1) {
    return {log_n, 0, public_inputs, bit_share, seed, R1csProfile::porep};
}

struct Synthesis {
    std::vector<Fr> z, a, b, c;
};

Synthesis synthesize(const SyntheticR1cs& circuit, uint64_t job_seed, uint64_t partition, unsigned threads = 1) {
    // Garbage first, and not a bit: synthesis must write every value and every row,
    // padding included (buffers are reused).
    const Fr garbage = Fr::from_u64(5);
    Synthesis out{std::vector<Fr>(circuit.variables(), garbage), std::vector<Fr>(circuit.rows(), garbage),
                  std::vector<Fr>(circuit.rows(), garbage), std::vector<Fr>(circuit.rows(), garbage)};
    circuit.synthesize(job_seed, partition, out.z.data(), out.a.data(), out.b.data(), out.c.data(), threads);
    return out;
}

bool is_bit(const Fr& value) { return value == Fr::zero() || value == Fr::one(); }

// Which variables the rows reference in A and in B, as the key's queries see them.
struct Referenced {
    std::vector<bool> a, b;
};
Referenced referenced(const SyntheticR1cs& circuit) {
    Referenced out{std::vector<bool>(circuit.variables()), std::vector<bool>(circuit.variables())};
    for (uint64_t row = 0; row < circuit.rows(); ++row)
        circuit.for_each_term(row, [&](Matrix matrix, uint64_t variable, const Fr&) {
            if (matrix == Matrix::a) out.a.at(variable) = true;
            if (matrix == Matrix::b) out.b.at(variable) = true;
        });
    return out;
}

TEST(PorepProfile, EveryRowIsSatisfiedAndSynthesisWritesItsSums) {
    for (const R1csShape& shape : {porep(8, 0), porep(10, 3), porep(11, 5, 0.6), porep(12, 1, 0.5), porep(12, 2, 1.0)}) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", bit share " << shape.boolean_share);
        const SyntheticR1cs circuit(shape);
        const Synthesis s = synthesize(circuit, 5, 2);
        ASSERT_EQ(s.z[0], Fr::one());
        for (uint64_t row = 0; row < circuit.rows(); ++row) {
            Fr sums[3] = {Fr::zero(), Fr::zero(), Fr::zero()};
            circuit.for_each_term(row, [&](Matrix matrix, uint64_t variable, const Fr& coefficient) {
                ASSERT_LT(variable, s.z.size());
                sums[static_cast<int>(matrix)] += coefficient * s.z[variable];
            });
            ASSERT_EQ(sums[0] * sums[1], sums[2]) << "row " << row;
            ASSERT_EQ(sums[0], s.a[row]) << "row " << row;
            ASSERT_EQ(sums[1], s.b[row]) << "row " << row;
            ASSERT_EQ(sums[2], s.c[row]) << "row " << row;
        }
    }
}

// From the layout alone: no row is made. The bit-valued count is the profile's estimate.
TEST(PorepProfile, CountsAt2To27AreThePublishedOnes) {
    const SyntheticR1cs circuit(porep(27, circuit::kPorepPublicInputs));
    const PorepCounts& k = circuit.porep()->counts();
    EXPECT_EQ(k.rows, 130'278'869u);  // constraints with the 328 input rows
    EXPECT_EQ(k.constraint_rows + circuit.input_rows(), 130'278'869u);
    EXPECT_EQ(circuit.rows(), uint64_t{1} << 27);
    EXPECT_EQ(k.public_inputs, 327u);
    EXPECT_EQ(k.aux, 130'169'893u);
    EXPECT_EQ(k.variables, 130'170'221u);
    EXPECT_EQ(circuit.variables(), 130'170'221u);
    EXPECT_EQ(k.check_rows, 108'648u);
    EXPECT_EQ(k.aux_in_a, 129'753'292u);
    EXPECT_EQ(k.aux_in_b, 33'112'281u);
    EXPECT_EQ(k.bit_valued, 128'481'861u);  // 98.70%, estimated
    EXPECT_EQ(k.full_in_a_and_b, 843'115u);
    EXPECT_EQ(k.free_bits + k.not_bits + k.xor_bits + k.full_in_a_and_b + k.full_in_a, k.aux);
    EXPECT_EQ(k.xor_bits, 416'601u);  // the aux in neither A nor B

    // 2^24, a target size of the GPU work: the same ratios, rounded.
    const PorepCounts at24 = SyntheticR1cs(porep(24, circuit::kPorepPublicInputs)).porep()->counts();
    EXPECT_EQ(at24.rows, 16'285'146u);
    EXPECT_EQ(at24.aux, 16'271'237u);
    EXPECT_EQ(at24.aux_in_a, 16'219'162u);
    EXPECT_EQ(at24.aux_in_b, 4'139'035u);
    EXPECT_EQ(at24.bit_valued, 16'060'233u);
}

TEST(PorepProfile, ScalesWithTheSameRatios) {
    const PorepCounts top = SyntheticR1cs(porep(27, 327)).porep()->counts();
    auto ratio = [](uint64_t part, uint64_t whole) { return static_cast<double>(part) / static_cast<double>(whole); };
    for (uint32_t log_n = 14; log_n <= 28; ++log_n) {
        SCOPED_TRACE(testing::Message() << "log_n " << log_n);
        const PorepCounts k = SyntheticR1cs(porep(log_n, 327)).porep()->counts();
        const double n = std::ldexp(1.0, static_cast<int>(log_n));
        // Each count is the published one times 2^(log_n - 27), rounded: within 1 of it.
        EXPECT_NEAR(static_cast<double>(k.aux), ratio(top.aux, 1u << 27) * n, 0.5);
        EXPECT_NEAR(static_cast<double>(k.constraint_rows), ratio(top.constraint_rows, 1u << 27) * n, 0.5);
        EXPECT_NEAR(static_cast<double>(k.aux_in_a), ratio(top.aux_in_a, 1u << 27) * n, 0.5);
        EXPECT_NEAR(static_cast<double>(k.aux_in_b), ratio(top.aux_in_b, 1u << 27) * n, 0.5);
        EXPECT_NEAR(static_cast<double>(k.bit_valued), kPorepBitShare * static_cast<double>(k.aux), 0.5);
        EXPECT_EQ(k.rows, k.constraint_rows + 328);
        EXPECT_LE(k.rows, static_cast<uint64_t>(n));
    }
    const PorepCounts at28 = SyntheticR1cs(porep(28, 327)).porep()->counts();
    EXPECT_EQ(at28.aux, 2 * top.aux);
    EXPECT_EQ(at28.aux_in_b, 2 * top.aux_in_b);
}

// At 2^27 the layout is the template's: a header, then 18 challenges, each 30 SHA-256
// runs with a few full values after each, 14 clusters of 5,890 full values, the
// challenge's 64 bits, 11 label runs of about half a million bits, and the last paths.
TEST(PorepProfile, PlacementAt2To27FollowsThePartition) {
    const SyntheticR1cs circuit(porep(27, 327));
    const circuit::PorepProfile& profile = *circuit.porep();
    const std::vector<uint64_t>& starts = profile.challenge_starts();
    ASSERT_EQ(starts.size(), 18u);
    const auto& segments = profile.segments();
    uint64_t header_bits = 0, header_full = 0;
    size_t index = 0;
    for (; segments[index].first < starts[0]; ++index) (segments[index].full ? header_full : header_bits) += segments[index].length;
    EXPECT_EQ(header_full, 316u);
    EXPECT_GE(header_bits, 255u);
    for (size_t challenge = 0; challenge < 18; ++challenge) {
        SCOPED_TRACE(testing::Message() << "challenge " << challenge);
        const uint64_t end = challenge + 1 < 18 ? starts[challenge + 1] : profile.counts().aux;
        std::vector<circuit::PorepSegment> mine;
        for (; index < segments.size() && segments[index].first < end; ++index) mine.push_back(segments[index]);
        ASSERT_EQ(mine.size(), 112u);
        for (size_t level = 0; level < 30; ++level) {
            EXPECT_FALSE(mine[2 * level].full);
            EXPECT_NEAR(static_cast<double>(mine[2 * level].length), 45'288.0, 10.0);
            EXPECT_TRUE(mine[2 * level + 1].full);
            EXPECT_EQ(mine[2 * level + 1].length, 4u);
        }
        for (size_t parent = 0; parent < 14; ++parent) {
            EXPECT_TRUE(mine[60 + 2 * parent].full);
            EXPECT_EQ(mine[60 + 2 * parent].length, 5'890u);
            EXPECT_FALSE(mine[61 + 2 * parent].full);
        }
        EXPECT_FALSE(mine[88].full);
        for (size_t layer = 0; layer < 11; ++layer) {
            EXPECT_FALSE(mine[89 + 2 * layer].full);
            EXPECT_NEAR(static_cast<double>(mine[89 + 2 * layer].length), 525'340.0, 10.0);
            EXPECT_TRUE(mine[90 + 2 * layer].full);
        }
        EXPECT_EQ(mine[111].length, 11'171u);
        EXPECT_NEAR(static_cast<double>(end - starts[challenge]), 130'169'893.0 / 18, 1'000.0);
    }
    EXPECT_EQ(index, segments.size());
}

// Threads split the bit rows wherever their counts fall (on check rows, inside clusters)
// and make clusters in any order within a level: the values must not depend on it.
TEST(PorepProfile, SynthesisIsTheSameOnAnyNumberOfThreads) {
    for (const R1csShape& shape : {porep(14, 327), porep(12, 3, 0.6)}) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", bit share " << shape.boolean_share);
        const SyntheticR1cs circuit(shape);
        const Synthesis one = synthesize(circuit, 3, 1);
        for (unsigned threads : {2u, 3u, 7u, 16u}) {
            const Synthesis many = synthesize(circuit, 3, 1, threads);
            EXPECT_EQ(many.z, one.z) << threads << " threads";
            EXPECT_EQ(many.a, one.a) << threads << " threads";
            EXPECT_EQ(many.b, one.b) << threads << " threads";
            EXPECT_EQ(many.c, one.c) << threads << " threads";
        }
    }
}

// The witness puts bits exactly where the layout says, the full values in runs of the
// clusters' lengths; and the rows reference in A and B exactly what the counts say.
TEST(PorepProfile, RowsAndWitnessHaveTheLayoutsCountsAndPlacement) {
    for (const R1csShape& shape : {porep(14, 327), porep(12, 3, 0.6)}) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", bit share " << shape.boolean_share);
        const SyntheticR1cs circuit(shape);
        const circuit::PorepProfile& profile = *circuit.porep();
        const PorepCounts& k = profile.counts();
        const uint64_t first_aux = shape.public_inputs + 1;
        const Synthesis s = synthesize(circuit, 11, 3);
        const Referenced seen = referenced(circuit);

        uint64_t bits = 0, ones = 0, in_a = 0, in_b = 0;
        for (uint64_t aux = 0; aux < k.aux; ++aux) {
            const uint64_t variable = first_aux + aux;
            const PorepAux kind = profile.aux_kind(aux);
            const bool bit_kind = kind == PorepAux::free_bit || kind == PorepAux::not_bit || kind == PorepAux::xor_bit;
            ASSERT_EQ(is_bit(s.z[variable]), bit_kind) << "aux " << aux;
            ASSERT_EQ(seen.a[variable], kind != PorepAux::xor_bit) << "aux " << aux;
            ASSERT_EQ(seen.b[variable], kind == PorepAux::free_bit || kind == PorepAux::full_in_a_and_b) << "aux " << aux;
            bits += is_bit(s.z[variable]);
            ones += s.z[variable] == Fr::one();
            in_a += seen.a[variable];
            in_b += seen.b[variable];
        }
        EXPECT_EQ(bits, k.bit_valued);
        EXPECT_EQ(in_a, k.aux_in_a);
        EXPECT_EQ(in_b, k.aux_in_b);
        EXPECT_NEAR(static_cast<double>(ones), bits / 2.0, 6 * std::sqrt(bits / 4.0));
        // Every input is in A (by its input row), and of them only the constant is in B.
        for (uint64_t input = 0; input < first_aux; ++input) {
            EXPECT_TRUE(seen.a[input]) << "input " << input;
            EXPECT_EQ(seen.b[input], input == 0) << "input " << input;
        }
        // Within the published densities, as far as rounding at this size allows.
        EXPECT_NEAR(static_cast<double>(in_a) / static_cast<double>(k.aux), 129'753'292.0 / 130'169'893, 1e-3);
        EXPECT_NEAR(static_cast<double>(in_b) / static_cast<double>(k.aux), 33'112'281.0 / 130'169'893, 1e-3);
        // Zero padding after the input rows.
        for (uint64_t row = k.rows; row < circuit.rows(); ++row) {
            ASSERT_TRUE(s.a[row].is_zero() && s.b[row].is_zero() && s.c[row].is_zero()) << "row " << row;
            circuit.for_each_term(row, [&](Matrix, uint64_t, const Fr&) { ADD_FAILURE() << "padding row " << row; });
        }
        // Full values lie in the segments' clusters.
        for (const circuit::PorepSegment& segment : profile.segments())
            for (uint64_t aux = segment.first; aux < segment.first + segment.length; ++aux)
                ASSERT_EQ(!is_bit(s.z[first_aux + aux]), segment.full) << "aux " << aux;
    }
}

TEST(PorepProfile, DescriptionNamesTheProfileAndComesBack) {
    const SyntheticR1cs circuit(porep(12, 3, 0.75, 8));
    EXPECT_EQ(circuit.description(),
              "circuit=synthetic-r1cs\nformat_version=1\nprofile=porep\nlog_n=12\npublic_inputs=3\n"
              "bit_valued_share=0.75\nseed=8\n");
    for (const R1csShape& shape : {porep(12, 3, 0.75, 8), porep(20, 327), porep(9, 0, 1.0, uint64_t{1} << 40)}) {
        const SyntheticR1cs back = SyntheticR1cs::from_description(SyntheticR1cs(shape).description());
        EXPECT_EQ(back.description(), SyntheticR1cs(shape).description());
        ASSERT_NE(back.porep(), nullptr);
        EXPECT_EQ(back.shape().boolean_share, shape.boolean_share);
        EXPECT_EQ(back.variables(), SyntheticR1cs(shape).variables());
    }
    // The uniform profile's description is not this one's: the same numbers make another circuit.
    const R1csShape uniform{12, 4, 3, 0.75, 8};
    EXPECT_EQ(SyntheticR1cs(uniform).description().find("profile"), std::string::npos);
    const std::string good = circuit.description();
    for (const std::string& bad :
         {std::string(good).replace(good.find("porep"), 5, "other"),
          std::string(good).replace(good.find("0.75"), 4, "0.3"),  // below the profile's range
          std::string(good).replace(good.find("0.75"), 4, "0.750"),
          std::string(good).replace(good.find("0.75"), 4, "x"),
          std::string(good).replace(good.find("public_inputs=3"), 15, "public_inputs=999"),
          std::string(good).replace(good.find("format_version=1"), 16, "format_version=2"), good + "terms_per_row=4\n"})
        EXPECT_THROW(SyntheticR1cs::from_description(bad), std::invalid_argument) << bad;
}

TEST(PorepProfile, RefusesShapesItCannotMake) {
    EXPECT_THROW(SyntheticR1cs(porep(10, 327)), std::invalid_argument);  // 994 rows leave room for 29 inputs
    EXPECT_NO_THROW(SyntheticR1cs(porep(10, 29)));
    EXPECT_THROW(SyntheticR1cs(porep(10, 30)), std::invalid_argument);
    EXPECT_NO_THROW(SyntheticR1cs(porep(14, 327)));
    EXPECT_THROW(SyntheticR1cs(porep(13, 327)), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs(porep(12, 1, 0.49)), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs(porep(12, 1, std::nan(""))), std::invalid_argument);
    EXPECT_THROW(SyntheticR1cs(porep(29, 1)), std::invalid_argument);
    try {
        SyntheticR1cs(porep(10, 327));
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("circuit.public_inputs"), std::string::npos) << e.what();
    }
}

// Frozen values of the layout and the streams, computed by an independent model of what
// porep_profile.hpp documents (tools/models/synthetic_r1cs.py, which CI runs and which
// checks the same values). A change here changes every PoRep-profile circuit, key and proof.
TEST(PorepProfile, KnownAnswers) {
    struct Case {
        R1csShape shape;
        uint64_t job_seed, partition;
        const char *z_first_full, *z_sum, *a_sum, *b_sum, *c_sum;
        uint64_t bit_valued, ones, in_a, in_b;
    };
    const Case cases[] = {
        {porep(10, 3, kPorepBitShare, 5), 2, 1,
         "0x1f92768c4dd5a0b75f74568b97f427d54b64f4fbba3eccf38b2f9ef4817caceb",
         "0x39b3c631aafa3924a486c6d5d75162c92c1b00ff00c5c21a76fe27ffba8eef57",
         "0x2186a37fbb1dd6e5ff55c7451426316f7725ce4d6ff1c715de0ebaebf35bc112",
         "0x0000000000000000000000000000000000000000000000000000000000066cb9",
         "0x654f9f1d98963408d09a3b10de994c5a536fa653501f5b7086237d5274a0cd38", 980, 493, 990, 253},
        {porep(12, 2, 0.6, 1), 7, 0, "0x5711218623056294ab4aa62af28d49951dc5c0d39b93ff49d7029198ea38b07d",
         "0x0caccf9e568275ef6aa0ea53c931cfb3f535923600c67dbc3cb73e3de3c9dab6",
         "0x02c61fe848bf31f0a8cfe1eeed110eab02dac4ae45835fe7692c5ce6af60346c",
         "0x51c9a3cec50c9b15d1121ad5424d5b8170bbf77fc5c59b9896c9800d152a1eb0",
         "0x0e0e8f122f9aa54c25f823d7f300259a51be96e31f08cbeb4bb1317c2aff2fd7", 2383, 1242, 3960, 1011},
    };
    // sum over i of (i + 1) v_i: every value in its place.
    auto weighted_sum = [](const std::vector<Fr>& values) {
        Fr sum = Fr::zero();
        for (size_t i = 0; i < values.size(); ++i) sum += Fr::from_u64(i + 1) * values[i];
        return sum.to_hex();
    };
    for (const Case& k : cases) {
        const SyntheticR1cs circuit(k.shape);
        const circuit::PorepProfile& profile = *circuit.porep();
        const Synthesis s = synthesize(circuit, k.job_seed, k.partition, 2);
        const uint64_t first_aux = k.shape.public_inputs + 1;
        uint64_t first_full = 0;
        while (!profile.segments()[first_full].full) ++first_full;
        EXPECT_EQ(s.z[first_aux + profile.segments()[first_full].first].to_hex(), k.z_first_full);
        EXPECT_EQ(weighted_sum(s.z), k.z_sum);
        EXPECT_EQ(weighted_sum(s.a), k.a_sum);
        EXPECT_EQ(weighted_sum(s.b), k.b_sum);
        EXPECT_EQ(weighted_sum(s.c), k.c_sum);
        uint64_t bits = 0, ones = 0;
        for (uint64_t variable = first_aux; variable < s.z.size(); ++variable) {
            bits += is_bit(s.z[variable]);
            ones += s.z[variable] == Fr::one();
        }
        EXPECT_EQ(bits, k.bit_valued);
        EXPECT_EQ(ones, k.ones);
        const Referenced seen = referenced(circuit);
        const auto first = static_cast<std::ptrdiff_t>(first_aux);
        EXPECT_EQ(static_cast<uint64_t>(std::count(seen.a.begin() + first, seen.a.end(), true)), k.in_a);
        EXPECT_EQ(static_cast<uint64_t>(std::count(seen.b.begin() + first, seen.b.end(), true)), k.in_b);
    }
}

}  // namespace
}  // namespace zkbatch
