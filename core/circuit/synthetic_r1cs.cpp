// The synthetic R1CS (core/circuit/synthetic_r1cs.hpp).
#include "core/circuit/synthetic_r1cs.hpp"

#include "core/circuit/porep_profile.hpp"
#include "core/util/parallel.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace zkbatch::circuit {

namespace {

constexpr uint64_t kR1csTag = 0x7a6b622d72316373ULL;     // "zkb-r1cs"
constexpr uint64_t kWitnessTag = 0x7a6b622d7769746eULL;  // "zkb-witn"
constexpr uint64_t kFormatVersion = 1;  // of the streams and layout; part of the description
constexpr uint64_t kRowStream = 0;

// Blocks of 2^(log_n - 6) rows, at most 2^16 (so at least 64 blocks), and a window of
// four blocks: enough rows per block to split over threads, few enough blocks that the
// first one (which can only reference z_0..z_l) is a small part of the circuit.
constexpr uint32_t kBlocksLog = 6;
constexpr uint32_t kMaxBlockRowsLog = 16;
constexpr uint64_t kWindowBlocks = 4;

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument("synthetic circuit: " + what); }

}  // namespace

SyntheticR1cs::SyntheticR1cs(const R1csShape& shape) : shape_(shape) {
    if (shape.log_n < 1 || shape.log_n > 28)
        refuse("circuit.log_n = " + std::to_string(shape.log_n) + " is outside 1..28");
    const uint32_t block_log = std::min(kMaxBlockRowsLog, shape.log_n > kBlocksLog ? shape.log_n - kBlocksLog : 0u);
    block_rows_ = uint64_t{1} << block_log;
    window_variables_ = kWindowBlocks * block_rows_;
    if (shape.profile == R1csProfile::porep) {
        if (shape.curve != curve::CurveId::bls12_381)
            refuse("circuit.profile = \"porep\" is BLS12-381's alone; give circuit.curve = \"bls12-381\"");
        porep_ = std::make_shared<const PorepProfile>(shape.log_n, shape.public_inputs, shape.boolean_share, shape.seed,
                                                      block_rows_, window_variables_);
        return;
    }
    if (shape.terms_per_row < 1) refuse("circuit.terms_per_row must be at least 1");
    if (shape.public_inputs > rows() - 1)
        refuse("circuit.public_inputs = " + std::to_string(shape.public_inputs) + " does not fit 2^" +
               std::to_string(shape.log_n) + " rows with its input rows (at most " + std::to_string(rows() - 1) + ")");
    if (!(shape.boolean_share >= 0.0 && shape.boolean_share <= 1.0))
        refuse("circuit.boolean_share = " + std::to_string(shape.boolean_share) + " is outside 0..1");
    all_boolean_ = shape.boolean_share == 1.0;
    // Exact: scaling by 2^64 keeps every bit of the double, the conversion truncates.
    boolean_threshold_ = all_boolean_ ? 0 : static_cast<uint64_t>(std::ldexp(shape.boolean_share, 64));
    rows_key_ = util::derive_key(util::derive_key(util::derive_key(kR1csTag, shape.seed), kFormatVersion), kRowStream);
}

uint64_t SyntheticR1cs::row_key(uint64_t row) const { return util::derive_key(rows_key_, row); }

uint64_t SyntheticR1cs::variables() const { return porep_ ? porep_->counts().variables : rows(); }

uint64_t SyntheticR1cs::constraint_rows() const {
    return porep_ ? porep_->counts().constraint_rows : rows() - shape_.public_inputs - 1;
}

RowTerms SyntheticR1cs::porep_row_terms(uint64_t row) const { return porep_->row_terms(row); }

template <class Fr>
void SyntheticR1cs::synthesize(uint64_t job_seed, uint64_t partition_index, Fr* z, Fr* a, Fr* b, Fr* c,
                               unsigned threads) const {
    const uint64_t inputs = public_inputs();
    const uint64_t constraints = constraint_rows();
    const uint64_t witness_key = util::derive_key(util::derive_key(kWitnessTag, job_seed), partition_index);
    auto witness_stream = [witness_key](uint64_t variable) {
        return util::SplitMix64(util::derive_key(witness_key, variable));
    };

    // The free values first: the constant, the public inputs, every boolean.
    z[0] = Fr::one();
    for (uint64_t i = 1; i <= inputs; ++i) {
        util::SplitMix64 stream = witness_stream(i);
        z[i] = ff::uniform_element<Fr>(stream);
    }
    if (porep_) {
        if constexpr (!std::is_same_v<Fr, ff::Fr>) {
            throw std::invalid_argument(kPorepFieldOnly);
        } else {
            porep_->synthesize(witness_key, z, a, b, c, threads);
            return;
        }
    }
    util::parallel_for(0, constraints, threads, [&](size_t begin, size_t end) {
        for (uint64_t row = begin; row < end; ++row) {
            if (!is_boolean_row(row)) continue;
            const uint64_t variable = inputs + 1 + row;
            util::SplitMix64 stream = witness_stream(variable);
            z[variable] = (stream.next() & 1) != 0 ? Fr::one() : Fr::zero();
        }
    });

    auto evaluate = [&](uint64_t row) {
        Fr sums[3] = {Fr::zero(), Fr::zero(), Fr::zero()};
        for_each_term<Fr>(row, [&](Matrix matrix, uint64_t variable, const Fr& coefficient) {
            // C's only term is the variable the row defines (a product row): its value is
            // the product of the row's A and B sums, complete by the time C is visited.
            if (matrix == Matrix::c) z[variable] = sums[0] * sums[1];
            add_term(sums[static_cast<int>(matrix)], coefficient, z[variable]);
        });
        a[row] = sums[0];
        b[row] = sums[1];
        c[row] = sums[2];
    };
    // A block's rows read only variables defined before the block: evaluate them at once.
    for (uint64_t first = 0; first < constraints; first += block_rows_) {
        const uint64_t last = std::min(constraints, first + block_rows_);
        util::parallel_for(first, last, threads, [&](size_t begin, size_t end) {
            for (uint64_t row = begin; row < end; ++row) evaluate(row);
        });
    }
    for (uint64_t row = constraints; row < rows(); ++row) evaluate(row);
}

template void SyntheticR1cs::synthesize(uint64_t, uint64_t, ff::bls12_381::Fr*, ff::bls12_381::Fr*,
                                        ff::bls12_381::Fr*, ff::bls12_381::Fr*, unsigned) const;
template void SyntheticR1cs::synthesize(uint64_t, uint64_t, ff::bn254::Fr*, ff::bn254::Fr*, ff::bn254::Fr*,
                                        ff::bn254::Fr*, unsigned) const;

std::string SyntheticR1cs::description() const {
    if (porep_) {
        // The shortest text that reads back as the same double.
        char share[32];
        const auto [end, error] = std::to_chars(share, share + sizeof share, shape_.boolean_share);
        return "circuit=synthetic-r1cs\nformat_version=" + std::to_string(kPorepFormatVersion) +
               "\nprofile=porep\nlog_n=" + std::to_string(shape_.log_n) +
               "\npublic_inputs=" + std::to_string(shape_.public_inputs) + "\nbit_valued_share=" +
               std::string(share, error == std::errc() ? end : share) + "\nseed=" + std::to_string(shape_.seed) + "\n";
    }
    char threshold[32];
    std::snprintf(threshold, sizeof threshold, "0x%016llx", static_cast<unsigned long long>(boolean_threshold_));
    return "circuit=synthetic-r1cs\nformat_version=" + std::to_string(kFormatVersion) +
           "\nlog_n=" + std::to_string(shape_.log_n) + "\nterms_per_row=" + std::to_string(shape_.terms_per_row) +
           "\npublic_inputs=" + std::to_string(shape_.public_inputs) + "\nboolean_rows=" +
           (all_boolean_ ? std::string("all") : std::string("below ") + threshold) +
           "\nseed=" + std::to_string(shape_.seed) + "\n" +
           (shape_.curve == curve::CurveId::bls12_381 ? "" : "curve=" + std::string(curve::name(shape_.curve)) + "\n");
}

SyntheticR1cs SyntheticR1cs::from_description(const std::string& description) {
    auto refuse_text = [&description]() -> SyntheticR1cs {
        throw std::invalid_argument("not a synthetic circuit's description: '" + description + "'");
    };
    std::map<std::string, std::string> fields;
    size_t begin = 0;
    while (begin < description.size()) {
        const size_t end = description.find('\n', begin);
        const size_t equals = description.find('=', begin);
        if (end == std::string::npos || equals == std::string::npos || equals > end) return refuse_text();
        fields[description.substr(begin, equals - begin)] = description.substr(equals + 1, end - equals - 1);
        begin = end + 1;
    }
    auto number = [&](const char* key) {
        const std::string& text = fields[key];
        uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || end != text.data() + text.size()) refuse_text();
        return value;
    };
    R1csShape shape;
    shape.log_n = static_cast<uint32_t>(std::min<uint64_t>(number("log_n"), 64));
    shape.public_inputs = static_cast<uint32_t>(std::min<uint64_t>(number("public_inputs"), UINT32_MAX));
    shape.seed = number("seed");
    if (fields.count("curve") != 0) {
        const std::optional<curve::CurveId> curve = curve::curve_from_name(fields["curve"]);
        if (!curve) return refuse_text();
        shape.curve = *curve;
    }
    if (fields.count("profile") != 0) {
        const std::string& share = fields["bit_valued_share"];
        const auto [end, error] = std::from_chars(share.data(), share.data() + share.size(), shape.boolean_share);
        if (fields["profile"] != "porep" || share.empty() || error != std::errc() || end != share.data() + share.size())
            return refuse_text();
        shape.profile = R1csProfile::porep;
    } else {
        shape.terms_per_row = static_cast<uint32_t>(std::min<uint64_t>(number("terms_per_row"), UINT32_MAX));
        // The threshold is share * 2^64 truncated, at most 53 significant bits: share =
        // threshold / 2^64 is exact and gives it back.
        const std::string& rows = fields["boolean_rows"];
        if (rows == "all") {
            shape.boolean_share = 1.0;
        } else if (rows.starts_with("below 0x") && rows.size() == 8 + 16) {
            uint64_t threshold = 0;
            const auto [end, error] = std::from_chars(rows.data() + 8, rows.data() + rows.size(), threshold, 16);
            if (error != std::errc() || end != rows.data() + rows.size()) return refuse_text();
            shape.boolean_share = std::ldexp(static_cast<double>(threshold), -64);
        } else {
            return refuse_text();
        }
    }
    SyntheticR1cs circuit(shape);  // throws for a shape outside its ranges
    if (circuit.description() != description) return refuse_text();  // other fields, versions or spellings
    return circuit;
}

}  // namespace zkbatch::circuit
