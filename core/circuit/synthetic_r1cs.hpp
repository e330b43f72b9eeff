// The synthetic R1CS that Groth16 jobs prove: one circuit per job (its matrices come
// from the circuit's own seed and shape), one witness per partition (from the job seed
// and the partition index), as the partitions of a Filecoin PoRep all prove one circuit.
//
// Layout, for n = 2^log_n rows and l = public_inputs:
//   variables  z_0 = 1, public inputs z_1..z_l, private z_(l+1)..z_(n-1): m = n, about
//              one variable per constraint as in a PoRep partition.
//   rows       row j < n - l - 1 is a constraint that defines private variable
//              k = l + 1 + j; the last l + 1 rows are the input rows A = {i: 1}, B = C = 0
//              for i = 0..l, which make the inputs' A-polynomials linearly independent
//              (bellman and snarkjs add the same rows).
//   a boolean row   (z_k) * (z_k - 1) = 0: A = {k: 1}, B = {k: 1, 0: -1}, C = {};
//                   z_k is 0 or 1, drawn from the witness stream.
//   a product row   <A_j, z> * <B_j, z> = z_k: A_j and B_j have terms_per_row terms each
//                   with uniform coefficients over earlier variables, C = {k: 1}; z_k is the
//                   product, a full field element.
// Row j is boolean with probability boolean_share (its kind is drawn from the circuit
// stream, so all partitions share it): real circuits are dominated by 0/1 wires (hash
// and bit-decomposition gadgets), and a prover adds those bases instead of multiplying.
//
// Dependencies are kept parallel: rows are cut into blocks of block_rows(); a product
// row of a block references variables from the window of the `window_variables()`
// variables just before its block's first variable (for the first block: z_0..z_l).
// Every row of a block can then be evaluated at once, and each variable is referenced by
// about 2 * terms_per_row later rows, roughly uniformly (near the end, fewer).
//
// Streams (util::SplitMix64, keys by util::derive_key):
//   circuit key   derive(derive(kR1csTag, circuit seed), format version)
//   row j         derive(derive(circuit key, kRowStream), j): the first word decides
//                 the kind (boolean iff below the boolean threshold); a product row
//                 then draws, for each A term and then each B term, a word for the
//                 variable (its residue modulo the window's size) and a uniform
//                 coefficient (ff::uniform_fr).
//   witness       derive(derive(derive(kWitnessTag, job seed), partition), variable):
//                 a public input's uniform value, or a boolean's bit (its first word's
//                 lowest bit).
// Changing any of this changes every circuit and key: the tests freeze known answers
// computed by an independent model (tools/models/synthetic_r1cs.py).
//
// That is the uniform profile. The porep profile (core/circuit/porep_profile.hpp) lays
// out rows and variables after a Filecoin PoRep partition instead: m < n, zero padding
// rows, and which variables are bits and which appear in A and B placed as there.
//
// The matrices and witness are over the scalar field F of the shape's curve (for_each_term<F>,
// synthesize with F*): the same rows, variables and streams on either curve, the
// coefficients and inputs drawn in F (ff::uniform_element<F>). A BN254 circuit's
// description says so in a last line, "curve=bn254"; a BLS12-381 one's has none, as
// before there were two curves. The porep profile is BLS12-381's alone for now.
#pragma once

#include "core/curve/curve_id.hpp"
#include "core/ff/bn254.hpp"
#include "core/ff/fr.hpp"
#include "core/ff/random.hpp"
#include "core/util/splitmix64.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace zkbatch::circuit {

enum class R1csProfile : uint8_t { uniform, porep };

// What a synthetic circuit is. Every field is a [circuit] manifest key.
struct R1csShape {
    uint32_t log_n = 0;            // n = 2^log_n rows, the evaluation domain; 1..28
    uint32_t terms_per_row = 4;    // uniform: terms in A and in B of every product row; >= 1
    uint32_t public_inputs = 1;    // l; uniform: at most n - 1 (the l + 1 input rows fill the domain)
    double boolean_share = 0.9;    // uniform: share of constraint rows that are boolean, 0..1;
                                   // porep: share of private variables that are bits, 0.5..1
    uint64_t seed = 1;             // the circuit seed
    R1csProfile profile = R1csProfile::uniform;
    curve::CurveId curve = curve::CurveId::bls12_381;  // whose Fr the matrices and witnesses are over
};

// Which matrix a term belongs to.
enum class Matrix : uint8_t { a = 0, b = 1, c = 2 };

// sum += coefficient * value, in synthesis: most values are bits, and a term of 0 or 1
// needs no Montgomery product (half of a PoRep partition's synthesis time went to them)
// and a 0 not even the addition.
template <class F>
void add_term(F& sum, const F& coefficient, const F& value) {
    if (value.is_zero()) return;
    sum += value == F::one() ? coefficient : coefficient * value;
}

// The terms of one row, for a profile that lists them rather than visiting them.
struct RowTerms {
    struct Term {
        Matrix matrix;
        uint64_t variable;
        ff::Fr coefficient;
    };
    uint32_t count = 0;
    Term terms[8];
    void add(Matrix matrix, uint64_t variable, const ff::Fr& coefficient) {
        terms[count++] = {matrix, variable, coefficient};
    }
};

class PorepProfile;

class SyntheticR1cs {
public:
    // Throws std::invalid_argument, naming the key, for a shape outside its range.
    explicit SyntheticR1cs(const R1csShape& shape);

    const R1csShape& shape() const { return shape_; }
    uint64_t rows() const { return uint64_t{1} << shape_.log_n; }  // n
    uint64_t variables() const;                                     // m: n, or the porep profile's
    uint64_t public_inputs() const { return shape_.public_inputs; }
    // Rows [0, constraint_rows()) are constraints, the next input_rows() the input rows
    // A = {i: 1}, the rest (porep only) zero padding.
    uint64_t constraint_rows() const;
    uint64_t input_rows() const { return shape_.public_inputs + 1; }
    uint64_t block_rows() const { return block_rows_; }
    uint64_t window_variables() const { return window_variables_; }
    // The porep profile's layout and counts; null for the uniform profile.
    const PorepProfile* porep() const { return porep_.get(); }

    // Uniform profile: true when constraint row j (< constraint_rows()) is a boolean row.
    bool is_boolean_row(uint64_t row) const {
        util::SplitMix64 stream(row_key(row));
        return is_boolean_kind(stream.next());
    }

    // Calls visit(Matrix, variable index, coefficient in F) for every term of row `row`
    // (< rows()): A's terms, then B's, then C's. Synthesis, the key's setup and the
    // tests all read the matrices through it, so there is one definition of them.
    template <class F = ff::Fr, class Visit>
    void for_each_term(uint64_t row, Visit&& visit) const {
        using Fr = F;
        if constexpr (!std::is_same_v<F, ff::Fr>) {
            if (porep_) throw std::invalid_argument(kPorepFieldOnly);
        } else if (porep_) {
            const RowTerms listed = porep_row_terms(row);
            for (uint32_t k = 0; k < listed.count; ++k)
                visit(listed.terms[k].matrix, listed.terms[k].variable, listed.terms[k].coefficient);
            return;
        }
        const uint64_t constraints = constraint_rows();
        if (row >= constraints) {  // input row i: A = {i: 1}
            visit(Matrix::a, row - constraints, Fr::one());
            return;
        }
        const uint64_t defined = shape_.public_inputs + 1 + row;
        util::SplitMix64 stream(row_key(row));
        if (is_boolean_kind(stream.next())) {
            visit(Matrix::a, defined, Fr::one());
            visit(Matrix::b, defined, Fr::one());
            visit(Matrix::b, 0, -Fr::one());
            return;
        }
        const uint64_t end = window_end(row);
        const uint64_t begin = end > window_variables_ ? end - window_variables_ : 0;
        const uint64_t span = end - begin;
        for (Matrix matrix : {Matrix::a, Matrix::b}) {
            for (uint32_t term = 0; term < shape_.terms_per_row; ++term) {
                const uint64_t variable = begin + stream.next() % span;
                visit(matrix, variable, ff::uniform_element<F>(stream));
            }
        }
        visit(Matrix::c, defined, Fr::one());
    }

    // Writes the witness z (variables() elements) and a = A z, b = B z, c = C z
    // (rows() elements each, padding included), all in Montgomery form, for one
    // partition. The same (job seed, partition) give the same bits whatever `threads` is.
    // F is BLS12-381's Fr or BN254's (synthetic_r1cs.cpp instantiates both); the
    // circuit's key is over shape().curve.
    template <class F>
    void synthesize(uint64_t job_seed, uint64_t partition_index, F* z, F* a, F* b, F* c, unsigned threads = 1) const;

    // The circuit's definition, one "key=value" line each: what identifies it (its
    // digest, key files, a backend that makes its own key).
    std::string description() const;
    // The circuit a description() names (a backend that makes its own key gets only the
    // text). Throws std::invalid_argument for text that no circuit's description() is.
    static SyntheticR1cs from_description(const std::string& description);

private:
    static constexpr const char* kPorepFieldOnly =
        "synthetic circuit: circuit.profile = \"porep\" is written over BLS12-381's Fr only";
    uint64_t row_key(uint64_t row) const;
    RowTerms porep_row_terms(uint64_t row) const;
    bool is_boolean_kind(uint64_t word) const { return all_boolean_ || word < boolean_threshold_; }
    // One past the last variable a product row may reference: its block's first variable.
    uint64_t window_end(uint64_t row) const {
        return shape_.public_inputs + 1 + (row / block_rows_) * block_rows_;
    }

    R1csShape shape_;
    uint64_t rows_key_ = 0;            // the parent of every row's stream
    bool all_boolean_ = false;         // boolean_share = 1
    uint64_t boolean_threshold_ = 0;   // else: a row is boolean iff its kind word is below it
    uint64_t block_rows_ = 1;
    uint64_t window_variables_ = 1;
    std::shared_ptr<const PorepProfile> porep_;  // shared by copies: it holds per-block tables
};

}  // namespace zkbatch::circuit
