// zkbatch's BLS12-381 and BN254 math against an independent implementation:
// @noble/curves (tools/js/package-lock.json pins 1.9.7), run under node by
// noble_oracle.cjs. For random scalars it computes [k]G1, [k]G2, [a]G + [b]G, an MSM
// (BLS12-381's) and pairing values e([a]G1, [b]G2); here the same come from zkbatch and
// must match byte for byte (Zcash encodings; BN254's affine coordinates) and coefficient
// for coefficient (GT, in fp12.hpp's tower order). For BN254's G2, noble also judges
// points made here, inside and outside the subgroup, on and off the twist.
//
// Node and tools/js/node_modules are part of the test environment (tools/setup.sh
// installs both; CI runs it): without them this suite fails, saying so, and never skips.
#include "support/zkbatch_process.hpp"

#include "core/ec/bn254.hpp"
#include "core/ec/curve.hpp"
#include "core/ec/encoding.hpp"
#include "core/ff/random.hpp"
#include "core/msm/pippenger.hpp"
#include "core/pairing/bn254.hpp"
#include "core/pairing/pairing.hpp"
#include "core/util/splitmix64.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace zkbatch {
namespace {

namespace fs = std::filesystem;
using ff::Fr;
using nlohmann::json;
using Bn254Fr = ff::bn254::Fr;

// Hex without the 0x and the leading zeros, as JavaScript's BigInt.toString(16) writes it.
std::string plain_hex(const std::string& prefixed) {
    const size_t first = prefixed.find_first_not_of('0', 2);
    return first == std::string::npos ? "0" : prefixed.substr(first);
}

std::string bytes_hex(const std::vector<uint8_t>& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (uint8_t b : bytes) {
        hex.push_back(kDigits[b >> 4]);
        hex.push_back(kDigits[b & 15]);
    }
    return hex;
}

// The scalars both sides use: a few edge values, then random ones.
template <class Scalar>
struct CurveInputs {
    std::vector<Scalar> g1, g2;
    std::vector<std::pair<Scalar, Scalar>> g1_sums, g2_sums, pairings;

    template <class Random>
    void fill(Random random) {
        g1 = {Scalar::zero(), Scalar::one(), Scalar::from_u64(2), -Scalar::one()};
        g2 = g1;
        for (int i = 0; i < 8; ++i) {
            g1.push_back(random());
            g2.push_back(random());
        }
        for (int i = 0; i < 4; ++i) {
            const Scalar a = random(), b = random();
            g1_sums.push_back({a, b});
            g2_sums.push_back({b, a});
        }
        const Scalar k = random();
        g1_sums.push_back({k, k});   // a doubling
        g1_sums.push_back({k, -k});  // infinity
        g2_sums.push_back({k, k});
        g2_sums.push_back({k, -k});
        pairings = {{Scalar::one(), Scalar::one()}, {random(), random()}, {random(), random()}};
    }
};

struct Inputs : CurveInputs<Fr> {
    std::vector<Fr> msm_logs, msm_scalars;  // bases [k_i]G1 and their scalars s_i
    CurveInputs<Bn254Fr> bn254;
    std::vector<ec::bn254::G2Affine> bn254_g2_points;  // for noble's on-curve and subgroup checks
};

// BN254 G2 points for noble to judge: three of G2, three random points of the twist (its
// cofactor not cleared), those times the cofactor 2p - r (in G2 again) and times r (of
// an order dividing the cofactor), and one off the twist.
std::vector<ec::bn254::G2Affine> bn254_g2_points(util::SplitMix64& generator) {
    using ec::bn254::G2;
    using ec::bn254::G2Affine;
    using ff::bn254::Fq;
    using ff::bn254::Fq2;
    auto random_fq2 = [&] { return Fq2{ff::uniform_element<Fq>(generator), ff::uniform_element<Fq>(generator)}; };
    const uint64_t cofactor[4] = {0x345f2299c0f9fa8dULL, 0x06ceecda572a2489ULL, 0xb85045b68181585eULL,
                                  0x30644e72e131a029ULL};  // 2p - r, noble's h
    std::vector<G2Affine> points;
    for (int i = 0; i < 3; ++i) {
        const Bn254Fr k = ff::uniform_element<Bn254Fr>(generator);
        points.push_back(ec::scalar_mul(G2::from_affine(ec::generator<ec::bn254::G2Params>()), k).to_affine());
    }
    while (points.size() < 6) {
        G2Affine point{random_fq2(), Fq2::zero()};
        if ((point.x.sqr() * point.x + ec::bn254::G2Params::b()).sqrt(point.y)) points.push_back(point);
    }
    for (size_t i = 3; i < 6; ++i) {
        points.push_back(ec::scalar_mul(G2::from_affine(points[i]), cofactor).to_affine());
        points.push_back(ec::scalar_mul(G2::from_affine(points[i]), Bn254Fr::modulus().limbs).to_affine());
    }
    G2Affine off = points[3];
    off.y = off.y + Fq2::one();
    points.push_back(off);
    return points;
}

const Inputs& inputs() {
    static const Inputs in = [] {
        util::SplitMix64 generator(20260101);
        auto random = [&] { return ff::uniform_fr(generator); };
        Inputs v;
        v.fill(random);
        for (int i = 0; i < 600; ++i) {  // past the MSM's switch to affine buckets (2^9)
            v.msm_logs.push_back(random());
            v.msm_scalars.push_back(i % 5 == 0 ? Fr::from_u64(i % 2) : random());
        }
        v.bn254.fill([&] { return ff::uniform_element<Bn254Fr>(generator); });
        v.bn254_g2_points = bn254_g2_points(generator);
        return v;
    }();
    return in;
}

template <class Scalar>
json hex_list(const std::vector<Scalar>& values) {
    json list = json::array();
    for (const Scalar& v : values) list.push_back(plain_hex(v.to_hex()));
    return list;
}
template <class Scalar>
json pair_list(const std::vector<std::pair<Scalar, Scalar>>& values) {
    json list = json::array();
    for (const auto& [a, b] : values) list.push_back({plain_hex(a.to_hex()), plain_hex(b.to_hex())});
    return list;
}

// BN254's affine coordinates as noble_oracle.cjs writes them: [x, y] or
// [x.c0, x.c1, y.c0, y.c1], plain hex.
json coordinates(const ec::bn254::G1Affine& p) { return {plain_hex(p.x.to_hex()), plain_hex(p.y.to_hex())}; }
json coordinates(const ec::bn254::G2Affine& p) {
    return {plain_hex(p.x.c0.to_hex()), plain_hex(p.x.c1.to_hex()), plain_hex(p.y.c0.to_hex()),
            plain_hex(p.y.c1.to_hex())};
}

// noble's answers, computed once for the whole suite; `error` says why there are none.
struct Oracle {
    json answers;
    std::string error;
};

const Oracle& oracle() {
    static const Oracle result = [] {
        Oracle o;
        const std::string setup = " Run tools/setup.sh (it installs nodejs and npm from Debian and runs "
                                  "npm ci in tools/js); CI does.";
        const fs::path node = ZKBATCH_NODE;
        const fs::path js_dir = ZKBATCH_JS_DIR;
        if (node.empty() || access(node.c_str(), X_OK) != 0) {
            o.error = "node was not found when this build was configured (or is gone): '" + node.string() + "'." +
                      setup + " Then re-run cmake.";
            return o;
        }
        if (!fs::exists(js_dir / "node_modules" / "@noble" / "curves" / "package.json")) {
            o.error = (js_dir / "node_modules" / "@noble" / "curves").string() + " is missing." + setup;
            return o;
        }
        const Inputs& in = inputs();
        json bn254_g2_points = json::array();
        for (const auto& point : in.bn254_g2_points) bn254_g2_points.push_back(coordinates(point));
        const json request = {{"g1", hex_list(in.g1)},
                              {"g2", hex_list(in.g2)},
                              {"g1_sums", pair_list(in.g1_sums)},
                              {"g2_sums", pair_list(in.g2_sums)},
                              {"pairings", pair_list(in.pairings)},
                              {"msm", {{"logs", hex_list(in.msm_logs)}, {"scalars", hex_list(in.msm_scalars)}}},
                              {"bn254",
                               {{"g1", hex_list(in.bn254.g1)},
                                {"g2", hex_list(in.bn254.g2)},
                                {"g1_sums", pair_list(in.bn254.g1_sums)},
                                {"g2_sums", pair_list(in.bn254.g2_sums)},
                                {"pairings", pair_list(in.bn254.pairings)},
                                {"g2_points", bn254_g2_points}}}};
        test::TempDir dir("zkbatch-noble");
        const fs::path input = test::write_file(dir.path() / "input.json", request.dump());
        const fs::path output = dir.path() / "output.json";
        const test::CommandResult run = test::run_program(
            {node.string(), ZKBATCH_NOBLE_ORACLE, js_dir.string(), input.string(), output.string()}, dir.path());
        if (run.exit_code != 0) {
            o.error = "node " + std::string(ZKBATCH_NOBLE_ORACLE) + " failed (exit " + std::to_string(run.exit_code) +
                      "): " + run.err;
            return o;
        }
        o.answers = json::parse(test::read_file(output));
        return o;
    }();
    return result;
}

#define ZKB_REQUIRE_NOBLE()                                       \
    do {                                                          \
        ASSERT_TRUE(oracle().error.empty()) << oracle().error;    \
    } while (0)

template <class C>
json our_encodings(const ec::Affine<C>& p) {
    std::vector<uint8_t> compressed, uncompressed;
    if constexpr (std::is_same_v<C, ec::G1Params>) {
        compressed.resize(ec::kG1CompressedBytes);
        uncompressed.resize(ec::kG1UncompressedBytes);
        ec::g1_to_compressed(p, compressed.data());
        ec::g1_to_uncompressed(p, uncompressed.data());
    } else {
        compressed.resize(ec::kG2CompressedBytes);
        uncompressed.resize(ec::kG2UncompressedBytes);
        ec::g2_to_compressed(p, compressed.data());
        ec::g2_to_uncompressed(p, uncompressed.data());
    }
    return {{"compressed", bytes_hex(compressed)}, {"uncompressed", bytes_hex(uncompressed)}};
}

template <class C>
ec::Jacobian<C> times_generator(const typename C::Scalar& k) {
    return ec::scalar_mul(ec::Jacobian<C>::from_affine(ec::generator<C>()), k);
}

// Noble's bytes decode, with every check, to our point.
template <class C>
void expect_decodes_to(const std::string& hex, const ec::Affine<C>& expected) {
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        bytes.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    ec::Affine<C> decoded;
    ec::DecodeError e;
    if constexpr (std::is_same_v<C, ec::G1Params>) {
        e = bytes.size() == ec::kG1CompressedBytes ? ec::g1_from_compressed(bytes.data(), bytes.size(), decoded)
                                                   : ec::g1_from_uncompressed(bytes.data(), bytes.size(), decoded);
    } else {
        e = bytes.size() == ec::kG2CompressedBytes ? ec::g2_from_compressed(bytes.data(), bytes.size(), decoded)
                                                   : ec::g2_from_uncompressed(bytes.data(), bytes.size(), decoded);
    }
    ASSERT_EQ(e, ec::DecodeError::ok) << ec::describe(e);
    EXPECT_EQ(decoded, expected);
}

template <class C>
void check_multiples(const std::vector<Fr>& scalars, const json& answers) {
    ASSERT_EQ(answers.size(), scalars.size());
    for (size_t i = 0; i < scalars.size(); ++i) {
        const ec::Affine<C> ours = times_generator<C>(scalars[i]).to_affine();
        EXPECT_EQ(our_encodings(ours), answers[i]) << "k = " << scalars[i].to_hex();
        expect_decodes_to(answers[i]["compressed"].get<std::string>(), ours);
        expect_decodes_to(answers[i]["uncompressed"].get<std::string>(), ours);
    }
}

template <class C>
void check_sums(const std::vector<std::pair<Fr, Fr>>& pairs, const json& answers) {
    ASSERT_EQ(answers.size(), pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
        const ec::Jacobian<C> sum = ec::add(times_generator<C>(pairs[i].first), times_generator<C>(pairs[i].second));
        EXPECT_EQ(our_encodings(sum.to_affine()), answers[i]) << "pair " << i;
    }
}

TEST(NobleInterop, G1MultiplesAndTheirEncodings) {
    ZKB_REQUIRE_NOBLE();
    check_multiples<ec::G1Params>(inputs().g1, oracle().answers["g1"]);
}

TEST(NobleInterop, G2MultiplesAndTheirEncodings) {
    ZKB_REQUIRE_NOBLE();
    check_multiples<ec::G2Params>(inputs().g2, oracle().answers["g2"]);
}

TEST(NobleInterop, SumsIncludingDoublingAndInfinity) {
    ZKB_REQUIRE_NOBLE();
    check_sums<ec::G1Params>(inputs().g1_sums, oracle().answers["g1_sums"]);
    check_sums<ec::G2Params>(inputs().g2_sums, oracle().answers["g2_sums"]);
}

TEST(NobleInterop, MsmMatchesNoblesMsm) {
    ZKB_REQUIRE_NOBLE();
    const Inputs& in = inputs();
    const size_t n = in.msm_logs.size();
    std::vector<ec::G1Affine> bases(n);
    ec::fixed_base_mul(ec::g1_generator(), in.msm_logs.data(), n, bases.data(), 2);
    std::vector<msm::Scalar> scalars(n);
    for (size_t i = 0; i < n; ++i) scalars[i] = msm::to_scalar(in.msm_scalars[i]);
    const ec::G1 sum = msm::pippenger(bases.data(), scalars.data(), n, 2);
    EXPECT_EQ(our_encodings(sum.to_affine()), oracle().answers["msm"]);
}

TEST(NobleInterop, PairingValuesCoefficientByCoefficient) {
    ZKB_REQUIRE_NOBLE();
    const auto& pairs = inputs().pairings;
    const json& answers = oracle().answers["pairings"];
    ASSERT_EQ(answers.size(), pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
        const ff::Fp12 e = pairing::pairing(times_generator<ec::G1Params>(pairs[i].first).to_affine(),
                                            times_generator<ec::G2Params>(pairs[i].second).to_affine());
        std::vector<std::string> ours;
        for (const ff::Fp6* c6 : {&e.c0, &e.c1}) {
            for (const ff::Fp2* c2 : {&c6->c0, &c6->c1, &c6->c2}) {
                ours.push_back(plain_hex(c2->c0.to_hex()));
                ours.push_back(plain_hex(c2->c1.to_hex()));
            }
        }
        EXPECT_EQ(json(ours), answers[i]) << "pairing " << i;
    }
}

// ---- BN254 ---------------------------------------------------------------------------

TEST(NobleInterop, Bn254MultiplesAndSums) {
    ZKB_REQUIRE_NOBLE();
    const auto& in = inputs().bn254;
    const json& answers = oracle().answers["bn254"];
    auto check = [&]<class C>(const std::vector<Bn254Fr>& scalars,
                              const std::vector<std::pair<Bn254Fr, Bn254Fr>>& pairs, const char* group) {
        const json& multiples = answers[std::string(group)];
        ASSERT_EQ(multiples.size(), scalars.size());
        for (size_t i = 0; i < scalars.size(); ++i) {
            EXPECT_EQ(coordinates(times_generator<C>(scalars[i]).to_affine()), multiples[i])
                << group << ", k = " << scalars[i].to_hex();
        }
        const json& sums = answers[std::string(group) + "_sums"];
        ASSERT_EQ(sums.size(), pairs.size());
        for (size_t i = 0; i < pairs.size(); ++i) {
            const auto sum = ec::add(times_generator<C>(pairs[i].first), times_generator<C>(pairs[i].second));
            EXPECT_EQ(coordinates(sum.to_affine()), sums[i]) << group << " sum " << i;
        }
    };
    check.template operator()<ec::bn254::G1Params>(in.g1, in.g1_sums, "g1");
    check.template operator()<ec::bn254::G2Params>(in.g2, in.g2_sums, "g2");
}

TEST(NobleInterop, Bn254G2OnCurveAndSubgroupChecks) {
    ZKB_REQUIRE_NOBLE();
    const auto& points = inputs().bn254_g2_points;
    const json& answers = oracle().answers["bn254"]["g2_points"];
    ASSERT_EQ(answers.size(), points.size());
    int inside = 0, outside = 0;
    for (size_t i = 0; i < points.size(); ++i) {
        const bool on_curve = points[i].is_on_curve();
        EXPECT_EQ(on_curve, answers[i]["on_curve"].get<bool>()) << "point " << i;
        const bool in_subgroup = on_curve && ec::bn254::is_in_subgroup(points[i]);
        EXPECT_EQ(in_subgroup, answers[i]["in_subgroup"].get<bool>()) << "point " << i;
        EXPECT_EQ(in_subgroup, answers[i]["order_r"].get<bool>()) << "point " << i << ": noble's [r]P = O";
        (in_subgroup ? inside : outside) += 1;
    }
    EXPECT_EQ(inside, 6) << "three multiples of the generator and three cleared cofactors";
    EXPECT_EQ(outside, 7) << "three random twist points, what [r] leaves of them, one point off the twist";
}

TEST(NobleInterop, Bn254PairingValuesCoefficientByCoefficient) {
    ZKB_REQUIRE_NOBLE();
    const auto& pairs = inputs().bn254.pairings;
    const json& answers = oracle().answers["bn254"]["pairings"];
    ASSERT_EQ(answers.size(), pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
        const ff::bn254::Fq12 e =
            pairing::pairing(times_generator<ec::bn254::G1Params>(pairs[i].first).to_affine(),
                             times_generator<ec::bn254::G2Params>(pairs[i].second).to_affine());
        std::vector<std::string> ours;
        for (const ff::bn254::Fq6* c6 : {&e.c0, &e.c1}) {
            for (const ff::bn254::Fq2* c2 : {&c6->c0, &c6->c1, &c6->c2}) {
                ours.push_back(plain_hex(c2->c0.to_hex()));
                ours.push_back(plain_hex(c2->c1.to_hex()));
            }
        }
        EXPECT_EQ(json(ours), answers[i]) << "pairing " << i << " (the first is e(G1, G2))";
    }
}

}  // namespace
}  // namespace zkbatch
