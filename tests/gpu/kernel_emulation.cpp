#include "kernel_emulation.hpp"

#include <cstdint>
#include <vector>

namespace zkbatch::test {

namespace {

using cuda::ntt::Launch;
using cuda::ntt::PassKind;
using cuda::ntt::PassParams;
using cuda::ntt::Tile;

template <PassKind kKind, bool kSeeded>
void emulate_pass(const PassParams& params) {
    const uint32_t threads = params.threads_per_block();
    const uint32_t tile_size = 1u << params.tile_log();
    std::vector<uint64_t> shared_words(4 * size_t{tile_size});
    const Tile tile{shared_words.data(), tile_size};
    for (uint32_t block = 0; block < params.block_count(); ++block) {
        cuda::ntt::run_pass<kKind, kSeeded>(params, block, tile, [threads](auto&& step, bool /*barrier*/) {
            for (uint32_t thread = 0; thread < threads; ++thread) step(thread, threads);
        });
    }
}

template <PassKind kKind>
void emulate_pass(const PassParams& params) {
    if (params.twist.seeded) {
        emulate_pass<kKind, true>(params);
    } else {
        emulate_pass<kKind, false>(params);
    }
}

}  // namespace

void emulate_on_host(const cuda::ntt::LaunchSequence& sequence) {
    for (const Launch& launch : sequence) {
        switch (launch.kind) {
            case Launch::Kind::dit_pass:
                emulate_pass<PassKind::dit>(launch.pass);
                break;
            case Launch::Kind::dif_pass:
                emulate_pass<PassKind::dif>(launch.pass);
                break;
            case Launch::Kind::bit_reverse:
                for (uint32_t index = 0; index < (1u << launch.pass.log_n); ++index) {
                    cuda::ntt::bit_reverse(launch.pass, index);
                }
                break;
            case Launch::Kind::pointwise_product:
                for (uint32_t index = 0; index < (1u << launch.pass.log_n); ++index) {
                    cuda::ntt::pointwise_product(launch.pass, index);
                }
                break;
            case Launch::Kind::pointwise_difference:
                for (uint32_t index = 0; index < (1u << launch.pass.log_n); ++index) {
                    cuda::ntt::pointwise_difference(launch.pass, index);
                }
                break;
        }
    }
}

}  // namespace zkbatch::test
