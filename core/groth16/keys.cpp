// Groth16 key types (core/groth16/keys.hpp).
#include "core/groth16/keys.hpp"

#include "core/ec/curve.hpp"

#include <cstring>
#include <stdexcept>

namespace zkbatch::groth16 {

const char* to_string(HConvention convention) {
    switch (convention) {
        case HConvention::coefficients: return "coefficients";
        case HConvention::odd_coset: return "odd_coset";
    }
    return "unknown";
}

uint64_t ProvingKey::point_bytes() const {
    const uint64_t g1 = sizeof(ec::G1Affine), g2 = sizeof(ec::G2Affine);
    return g1 * (a_query.size() + b_g1_query.size() + l_query.size() + h_query.size() + vk.ic.size() + 3) +
           g2 * (b_g2_query.size() + 3);
}

void ProvingKey::check_sizes() const {
    auto require = [](uint64_t have, uint64_t want, const char* what) {
        if (have != want)
            throw std::invalid_argument(std::string("proving key: ") + what + " has " + std::to_string(have) +
                                        " points where the circuit needs " + std::to_string(want));
    };
    if (log_n < 1 || log_n > 28) throw std::invalid_argument("proving key: log_n outside 1..28");
    if (num_variables < num_public + 1) throw std::invalid_argument("proving key: fewer variables than public inputs");
    require(vk.ic.size(), num_public + 1, "IC");
    require(a_query.size(), num_variables, "the A-query");
    require(b_g1_query.size(), num_variables, "the B-query in G1");
    require(b_g2_query.size(), num_variables, "the B-query in G2");
    require(l_query.size(), private_variables(), "the L-query");
    require(h_query.size(), h_points(), "the H-query");
}

std::vector<uint8_t> verifying_key_bytes(const VerifyingKey& key) {
    std::vector<uint8_t> bytes;
    auto put = [&bytes](const auto& point) {
        const auto* raw = reinterpret_cast<const uint8_t*>(&point);
        bytes.insert(bytes.end(), raw, raw + sizeof point);
    };
    put(key.alpha_g1), put(key.beta_g2), put(key.gamma_g2), put(key.delta_g2);
    for (const auto& point : key.ic) put(point);
    return bytes;
}

const char* fixed_point_at_infinity(const VerifyingKey& key) {
    if (key.alpha_g1.is_infinity()) return "[alpha]1";
    if (key.beta_g2.is_infinity()) return "[beta]2";
    if (key.gamma_g2.is_infinity()) return "[gamma]2";
    if (key.delta_g2.is_infinity()) return "[delta]2";
    return nullptr;
}

const char* fixed_point_at_infinity(const ProvingKey& key) {
    if (const char* name = fixed_point_at_infinity(key.vk)) return name;
    if (key.beta_g1.is_infinity()) return "[beta]1";
    if (key.delta_g1.is_infinity()) return "[delta]1";
    return nullptr;
}

bool verifying_key_from_bytes(const uint8_t* bytes, size_t size, VerifyingKey& key, std::string* why) {
    constexpr size_t kFixed = sizeof(ec::G1Affine) + 3 * sizeof(ec::G2Affine);
    auto refuse = [why](const std::string& reason) {
        if (why) *why = reason;
        return false;
    };
    if (size < kFixed + sizeof(ec::G1Affine) || (size - kFixed) % sizeof(ec::G1Affine) != 0)
        return refuse("a verifying key of " + std::to_string(size) + " bytes is not [alpha]1 [beta]2 [gamma]2 [delta]2 "
                      "and at least one IC point");
    VerifyingKey read;
    size_t offset = 0;
    auto take = [&](auto& point) {
        std::memcpy(&point, bytes + offset, sizeof point);
        offset += sizeof point;
        return (point.is_on_curve() && ec::is_in_subgroup(point)) || point.is_infinity();
    };
    bool valid = take(read.alpha_g1) && take(read.beta_g2) && take(read.gamma_g2) && take(read.delta_g2);
    read.ic.resize((size - kFixed) / sizeof(ec::G1Affine));
    for (auto& point : read.ic) valid = valid && take(point);
    if (!valid) return refuse("a point of the verifying key is not on its curve or not in its subgroup");
    if (const char* name = fixed_point_at_infinity(read))
        return refuse(std::string("the verifying key's ") + name + " is the point at infinity");
    key = std::move(read);
    return true;
}

}  // namespace zkbatch::groth16
