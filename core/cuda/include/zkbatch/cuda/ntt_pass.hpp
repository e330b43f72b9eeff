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
// The first DIT pass and the last DIF pass have s0 = 0, hence b = 0 and no twist.
//
// A CUDA block loads 2^group_log groups (consecutive b, so a warp's loads are
// consecutive addresses) into shared memory, runs the k stages there with a barrier
// between stages, and writes the groups back.
#pragma once

#include <zkbatch/ff/fr.hpp>
#include <zkbatch/util/host_device.hpp>

#include <cstdint>

namespace zkbatch::cuda::ntt {

using ff::Fr;

// Tuning constants, each measured on the H200 (core/cuda/KERNEL-NOTES.md).
inline constexpr uint32_t kMaxStagesPerPass = 10;
inline constexpr uint32_t kTileLog = 11;  // the largest tile: 2^11 elements, 64 KiB of shared memory
// The backends' tiles: 2^10 elements (32 KiB) measured 1-3% faster than 2^11 on the H200
// at every size (core/cuda/KERNEL-NOTES.md).
inline constexpr uint32_t kDefaultTileLog = 10;
inline constexpr uint32_t kThreadsPerBlock = 256;
// Register budget: 4 blocks of 256 threads per SM means at most 64 registers per thread
// (the field multiplication wants ~66 unconstrained; 64 does not spill). Measured in
// core/cuda/KERNEL-NOTES.md.
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

// Global-memory element access; 16-byte vector loads/stores on the device.
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

ZKB_HOST_DEVICE ZKB_FORCEINLINE void store_element(Fr* element, const Fr& value) {
#if defined(__CUDA_ARCH__)
    ulonglong2* words = reinterpret_cast<ulonglong2*>(element);
    words[0] = make_ulonglong2(value.limbs[0], value.limbs[1]);
    words[1] = make_ulonglong2(value.limbs[2], value.limbs[3]);
#else
    *element = value;
#endif
}

// scale * base^e for every exponent e < 2^log_size, one table entry each: a lookup, not a
// multiplication, in the passes (the tables live once per domain and device).
// `negate` reads base^-e as base^((2^log_size - e) mod 2^log_size), which is right only
// when base is a root of unity of order 2^log_size: the forward and inverse twists
// share one table that way.
struct PowerTableView {
    const Fr* powers = nullptr;
    uint32_t log_size = 0;
    bool negate = false;

    ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr at(uint32_t exponent) const {
        const uint32_t mask = (1u << log_size) - 1;
        return load_element(powers + ((negate ? 0u - exponent : exponent) & mask));
    }
};

// scale * base^e from two small seed tables, lo[i] = base^i (i < 2^lo_bits) and
// hi[j] = scale * base^(j * 2^lo_bits): how a PowerTableView's entries are made.
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr power_from_seeds(const Fr* lo, const Fr* hi, uint32_t lo_bits, uint32_t exponent) {
    return load_element(lo + (exponent & ((1u << lo_bits) - 1))) * load_element(hi + (exponent >> lo_bits));
}

enum class PassKind : uint32_t { dit, dif };

// Everything one pass kernel needs; passed by value as the kernel parameter.
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
    PowerTableView twist;  // omega^e (omega^-e for inverse transforms), e < n
    // Fused into a DIF pass with first_stage 0 (the last one): the element that ends at
    // position p is multiplied by output_scale.at(bitrev(p)), the power of its
    // coefficient index (coset shift and 1/n of an inverse transform).
    bool scale_output = false;
    PowerTableView output_scale;
    // Fused into the first DIF pass of the quotient's final transform: the loaded value
    // x becomes (x * quotient_b - quotient_c) * quotient_factor, element-wise.
    const Fr* quotient_b = nullptr;
    const Fr* quotient_c = nullptr;
    Fr quotient_factor = Fr::zero();
    // For a bit-reversal launch: also convert to canonical form (bit_reverse_swap).
    bool canonical_output = false;

    ZKB_HOST_DEVICE uint32_t tile_log() const { return group_log + stage_count; }
    ZKB_HOST_DEVICE uint32_t block_count() const { return 1u << (log_n - tile_log()); }
    ZKB_HOST_DEVICE uint32_t threads_per_block() const {
        const uint32_t butterflies = 1u << (tile_log() - 1);
        return butterflies < kThreadsPerBlock ? butterflies : kThreadsPerBlock;
    }
    ZKB_HOST_DEVICE uint32_t shared_bytes() const { return (1u << tile_log()) * static_cast<uint32_t>(sizeof(Fr)); }
};

// A block's elements in shared memory, limb-major (all limb 0 words, then limb 1, ...),
// so consecutive threads touch consecutive 64-bit words: no bank conflicts.
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
ZKB_HOST_DEVICE ZKB_FORCEINLINE uint32_t element_index(const PassParams& p, uint32_t block, uint32_t g,
                                                        uint32_t t) {
    const uint32_t group = (block << p.group_log) | g;
    const uint32_t b = group & ((1u << p.first_stage) - 1);
    const uint32_t hi = group >> p.first_stage;
    return (hi << (p.first_stage + p.stage_count)) | (t << p.first_stage) | b;
}

// The twist of element t in a group with offset b: omega^(b * bitrev_k(t) * 2^(log_n - s0 - k)),
// i.e. w_(2^(s0+k))^(b * bitrev_k(t)).
ZKB_HOST_DEVICE ZKB_FORCEINLINE Fr twist_factor(const PassParams& p, uint32_t element, uint32_t t) {
    const uint32_t b = element & ((1u << p.first_stage) - 1);
    const uint32_t exponent = (b * reverse_bits(t, p.stage_count)) << (p.log_n - p.first_stage - p.stage_count);
    return p.twist.at(exponent);
}

// Step 1 of a pass: global memory -> tile (with the DIT twist and the quotient fusion).
// Thread `thread` of `threads` handles slots thread, thread + threads, ...; slot
// q = t * 2^group_log + g, so consecutive threads read consecutive b.
template <PassKind kKind>
ZKB_HOST_DEVICE inline void pass_load(const PassParams& p, uint32_t block, uint32_t thread, uint32_t threads,
                                      const Tile& tile) {
    const uint32_t group_mask = (1u << p.group_log) - 1;
    for (uint32_t slot = thread; slot < tile.size; slot += threads) {
        const uint32_t g = slot & group_mask;
        const uint32_t t = slot >> p.group_log;
        const uint32_t element = element_index(p, block, g, t);
        Fr value = load_element(p.data + element);
        if (p.quotient_b != nullptr) {
            value = (value * load_element(p.quotient_b + element) - load_element(p.quotient_c + element)) *
                    p.quotient_factor;
        }
        if (kKind == PassKind::dit && p.first_stage != 0) value = value * twist_factor(p, element, t);
        tile.set(slot, value);
    }
}

// Step 2, once per local stage (0..k-1 for DIT, k-1..0 for DIF), with a barrier
// between stages: butterflies on pairs (t, t + 2^stage) of every group in the tile.
template <PassKind kKind>
ZKB_HOST_DEVICE inline void pass_stage(const PassParams& p, uint32_t stage, uint32_t thread, uint32_t threads,
                                       const Tile& tile) {
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
        Fr v = tile.get(slot + pair_distance);
        // Stage 0's twiddle is 1; multiplying by one is exact, skipping it is faster.
        if (kKind == PassKind::dit) {
            if (stage != 0) v = v * load_element(p.stage_roots + ((j & low_mask) << root_shift));
            tile.set(slot, u + v);
            tile.set(slot + pair_distance, u - v);
        } else {
            Fr difference = u - v;
            if (stage != 0) difference = difference * load_element(p.stage_roots + ((j & low_mask) << root_shift));
            tile.set(slot, u + v);
            tile.set(slot + pair_distance, difference);
        }
    }
}

// Step 3: tile -> global memory (with the DIF twist and the output scaling).
template <PassKind kKind>
ZKB_HOST_DEVICE inline void pass_store(const PassParams& p, uint32_t block, uint32_t thread, uint32_t threads,
                                       const Tile& tile) {
    const uint32_t group_mask = (1u << p.group_log) - 1;
    for (uint32_t slot = thread; slot < tile.size; slot += threads) {
        const uint32_t g = slot & group_mask;
        const uint32_t t = slot >> p.group_log;
        const uint32_t element = element_index(p, block, g, t);
        Fr value = tile.get(slot);
        if (kKind == PassKind::dif && p.first_stage != 0) value = value * twist_factor(p, element, t);
        if (p.scale_output) value = value * p.output_scale.at(reverse_bits(element, p.log_n));
        store_element(p.data + element, value);
    }
}

// The bit-reversal permutation, in place: the thread for index i swaps i and
// bitrev(i) when i <= bitrev(i), so each pair is handled exactly once. With
// `to_canonical`, each element also leaves Montgomery form on the way (the limbs then
// hold the plain integer), so a result can leave the device as users see it.
ZKB_HOST_DEVICE inline void bit_reverse_swap(Fr* data, uint32_t log_n, uint32_t index, bool to_canonical) {
    const uint32_t partner = reverse_bits(index, log_n);
    if (index > partner) return;
    Fr value = load_element(data + index);
    if (to_canonical) value.to_canonical(value.limbs);
    if (partner == index) {
        if (to_canonical) store_element(data + index, value);
        return;
    }
    Fr other = load_element(data + partner);
    if (to_canonical) other.to_canonical(other.limbs);
    store_element(data + index, other);
    store_element(data + partner, value);
}

}  // namespace zkbatch::cuda::ntt
