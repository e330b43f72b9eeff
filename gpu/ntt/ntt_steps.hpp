// The kernel launches that make up each transform, as data: a LaunchSequence lists the
// passes (with all their parameters) in order. The device runs it (ntt_kernels.hpp:
// enqueue); tests run the identical sequence on the host (kernel emulation), so the
// composition of passes is checked even without a GPU.
//
// The quotient uses three compositions, chosen so no bit-reversal is needed between steps:
//   quotient_input:  evaluations of X on the domain (natural) -> evaluations of X on the
//                    coset g*H (natural): inverse DIF (natural -> bit-reversed
//                    coefficients), scaled by g^i/n in its last pass, then forward DIT
//                    (bit-reversed -> natural).
//   quotient_output: A*B - C fused into the first pass of an inverse DIF; into its last
//                    pass g^-i/(n (g^n - 1)), from a table that also leaves h in
//                    canonical form (the plugin ABI's), and the bit-reversal
//                    permutation to natural-order coefficients, written into h's buffer.
//                    Over tables of snarkjs's roots (a .zkey's H convention), whose coset
//                    is the odd points of the domain of 2n, h is A*B - C there: one
//                    element-wise launch, no division and no inverse transform (the
//                    key's H points absorb both), canonical, in natural order.
// With three vectors on the device: a, b and c each through quotient_input, then
// quotient_output(a, b, c) with h into b. With two (a card the third would not fit):
// a and b through quotient_input, a *= b (pointwise_product), then c uploaded into b and
// through quotient_input, a -= c (pointwise_difference), then quotient_output of a alone,
// h into b again.
#pragma once

#include "gpu/ntt/domain_tables.hpp"
#include "gpu/ntt/ntt_pass.hpp"

#include <cstdint>

namespace zkbatch::cuda::ntt {

// Everything here is over Fr, either curve's scalar field (ff::Fr, BLS12-381's, or
// ff::bn254::Fr); both instances are in ntt_steps.cpp.
template <class Fr>
struct Launch {
    enum class Kind { dit_pass, dif_pass, bit_reverse, pointwise_product, pointwise_difference, odd_coset_output };
    Kind kind = Kind::dit_pass;
    // bit_reverse uses only data, log_n and permuted_output; the pointwise kinds data,
    // log_n and quotient_b (the second operand); odd_coset_output data, log_n, quotient_b,
    // quotient_c and permuted_output (ntt_pass.hpp).
    PassParams<Fr> pass;
};

template <class Fr>
struct LaunchSequence {
    static constexpr uint32_t kCapacity = 2 * NttPlan::kMaxPasses + 1;
    Launch<Fr> steps[kCapacity];
    uint32_t count = 0;

    void push(const Launch<Fr>& launch);  // throws std::logic_error when full
    const Launch<Fr>* begin() const { return steps; }
    const Launch<Fr>* end() const { return steps + count; }
};

// What a DIF may fuse (see PassParams).
template <class Fr>
struct DifFusion {
    const PowerTableView<Fr>* output_scale = nullptr;  // applied in the last pass, by coefficient index
    const Fr* quotient_b = nullptr;                // applied in the first pass
    const Fr* quotient_c = nullptr;
    Fr* permuted_output = nullptr;  // the last pass's natural-order destination (PassParams)
};

// Building blocks, appended to `sequence`; `data` holds n = 2^tables.log_n() elements.
// DIT: bit-reversed input -> natural output. DIF: natural input -> bit-reversed output.
// Neither multiplies by 1/n: an inverse DIF that should, passes coset_scale-like tables
// or the caller scales.
template <class Fr>
void append_dit(LaunchSequence<Fr>& sequence, const DomainTablesView<Fr>& tables, Fr* data, Direction direction);
template <class Fr>
void append_dif(LaunchSequence<Fr>& sequence, const DomainTablesView<Fr>& tables, Fr* data, Direction direction,
                const DifFusion<Fr>& fusion = {});
// In place, or into `destination` (not overlapping data) when one is given.
template <class Fr>
void append_bit_reverse(LaunchSequence<Fr>& sequence, Fr* data, uint32_t log_n, Fr* destination = nullptr);

// The steps of the quotient computation (header comment).
template <class Fr>
LaunchSequence<Fr> quotient_input_steps(const DomainTablesView<Fr>& tables, Fr* vector);
// a[i] *= b[i], or a[i] -= b[i], for the domain's n elements.
template <class Fr>
LaunchSequence<Fr> pointwise_product_steps(const DomainTablesView<Fr>& tables, Fr* a, const Fr* b);
template <class Fr>
LaunchSequence<Fr> pointwise_difference_steps(const DomainTablesView<Fr>& tables, Fr* a, const Fr* b);
// h is written into `h` (not `a`; it may be `b` or `c`), in natural order and canonical
// form; `a` may be overwritten, b and c read. With b and c null, a holds A*B - C already.
// The tables' roots pick the H convention (header comment).
template <class Fr>
LaunchSequence<Fr> quotient_output_steps(const DomainTablesView<Fr>& tables, Fr* a, const Fr* b, const Fr* c, Fr* h);

}  // namespace zkbatch::cuda::ntt
