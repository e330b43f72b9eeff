// The backend-independent quotient check (zkbatch/verify/identity.hpp).
//
// Barycentric evaluation on H = {omega^i}: for x outside H,
//   A(x) = (x^n - 1)/n * sum_i a_i * omega^i / (x - omega^i),
// so A, B and C share the weights omega^i / (x - omega^i); all n inversions are done
// with one field inversion by Montgomery's batch trick.
#include <zkbatch/verify/identity.hpp>

#include <zkbatch/ff/random.hpp>
#include <zkbatch/util/splitmix64.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace zkbatch::verify {

namespace {

constexpr uint64_t kVerifyTag = 0x7a6b622d76657269ULL;  // "zkb-veri"

}  // namespace

IdentityResult check_quotient(uint32_t log_n, const ff::Fr* a, const ff::Fr* b, const ff::Fr* c,
                              const ff::Fr* h, uint64_t x_seed) {
    using ff::Fr;
    if (log_n > ff::kTwoAdicity) {
        return {false, "log_n = " + std::to_string(log_n) + " exceeds the field's largest domain (log_n <= 32)"};
    }
    const size_t n = size_t{1} << log_n;
    if (!h[n - 1].is_zero()) {
        return {false, "h[n-1] != 0 (h[" + std::to_string(n - 1) + "] = " + h[n - 1].to_hex() +
                           "): the quotient has degree n-1, so A*B - C is not divisible by X^n - 1"};
    }

    util::SplitMix64 generator(util::derive_key(kVerifyTag, x_seed));
    Fr x = ff::uniform_fr(generator);
    while (x.pow(n) == Fr::one()) x = ff::uniform_fr(generator);  // x in H: redraw
    const Fr vanishing_at_x = x.pow(n) - Fr::one();

    // differences[i] = x - omega^i; prefix[i] = differences[0] * ... * differences[i].
    const Fr omega = ff::root_of_unity(log_n);
    std::vector<Fr> differences(n);
    std::vector<Fr> prefix(n);
    Fr omega_power = Fr::one();
    Fr running = Fr::one();
    for (size_t i = 0; i < n; ++i) {
        differences[i] = x - omega_power;
        running *= differences[i];
        prefix[i] = running;
        omega_power *= omega;
    }
    // Walk back: inverse_of_prefix = (d_0 ... d_i)^-1, so d_i^-1 = inverse_of_prefix * prefix[i-1].
    const Fr omega_inv = omega.inverse();
    Fr inverse_of_prefix = running.inverse();
    Fr sum_a = Fr::zero();
    Fr sum_b = Fr::zero();
    Fr sum_c = Fr::zero();
    for (size_t i = n; i-- > 0;) {
        omega_power *= omega_inv;  // omega^i (it ended at omega^n = 1 before the loop)
        const Fr difference_inv = i > 0 ? inverse_of_prefix * prefix[i - 1] : inverse_of_prefix;
        inverse_of_prefix *= differences[i];
        const Fr weight = omega_power * difference_inv;
        sum_a += a[i] * weight;
        sum_b += b[i] * weight;
        sum_c += c[i] * weight;
    }
    const Fr scale = vanishing_at_x * Fr::from_u64(n).inverse();
    const Fr a_x = sum_a * scale;
    const Fr b_x = sum_b * scale;
    const Fr c_x = sum_c * scale;

    Fr h_x = Fr::zero();
    for (size_t i = n; i-- > 0;) h_x = h_x * x + h[i];

    if (a_x * b_x - c_x != h_x * vanishing_at_x) {
        return {false, "identity A(x)*B(x) - C(x) == h(x)*(x^n - 1) fails at x = " + x.to_hex() +
                           " (n = " + std::to_string(n) + "): h is not the quotient of these a, b, c"};
    }
    return {true, ""};
}

}  // namespace zkbatch::verify
