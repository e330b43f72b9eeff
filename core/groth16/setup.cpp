// Seeded Groth16 setup (core/groth16/setup.hpp).
//
// With L_j(X) the Lagrange basis of the domain {omega^j} and the circuit's matrices,
// u_i(tau) = sum_j A[j][i] L_j(tau) (likewise v from B, w from C). The key is then a
// fixed-base multiplication of each generator by those scalars (docs/architecture.md#the-groth16-key):
// A-query u_i, B-queries v_i, IC (public i) and L (private i) the combination
// beta u_i + alpha v_i + w_i over gamma or delta, H tau^j Z(tau) / delta. Instantiated
// for both curves at the end.
#include "core/groth16/setup.hpp"

#include "core/ff/random.hpp"
#include "core/util/parallel.hpp"
#include "core/util/splitmix64.hpp"

#include <array>
#include <charconv>
#include <stdexcept>
#include <vector>

namespace zkbatch::groth16 {

namespace {

constexpr uint64_t kSetupTag = 0x7a6b622d73657475ULL;  // "zkb-setu"
constexpr char kSeededPrefix[] = "setup=seeded\nseed=";

// L_j(tau) = (tau^n - 1) / n * omega^j / (tau - omega^j) for j in [first, first + count),
// into out, with one inversion for all the denominators (Montgomery's trick).
template <class Fr>
void lagrange_range(uint32_t log_n, const Fr& tau, uint64_t first, uint64_t count, Fr* out) {
    if (count == 0) return;
    const Fr omega = Fr::root_of_unity(log_n);
    const uint64_t n = uint64_t{1} << log_n;
    std::vector<Fr> powers(count), denominators(count), prefix(count);
    Fr power = omega.pow(first);
    Fr running = Fr::one();
    for (uint64_t k = 0; k < count; ++k) {
        powers[k] = power;
        denominators[k] = tau - power;  // nonzero: tau is outside the domain
        prefix[k] = running;
        running *= denominators[k];
        power *= omega;
    }
    Fr inverse = running.inverse();  // of the product of every denominator
    const Fr scale = (tau.pow(n) - Fr::one()) * Fr::from_u64(n).inverse();
    for (uint64_t k = count; k-- > 0;) {
        out[k] = scale * powers[k] * (inverse * prefix[k]);
        inverse *= denominators[k];
    }
}

// u_i, v_i, w_i at tau for the variables below `limit` (m for a whole key, l + 1 for the
// verifying key; terms of other variables are skipped).
template <class Fr>
struct Columns {
    std::vector<Fr> u, v, w;
};

// One pass over the rows, in parallel over blocks of rows. A product row of block b reads
// only the window of variables before its block (synthetic_r1cs.hpp) and every row
// defines a variable of its own block, so the variables block b adds to lie in
// [E_b - window, E_b + block) with E_b its first defined variable (the porep profile's
// rows look back one block less, for its check rows: porep_profile.hpp). Blocks
// `stride` = window / block + 1 apart touch disjoint variables, except z_0 (the
// constant, in B of every boolean row): rounds of such blocks run at once, and each
// block sums its z_0 terms apart. Sums in Fr are exact, so the result does not depend
// on the order.
template <class Fr>
Columns<Fr> column_evaluations(const circuit::SyntheticR1cs& circuit, const Fr& tau, uint64_t limit,
                               unsigned threads) {
    const uint32_t log_n = circuit.shape().log_n;
    const uint64_t constraints = circuit.constraint_rows();
    const uint64_t block_rows = circuit.block_rows();
    const uint64_t blocks = (constraints + block_rows - 1) / block_rows;
    const uint64_t stride = circuit.window_variables() / block_rows + 1;
    Columns<Fr> columns{std::vector<Fr>(limit, Fr::zero()), std::vector<Fr>(limit, Fr::zero()),
                    std::vector<Fr>(limit, Fr::zero())};
    std::vector<Fr>* const by_matrix[3] = {&columns.u, &columns.v, &columns.w};
    std::vector<std::array<Fr, 3>> constant_terms(blocks, {Fr::zero(), Fr::zero(), Fr::zero()});

    auto add_block = [&](uint64_t block) {
        const uint64_t first = block * block_rows;
        const uint64_t count = std::min(block_rows, constraints - first);
        std::vector<Fr> basis(count);
        lagrange_range(log_n, tau, first, count, basis.data());
        std::array<Fr, 3>& constant = constant_terms[block];
        for (uint64_t k = 0; k < count; ++k) {
            circuit.for_each_term<Fr>(first + k, [&](circuit::Matrix matrix, uint64_t variable, const Fr& coefficient) {
                const int column = static_cast<int>(matrix);
                if (variable == 0) constant[column] += coefficient * basis[k];
                else if (variable < limit) (*by_matrix[column])[variable] += coefficient * basis[k];
            });
        }
    };
    std::vector<uint64_t> round;
    for (uint64_t start = 0; start < std::min(stride, blocks); ++start) {
        round.clear();
        for (uint64_t block = start; block < blocks; block += stride) round.push_back(block);
        util::parallel_for(0, round.size(), threads, [&](size_t begin, size_t end) {
            for (size_t k = begin; k < end; ++k) add_block(round[k]);
        });
    }
    for (const auto& constant : constant_terms)
        for (int column = 0; column < 3; ++column) (*by_matrix[column])[0] += constant[column];

    // The input rows, A = {i: 1} for i = 0..l (after them, a porep circuit's padding has no terms).
    const uint64_t input_rows = circuit.input_rows();
    std::vector<Fr> basis(input_rows);
    lagrange_range(log_n, tau, constraints, input_rows, basis.data());
    for (uint64_t k = 0; k < input_rows; ++k) {
        circuit.for_each_term<Fr>(constraints + k, [&](circuit::Matrix matrix, uint64_t variable, const Fr& coefficient) {
            if (variable < limit) (*by_matrix[static_cast<int>(matrix)])[variable] += coefficient * basis[k];
        });
    }
    return columns;
}

// beta u_i + alpha v_i + w_i.
template <class Curve, class Fr = typename Curve::Fr>
Fr combined(const generic::ToxicWaste<Curve>& secrets, const Columns<Fr>& columns, uint64_t i) {
    return secrets.beta * columns.u[i] + secrets.alpha * columns.v[i] + columns.w[i];
}

template <class Curve, class Fr = typename Curve::Fr>
std::vector<Fr> ic_scalars(const generic::ToxicWaste<Curve>& secrets, const Columns<Fr>& columns,
                           uint64_t public_inputs) {
    const Fr gamma_inverse = secrets.gamma.inverse();
    std::vector<Fr> ic(public_inputs + 1);
    for (uint64_t i = 0; i <= public_inputs; ++i) ic[i] = combined(secrets, columns, i) * gamma_inverse;
    return ic;
}

// Keeps the key's point vectors alive behind its spans.
template <class Curve>
struct KeyVectors {
    std::vector<curve::G1Affine<Curve>> a, b_g1, l, h;
    std::vector<curve::G2Affine<Curve>> b_g2;
};

template <class Group>
ec::Affine<Group> times(const ec::Affine<Group>& point, const typename Group::Scalar& scalar) {
    return ec::scalar_mul(ec::Jacobian<Group>::from_affine(point), scalar).to_affine();
}

template <class Group>
std::vector<ec::Affine<Group>> multiply_generator(const ec::Affine<Group>& generator,
                                                  const std::vector<typename Group::Scalar>& scalars,
                                                  unsigned threads) {
    std::vector<ec::Affine<Group>> points(scalars.size());
    ec::fixed_base_mul(generator, scalars.data(), scalars.size(), points.data(), threads);
    return points;
}

}  // namespace

template <class Curve>
generic::ToxicWaste<Curve> toxic_waste_from_seed(uint64_t setup_seed, uint32_t log_n) {
    using Fr = typename Curve::Fr;
    const uint64_t key = util::derive_key(kSetupTag, setup_seed);
    Fr values[5];
    for (uint64_t i = 0; i < 5; ++i) {
        util::SplitMix64 stream(util::derive_key(key, i));
        do values[i] = ff::uniform_element<Fr>(stream);
        while (values[i].is_zero());
    }
    generic::ToxicWaste<Curve> secrets{values[0], values[1], values[2], values[3], values[4]};
    if (secrets.tau.pow(uint64_t{1} << log_n) == Fr::one())
        throw std::invalid_argument("setup.seed = " + std::to_string(setup_seed) +
                                    " puts tau in the domain of 2^" + std::to_string(log_n) + "; use another seed");
    return secrets;
}

std::string seeded_setup_description(uint64_t setup_seed) {
    return kSeededPrefix + std::to_string(setup_seed) + "\n";
}

uint64_t seeded_setup_seed(const std::string& description) {
    const std::string_view prefix = kSeededPrefix;
    uint64_t seed = 0;
    if (description.starts_with(prefix) && description.size() > prefix.size() + 1 && description.back() == '\n') {
        const char* first = description.data() + prefix.size();
        const char* last = description.data() + description.size() - 1;
        const auto [end, error] = std::from_chars(first, last, seed);
        if (error == std::errc() && end == last && seeded_setup_description(seed) == description) return seed;
    }
    throw std::invalid_argument("not a seeded setup's description: '" + description + "'");
}

template <class Curve>
generic::KeyScalars<Curve> key_scalars(const circuit::SyntheticR1cs& circuit, const generic::ToxicWaste<Curve>& secrets,
                                       unsigned threads) {
    using Fr = typename Curve::Fr;
    const uint64_t n = circuit.rows(), m = circuit.variables(), l = circuit.public_inputs();
    Columns<Fr> columns = column_evaluations(circuit, secrets.tau, m, threads);

    generic::KeyScalars<Curve> scalars;
    scalars.ic = ic_scalars(secrets, columns, l);
    const Fr delta_inverse = secrets.delta.inverse();
    scalars.l.resize(m - l - 1);
    util::parallel_for(l + 1, m, threads, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) scalars.l[i - l - 1] = combined(secrets, columns, i) * delta_inverse;
    });
    scalars.a = std::move(columns.u);
    scalars.b = std::move(columns.v);
    columns.w = {};

    scalars.h.resize(n - 1);
    const Fr z_over_delta = (secrets.tau.pow(n) - Fr::one()) * delta_inverse;
    util::parallel_for(0, n - 1, threads, [&](size_t begin, size_t end) {
        Fr value = secrets.tau.pow(begin) * z_over_delta;
        for (size_t j = begin; j < end; ++j, value *= secrets.tau) scalars.h[j] = value;
    });
    return scalars;
}

template <class Curve>
generic::ProvingKey<Curve> key_header(const circuit::SyntheticR1cs& circuit, const generic::ToxicWaste<Curve>& secrets,
                                      const std::vector<typename Curve::Fr>& ic, unsigned threads) {
    const curve::G1Affine<Curve> g1 = ec::generator<typename Curve::G1Params>();
    const curve::G2Affine<Curve> g2 = ec::generator<typename Curve::G2Params>();
    generic::ProvingKey<Curve> key;
    key.log_n = circuit.shape().log_n;
    key.num_variables = circuit.variables();
    key.num_public = circuit.public_inputs();
    key.h_convention = HConvention::coefficients;
    key.vk.alpha_g1 = times(g1, secrets.alpha);
    key.vk.beta_g2 = times(g2, secrets.beta);
    key.vk.gamma_g2 = times(g2, secrets.gamma);
    key.vk.delta_g2 = times(g2, secrets.delta);
    key.vk.ic = multiply_generator(g1, ic, threads);
    key.beta_g1 = times(g1, secrets.beta);
    key.delta_g1 = times(g1, secrets.delta);
    return key;
}

template <class Curve>
generic::VerifyingKey<Curve> seeded_verifying_key(const circuit::SyntheticR1cs& circuit,
                                                  const generic::ToxicWaste<Curve>& secrets, unsigned threads) {
    const uint64_t l = circuit.public_inputs();
    const auto columns = column_evaluations(circuit, secrets.tau, l + 1, threads);
    return std::move(key_header(circuit, secrets, ic_scalars(secrets, columns, l), threads).vk);
}

template <class Curve>
generic::ProvingKey<Curve> generate_key(const circuit::SyntheticR1cs& circuit, const generic::ToxicWaste<Curve>& secrets,
                                        unsigned threads) {
    const generic::KeyScalars<Curve> scalars = key_scalars(circuit, secrets, threads);
    generic::ProvingKey<Curve> key = key_header(circuit, secrets, scalars.ic, threads);
    const curve::G1Affine<Curve> g1 = ec::generator<typename Curve::G1Params>();
    auto vectors = std::make_shared<KeyVectors<Curve>>();
    vectors->a = multiply_generator(g1, scalars.a, threads);
    vectors->b_g1 = multiply_generator(g1, scalars.b, threads);
    vectors->b_g2 = multiply_generator(ec::generator<typename Curve::G2Params>(), scalars.b, threads);
    vectors->l = multiply_generator(g1, scalars.l, threads);
    vectors->h = multiply_generator(g1, scalars.h, threads);
    key.a_query = vectors->a;
    key.b_g1_query = vectors->b_g1;
    key.b_g2_query = vectors->b_g2;
    key.l_query = vectors->l;
    key.h_query = vectors->h;
    key.storage = std::move(vectors);
    key.check_sizes();
    return key;
}

#define ZKB_SETUP_INSTANTIATE(Curve)                                                                                 \
    template generic::ToxicWaste<Curve> toxic_waste_from_seed<Curve>(uint64_t, uint32_t);                           \
    template generic::KeyScalars<Curve> key_scalars(const circuit::SyntheticR1cs&, const generic::ToxicWaste<Curve>&, \
                                                    unsigned);                                                       \
    template generic::ProvingKey<Curve> key_header(const circuit::SyntheticR1cs&, const generic::ToxicWaste<Curve>&, \
                                                   const std::vector<typename Curve::Fr>&, unsigned);                \
    template generic::VerifyingKey<Curve> seeded_verifying_key(const circuit::SyntheticR1cs&,                        \
                                                               const generic::ToxicWaste<Curve>&, unsigned);         \
    template generic::ProvingKey<Curve> generate_key(const circuit::SyntheticR1cs&, const generic::ToxicWaste<Curve>&, \
                                                     unsigned);
ZKB_SETUP_INSTANTIATE(curve::Bls12_381)
ZKB_SETUP_INSTANTIATE(curve::Bn254)
#undef ZKB_SETUP_INSTANTIATE

}  // namespace zkbatch::groth16
