// Groth16 key types (core/groth16/keys.hpp), instantiated for both curves.
#include "core/groth16/keys.hpp"

#include <algorithm>
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

namespace generic {

template <class Curve>
uint64_t ProvingKey<Curve>::point_bytes() const {
    const uint64_t g1 = sizeof(G1Affine), g2 = sizeof(G2Affine);
    return g1 * (a_query.size() + b_g1_query.size() + l_query.size() + h_query.size() + vk.ic.size() + 3) +
           g2 * (b_g2_query.size() + 3);
}

template <class Curve>
void ProvingKey<Curve>::check_sizes() const {
    auto require = [](uint64_t have, uint64_t want, const char* what) {
        if (have != want)
            throw std::invalid_argument(std::string("proving key: ") + what + " has " + std::to_string(have) +
                                        " points where the circuit needs " + std::to_string(want));
    };
    // Domains of 2^28 at most (ntt::kMaxLogN); the odd-coset quotient's of 2^(s - 1) for
    // Fr's two-adicity s (BN254's s is 28).
    const uint32_t two_adicity = Curve::Fr::kTwoAdicity;
    const uint32_t largest = std::min(28u, h_convention == HConvention::odd_coset ? two_adicity - 1 : two_adicity);
    if (log_n < 1 || log_n > largest)
        throw std::invalid_argument("proving key: log_n outside 1.." + std::to_string(largest));
    if (num_variables < num_public + 1) throw std::invalid_argument("proving key: fewer variables than public inputs");
    require(vk.ic.size(), num_public + 1, "IC");
    require(a_query.size(), num_variables, "the A-query");
    require(b_g1_query.size(), num_variables, "the B-query in G1");
    require(b_g2_query.size(), num_variables, "the B-query in G2");
    require(l_query.size(), private_variables(), "the L-query");
    require(h_query.size(), h_points(), "the H-query");
}

template struct ProvingKey<curve::Bls12_381>;
template struct ProvingKey<curve::Bn254>;

}  // namespace generic

template <class Curve>
std::vector<uint8_t> verifying_key_bytes(const generic::VerifyingKey<Curve>& key) {
    std::vector<uint8_t> bytes;
    auto put = [&bytes](const auto& point) {
        const auto* raw = reinterpret_cast<const uint8_t*>(&point);
        bytes.insert(bytes.end(), raw, raw + sizeof point);
    };
    put(key.alpha_g1), put(key.beta_g2), put(key.gamma_g2), put(key.delta_g2);
    for (const auto& point : key.ic) put(point);
    return bytes;
}

template <class Curve>
const char* fixed_point_at_infinity(const generic::VerifyingKey<Curve>& key) {
    if (key.alpha_g1.is_infinity()) return "[alpha]1";
    if (key.beta_g2.is_infinity()) return "[beta]2";
    if (key.gamma_g2.is_infinity()) return "[gamma]2";
    if (key.delta_g2.is_infinity()) return "[delta]2";
    return nullptr;
}

template <class Curve>
const char* fixed_point_at_infinity(const generic::ProvingKey<Curve>& key) {
    if (const char* name = fixed_point_at_infinity(key.vk)) return name;
    if (key.beta_g1.is_infinity()) return "[beta]1";
    if (key.delta_g1.is_infinity()) return "[delta]1";
    return nullptr;
}

template <class Curve>
bool verifying_key_from_bytes(const uint8_t* bytes, size_t size, generic::VerifyingKey<Curve>& key, std::string* why) {
    using G1Affine = curve::G1Affine<Curve>;
    constexpr size_t kFixed = sizeof(G1Affine) + 3 * sizeof(curve::G2Affine<Curve>);
    auto refuse = [why](const std::string& reason) {
        if (why) *why = reason;
        return false;
    };
    if (size < kFixed + sizeof(G1Affine) || (size - kFixed) % sizeof(G1Affine) != 0)
        return refuse("a verifying key of " + std::to_string(size) + " bytes is not [alpha]1 [beta]2 [gamma]2 [delta]2 "
                      "and at least one IC point");
    generic::VerifyingKey<Curve> read;
    size_t offset = 0;
    auto take = [&](auto& point) {
        std::memcpy(&point, bytes + offset, sizeof point);
        offset += sizeof point;
        return (point.is_on_curve() && Curve::is_in_subgroup(point)) || point.is_infinity();
    };
    bool valid = take(read.alpha_g1) && take(read.beta_g2) && take(read.gamma_g2) && take(read.delta_g2);
    read.ic.resize((size - kFixed) / sizeof(G1Affine));
    for (auto& point : read.ic) valid = valid && take(point);
    if (!valid) return refuse("a point of the verifying key is not on its curve or not in its subgroup");
    if (const char* name = fixed_point_at_infinity(read))
        return refuse(std::string("the verifying key's ") + name + " is the point at infinity");
    key = std::move(read);
    return true;
}

#define ZKB_KEYS_INSTANTIATE(Curve)                                                                                \
    template std::vector<uint8_t> verifying_key_bytes(const generic::VerifyingKey<Curve>&);                      \
    template bool verifying_key_from_bytes(const uint8_t*, size_t, generic::VerifyingKey<Curve>&, std::string*); \
    template const char* fixed_point_at_infinity(const generic::VerifyingKey<Curve>&);                          \
    template const char* fixed_point_at_infinity(const generic::ProvingKey<Curve>&);
ZKB_KEYS_INSTANTIATE(curve::Bls12_381)
ZKB_KEYS_INSTANTIATE(curve::Bn254)
#undef ZKB_KEYS_INSTANTIATE

}  // namespace zkbatch::groth16
