// The synthetic circuit: a deterministic, satisfied R1CS-like workload.
//
// For partition p of a job with seed s, row i of the circuit has `terms_per_row`
// terms in A and in B over a witness drawn from (s, p); synthesis evaluates
// a_i = <A_i, w>, b_i = <B_i, w> and c_i = a_i * b_i (C_i selects the auxiliary
// variable that holds the product), so every constraint is satisfied and the work
// grows with terms_per_row like real synthesis does.
#pragma once

#include "core/ff/fr.hpp"

#include <cstdint>

namespace zkbatch::circuit {

struct CircuitShape {
    uint32_t log_n = 0;          // 2^log_n constraints, the NTT domain size
    uint32_t terms_per_row = 1;  // >= 1
};

// Writes n = 2^log_n elements (Montgomery form) to each of a, b, c. Deterministic in
// (job_seed, partition_index, shape) alone: same inputs give the same bits on every
// machine, whatever `threads` is. The pipeline runs one synthesis worker per partition
// (threads = 1); replayed input sets, made once before a run, use every core.
void synthesize(const CircuitShape& shape, uint64_t job_seed, uint64_t partition_index,
                ff::Fr* a, ff::Fr* b, ff::Fr* c, unsigned threads = 1);

}  // namespace zkbatch::circuit
