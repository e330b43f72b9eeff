#include "proof/snarkjs_reader.hpp"

#include "util/usage_error.hpp"

#include "core/ec/curve.hpp"
#include "core/ff/fp.hpp"
#include "core/ff/fp2.hpp"
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
        throw UsageError(fmt::format("{}: {}{}{}; give snarkjs's file (curve bls12381)", file, field,
                                     field.empty() ? "" : ": ", what));
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

ff::Fp base_field(const json& value, const Place& place) {
    uint64_t limbs[6];
    decimal_limbs(value, place, limbs);
    if (!ff::Fp::is_canonical(limbs)) place.refuse(value.get<std::string>() + " is not below the field's modulus p");
    return ff::Fp::from_canonical(limbs);
}

ff::Fr scalar_field(const json& value, const Place& place) {
    uint64_t limbs[4];
    decimal_limbs(value, place, limbs);
    uint8_t bytes[32];
    std::memcpy(bytes, limbs, sizeof(bytes));  // little-endian host
    ff::Fr scalar;
    if (!ff::Fr::try_from_canonical_le_bytes(bytes, scalar))
        place.refuse(value.get<std::string>() + " is not below the group order r");
    return scalar;
}

ff::Fp2 extension_field(const json& value, const Place& place) {
    return ff::Fp2{base_field(element(value, place, 0, 2), place.at(0)),
                   base_field(element(value, place, 1, 2), place.at(1))};
}

// [x, y, z] with z = 1, or the point at infinity as snarkjs writes it ([0, 1, 0]); on the
// curve and in the subgroup.
template <class Affine, class Field, class Coordinate>
Affine point(const json& value, const Place& place, Coordinate&& coordinate) {
    const Field x = coordinate(element(value, place, 0, 3), place.at(0));
    const Field y = coordinate(element(value, place, 1, 3), place.at(1));
    const Field z = coordinate(element(value, place, 2, 3), place.at(2));
    if (z.is_zero() && x.is_zero() && y.is_one()) return Affine::infinity();
    if (!z.is_one()) place.refuse("not an affine point (z is not 1) nor the point at infinity");
    const Affine p{x, y};
    if (p.is_infinity() || !p.is_on_curve()) place.refuse("not a point of the curve");
    if (!ec::is_in_subgroup(p)) place.refuse("not in the prime-order subgroup");
    return p;
}

ec::G1Affine g1_point(const json& value, const Place& place) {
    return point<ec::G1Affine, ff::Fp>(value, place, base_field);
}

ec::G2Affine g2_point(const json& value, const Place& place) {
    return point<ec::G2Affine, ff::Fp2>(value, place, extension_field);
}

// "protocol": "groth16" and "curve": "bls12381", where the file says.
void check_kind(const json& root, const Place& place) {
    if (!root.is_object()) place.refuse("not a JSON object");
    if (root.contains("protocol") && root["protocol"] != "groth16")
        place.at("protocol").refuse(fmt::format("{}, not groth16", root["protocol"].dump()));
    if (root.contains("curve") && root["curve"] != "bls12381")
        place.at("curve").refuse(fmt::format("{}: zkbatch verifies BLS12-381 (bls12381) proofs only", root["curve"].dump()));
}

}  // namespace

groth16::VerifyingKey parse_snarkjs_verification_key(std::string_view text, const std::string& name) {
    const Place place{name, ""};
    const json root = parse_json(text, place);
    check_kind(root, place);
    groth16::VerifyingKey key;
    key.alpha_g1 = g1_point(member(root, place, "vk_alpha_1"), place.at("vk_alpha_1"));
    key.beta_g2 = g2_point(member(root, place, "vk_beta_2"), place.at("vk_beta_2"));
    key.gamma_g2 = g2_point(member(root, place, "vk_gamma_2"), place.at("vk_gamma_2"));
    key.delta_g2 = g2_point(member(root, place, "vk_delta_2"), place.at("vk_delta_2"));
    const json& ic = member(root, place, "IC");
    if (!ic.is_array() || ic.empty()) place.at("IC").refuse("not a list of points");
    for (size_t i = 0; i < ic.size(); ++i) key.ic.push_back(g1_point(ic[i], place.at("IC").at(i)));
    if (root.contains("nPublic") && root["nPublic"] != key.num_public())
        place.at("nPublic").refuse(fmt::format("{}, but IC has {} points (nPublic + 1)", root["nPublic"].dump(),
                                               ic.size()));
    return key;
}

groth16::Proof parse_snarkjs_proof(std::string_view text, const std::string& name) {
    const Place place{name, ""};
    const json root = parse_json(text, place);
    check_kind(root, place);
    return groth16::Proof{g1_point(member(root, place, "pi_a"), place.at("pi_a")),
                          g2_point(member(root, place, "pi_b"), place.at("pi_b")),
                          g1_point(member(root, place, "pi_c"), place.at("pi_c"))};
}

std::vector<ff::Fr> parse_snarkjs_public(std::string_view text, const std::string& name) {
    const Place place{name, ""};
    const json root = parse_json(text, place);
    if (!root.is_array()) place.refuse("not a list of public signals");
    std::vector<ff::Fr> inputs;
    for (size_t i = 0; i < root.size(); ++i) inputs.push_back(scalar_field(root[i], place.at(i)));
    return inputs;
}

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
