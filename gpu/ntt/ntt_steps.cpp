#include "gpu/ntt/ntt_steps.hpp"

#include <stdexcept>

namespace zkbatch::cuda::ntt {

void LaunchSequence::push(const Launch& launch) {
    if (count == kCapacity) throw std::logic_error("LaunchSequence: more than kCapacity launches");
    steps[count++] = launch;
}

namespace {

PassParams pass_params(const DomainTablesView& tables, Fr* data, Direction direction, uint32_t pass) {
    const NttPlan& plan = tables.plan;
    PassParams params;
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

void append_dit(LaunchSequence& sequence, const DomainTablesView& tables, Fr* data, Direction direction) {
    for (uint32_t pass = 0; pass < tables.plan.pass_count; ++pass) {
        PassParams params = pass_params(tables, data, direction, pass);
        params.twist_first_stage = params.first_stage;  // its own twist, before its stages
        params.twist_stage_count = params.stage_count;
        params.reduce_output = pass + 1 == tables.plan.pass_count;
        sequence.push(Launch{Launch::Kind::dit_pass, params});
    }
}

void append_dif(LaunchSequence& sequence, const DomainTablesView& tables, Fr* data, Direction direction,
                const DifFusion& fusion) {
    const uint32_t pass_count = tables.plan.pass_count;
    for (uint32_t i = 0; i < pass_count; ++i) {
        const uint32_t pass = pass_count - 1 - i;  // highest stages first
        PassParams params = pass_params(tables, data, direction, pass);
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
        sequence.push(Launch{Launch::Kind::dif_pass, params});
    }
}

void append_bit_reverse(LaunchSequence& sequence, Fr* data, uint32_t log_n, Fr* destination) {
    Launch launch;
    launch.kind = Launch::Kind::bit_reverse;
    launch.pass.data = data;
    launch.pass.log_n = log_n;
    launch.pass.permuted_output = destination;
    sequence.push(launch);
}

LaunchSequence quotient_input_steps(const DomainTablesView& tables, Fr* vector) {
    LaunchSequence sequence;
    DifFusion fusion;
    fusion.output_scale = &tables.coset_scale;
    append_dif(sequence, tables, vector, Direction::inverse, fusion);
    append_dit(sequence, tables, vector, Direction::forward);
    return sequence;
}

namespace {

LaunchSequence pointwise_steps(Launch::Kind kind, const DomainTablesView& tables, Fr* a, const Fr* b) {
    LaunchSequence sequence;
    Launch launch;
    launch.kind = kind;
    launch.pass.data = a;
    launch.pass.log_n = tables.log_n();
    launch.pass.quotient_b = b;
    sequence.push(launch);
    return sequence;
}

}  // namespace

LaunchSequence pointwise_product_steps(const DomainTablesView& tables, Fr* a, const Fr* b) {
    return pointwise_steps(Launch::Kind::pointwise_product, tables, a, b);
}

LaunchSequence pointwise_difference_steps(const DomainTablesView& tables, Fr* a, const Fr* b) {
    return pointwise_steps(Launch::Kind::pointwise_difference, tables, a, b);
}

LaunchSequence quotient_output_steps(const DomainTablesView& tables, Fr* a, const Fr* b, const Fr* c, Fr* h) {
    if (h == a || (b == nullptr) != (c == nullptr)) {
        throw std::logic_error("quotient_output_steps: h over a, or one of b and c without the other");
    }
    LaunchSequence sequence;
    DifFusion fusion;
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

}  // namespace zkbatch::cuda::ntt
