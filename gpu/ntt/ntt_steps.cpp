#include "gpu/ntt/ntt_steps.hpp"

#include <stdexcept>

namespace zkbatch::cuda::ntt {

template <class Fr>
void LaunchSequence<Fr>::push(const Launch<Fr>& launch) {
    if (count == kCapacity) throw std::logic_error("LaunchSequence: more than kCapacity launches");
    steps[count++] = launch;
}

namespace {

template <class Fr>
PassParams<Fr> pass_params(const DomainTablesView<Fr>& tables, Fr* data, Direction direction, uint32_t pass) {
    const NttPlan& plan = tables.plan;
    PassParams<Fr> params;
    params.data = data;
    params.log_n = plan.log_n;
    params.first_stage = plan.first_stage(pass);
    params.stage_count = plan.stage_counts[pass];
    params.group_log = plan.tile_log - params.stage_count;
    params.stage_roots = tables.roots(direction);
    params.stage_roots_log = tables.roots_log;
    params.twist = tables.twist(direction);
    return params;
}

}  // namespace

template <class Fr>
void append_dit(LaunchSequence<Fr>& sequence, const DomainTablesView<Fr>& tables, Fr* data, Direction direction) {
    for (uint32_t pass = 0; pass < tables.plan.pass_count; ++pass) {
        PassParams<Fr> params = pass_params(tables, data, direction, pass);
        params.twist_first_stage = params.first_stage;  // its own twist, before its stages
        params.twist_stage_count = params.stage_count;
        params.reduce_output = pass + 1 == tables.plan.pass_count;
        sequence.push(Launch<Fr>{Launch<Fr>::Kind::dit_pass, params});
    }
}

template <class Fr>
void append_dif(LaunchSequence<Fr>& sequence, const DomainTablesView<Fr>& tables, Fr* data, Direction direction,
                const DifFusion<Fr>& fusion) {
    const uint32_t pass_count = tables.plan.pass_count;
    for (uint32_t i = 0; i < pass_count; ++i) {
        const uint32_t pass = pass_count - 1 - i;  // highest stages first
        PassParams<Fr> params = pass_params(tables, data, direction, pass);
        if (i != 0) {  // the twist the pass before (pass + 1) owes, after its stages
            params.twist_first_stage = tables.plan.first_stage(pass + 1);
            params.twist_stage_count = tables.plan.stage_counts[pass + 1];
        }
        if (i == 0 && fusion.quotient_b != nullptr) {
            params.quotient_b = fusion.quotient_b;
            params.quotient_c = fusion.quotient_c;
        }
        if (pass == 0 && fusion.output_scale != nullptr) {
            params.scale_output = true;
            params.output_scale = *fusion.output_scale;
        }
        if (pass == 0) params.permuted_output = fusion.permuted_output;
        params.reduce_output = pass == 0;
        sequence.push(Launch<Fr>{Launch<Fr>::Kind::dif_pass, params});
    }
}

template <class Fr>
void append_bit_reverse(LaunchSequence<Fr>& sequence, Fr* data, uint32_t log_n, Fr* destination) {
    Launch<Fr> launch;
    launch.kind = Launch<Fr>::Kind::bit_reverse;
    launch.pass.data = data;
    launch.pass.log_n = log_n;
    launch.pass.permuted_output = destination;
    sequence.push(launch);
}

template <class Fr>
LaunchSequence<Fr> quotient_input_steps(const DomainTablesView<Fr>& tables, Fr* vector) {
    LaunchSequence<Fr> sequence;
    DifFusion<Fr> fusion;
    fusion.output_scale = &tables.coset_scale;
    append_dif(sequence, tables, vector, Direction::inverse, fusion);
    append_dit(sequence, tables, vector, Direction::forward);
    return sequence;
}

namespace {

template <class Fr>
LaunchSequence<Fr> pointwise_steps(typename Launch<Fr>::Kind kind, const DomainTablesView<Fr>& tables, Fr* a,
                                   const Fr* b) {
    LaunchSequence<Fr> sequence;
    Launch<Fr> launch;
    launch.kind = kind;
    launch.pass.data = a;
    launch.pass.log_n = tables.log_n();
    launch.pass.quotient_b = b;
    sequence.push(launch);
    return sequence;
}

}  // namespace

template <class Fr>
LaunchSequence<Fr> pointwise_product_steps(const DomainTablesView<Fr>& tables, Fr* a, const Fr* b) {
    return pointwise_steps(Launch<Fr>::Kind::pointwise_product, tables, a, b);
}

template <class Fr>
LaunchSequence<Fr> pointwise_difference_steps(const DomainTablesView<Fr>& tables, Fr* a, const Fr* b) {
    return pointwise_steps(Launch<Fr>::Kind::pointwise_difference, tables, a, b);
}

template <class Fr>
LaunchSequence<Fr> quotient_output_steps(const DomainTablesView<Fr>& tables, Fr* a, const Fr* b, const Fr* c, Fr* h) {
    if (h == a || (b == nullptr) != (c == nullptr)) {
        throw std::logic_error("quotient_output_steps: h over a, or one of b and c without the other");
    }
    LaunchSequence<Fr> sequence;
    if (tables.family == zkbatch::ntt::Roots::snarkjs) {
        Launch<Fr> launch;
        launch.kind = Launch<Fr>::Kind::odd_coset_output;
        launch.pass.data = a;
        launch.pass.log_n = tables.log_n();
        launch.pass.quotient_b = b;
        launch.pass.quotient_c = c;
        launch.pass.permuted_output = h;
        sequence.push(launch);
        return sequence;
    }
    DifFusion<Fr> fusion;
    fusion.output_scale = &tables.quotient_unscale;  // also leaves h canonical
    fusion.quotient_b = b;
    fusion.quotient_c = c;
    // The last pass writes h permuted into its buffer, which only the first pass reads (as
    // b or c, if at all); a one-pass transform reads them in that very pass, so it
    // permutes with a separate copy.
    const bool fuse_permutation = tables.plan.pass_count > 1;
    if (fuse_permutation) fusion.permuted_output = h;
    append_dif(sequence, tables, a, Direction::inverse, fusion);
    if (!fuse_permutation) append_bit_reverse(sequence, a, tables.log_n(), h);
    return sequence;
}

#define ZKB_NTT_STEPS_INSTANTIATE(Fr)                                                                                 \
    template struct LaunchSequence<Fr>;                                                                               \
    template void append_dit(LaunchSequence<Fr>&, const DomainTablesView<Fr>&, Fr*, Direction);                       \
    template void append_dif(LaunchSequence<Fr>&, const DomainTablesView<Fr>&, Fr*, Direction, const DifFusion<Fr>&); \
    template void append_bit_reverse(LaunchSequence<Fr>&, Fr*, uint32_t, Fr*);                                        \
    template LaunchSequence<Fr> quotient_input_steps(const DomainTablesView<Fr>&, Fr*);                               \
    template LaunchSequence<Fr> pointwise_product_steps(const DomainTablesView<Fr>&, Fr*, const Fr*);                 \
    template LaunchSequence<Fr> pointwise_difference_steps(const DomainTablesView<Fr>&, Fr*, const Fr*);              \
    template LaunchSequence<Fr> quotient_output_steps(const DomainTablesView<Fr>&, Fr*, const Fr*, const Fr*, Fr*);
ZKB_NTT_STEPS_INSTANTIATE(ff::Fr)
ZKB_NTT_STEPS_INSTANTIATE(ff::bn254::Fr)
#undef ZKB_NTT_STEPS_INSTANTIATE

}  // namespace zkbatch::cuda::ntt
