// Seeded Groth16 setup (zkbatch/groth16/setup.hpp).
//
// With L_j(X) the Lagrange basis of the domain {omega^j} and the circuit's matrices,
// u_i(tau) = sum_j A[j][i] L_j(tau) (likewise v from B, w from C). The key is then a
// fixed-base multiplication of each generator by those scalars (ARCHITECTURE.md):
// A-query u_i, B-queries v_i, IC (public i) and L (private i) the combination
// beta u_i + alpha v_i + w_i over gamma or delta, H tau^j Z(tau) / delta.
#include <zkbatch/groth16/setup.hpp>

#include <zkbatch/ff/random.hpp>
#include <zkbatch/util/parallel.hpp>
#include <zkbatch/util/splitmix64.hpp>

#include <stdexcept>
#include <vector>

namespace zkbatch::groth16 {

namespace {

using ff::Fr;

constexpr uint64_t kSetupTag = 0x7a6b622d73657475ULL;  // "zkb-setu"

// L_j(tau) = (tau^n - 1) / n * omega^j / (tau - omega^j) for every j, with one
// inversion for all n denominators (Montgomery's trick).
std::vector<Fr> lagrange_at(uint32_t log_n, const Fr& tau) {
    const size_t n = size_t{1} << log_n;
    const Fr omega = ff::root_of_unity(log_n);
    std::vector<Fr> powers(n), denominators(n), prefix(n);
    Fr power = Fr::one();
    Fr running = Fr::one();
    for (size_t j = 0; j < n; ++j) {
        powers[j] = power;
        denominators[j] = tau - power;  // nonzero: tau is outside the domain
        prefix[j] = running;
        running *= denominators[j];
        power *= omega;
    }
    Fr inverse = running.inverse();  // of the product of every denominator
    const Fr scale = (tau.pow(n) - Fr::one()) * Fr::from_u64(n).inverse();
    std::vector<Fr> basis(n);
    for (size_t j = n; j-- > 0;) {
        basis[j] = scale * powers[j] * (inverse * prefix[j]);
        inverse *= denominators[j];
    }
    return basis;
}

// Keeps the key's point vectors alive behind its spans.
struct KeyVectors {
    std::vector<ec::G1Affine> a, b_g1, l, h;
    std::vector<ec::G2Affine> b_g2;
};

template <class Curve>
ec::Affine<Curve> times(const ec::Affine<Curve>& point, const Fr& scalar) {
    return ec::scalar_mul(ec::Jacobian<Curve>::from_affine(point), scalar).to_affine();
}

template <class Curve>
std::vector<ec::Affine<Curve>> multiply_generator(const ec::Affine<Curve>& generator, const std::vector<Fr>& scalars,
                                                  unsigned threads) {
    std::vector<ec::Affine<Curve>> points(scalars.size());
    ec::fixed_base_mul(generator, scalars.data(), scalars.size(), points.data(), threads);
    return points;
}

}  // namespace

ToxicWaste toxic_waste_from_seed(uint64_t setup_seed, uint32_t log_n) {
    const uint64_t key = util::derive_key(kSetupTag, setup_seed);
    Fr values[5];
    for (uint64_t i = 0; i < 5; ++i) {
        util::SplitMix64 stream(util::derive_key(key, i));
        do values[i] = ff::uniform_fr(stream);
        while (values[i].is_zero());
    }
    ToxicWaste secrets{values[0], values[1], values[2], values[3], values[4]};
    if (secrets.tau.pow(uint64_t{1} << log_n) == Fr::one())
        throw std::invalid_argument("setup.seed = " + std::to_string(setup_seed) +
                                    " puts tau in the domain of 2^" + std::to_string(log_n) + "; use another seed");
    return secrets;
}

std::string seeded_setup_description(uint64_t setup_seed) {
    return "setup=seeded\nseed=" + std::to_string(setup_seed) + "\n";
}

ProvingKey generate_key(const circuit::SyntheticR1cs& circuit, const ToxicWaste& secrets, unsigned threads) {
    const uint32_t log_n = circuit.shape().log_n;
    const uint64_t n = circuit.rows(), m = circuit.variables(), l = circuit.public_inputs();

    const std::vector<Fr> lagrange = lagrange_at(log_n, secrets.tau);
    std::vector<Fr> u(m, Fr::zero()), v(m, Fr::zero()), w(m, Fr::zero());
    for (uint64_t row = 0; row < n; ++row) {
        const Fr& basis = lagrange[row];
        circuit.for_each_term(row, [&](circuit::Matrix matrix, uint64_t variable, const Fr& coefficient) {
            std::vector<Fr>& column = matrix == circuit::Matrix::a ? u : matrix == circuit::Matrix::b ? v : w;
            column[variable] += coefficient * basis;
        });
    }

    const Fr gamma_inverse = secrets.gamma.inverse(), delta_inverse = secrets.delta.inverse();
    std::vector<Fr> ic(l + 1), private_part(m - l - 1);
    util::parallel_for(0, m, threads, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
            const Fr combined = secrets.beta * u[i] + secrets.alpha * v[i] + w[i];
            if (i <= l) ic[i] = combined * gamma_inverse;
            else private_part[i - l - 1] = combined * delta_inverse;
        }
    });
    std::vector<Fr> h(n - 1);
    const Fr z_over_delta = (secrets.tau.pow(n) - Fr::one()) * delta_inverse;
    Fr tau_power = Fr::one();
    for (uint64_t j = 0; j + 1 < n; ++j) {
        h[j] = tau_power * z_over_delta;
        tau_power *= secrets.tau;
    }

    const ec::G1Affine g1 = ec::g1_generator();
    const ec::G2Affine g2 = ec::g2_generator();
    auto vectors = std::make_shared<KeyVectors>();
    vectors->a = multiply_generator(g1, u, threads);
    vectors->b_g1 = multiply_generator(g1, v, threads);
    vectors->b_g2 = multiply_generator(g2, v, threads);
    vectors->l = multiply_generator(g1, private_part, threads);
    vectors->h = multiply_generator(g1, h, threads);

    ProvingKey key;
    key.log_n = log_n;
    key.num_variables = m;
    key.num_public = l;
    key.h_convention = HConvention::coefficients;
    key.vk.alpha_g1 = times(g1, secrets.alpha);
    key.vk.beta_g2 = times(g2, secrets.beta);
    key.vk.gamma_g2 = times(g2, secrets.gamma);
    key.vk.delta_g2 = times(g2, secrets.delta);
    key.vk.ic = multiply_generator(g1, ic, threads);
    key.beta_g1 = times(g1, secrets.beta);
    key.delta_g1 = times(g1, secrets.delta);
    key.a_query = vectors->a;
    key.b_g1_query = vectors->b_g1;
    key.b_g2_query = vectors->b_g2;
    key.l_query = vectors->l;
    key.h_query = vectors->h;
    key.storage = std::move(vectors);
    key.check_sizes();
    return key;
}

}  // namespace zkbatch::groth16
