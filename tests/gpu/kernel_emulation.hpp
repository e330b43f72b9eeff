// Runs a LaunchSequence on the host with the kernels' own step functions (ntt_pass.hpp):
// block by block, and within a block each step for every thread before the next step,
// which is exactly what the kernel's barriers guarantee. So the index arithmetic, the
// fusions and the composition of passes are checked on a machine without a GPU.
#pragma once

#include "gpu/ntt/ntt_steps.hpp"

namespace zkbatch::test {

// Over either curve's Fr.
template <class Fr>
void emulate_on_host(const cuda::ntt::LaunchSequence<Fr>& sequence);

}  // namespace zkbatch::test
