// One pass of a GPU NTT: the index arithmetic and field work of the kernels, written as
// host/device functions so the host can run the very same code (tests emulate a
// kernel block by block and thread by thread, without a GPU).
//
// Notation. n = 2^log_n. A radix-2 NTT has log_n stages s = 0..log_n-1; stage s pairs
// elements 2^s apart. DIT (Cooley-Tukey) runs the stages upwards and turns
// bit-reversed input into natural-order output; DIF (Gentleman-Sande) runs them
// downwards and turns natural input into bit-reversed output. No bit-reversal pass is
// needed between a DIF and a DIT.
//
// A pass runs k consecutive stages s0..s0+k-1 at once. It splits the array into groups
// of 2^k elements {base + t*2^s0 : t < 2^k}, base = hi*2^(s0+k) + b with b < 2^s0, and
// each group is independent for those k stages: with w_m a primitive m-th root,
//   DIT pass = twist, then a local size-2^k DIT with roots of order <= 2^k;
//   DIF pass = a local size-2^k DIF, then the twist;
// where the twist multiplies element t of the group by w_(2^(s0+k))^(b * bitrev_k(t)).
// The first DIT pass and the last DIF pass have s0 = 0, hence b = 0 and no twist. The
// kernels apply a DIF pass's twist as the next pass loads the elements (element-wise,
// so it may wait), where its table lookups share the latency of the data loads.
//
// A CUDA block loads 2^group_log groups (consecutive b, so a warp's loads are
// consecutive addresses) into shared memory, runs the k stages there with a barrier
// between stages, and writes the groups back (run_pass). Stages 0 and 1 run as one step
// of four elements per thread, which skips stage 1's trivial products; a DIT pass runs
// that step as it loads.
#pragma once

#include "core/ff/bn254.hpp"
#include "core/ff/field32.hpp"
#include "core/ff/fr.hpp"
#include "core/util/host_device.hpp"

#include <cstdint>

namespace zkbatch::cuda::ntt {

// Tuning constants, each measured on the H200 (docs/ntt.md#passes-and-plans).
inline constexpr uint32_t kMaxStagesPerPass = 10;
inline constexpr uint32_t kTileLog = 11;  // the largest tile: 2^11 elements, 64 KiB of shared memory
// The backends' tiles: 2^10 elements (32 KiB), 1-3% faster than 2^11 on the H200 at every
// size.
inline constexpr uint32_t kDefaultTileLog = 10;
inline constexpr uint32_t kThreadsPerBlock = 256;
// Register budget: 4 blocks of 256 threads per SM means at most 64 registers per thread
// (the field multiplication wants ~66 unconstrained; 64 does not spill, while the 51 of
// 5 blocks do, 4-10% slower).
inline constexpr uint32_t kMinBlocksPerSm = 4;
inline constexpr uint32_t kMaxLogN = 30;  // indices are 32-bit

ZKB_HOST_DEVICE ZKB_FORCEINLINE uint32_t reverse_bits(uint32_t value, uint32_t bits) {
    if (bits == 0) return 0;
#if defined(__CUDA_ARCH__)
    return __brev(value) >> (32 - bits);
#else
    uint32_t reversed = 0;
    for (uint32_t i = 0; i < bits; ++i) reversed |= ((value >> i) & 1u) << (bits - 1 - i);
    return reversed;
#endif
}

// Global-memory element access; 16-byte vector loads/stores on the device. Fr is either
// curve's scalar field: 4 64-bit limbs.
template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr load_element(const Fr* element) {
#if defined(__CUDA_ARCH__)
    const ulonglong2* words = reinterpret_cast<const ulonglong2*>(element);
    const ulonglong2 low = words[0];
    const ulonglong2 high = words[1];
    return Fr{{low.x, low.y, high.x, high.y}};
#else
    return *element;
#endif
}

template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void store_element(Fr* element, const Fr& value) {
#if defined(__CUDA_ARCH__)
    ulonglong2* words = reinterpret_cast<ulonglong2*>(element);
    words[0] = make_ulonglong2(value.limbs[0], value.limbs[1]);
    words[1] = make_ulonglong2(value.limbs[2], value.limbs[3]);
#else
    *element = value;
#endif
}

// scale * base^e from two small seed tables, lo[i] = base^i (i < 2^lo_bits) and
// hi[j] = scale * base^(j * 2^lo_bits): one Montgomery product, fully reduced.
template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr power_from_seeds(const Fr* lo, const Fr* hi, uint32_t lo_bits, uint32_t exponent) {
    return load_element(lo + (exponent & ((1u << lo_bits) - 1))) * load_element(hi + (exponent >> lo_bits));
}

// scale * base^e for every exponent e < 2^log_size. Expanded, one table entry each (3 x 32
// bytes x n for a domain's three tables, 12 GiB at 2^27): a lookup, not a multiplication,
// in the passes. Seeded, `entries` holds the seeds instead, lo (2^lo_bits entries,
// lo_bits = ceil(log_size / 2)) then hi, and each power is made as it is needed
// (power_from_seeds: a product, and two loads from tables that stay in L2): the same
// values in a few MB, for cards the expanded tables would not leave room on
// (domain_tables.hpp: PowerTables). 16 bytes either way: a larger view made the passes
// spill registers.
// `negate` reads base^-e as base^((2^log_size - e) mod 2^log_size), which is right only
// when base is a root of unity of order 2^log_size: the forward and inverse twists
// share one table that way.
template <class Fr>
struct PowerTableView {
    const Fr* entries = nullptr;
    uint32_t log_size = 0;
    bool negate = false;
    bool seeded = false;

    ZKB_HOST_DEVICE static constexpr uint32_t lo_bits(uint32_t log_size) { return (log_size + 1) / 2; }

    // kSeeded must be `seeded`: the kernels are made for each, so that the expanded
    // tables' passes carry no seeded code.
    template <bool kSeeded>
    ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr at(uint32_t exponent) const {
        const uint32_t e = (negate ? 0u - exponent : exponent) & ((1u << log_size) - 1);
        if constexpr (kSeeded) {
            const uint32_t lo = lo_bits(log_size);
            return power_from_seeds(entries, entries + (size_t{1} << lo), lo, e);
        } else {
            return load_element(entries + e);
        }
    }
};

enum class PassKind : uint32_t { dit, dif };

// Everything one pass kernel needs; passed by value as the kernel parameter.
template <class Fr>
struct PassParams {
    Fr* data = nullptr;  // n elements, transformed in place
    uint32_t log_n = 0;
    uint32_t first_stage = 0;  // s0
    uint32_t stage_count = 0;  // k
    uint32_t group_log = 0;    // 2^group_log groups per block
    // stage_roots[i] = w^i, i < 2^(stage_roots_log - 1), w a primitive 2^stage_roots_log-th
    // root (its inverse for inverse transforms); stage_roots_log >= stage_count.
    const Fr* stage_roots = nullptr;
    uint32_t stage_roots_log = 0;
    PowerTableView<Fr> twist;  // omega^e (omega^-e for inverse transforms), e < n; its `seeded`
                               // is output_scale's too
    // The twist multiplied into every element as it is loaded: that of the pass with
    // these first_stage and stage_count (none when twist_first_stage is 0). A DIT pass's
    // own; for a DIF pass, the one the pass before it owes (its twist comes after its
    // stages), so the table lookups share the latency of the data loads.
    uint32_t twist_first_stage = 0;
    uint32_t twist_stage_count = 0;
    // Fused into a DIF pass with first_stage 0 (the last one): the element that ends at
    // position p is multiplied by output_scale.at(bitrev(p)), the power of its
    // coefficient index (coset shift and 1/n of an inverse transform).
    bool scale_output = false;
    // Set on a transform's last pass: stored elements are reduced below r. Without it
    // they are stored as the stages leave them, < 2r, for the next pass to load.
    bool reduce_output = true;
    PowerTableView<Fr> output_scale;
    // Fused into the first DIF pass of the quotient's final transform: the loaded value
    // x becomes x * quotient_b - quotient_c, element-wise. On an element-wise launch
    // (ntt_steps.hpp): the second operand; on the odd-coset output, the second and third,
    // each optional.
    const Fr* quotient_b = nullptr;
    const Fr* quotient_c = nullptr;
    // Set on a DIF pass with first_stage 0 (the last one): the element that ends at
    // position p goes to permuted_output[bitrev(p)] instead of data[p], so the transform
    // leaves its result in natural order without a bit-reversal pass. It must not be
    // `data` or any array the pass reads: other blocks are still reading those.
    // On a bit-reversal launch: the destination of a permuting copy (null: in place). On
    // the odd-coset output: h's destination, in the same order.
    Fr* permuted_output = nullptr;

    ZKB_HOST_DEVICE uint32_t tile_log() const { return group_log + stage_count; }
    ZKB_HOST_DEVICE uint32_t block_count() const { return 1u << (log_n - tile_log()); }
    ZKB_HOST_DEVICE uint32_t threads_per_block() const {
        const uint32_t butterflies = 1u << (tile_log() - 1);
        return butterflies < kThreadsPerBlock ? butterflies : kThreadsPerBlock;
    }
    ZKB_HOST_DEVICE uint32_t shared_bytes() const { return (1u << tile_log()) * static_cast<uint32_t>(sizeof(Fr)); }
};

// The passes' field arithmetic (field32.hpp), on partly reduced values v < 2r: a product by
// a table entry (< r) skips its final subtraction, sums and differences work modulo 2r.
// Between the passes of one transform the array holds partly reduced values too (every
// pass's first step accepts them: a product by a twist, or stage butterflies on values
// < 2r); a transform's last pass reduces each element as it stores it, so what a
// transform leaves in memory is < r. The host runs the same instruction sequence
// (HostChain), so kernel emulation checks it.
namespace partial {

// Fr's 8 x 32-bit device arithmetic.
template <class Fr>
using Fr32 = ff::Field32<typename Fr::FieldDescription>;

// factor < r (a table entry or a constant), value < 2r: < 2r.
template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr mul(const Fr& factor, const Fr& value) {
    return Fr32<Fr>::template apply<Fr32<Fr>::template mont_mul_partial<ff::NativeChain>>(factor, value);
}
template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr add(const Fr& x, const Fr& y) {
    return Fr32<Fr>::template apply<Fr32<Fr>::template add_partial<ff::NativeChain>>(x, y);
}
template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr sub(const Fr& x, const Fr& y) {
    return Fr32<Fr>::template apply<Fr32<Fr>::template sub_partial<ff::NativeChain>>(x, y);
}
// value < 2r -> the same residue < r.
template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr reduce(const Fr& value) {
    uint32_t v[8], out[8];
    Fr32<Fr>::split(value.limbs, v);
    ff::NativeChain chain;
    Fr32<Fr>::reduce_once(chain, v, out);
    Fr result;
    Fr32<Fr>::join(out, result.limbs);
    return result;
}

}  // namespace partial

// A block's elements in shared memory, limb-major (all limb 0 words, then limb 1, ...),
// so consecutive threads touch consecutive 64-bit words: no bank conflicts.
template <class Fr>
struct Tile {
    uint64_t* words;
    uint32_t size;  // elements

    ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr get(uint32_t slot) const {
        return Fr{{words[slot], words[size + slot], words[2 * size + slot], words[3 * size + slot]}};
    }
    ZKB_HOST_DEVICE ZKB_FORCEINLINE void set(uint32_t slot, const Fr& value) const {
        words[slot] = value.limbs[0];
        words[size + slot] = value.limbs[1];
        words[2 * size + slot] = value.limbs[2];
        words[3 * size + slot] = value.limbs[3];
    }
};

// The position in the array of element t of local group g of `block`.
template <class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE uint32_t element_index(const PassParams<Fr>& p, uint32_t block, uint32_t g,
                                                       uint32_t t) {
    const uint32_t group = (block << p.group_log) | g;
    const uint32_t b = group & ((1u << p.first_stage) - 1);
    const uint32_t hi = group >> p.first_stage;
    return (hi << (p.first_stage + p.stage_count)) | (t << p.first_stage) | b;
}

// The twist of a pass with first stage s0 and k stages for the element at `element`,
// element t of the group with offset b: omega^(b * bitrev_k(t) * 2^(log_n - s0 - k)), i.e.
// w_(2^(s0+k))^(b * bitrev_k(t)), with b = element mod 2^s0 and t its k bits above.
template <bool kSeeded, class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr twist_factor(const PassParams<Fr>& p, uint32_t element) {
    const uint32_t s0 = p.twist_first_stage;
    const uint32_t k = p.twist_stage_count;
    const uint32_t b = element & ((1u << s0) - 1);
    const uint32_t t = (element >> s0) & ((1u << k) - 1);
    return p.twist.template at<kSeeded>((b * reverse_bits(t, k)) << (p.log_n - s0 - k));
}

// What enters a pass at `element`: the loaded value, with the quotient fusion (DIF only)
// and the twist.
template <PassKind kKind, bool kSeeded, class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr load_input(const PassParams<Fr>& p, uint32_t element) {
    Fr value = load_element(p.data + element);
    if (kKind == PassKind::dif && p.quotient_b != nullptr) {
        value = value * load_element(p.quotient_b + element) - load_element(p.quotient_c + element);
    }
    if (p.twist_first_stage != 0) value = partial::mul(twist_factor<kSeeded>(p, element), value);
    return value;
}

// What leaves a pass at `element`: scaled, reduced and permuted as the pass asks.
template <bool kSeeded, class Fr>
ZKB_HOST_DEVICE ZKB_FORCEINLINE void store_output(const PassParams<Fr>& p, uint32_t element, Fr value) {
    const uint32_t coefficient = reverse_bits(element, p.log_n);  // DIF: where the element belongs
    if (p.scale_output) value = partial::mul(p.output_scale.template at<kSeeded>(coefficient), value);
    if (p.reduce_output) value = partial::reduce(value);
    store_element(p.permuted_output == nullptr ? p.data + element : p.permuted_output + coefficient, value);
}

// Global memory -> tile. Thread `thread` of `threads` handles slots thread, thread +
// threads, ...; slot q = t * 2^group_log + g, so consecutive threads read consecutive b.
template <PassKind kKind, bool kSeeded, class Fr>
ZKB_HOST_DEVICE inline void pass_load(const PassParams<Fr>& p, uint32_t block, uint32_t thread, uint32_t threads,
                                      const Tile<Fr>& tile) {
    const uint32_t group_mask = (1u << p.group_log) - 1;
    for (uint32_t slot = thread; slot < tile.size; slot += threads) {
        tile.set(slot, load_input<kKind, kSeeded>(p, element_index(p, block, slot & group_mask, slot >> p.group_log)));
    }
}

// Tile -> global memory, slots as in pass_load.
template <bool kSeeded, class Fr>
ZKB_HOST_DEVICE inline void pass_store(const PassParams<Fr>& p, uint32_t block, uint32_t thread, uint32_t threads,
                                       const Tile<Fr>& tile) {
    const uint32_t group_mask = (1u << p.group_log) - 1;
    for (uint32_t slot = thread; slot < tile.size; slot += threads) {
        store_output<kSeeded>(p, element_index(p, block, slot & group_mask, slot >> p.group_log), tile.get(slot));
    }
}

// One butterfly stage, 0..k-1 for DIT, k-1..0 for DIF: butterflies on pairs
// (t, t + 2^stage) of every group in the tile.
// kTwiddle must be stage != 0: stage 0's twiddle is 1 (multiplying by one is exact,
// skipping it is faster), and callers run it as its own instantiation so the stages
// that multiply loop with no branch around the product.
template <PassKind kKind, bool kTwiddle, class Fr>
ZKB_HOST_DEVICE inline void pass_stage(const PassParams<Fr>& p, uint32_t stage, uint32_t thread, uint32_t threads,
                                       const Tile<Fr>& tile) {
    const uint32_t group_mask = (1u << p.group_log) - 1;
    const uint32_t low_mask = (1u << stage) - 1;
    const uint32_t pair_distance = 1u << (stage + p.group_log);
    const uint32_t butterflies = tile.size >> 1;
    const uint32_t root_shift = p.stage_roots_log - 1 - stage;  // w_(2^(stage+1)) = w^(2^root_shift)
    for (uint32_t butterfly = thread; butterfly < butterflies; butterfly += threads) {
        const uint32_t g = butterfly & group_mask;
        const uint32_t j = butterfly >> p.group_log;  // pair number within the group
        const uint32_t t = ((j >> stage) << (stage + 1)) | (j & low_mask);
        const uint32_t slot = (t << p.group_log) | g;
        const Fr u = tile.get(slot);
        const Fr v = tile.get(slot + pair_distance);
        const Fr* twiddle = p.stage_roots + ((j & low_mask) << root_shift);
        // The DIF product is stored before the sum is formed, and stage 0 runs apart: only
        // with both does ptxas fuse that product's reduction into IMAD.WIDE instead of
        // IMAD.X + IMAD.HI pairs (DIF passes 10% faster). The DIT order, the difference
        // stored first, is 0.5% faster than the sum first
        // (docs/ntt.md#keeping-the-products-fused).
        if (kKind == PassKind::dit) {
            const Fr product = kTwiddle ? partial::mul(load_element(twiddle), v) : v;
            tile.set(slot + pair_distance, partial::sub(u, product));
            tile.set(slot, partial::add(u, product));
        } else {
            const Fr difference = partial::sub(u, v);
            tile.set(slot + pair_distance, kTwiddle ? partial::mul(load_element(twiddle), difference) : difference);
            tile.set(slot, partial::add(u, v));
        }
    }
}

// Stages 0 and 1 of a pass as one step: each thread takes the four elements t0 + {0,1,2,3}
// (t0 a multiple of 4) of a group into registers. Of the two stage-1 butterflies among
// them, (t0, t0 + 2) has twiddle w_4^0 = 1 and (t0 + 1, t0 + 3) has w_4, so the step
// multiplies once per four elements where two radix-2 stages multiply twice (the
// trivial one included): 1/4 of a stage's products fewer per pass, and one barrier and
// tile round trip fewer. read(g, t) returns element t of local group g, write(g, t,
// value) stores it: a DIT pass reads straight from global memory (load_input), saving
// another round trip and barrier; a DIF pass reads and writes the tile (its threads
// storing their four themselves is slower, and storing them from registers spills:
// docs/ntt.md#tried-and-rejected). Needs stage_count >= 2. Each half is formed before the
// other's elements are read, so at most 32 registers of elements are live.
template <PassKind kKind, class Fr, class Read, class Write>
ZKB_HOST_DEVICE inline void pass_stages_0_1(const PassParams<Fr>& p, uint32_t thread, uint32_t threads, uint32_t quads,
                                            Read&& read, Write&& write) {
    const uint32_t group_mask = (1u << p.group_log) - 1;
    const Fr* omega_4 = p.stage_roots + (1u << (p.stage_roots_log - 2));
    for (uint32_t quad = thread; quad < quads; quad += threads) {
        const uint32_t g = quad & group_mask;
        const uint32_t t0 = (quad >> p.group_log) << 2;
        // DIT: stage 0 on (t0 + 2, t0 + 3) and (t0, t0 + 1), then stage 1 on (t0 + 1, t0 + 3)
        // with w_4 and on (t0, t0 + 2) with 1. DIF: stage 1, then stage 0, which is the same
        // arithmetic with the middle two elements swapped.
        const uint32_t ta = t0, tb = t0 + (kKind == PassKind::dit ? 1 : 2);
        const uint32_t tc = t0 + (kKind == PassKind::dit ? 2 : 1), td = t0 + 3;
        const Fr xc = read(g, tc);
        const Fr xd = read(g, td);
        const Fr cd_sum = partial::add(xc, xd);
        const Fr product = partial::mul(load_element(omega_4), partial::sub(xc, xd));
        const Fr xa = read(g, ta);
        const Fr xb = read(g, tb);
        const Fr ab_difference = partial::sub(xa, xb);
        write(g, td, partial::sub(ab_difference, product));
        write(g, tb, partial::add(ab_difference, product));
        const Fr ab_sum = partial::add(xa, xb);
        write(g, tc, partial::sub(ab_sum, cd_sum));
        write(g, ta, partial::add(ab_sum, cd_sum));
    }
}

// A pass of `block`, as steps: `run_step(step, barrier)` runs step(thread, threads) for
// every thread of the block, then a block-wide barrier if `barrier` (the kernel: its own
// thread, then __syncthreads; the host emulation: a loop over the threads). DIT: load
// with stages 0 and 1, stages 2..k-1, store; DIF: load, stages k-1..2, stages 1 and 0,
// store. A pass of one stage: load, stage 0, store.
template <PassKind kKind, bool kSeeded, class Fr, class RunStep>
ZKB_HOST_DEVICE inline void run_pass(const PassParams<Fr>& p, uint32_t block, const Tile<Fr>& tile,
                                     RunStep&& run_step) {
    const uint32_t group_log = p.group_log;
    const auto tile_read = [&tile, group_log](uint32_t g, uint32_t t) { return tile.get((t << group_log) | g); };
    const auto tile_write = [&tile, group_log](uint32_t g, uint32_t t, const Fr& value) {
        tile.set((t << group_log) | g, value);
    };
    const auto global_read = [&p, block](uint32_t g, uint32_t t) {
        return load_input<kKind, kSeeded>(p, element_index(p, block, g, t));
    };
    const auto stage = [&p, &tile](uint32_t s) {
        return [&p, &tile, s](uint32_t thread, uint32_t threads) {
            pass_stage<kKind, true>(p, s, thread, threads, tile);
        };
    };
    const uint32_t quads = tile.size >> 2;
    const auto load = [&](uint32_t thread, uint32_t threads) { pass_load<kKind, kSeeded>(p, block, thread, threads, tile); };
    const auto stage_0 = [&](uint32_t thread, uint32_t threads) {
        pass_stage<kKind, false>(p, 0, thread, threads, tile);
    };
    const auto low_stages_in_tile = [&](uint32_t thread, uint32_t threads) {
        if (p.stage_count >= 2) {
            pass_stages_0_1<kKind>(p, thread, threads, quads, tile_read, tile_write);
        } else {
            stage_0(thread, threads);
        }
    };
    if (kKind == PassKind::dit) {
        if (p.stage_count >= 2) {
            run_step([&](uint32_t thread, uint32_t threads) {
                pass_stages_0_1<kKind>(p, thread, threads, quads, global_read, tile_write);
            }, true);
        } else {
            run_step(load, true);
            run_step(stage_0, true);
        }
        for (uint32_t s = 2; s < p.stage_count; ++s) run_step(stage(s), true);
    } else {
        run_step(load, true);
        for (uint32_t s = p.stage_count - 1; s >= 2; --s) run_step(stage(s), true);
        run_step(low_stages_in_tile, true);
    }
    run_step([&](uint32_t thread, uint32_t threads) { pass_store<kSeeded>(p, block, thread, threads, tile); }, false);
}

// A bit-reversal launch's work for one index: out[i] = data[bitrev(i)] with out =
// permuted_output, or in place when that is null (the thread for index i swaps i and
// bitrev(i) when i < bitrev(i), so each pair is handled exactly once).
template <class Fr>
ZKB_HOST_DEVICE inline void bit_reverse(const PassParams<Fr>& p, uint32_t index) {
    const uint32_t partner = reverse_bits(index, p.log_n);
    if (p.permuted_output != nullptr) {
        store_element(p.permuted_output + index, load_element(p.data + partner));
    } else if (index < partner) {
        const Fr value = load_element(p.data + index);
        store_element(p.data + index, load_element(p.data + partner));
        store_element(p.data + partner, value);
    }
}

// The element-wise launches' work for one index, on a transform's outputs (< r), fully
// reduced: data[i] = data[i] * quotient_b[i], or data[i] - quotient_b[i].
template <class Fr>
ZKB_HOST_DEVICE inline void pointwise_product(const PassParams<Fr>& p, uint32_t index) {
    store_element(p.data + index, load_element(p.data + index) * load_element(p.quotient_b + index));
}
template <class Fr>
ZKB_HOST_DEVICE inline void pointwise_difference(const PassParams<Fr>& p, uint32_t index) {
    store_element(p.data + index, load_element(p.data + index) - load_element(p.quotient_b + index));
}

// snarkjs's quotient ends here, on the coset (ntt_steps.hpp): permuted_output[i] =
// data[i] * quotient_b[i] - quotient_c[i], either operand left out where null, in
// canonical form. The destination may be quotient_b or quotient_c: each index is read
// before it is written.
template <class Fr>
ZKB_HOST_DEVICE inline void odd_coset_output(const PassParams<Fr>& p, uint32_t index) {
    Fr value = load_element(p.data + index);
    if (p.quotient_b != nullptr) value = value * load_element(p.quotient_b + index);
    if (p.quotient_c != nullptr) value = value - load_element(p.quotient_c + index);
    // The Montgomery product by the integer 1 (the element R^-1) leaves the plain integer.
    const Fr r_inverse{{1, 0, 0, 0}};
    store_element(p.permuted_output + index, value * r_inverse);
}

}  // namespace zkbatch::cuda::ntt
