// The CUDA workers' two quotient schedules (ntt_steps.hpp) as launch sequences, for the
// host emulation and the device tests to run the same composition the backend does, and
// the CPU's h they must equal.
#pragma once

#include "gpu/ntt/ntt_steps.hpp"
#include "core/ntt/ntt.hpp"
#include "core/quotient/quotient.hpp"
#include "test_support.hpp"

#include <utility>
#include <vector>

namespace zkbatch::test {

// The CPU's h in the H convention of `roots`, canonical: the quotient's coefficients
// (zkbatch's), or A*B - C on the odd coset (snarkjs's).
template <class Fr>
std::vector<Fr> cpu_quotient(ntt::Roots roots, uint32_t log_n, const std::vector<Fr>& a, const std::vector<Fr>& b,
                             const std::vector<Fr>& c, unsigned threads) {
    std::vector<Fr> h(a.size()), scratch(2 * a.size());
    if (roots == ntt::Roots::zkbatch)
        prove::compute_quotient_cpu(log_n, a.data(), b.data(), c.data(), h.data(), scratch.data(), threads);
    else
        prove::compute_odd_coset_quotient_cpu(log_n, a.data(), b.data(), c.data(), h.data(), scratch.data(), threads);
    return canonical_form(std::move(h));
}

// a, b and c hold the inputs (n elements each); h is left in b, in the H convention of
// the tables' roots (ntt_steps.hpp). Full: the three
// transformed, then A*B - C fused into h's transform. Lean: a and b transformed, a *= b,
// then `copy_c_into_b()` (the upload of c into b), c transformed there, a -= c, and h's
// transform of a; c is not read. `run(sequence)` runs each step on the device or host.
template <class Fr, class Run, class CopyCIntoB>
void run_quotient(const cuda::ntt::DomainTablesView<Fr>& tables, bool lean, Fr* a, Fr* b, Fr* c, Run&& run,
                  CopyCIntoB&& copy_c_into_b) {
    namespace ntt = cuda::ntt;
    run(ntt::quotient_input_steps(tables, a));
    run(ntt::quotient_input_steps(tables, b));
    if (!lean) {
        run(ntt::quotient_input_steps(tables, c));
        run(ntt::quotient_output_steps(tables, a, b, c, b));
        return;
    }
    run(ntt::pointwise_product_steps(tables, a, b));
    copy_c_into_b();
    run(ntt::quotient_input_steps(tables, b));
    run(ntt::pointwise_difference_steps(tables, a, b));
    run(ntt::quotient_output_steps<Fr>(tables, a, nullptr, nullptr, b));
}

}  // namespace zkbatch::test
