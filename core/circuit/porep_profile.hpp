// The PoRep profile of the synthetic R1CS (circuit.profile = "porep"): the shape of one
// Filecoin 32 GiB PoRep partition, rebuilt from published facts (docs/porep.md lists
// each with its source) and scaled to 2^log_n rows.
//
// Counts, for porep_scaled(x) = floor((x * 2^log_n + 2^26) / 2^27), exact at 2^27:
//   constraint rows  C = porep_scaled(130,278,541), the published 130,278,869 less its input rows
//   private (aux)    V = porep_scaled(130,169,893)
//   aux in A         porep_scaled(129,753,292); aux in B: porep_scaled(33,112,281)
//   bit-valued aux   round(share * V) (share = circuit.boolean_share, by default the
//                    estimate kPorepBitShare); the other F aux are full-size values
// Variables are z_0 = 1, the l public inputs, then aux index k is z_(l+1+k): m = l + 1 + V.
// Rows: the C constraint rows, then the l + 1 input rows (A = {i: 1}), then zero padding
// up to 2^log_n, as bellperson lays them out.
//
// Placement of the aux, in synthesis order: the template porep_template() lists segments
// of bit-valued runs and full-size clusters with their estimated lengths at 2^27 (a
// header, then 18 challenges: 30 comm_d SHA-256 levels, 14 parent-column Poseidon
// clusters, the challenge's 64 bits, 11 SHA-256 labels, the comm_r_last/comm_c paths).
// The F full-size values are spread over the clusters and the V - F bits over the runs in
// proportion to their template lengths: segment i of a kind ends at
// floor(total * (template lengths up to i) / (template total)); empty segments vanish.
//
// Kinds of aux and their rows (x, y: free bits from the block's candidates, below):
//   free bit     drawn by the witness; (1 - z) * z = 0                 A, B
//   not bit      z = 1 - y: z * 1 = 1 - y                              A
//   xor bit      z = x XOR y, bellperson's (2x) * y = x + y - z        neither
//   full values  a chain per cluster: the head z = c0 + sum c_i w_i (z * 1 = C, w_i from
//                the block's window); then z = (p + a)(p + b) of its predecessor p where
//                p's offset in the cluster is even, z = (p + a) * b where odd; the last
//                z = d + c p ((z - c p) * 1 = d). So p is in A and B after a square, in A
//                otherwise: offset o of a cluster of L is in A and B iff o is even and
//                o <= L - 3; every full value is in A.
// Bits by their ordinal t among bits: t is a free bit iff floor((t+1) Nf / Nb) >
// floor(t Nf / Nb) (Nf = aux in B less the full values in A and B, Nb = V - F); the u-th
// other bit (u = t - floor(t Nf / Nb)) is an xor bit iff floor((u+1) Nx / (Nb - Nf)) >
// floor(u Nx / (Nb - Nf)) (Nx = V - aux in A), else a not bit.
// Check rows: the K = C - V constraint rows j with floor((j+1) K / C) > floor(j K / C)
// define nothing and check a candidate x: (1 - x) * x = 0. Row j otherwise defines aux
// j - floor(j K / C).
//
// Parallel synthesis, as in the uniform profile: rows are cut into blocks of block_rows;
// a block's first aux is E = b R - floor(b R K / C). Its candidates are the last (at
// most kPorepCandidates) free bits with aux index in [E - lookback, E), nearest first
// (z_0 = 1 where there is none); a head's window is the variables
// [max(0, l + 1 + E - lookback), l + 1 + E), lookback = 3 blocks. Free bits are drawn
// first, so every row of a block reads only values made before the block, except a
// chain, which the head's thread makes in order. Synthesis does not wait block by block:
// the bit and check rows read free bits alone, so it makes all of them at once, then the
// clusters level by level (a cluster's level is one more than the highest among the
// clusters its head's window reads, 0 where the window holds no full value).
//
// Streams: the row key is derive(derive(derive(kPorepTag, seed), format version), 0);
// row j draws from derive(row key, j): a check row a word for x (its residue modulo the
// candidate count); a not bit one for y; an xor bit x then y; a head c0 (ff::uniform_fr)
// then four times a word for w_i (modulo the window's size) and c_i; a square or scale
// a then b; the last c then d. Witness: the uniform profile's streams (public inputs,
// and a free bit z_v is the lowest bit of the first word of variable v's stream).
// Changing any of this changes every PoRep-profile circuit: the tests freeze known
// answers that an independent model computes (tools/models/synthetic_r1cs.py).
#pragma once

#include "core/circuit/synthetic_r1cs.hpp"
#include "core/ff/fr.hpp"

#include <cstdint>
#include <vector>

namespace zkbatch::circuit {

// Published facts of one 32 GiB PoRep partition (StackedDrg32GiBV1_1), at 2^27 rows.
inline constexpr uint32_t kPorepLogN = 27;
inline constexpr uint64_t kPorepPublishedRows = 130'278'869;  // with the 328 input rows
inline constexpr uint64_t kPorepPublishedInputs = 328;        // IC length: the constant and 327 public inputs
inline constexpr uint64_t kPorepPublishedAux = 130'169'893;
inline constexpr uint64_t kPorepPublishedAuxInA = 129'753'292;  // bellperson's a_aux_density popcount
inline constexpr uint64_t kPorepPublishedAuxInB = 33'112'281;   // b_aux_density popcount
inline constexpr uint32_t kPorepPublicInputs = kPorepPublishedInputs - 1;
// ESTIMATED share of bit-valued aux (no published count): 1,688,032 of the 130,169,893
// aux full-size at 2^27, the template's clusters. circuit.boolean_share overrides it.
inline constexpr double kPorepBitShare = 0.987032085829555;
// Below it, the full values in A and B (about half the full values) could exceed B's count.
inline constexpr double kPorepMinBitShare = 0.5;
inline constexpr uint32_t kPorepCandidates = 32;
// Of the template, the streams and the row shapes; part of the description.
inline constexpr uint64_t kPorepFormatVersion = 1;

// A count published at 2^27, scaled to 2^log_n and rounded half up: exact at 2^27.
constexpr uint64_t porep_scaled(uint64_t published, uint32_t log_n) {
    return ((published << log_n) + (uint64_t{1} << 26)) >> kPorepLogN;
}
// The constraint rows (without the input rows) of the profile at 2^log_n. Inline: the
// manifest's validator needs it without the proving code (a fuzzing build has none).
constexpr uint64_t porep_constraint_rows(uint32_t log_n) {
    return porep_scaled(kPorepPublishedRows - kPorepPublishedInputs, log_n);
}

// A template segment: `length` aux at 2^27 (estimated), bit-valued or full-size.
struct PorepTemplateSegment {
    bool full;
    uint64_t length;
};
const std::vector<PorepTemplateSegment>& porep_template();

// A segment of one circuit: aux [first, first + length), all bits or all full values.
struct PorepSegment {
    uint64_t first, length;
    bool full;
    uint64_t bits_before;  // bit-valued aux before `first`
};

enum class PorepAux : uint8_t { free_bit, not_bit, xor_bit, full_in_a_and_b, full_in_a };

// What the profile reproduces at its size; computed from the layout, not from the rows.
struct PorepCounts {
    uint64_t constraint_rows = 0;  // C, without the input rows
    uint64_t check_rows = 0;       // constraint rows that define no variable
    uint64_t rows = 0;             // C + l + 1; the rest of 2^log_n is zero padding
    uint64_t public_inputs = 0;    // l
    uint64_t aux = 0;              // V
    uint64_t variables = 0;        // m = l + 1 + V
    uint64_t aux_in_a = 0, aux_in_b = 0, bit_valued = 0;
    uint64_t free_bits = 0, not_bits = 0, xor_bits = 0, full_in_a_and_b = 0, full_in_a = 0;
};

class PorepProfile {
public:
    // Throws std::invalid_argument, naming the manifest key, for a shape the profile
    // cannot make (rows that do not fit 2^log_n, a share below kPorepMinBitShare).
    PorepProfile(uint32_t log_n, uint64_t public_inputs, double bit_share, uint64_t seed, uint64_t block_rows,
                 uint64_t window_variables);

    const PorepCounts& counts() const { return counts_; }
    const std::vector<PorepSegment>& segments() const { return segments_; }
    PorepAux aux_kind(uint64_t aux) const;
    // The first aux of each of the 18 challenges.
    const std::vector<uint64_t>& challenge_starts() const { return challenge_starts_; }

    RowTerms row_terms(uint64_t row) const;
    // After the constant and the public inputs are in z: the rest of z, and a, b, c.
    void synthesize(uint64_t witness_key, ff::Fr* z, ff::Fr* a, ff::Fr* b, ff::Fr* c, unsigned threads) const;

private:
    struct Row;
    // The constructor's steps, in order, once the row and aux counts are known.
    void lay_out_segments();
    void count_kinds(double bit_share);
    void find_candidates();
    void order_clusters();
    Row describe(uint64_t row) const;
    uint64_t row_of_aux(uint64_t aux) const;
    bool is_check_row(uint64_t row) const;
    uint64_t first_aux_of_block(uint64_t row) const;
    const PorepSegment& segment_of(uint64_t aux) const;
    PorepAux kind_in(const PorepSegment& segment, uint64_t aux) const;
    uint64_t aux_of_bit(uint64_t bit) const;
    void evaluate(const Row& row, ff::Fr* z, ff::Fr* a, ff::Fr* b, ff::Fr* c) const;
    void make_bit_rows(uint64_t first, uint64_t last, ff::Fr* z, ff::Fr* a, ff::Fr* b, ff::Fr* c) const;

    uint32_t log_n_;
    uint64_t public_inputs_;
    uint64_t rows_key_;
    uint64_t block_rows_, lookback_;
    PorepCounts counts_;
    std::vector<PorepSegment> segments_;
    std::vector<uint64_t> challenge_starts_;
    std::vector<uint64_t> bit_segment_index_;    // indices of segments_ that hold bits
    std::vector<uint64_t> candidates_;           // kPorepCandidates slots per block
    std::vector<uint8_t> candidate_counts_;      // per block, at least 1
    // The clusters' head rows by level (order_clusters): level l's are
    // cluster_heads_[level_starts_[l] .. level_starts_[l + 1]).
    std::vector<uint64_t> cluster_heads_;
    std::vector<size_t> level_starts_;
};

}  // namespace zkbatch::circuit
