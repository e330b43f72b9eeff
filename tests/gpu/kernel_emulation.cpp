#include "kernel_emulation.hpp"

#include <cstdint>
#include <vector>

namespace zkbatch::test {

namespace {

using cuda::ntt::Launch;
using cuda::ntt::PassKind;
using cuda::ntt::PassParams;
using cuda::ntt::Tile;

template <PassKind kKind, bool kSeeded, class Fr>
void emulate_pass(const PassParams<Fr>& params) {
    const uint32_t threads = params.threads_per_block();
    const uint32_t tile_size = 1u << params.tile_log();
    std::vector<uint64_t> shared_words(4 * size_t{tile_size});
    const Tile<Fr> tile{shared_words.data(), tile_size};
    for (uint32_t block = 0; block < params.block_count(); ++block) {
        cuda::ntt::run_pass<kKind, kSeeded>(params, block, tile, [threads](auto&& step, bool /*barrier*/) {
            for (uint32_t thread = 0; thread < threads; ++thread) step(thread, threads);
        });
    }
}

template <PassKind kKind, class Fr>
void emulate_pass(const PassParams<Fr>& params) {
    if (params.twist.seeded) {
        emulate_pass<kKind, true>(params);
    } else {
        emulate_pass<kKind, false>(params);
    }
}

}  // namespace

template <class Fr>
void emulate_on_host(const cuda::ntt::LaunchSequence<Fr>& sequence) {
    using Kind = typename Launch<Fr>::Kind;
    for (const Launch<Fr>& launch : sequence) {
        // An element-wise launch: its work for every index, as its threads do it.
        const auto each_index = [&launch](auto work) {
            for (uint32_t index = 0; index < (1u << launch.pass.log_n); ++index) work(launch.pass, index);
        };
        switch (launch.kind) {
            case Kind::dit_pass:
                emulate_pass<PassKind::dit>(launch.pass);
                break;
            case Kind::dif_pass:
                emulate_pass<PassKind::dif>(launch.pass);
                break;
            case Kind::bit_reverse:
                each_index(cuda::ntt::bit_reverse<Fr>);
                break;
            case Kind::pointwise_product:
                each_index(cuda::ntt::pointwise_product<Fr>);
                break;
            case Kind::pointwise_difference:
                each_index(cuda::ntt::pointwise_difference<Fr>);
                break;
            case Kind::odd_coset_output:
                each_index(cuda::ntt::odd_coset_output<Fr>);
                break;
        }
    }
}

template void emulate_on_host(const cuda::ntt::LaunchSequence<ff::Fr>&);
template void emulate_on_host(const cuda::ntt::LaunchSequence<ff::bn254::Fr>&);

}  // namespace zkbatch::test
