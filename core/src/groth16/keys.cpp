// Groth16 key types (zkbatch/groth16/keys.hpp).
#include <zkbatch/groth16/keys.hpp>

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

}  // namespace zkbatch::groth16
