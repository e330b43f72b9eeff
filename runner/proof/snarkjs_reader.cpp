#include "proof/snarkjs_reader.hpp"

#include "util/usage_error.hpp"

#include "core/util/input_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <string>

namespace zkbatch {

namespace {

using nlohmann::json;

// snarkjs's files of the largest circuits are a few hundred KB (one IC point a public
// signal); more is not one of them.
constexpr size_t kMaxJsonBytes = 64u << 20;

// Where a value lies, for messages: "proof.json: pi_b[1][0]".
struct Place {
    std::string file, field;
    Place at(const std::string& key) const { return {file, field.empty() ? key : field + "." + key}; }
    Place at(size_t index) const { return {file, fmt::format("{}[{}]", field, index)}; }
    [[noreturn]] void refuse(const std::string& what) const {
        throw UsageError(fmt::format("{}: {}{}{}; give snarkjs's file", file, field, field.empty() ? "" : ": ", what));
    }
};

// snarkjs's files nest three deep (a G2 point's coordinates in a list of points); the
// parser's own depth is then never what a hostile file tests.
constexpr int kMaxJsonDepth = 8;

json parse_json(std::string_view text, const Place& place) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if ((c == '[' || c == '{') && ++depth > kMaxJsonDepth) {
            place.refuse(fmt::format("nested deeper than {} levels", kMaxJsonDepth));
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        place.refuse(fmt::format("not JSON ({})", e.what()));
    }
}

const json& member(const json& object, const Place& place, const std::string& key) {
    if (!object.is_object() || !object.contains(key)) place.at(key).refuse("missing");
    return object[key];
}

const json& element(const json& array, const Place& place, size_t index, size_t size) {
    if (!array.is_array() || array.size() != size) place.refuse(fmt::format("not a list of {}", size));
    return array[index];
}

// A decimal string as `Limbs` little-endian 64-bit limbs; refused past them. (Worked in
// 32-bit halves, whose products by 10 fit 64 bits.)
template <size_t Limbs>
void decimal_limbs(const json& value, const Place& place, uint64_t (&limbs)[Limbs]) {
    if (!value.is_string()) place.refuse("not a decimal string");
    const std::string& text = value.get_ref<const std::string&>();
    if (text.empty() || text.size() > 20 * Limbs) place.refuse("not a decimal number of the field");
    uint32_t halves[2 * Limbs] = {};
    for (const char digit : text) {
        if (digit < '0' || digit > '9') place.refuse(fmt::format("'{}' is not a decimal number", text));
        uint64_t carry = static_cast<uint64_t>(digit - '0');
        for (uint32_t& half : halves) {
            carry += uint64_t{half} * 10;
            half = static_cast<uint32_t>(carry);
            carry >>= 32;
        }
        if (carry != 0) place.refuse(fmt::format("{} is not below the field's modulus", text));
    }
    for (size_t i = 0; i < Limbs; ++i) limbs[i] = uint64_t{halves[2 * i + 1]} << 32 | halves[2 * i];
}

// A prime field's element (a canonical decimal below its modulus), in Montgomery form.
template <class F>
F prime_field(const json& value, const Place& place, const char* modulus_name) {
    uint64_t limbs[F::kLimbs];
    decimal_limbs(value, place, limbs);
    if (!F::is_canonical(limbs)) place.refuse(value.get<std::string>() + " is not below the " + modulus_name);
    return F::from_canonical(limbs);
}

// A coordinate of a point of group G: one element of the base field, or [c0, c1].
template <class G>
typename G::Field coordinate(const json& value, const Place& place) {
    using Field = typename G::Field;
    if constexpr (requires { typename Field::Fp; }) {
        using Fp = typename Field::Fp;
        return Field{prime_field<Fp>(element(value, place, 0, 2), place.at(0), "field's modulus p"),
                     prime_field<Fp>(element(value, place, 1, 2), place.at(1), "field's modulus p")};
    } else {
        return prime_field<Field>(value, place, "field's modulus p");
    }
}

// [x, y, z] with z = 1, or the point at infinity as snarkjs writes it ([0, 1, 0]); on the
// curve and in the subgroup.
template <class Curve, class G>
ec::Affine<G> point(const json& value, const Place& place) {
    using Field = typename G::Field;
    const Field x = coordinate<G>(element(value, place, 0, 3), place.at(0));
    const Field y = coordinate<G>(element(value, place, 1, 3), place.at(1));
    const Field z = coordinate<G>(element(value, place, 2, 3), place.at(2));
    if (z.is_zero() && x.is_zero() && y.is_one()) return ec::Affine<G>::infinity();
    if (!z.is_one()) place.refuse("not an affine point (z is not 1) nor the point at infinity");
    const ec::Affine<G> p{x, y};
    if (p.is_infinity() || !p.is_on_curve()) place.refuse("not a point of the curve");
    if (!Curve::is_in_subgroup(p)) place.refuse("not in the prime-order subgroup");
    return p;
}

template <class Curve>
curve::G1Affine<Curve> g1_point(const json& value, const Place& place) {
    return point<Curve, typename Curve::G1Params>(value, place);
}

template <class Curve>
curve::G2Affine<Curve> g2_point(const json& value, const Place& place) {
    return point<Curve, typename Curve::G2Params>(value, place);
}

// "protocol": "groth16" and "curve" Curve's, where the file says.
template <class Curve>
void check_kind(const json& root, const Place& place) {
    if (!root.is_object()) place.refuse("not a JSON object");
    if (root.contains("protocol") && root["protocol"] != "groth16")
        place.at("protocol").refuse(fmt::format("{}, not groth16", root["protocol"].dump()));
    const std::string_view expected = curve::snarkjs_name(Curve::kId);
    if (root.contains("curve") && root["curve"] != expected)
        place.at("curve").refuse(fmt::format("{}, where the verifying key's curve is {}", root["curve"].dump(),
                                             expected));
}

}  // namespace

std::optional<curve::CurveId> snarkjs_curve(std::string_view text, const std::string& name) {
    const Place place{name, ""};
    const json root = parse_json(text, place);
    if (!root.is_object()) place.refuse("not a JSON object");
    if (!root.contains("curve")) return std::nullopt;
    const json& curve = root["curve"];
    const std::optional<curve::CurveId> id =
        curve.is_string() ? curve::curve_from_name(curve.get_ref<const std::string&>()) : std::nullopt;
    if (!id) place.at("curve").refuse(fmt::format("{}: zkbatch verifies bn128 and bls12381 proofs", curve.dump()));
    return id;
}

template <class Curve>
groth16::generic::VerifyingKey<Curve> parse_snarkjs_verification_key(std::string_view text, const std::string& name) {
    const Place place{name, ""};
    const json root = parse_json(text, place);
    check_kind<Curve>(root, place);
    groth16::generic::VerifyingKey<Curve> key;
    key.alpha_g1 = g1_point<Curve>(member(root, place, "vk_alpha_1"), place.at("vk_alpha_1"));
    key.beta_g2 = g2_point<Curve>(member(root, place, "vk_beta_2"), place.at("vk_beta_2"));
    key.gamma_g2 = g2_point<Curve>(member(root, place, "vk_gamma_2"), place.at("vk_gamma_2"));
    key.delta_g2 = g2_point<Curve>(member(root, place, "vk_delta_2"), place.at("vk_delta_2"));
    const json& ic = member(root, place, "IC");
    if (!ic.is_array() || ic.empty()) place.at("IC").refuse("not a list of points");
    for (size_t i = 0; i < ic.size(); ++i) key.ic.push_back(g1_point<Curve>(ic[i], place.at("IC").at(i)));
    if (root.contains("nPublic") && root["nPublic"] != key.num_public())
        place.at("nPublic").refuse(fmt::format("{}, but IC has {} points (nPublic + 1)", root["nPublic"].dump(),
                                               ic.size()));
    return key;
}

template <class Curve>
groth16::generic::Proof<Curve> parse_snarkjs_proof(std::string_view text, const std::string& name) {
    const Place place{name, ""};
    const json root = parse_json(text, place);
    check_kind<Curve>(root, place);
    return {g1_point<Curve>(member(root, place, "pi_a"), place.at("pi_a")),
            g2_point<Curve>(member(root, place, "pi_b"), place.at("pi_b")),
            g1_point<Curve>(member(root, place, "pi_c"), place.at("pi_c"))};
}

template <class Fr>
std::vector<Fr> parse_snarkjs_public(std::string_view text, const std::string& name) {
    const Place place{name, ""};
    const json root = parse_json(text, place);
    if (!root.is_array()) place.refuse("not a list of public signals");
    std::vector<Fr> inputs;
    for (size_t i = 0; i < root.size(); ++i)
        inputs.push_back(prime_field<Fr>(root[i], place.at(i), "group order r"));
    return inputs;
}

#define ZKB_SNARKJS_READER_INSTANTIATE(Curve)                                                                 \
    template groth16::generic::VerifyingKey<Curve> parse_snarkjs_verification_key<Curve>(std::string_view,   \
                                                                                       const std::string&); \
    template groth16::generic::Proof<Curve> parse_snarkjs_proof<Curve>(std::string_view, const std::string&); \
    template std::vector<Curve::Fr> parse_snarkjs_public<Curve::Fr>(std::string_view, const std::string&);
ZKB_SNARKJS_READER_INSTANTIATE(curve::Bls12_381)
ZKB_SNARKJS_READER_INSTANTIATE(curve::Bn254)
#undef ZKB_SNARKJS_READER_INSTANTIATE

std::string read_snarkjs_file(const std::filesystem::path& path) {
    const Place place{path.string(), ""};
    std::string why;
    const int fd = util::open_input_file(path, why);
    if (fd < 0) place.refuse("cannot open it: " + why);
    std::string bytes;
    if (!util::read_and_close(fd, kMaxJsonBytes, bytes, why)) place.refuse("cannot read it: " + why);
    if (bytes.size() > kMaxJsonBytes) place.refuse(fmt::format("larger than {} MiB", kMaxJsonBytes >> 20));
    return bytes;
}

}  // namespace zkbatch
