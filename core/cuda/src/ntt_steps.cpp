#include <zkbatch/cuda/ntt_steps.hpp>

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
        sequence.push(Launch{Launch::Kind::dit_pass, pass_params(tables, data, direction, pass)});
    }
}

void append_dif(LaunchSequence& sequence, const DomainTablesView& tables, Fr* data, Direction direction,
                const DifFusion& fusion) {
    const uint32_t pass_count = tables.plan.pass_count;
    for (uint32_t i = 0; i < pass_count; ++i) {
        const uint32_t pass = pass_count - 1 - i;  // highest stages first
        PassParams params = pass_params(tables, data, direction, pass);
        if (i == 0 && fusion.quotient_b != nullptr) {
            params.quotient_b = fusion.quotient_b;
            params.quotient_c = fusion.quotient_c;
            params.quotient_factor = fusion.quotient_factor;
        }
        if (pass == 0 && fusion.output_scale != nullptr) {
            params.scale_output = true;
            params.output_scale = *fusion.output_scale;
        }
        sequence.push(Launch{Launch::Kind::dif_pass, params});
    }
}

void append_bit_reverse(LaunchSequence& sequence, Fr* data, uint32_t log_n, bool to_canonical) {
    Launch launch;
    launch.kind = Launch::Kind::bit_reverse;
    launch.pass.data = data;
    launch.pass.log_n = log_n;
    launch.pass.canonical_output = to_canonical;
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

LaunchSequence quotient_output_steps(const DomainTablesView& tables, Fr* a, const Fr* b, const Fr* c) {
    LaunchSequence sequence;
    DifFusion fusion;
    fusion.output_scale = &tables.coset_unscale;
    fusion.quotient_b = b;
    fusion.quotient_c = c;
    fusion.quotient_factor = tables.vanishing_inverse;
    append_dif(sequence, tables, a, Direction::inverse, fusion);
    append_bit_reverse(sequence, a, tables.log_n(), /*to_canonical=*/true);
    return sequence;
}

}  // namespace zkbatch::cuda::ntt
