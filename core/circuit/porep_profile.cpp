// The PoRep profile of the synthetic R1CS (core/circuit/porep_profile.hpp).
#include "core/circuit/porep_profile.hpp"

#include "core/ff/random.hpp"
#include "core/util/parallel.hpp"
#include "core/util/splitmix64.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace zkbatch::circuit {

namespace {

using ff::Fr;

constexpr uint64_t kPorepTag = 0x7a6b622d70726570ULL;  // "zkb-prep"
constexpr uint64_t kRowStream = 0;
constexpr size_t kHeaderSegments = 3;
constexpr size_t kChallenges = 18;
constexpr size_t kChallengeSegments = 2 * 30 + 2 * 14 + 1 + 2 * 11 + 1;
// A block's rows look back one block less than the window: check rows move a block's
// first variable back a little, and the setup's rounds of blocks window / block + 1
// apart must still touch disjoint variables (core/groth16/setup.cpp).
constexpr uint64_t kLookbackMarginBlocks = 1;

// round(share * count) for a share in [0, 1): exact, since share * 2^64 keeps every bit
// of the double; halves round up.
uint64_t rounded_share(double share, uint64_t count) {
    __extension__ typedef unsigned __int128 uint128;
    const uint128 scaled_share = static_cast<uint64_t>(std::ldexp(share, 64));
    return static_cast<uint64_t>((scaled_share * count + (uint128{1} << 63)) >> 64);
}

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument("porep profile: " + what); }

std::string share_text(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", share);
    return text;
}

}  // namespace

// Estimated lengths at 2^27 (docs/porep.md, "Placement"), in the order bellperson
// allocates them: StackedCircuit::synthesize, then Proof::synthesize per challenge.
const std::vector<PorepTemplateSegment>& porep_template() {
    static const std::vector<PorepTemplateSegment> segments = [] {
        std::vector<PorepTemplateSegment> out = {
            {true, 5},     // replica_id, comm_d, comm_r, comm_r_last, comm_c
            {false, 255},  // replica_id's bits
            {true, 311},   // comm_r = Poseidon-2(comm_c, comm_r_last)
        };
        for (size_t challenge = 0; challenge < kChallenges; ++challenge) {
            for (int level = 0; level < 30; ++level)  // comm_d: two SHA-256 compressions a level, then packing
                out.insert(out.end(), {{false, 45'000}, {true, 4}});
            for (int parent = 0; parent < 14; ++parent)  // 11 labels, Poseidon-11, a Poseidon-8 path of 10 levels
                out.insert(out.end(), {{true, 5'890}, {false, 30}});
            out.push_back({false, 64});  // the challenge as a UInt64
            for (int layer = 0; layer < 11; ++layer)  // parents' bits, SHA-256 of 20 blocks; the packed label
                out.insert(out.end(), {{false, 522'000}, {true, 1}});
            out.push_back({true, 11'171});  // encoding, comm_r_last's path, c_x's column hash, comm_c's path
        }
        return out;
    }();
    return segments;
}

// One row as synthesis and the matrices both read it.
struct PorepProfile::Row {
    enum class Kind : uint8_t { check, free_bit, not_bit, xor_bit, head, square, scale, last, input, padding };
    Kind kind = Kind::padding;
    uint64_t index = 0;
    uint64_t defined = 0;    // the variable the row defines
    uint64_t x = 0, y = 0;   // bit operands; a chain row's predecessor is x, an input row's input x
    uint64_t window[4] = {};
    Fr constant[5] = {};     // head: c0, c1..c4; square, scale: a, b; last: c, d
    uint64_t chain_length = 0;

    RowTerms terms() const {
        using M = Matrix;
        RowTerms t;
        const Fr one = Fr::one();
        switch (kind) {
            case Kind::check: t.add(M::a, 0, one), t.add(M::a, x, -one), t.add(M::b, x, one); break;
            case Kind::free_bit: t.add(M::a, 0, one), t.add(M::a, defined, -one), t.add(M::b, defined, one); break;
            case Kind::not_bit: t.add(M::a, defined, one), t.add(M::b, 0, one), t.add(M::c, 0, one), t.add(M::c, y, -one); break;
            case Kind::xor_bit:
                t.add(M::a, x, one + one), t.add(M::b, y, one);
                t.add(M::c, x, one), t.add(M::c, y, one), t.add(M::c, defined, -one);
                break;
            case Kind::head:
                t.add(M::a, defined, one), t.add(M::b, 0, one), t.add(M::c, 0, constant[0]);
                for (int i = 0; i < 4; ++i) t.add(M::c, window[i], constant[i + 1]);
                break;
            case Kind::square:
                t.add(M::a, x, one), t.add(M::a, 0, constant[0]), t.add(M::b, x, one), t.add(M::b, 0, constant[1]);
                t.add(M::c, defined, one);
                break;
            case Kind::scale:
                t.add(M::a, x, one), t.add(M::a, 0, constant[0]), t.add(M::b, 0, constant[1]), t.add(M::c, defined, one);
                break;
            case Kind::last: t.add(M::a, defined, one), t.add(M::a, x, -constant[0]), t.add(M::b, 0, one), t.add(M::c, 0, constant[1]); break;
            case Kind::input: t.add(M::a, x, one); break;
            case Kind::padding: break;
        }
        return t;
    }

    bool is_bit_row() const {
        return kind == Kind::check || kind == Kind::free_bit || kind == Kind::not_bit || kind == Kind::xor_bit;
    }

    // A bit or check row: the value it defines (a free bit's comes from the witness) and
    // its sums, written out as the elements its terms sum to, without a branch on each
    // random bit.
    static void make_bit_row(Kind kind, uint64_t index, uint64_t defined, uint64_t x, uint64_t y, Fr* z, Fr* a, Fr* b,
                             Fr* c) {
        const Fr one = Fr::one();
        switch (kind) {
            case Kind::check:
                a[index] = one - z[x], b[index] = z[x], c[index] = Fr::zero();
                break;
            case Kind::free_bit:
                a[index] = one - z[defined], b[index] = z[defined], c[index] = Fr::zero();
                break;
            case Kind::not_bit:
                z[defined] = one - z[y];
                a[index] = z[defined], b[index] = one, c[index] = z[defined];
                break;
            case Kind::xor_bit:
                z[defined] = z[x] + z[y] - (z[x] * z[y] + z[x] * z[y]);
                a[index] = z[x] + z[x], b[index] = z[y], c[index] = z[x] + z[y] - z[defined];
                break;
            default:
                break;
        }
    }

    // A cluster row's value, from the earlier ones (bit rows: make_bit_row).
    void define(Fr* z) const {
        switch (kind) {
            case Kind::head: {
                Fr sum = constant[0];
                for (int i = 0; i < 4; ++i) sum += constant[i + 1] * z[window[i]];
                z[defined] = sum;
                break;
            }
            case Kind::square: z[defined] = (z[x] + constant[0]) * (z[x] + constant[1]); break;
            case Kind::scale: z[defined] = (z[x] + constant[0]) * constant[1]; break;
            case Kind::last: z[defined] = constant[1] + constant[0] * z[x]; break;
            default: break;
        }
    }
};

PorepProfile::PorepProfile(uint32_t log_n, uint64_t public_inputs, double bit_share, uint64_t seed,
                           uint64_t block_rows, uint64_t window_variables)
    : log_n_(log_n), public_inputs_(public_inputs), block_rows_(block_rows),
      lookback_(window_variables - kLookbackMarginBlocks * block_rows) {
    if (!(bit_share >= kPorepMinBitShare && bit_share <= 1.0))
        refuse("circuit.boolean_share = " + share_text(bit_share) + " is outside " + share_text(kPorepMinBitShare) +
               "..1 (the share of private variables that are bits; by default the estimate " +
               share_text(kPorepBitShare) + ")");
    PorepCounts& k = counts_;
    k.constraint_rows = porep_constraint_rows(log_n);
    k.aux = porep_scaled(kPorepPublishedAux, log_n);
    k.check_rows = k.constraint_rows - k.aux;
    k.public_inputs = public_inputs;
    k.rows = k.constraint_rows + public_inputs + 1;
    k.variables = public_inputs + 1 + k.aux;
    const uint64_t n = uint64_t{1} << log_n;
    if (k.rows > n)
        refuse("circuit.public_inputs = " + std::to_string(public_inputs) + " does not fit 2^" + std::to_string(log_n) +
               " rows beside the profile's " + std::to_string(k.constraint_rows) + " constraint rows (at most " +
               std::to_string(k.constraint_rows < n ? n - k.constraint_rows - 1 : 0) + ")");
    k.bit_valued = bit_share == 1.0 ? k.aux : rounded_share(bit_share, k.aux);
    lay_out_segments();
    count_kinds(bit_share);
    rows_key_ = util::derive_key(util::derive_key(util::derive_key(kPorepTag, seed), kPorepFormatVersion), kRowStream);
    find_candidates();
    order_clusters();
}

// Each kind's total spread over its template segments in proportion to their lengths.
void PorepProfile::lay_out_segments() {
    PorepCounts& k = counts_;
    const uint64_t full = k.aux - k.bit_valued;
    const std::vector<PorepTemplateSegment>& plan = porep_template();
    uint64_t template_total[2] = {0, 0}, template_prefix[2] = {0, 0};
    for (const PorepTemplateSegment& segment : plan) template_total[segment.full] += segment.length;
    const uint64_t target[2] = {k.bit_valued, full};
    uint64_t first = 0, bits_before = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
        if (i >= kHeaderSegments && (i - kHeaderSegments) % kChallengeSegments == 0) challenge_starts_.push_back(first);
        const bool is_full = plan[i].full;
        const uint64_t begin = target[is_full] * template_prefix[is_full] / template_total[is_full];
        template_prefix[is_full] += plan[i].length;
        const uint64_t length = target[is_full] * template_prefix[is_full] / template_total[is_full] - begin;
        if (length == 0) continue;
        segments_.push_back({first, length, is_full, bits_before});
        if (is_full) {
            k.full_in_a_and_b += (length - 1) / 2;
        } else {
            bit_segment_index_.push_back(segments_.size() - 1);
            bits_before += length;
        }
        first += length;
    }
}

// How many private variables of each kind make the published densities.
void PorepProfile::count_kinds(double bit_share) {
    PorepCounts& k = counts_;
    const uint64_t full = k.aux - k.bit_valued;
    const uint32_t log_n = log_n_;
    k.full_in_a = full - k.full_in_a_and_b;
    const uint64_t published_in_a = porep_scaled(kPorepPublishedAuxInA, log_n);
    const uint64_t published_in_b = porep_scaled(kPorepPublishedAuxInB, log_n);
    k.xor_bits = k.aux - published_in_a;
    if (k.full_in_a_and_b > published_in_b || k.xor_bits + published_in_b - k.full_in_a_and_b > k.bit_valued)
        refuse("circuit.boolean_share = " + share_text(bit_share) + " leaves " + std::to_string(full) +
               " full-size values, more than the profile's private variables in B (" + std::to_string(published_in_b) +
               " at 2^" + std::to_string(log_n) + ") allow; raise it");
    k.free_bits = published_in_b - k.full_in_a_and_b;
    k.not_bits = k.bit_valued - k.free_bits - k.xor_bits;
    k.aux_in_a = k.free_bits + k.not_bits + full;
    k.aux_in_b = k.free_bits + k.full_in_a_and_b;
}

// Each block's candidates: the free bits just before its first variable, nearest first.
void PorepProfile::find_candidates() {
    const PorepCounts& k = counts_;
    const uint64_t block_rows = block_rows_, public_inputs = public_inputs_;
    const uint64_t blocks = (k.constraint_rows + block_rows - 1) / block_rows;
    candidates_.assign(blocks * kPorepCandidates, 0);
    candidate_counts_.assign(blocks, 1);
    for (uint64_t block = 0; block < blocks; ++block) {
        const uint64_t end = first_aux_of_block(block * block_rows);
        const uint64_t lowest = end > lookback_ ? end - lookback_ : 0;
        uint64_t bits_below = k.bit_valued;  // bit-valued aux before `end`
        if (end < k.aux) {
            const PorepSegment& segment = segment_of(end);
            bits_below = segment.bits_before + (segment.full ? 0 : end - segment.first);
        }
        uint64_t* slots = &candidates_[block * kPorepCandidates];
        uint8_t found = 0;
        if (k.free_bits > 0) {
            // The free bit of rank f has bit ordinal ceil((f + 1) Nb / Nf) - 1.
            for (uint64_t rank = bits_below * k.free_bits / k.bit_valued; rank-- > 0 && found < kPorepCandidates;) {
                const uint64_t aux = aux_of_bit(((rank + 1) * k.bit_valued + k.free_bits - 1) / k.free_bits - 1);
                if (aux < lowest) break;
                slots[found++] = public_inputs + 1 + aux;
            }
        }
        candidate_counts_[block] = std::max<uint8_t>(found, 1);  // none: z_0 = 1, a bit in A and B
    }
}

// Each cluster's head row, grouped by level: a full value in a head's window is an
// earlier cluster's, which must be complete before the head is made.
void PorepProfile::order_clusters() {
    std::vector<uint32_t> level_of(segments_.size(), 0);  // by segment
    std::vector<std::pair<uint32_t, uint64_t>> heads;     // (level, head row)
    for (size_t s = 0; s < segments_.size(); ++s) {
        if (!segments_[s].full) continue;
        const Row head = describe(row_of_aux(segments_[s].first));
        for (const uint64_t variable : head.window) {
            if (variable <= public_inputs_) continue;
            const PorepSegment& read = segment_of(variable - public_inputs_ - 1);
            if (read.full) level_of[s] = std::max(level_of[s], level_of[&read - segments_.data()] + 1);
        }
        heads.emplace_back(level_of[s], head.index);
    }
    std::stable_sort(heads.begin(), heads.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    level_starts_.assign(1, 0);
    for (size_t i = 0; i < heads.size(); ++i) {
        if (i > 0 && heads[i].first != heads[i - 1].first) level_starts_.push_back(i);
        cluster_heads_.push_back(heads[i].second);
    }
    level_starts_.push_back(heads.size());
}

// The row that defines `aux`: row r defines aux r - floor(r K / C) unless it is a check row.
uint64_t PorepProfile::row_of_aux(uint64_t aux) const {
    const uint64_t checks = counts_.check_rows, constraints = counts_.constraint_rows;
    uint64_t low = aux, high = aux + checks + 1;  // the first row with at least `aux` aux before it
    while (low < high) {
        const uint64_t middle = low + (high - low) / 2;
        if (middle - middle * checks / constraints < aux) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    while (is_check_row(low)) ++low;
    return low;
}

const PorepSegment& PorepProfile::segment_of(uint64_t aux) const {
    const auto after = std::upper_bound(segments_.begin(), segments_.end(), aux,
                                        [](uint64_t value, const PorepSegment& s) { return value < s.first; });
    return *(after - 1);
}

uint64_t PorepProfile::aux_of_bit(uint64_t bit) const {
    const auto after = std::upper_bound(bit_segment_index_.begin(), bit_segment_index_.end(), bit,
                                        [this](uint64_t value, uint64_t index) {
                                            return value < segments_[index].bits_before;
                                        });
    const PorepSegment& segment = segments_[*(after - 1)];
    return segment.first + (bit - segment.bits_before);
}

PorepAux PorepProfile::aux_kind(uint64_t aux) const { return kind_in(segment_of(aux), aux); }

PorepAux PorepProfile::kind_in(const PorepSegment& segment, uint64_t aux) const {
    if (segment.full) {
        const uint64_t offset = aux - segment.first;
        return offset % 2 == 0 && offset + 3 <= segment.length ? PorepAux::full_in_a_and_b : PorepAux::full_in_a;
    }
    const uint64_t bits = counts_.bit_valued, free_bits = counts_.free_bits;
    const uint64_t ordinal = segment.bits_before + (aux - segment.first);
    const uint64_t free_before = ordinal * free_bits / bits;
    if ((ordinal + 1) * free_bits / bits > free_before) return PorepAux::free_bit;
    const uint64_t other = ordinal - free_before, others = bits - free_bits;
    const uint64_t xor_bits = counts_.xor_bits;
    return (other + 1) * xor_bits / others > other * xor_bits / others ? PorepAux::xor_bit : PorepAux::not_bit;
}

bool PorepProfile::is_check_row(uint64_t row) const {
    const uint64_t checks = counts_.check_rows, constraints = counts_.constraint_rows;
    return (row + 1) * checks / constraints > row * checks / constraints;
}

uint64_t PorepProfile::first_aux_of_block(uint64_t row) const {
    const uint64_t first_row = row / block_rows_ * block_rows_;
    return first_row - first_row * counts_.check_rows / counts_.constraint_rows;
}

PorepProfile::Row PorepProfile::describe(uint64_t index) const {
    Row row;
    row.index = index;
    const uint64_t constraints = counts_.constraint_rows;
    if (index >= constraints) {
        row.x = index - constraints;
        row.kind = row.x <= public_inputs_ ? Row::Kind::input : Row::Kind::padding;
        return row;
    }
    util::SplitMix64 stream(util::derive_key(rows_key_, index));
    const uint64_t block = index / block_rows_;
    const uint64_t* candidates = &candidates_[block * kPorepCandidates];
    const uint64_t candidate_count = candidate_counts_[block];
    auto candidate = [&] { return candidates[stream.next() % candidate_count]; };
    if (is_check_row(index)) {
        row.kind = Row::Kind::check;
        row.x = candidate();
        return row;
    }
    const uint64_t aux = index - index * counts_.check_rows / constraints;
    row.defined = public_inputs_ + 1 + aux;
    const PorepSegment& segment = segment_of(aux);
    if (!segment.full) {
        switch (kind_in(segment, aux)) {
            case PorepAux::free_bit: row.kind = Row::Kind::free_bit; break;
            case PorepAux::not_bit:
                row.kind = Row::Kind::not_bit;
                row.y = candidate();
                break;
            default:
                row.kind = Row::Kind::xor_bit;
                row.x = candidate();
                row.y = candidate();
                break;
        }
        return row;
    }
    const uint64_t offset = aux - segment.first;
    row.chain_length = segment.length;
    if (offset == 0) {
        row.kind = Row::Kind::head;
        row.constant[0] = ff::uniform_fr(stream);
        const uint64_t end = public_inputs_ + 1 + first_aux_of_block(index);
        const uint64_t begin = end > lookback_ ? end - lookback_ : 0;
        for (int i = 0; i < 4; ++i) {
            row.window[i] = begin + stream.next() % (end - begin);
            row.constant[i + 1] = ff::uniform_fr(stream);
        }
        return row;
    }
    row.x = row.defined - 1;
    row.kind = offset == segment.length - 1 ? Row::Kind::last
               : (offset - 1) % 2 == 0      ? Row::Kind::square
                                            : Row::Kind::scale;
    row.constant[0] = ff::uniform_fr(stream);
    row.constant[1] = ff::uniform_fr(stream);
    return row;
}

RowTerms PorepProfile::row_terms(uint64_t row) const { return describe(row).terms(); }

void PorepProfile::evaluate(const Row& row, Fr* z, Fr* a, Fr* b, Fr* c) const {
    if (row.is_bit_row()) return Row::make_bit_row(row.kind, row.index, row.defined, row.x, row.y, z, a, b, c);
    row.define(z);
    Fr sums[3] = {Fr::zero(), Fr::zero(), Fr::zero()};
    const RowTerms terms = row.terms();
    for (uint32_t k = 0; k < terms.count; ++k)
        add_term(sums[static_cast<int>(terms.terms[k].matrix)], terms.terms[k].coefficient, z[terms.terms[k].variable]);
    a[row.index] = sums[0];
    b[row.index] = sums[1];
    c[row.index] = sums[2];
}

// The bit and check rows of constraint rows [first, last), as describe() and evaluate()
// make them, walked in order: which rows are check rows, which aux a row defines, its
// segment and its kind of bit follow from counts carried from row to row (floor(t N / D)
// as a quotient and a remainder), not from divisions and a search each row.
void PorepProfile::make_bit_rows(uint64_t first, uint64_t last, Fr* z, Fr* a, Fr* b, Fr* c) const {
    const PorepCounts& k = counts_;
    const uint64_t checks = k.check_rows, constraints = k.constraint_rows;
    const uint64_t bits = k.bit_valued, free_bits = k.free_bits, others = bits - free_bits, xor_bits = k.xor_bits;
    // Row r is a check row iff (r K mod C) + K >= C; it defines aux r - floor(r K / C) otherwise.
    uint64_t checks_before = first * checks / constraints, check_rest = first * checks - checks_before * constraints;
    // Bit ordinal t is a free bit iff (t Nf mod Nb) + Nf >= Nb; the u-th other bit an xor bit
    // iff (u Nx mod (Nb - Nf)) + Nx >= Nb - Nf.
    size_t segment = static_cast<size_t>(&segment_of(first - checks_before) - segments_.data());
    const PorepSegment& start = segments_[segment];
    const uint64_t ordinal = start.bits_before + (start.full ? 0 : first - checks_before - start.first);
    uint64_t free_rest = ordinal * free_bits % bits;
    const uint64_t other = ordinal - ordinal * free_bits / bits;
    uint64_t xor_rest = others == 0 ? 0 : other * xor_bits % others;
    for (uint64_t index = first; index < last; ++index) {
        const bool check = check_rest + checks >= constraints;
        const uint64_t aux = index - checks_before;
        check_rest += checks;
        if (check) check_rest -= constraints, ++checks_before;
        if (!check) {
            while (aux >= segments_[segment].first + segments_[segment].length) ++segment;
            if (segments_[segment].full) continue;  // a cluster's row: made after every bit
        }
        const uint64_t defined = public_inputs_ + 1 + aux;
        Row::Kind kind = Row::Kind::check;
        if (!check) {
            kind = free_rest + free_bits >= bits ? Row::Kind::free_bit : Row::Kind::not_bit;
            free_rest += free_bits;
            if (free_rest >= bits) free_rest -= bits;
            if (kind == Row::Kind::not_bit) {
                if (xor_rest + xor_bits >= others) kind = Row::Kind::xor_bit;
                xor_rest += xor_bits;
                if (xor_rest >= others) xor_rest -= others;
            }
        }
        if (kind == Row::Kind::free_bit) {  // draws nothing from the row's stream
            Row::make_bit_row(kind, index, defined, 0, 0, z, a, b, c);
            continue;
        }
        util::SplitMix64 stream(util::derive_key(rows_key_, index));
        const uint64_t block = index / block_rows_;
        const uint64_t* candidates = &candidates_[block * kPorepCandidates];
        const uint64_t candidate_count = candidate_counts_[block];
        const uint64_t x = kind == Row::Kind::not_bit ? 0 : candidates[stream.next() % candidate_count];
        const uint64_t y = kind == Row::Kind::check ? 0 : candidates[stream.next() % candidate_count];
        Row::make_bit_row(kind, index, defined, x, y, z, a, b, c);
    }
}

void PorepProfile::synthesize(uint64_t witness_key, Fr* z, Fr* a, Fr* b, Fr* c, unsigned threads) const {
    const PorepCounts& k = counts_;
    // The free bits, by rank: the one of rank f has bit ordinal ceil((f + 1) Nb / Nf) - 1.
    util::parallel_for(0, k.free_bits, threads, [&](size_t begin, size_t end) {
        for (uint64_t rank = begin; rank < end; ++rank) {
            const uint64_t variable =
                public_inputs_ + 1 + aux_of_bit(((rank + 1) * k.bit_valued + k.free_bits - 1) / k.free_bits - 1);
            util::SplitMix64 stream(util::derive_key(witness_key, variable));
            z[variable] = (stream.next() & 1) != 0 ? Fr::one() : Fr::zero();
        }
    });
    // Then every bit and check row: they read free bits alone.
    util::parallel_for(0, k.constraint_rows, threads,
                       [&](size_t begin, size_t end) { make_bit_rows(begin, end, z, a, b, c); });
    // Then the clusters, a level at a time, each one's chain in order by one thread: a
    // head reads bits and the clusters of lower levels.
    for (size_t level = 0; level + 1 < level_starts_.size(); ++level) {
        std::atomic<size_t> next{level_starts_[level]};
        const size_t end = level_starts_[level + 1];
        const auto workers = static_cast<unsigned>(std::min<size_t>(std::max(1u, threads), end - next.load()));
        util::parallel_for(0, workers, workers, [&](size_t, size_t) {
            for (size_t cluster; (cluster = next.fetch_add(1)) < end;) {
                uint64_t index = cluster_heads_[cluster];
                const Row head = describe(index);
                evaluate(head, z, a, b, c);
                for (uint64_t offset = 1; offset < head.chain_length; ++offset) {
                    do ++index;
                    while (is_check_row(index));  // check rows inside the cluster are made above
                    evaluate(describe(index), z, a, b, c);
                }
            }
        });
    }
    for (uint64_t index = k.constraint_rows; index < k.rows; ++index) evaluate(describe(index), z, a, b, c);
    util::parallel_for(k.rows, uint64_t{1} << log_n_, threads, [&](size_t begin, size_t end) {
        std::fill(a + begin, a + end, Fr::zero());
        std::fill(b + begin, b + end, Fr::zero());
        std::fill(c + begin, c + end, Fr::zero());
    });
}

}  // namespace zkbatch::circuit
