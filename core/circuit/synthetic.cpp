// The synthetic circuit (core/circuit/synthetic.hpp).
//
// Streams, all SplitMix64 keyed from the partition key
//   partition_key = derive_key(derive_key(kCircuitTag, job_seed), partition_index):
//   witness element j: derive_key(derive_key(partition_key, kWitnessStream), j)
//   row i:             derive_key(derive_key(partition_key, kRowStream), i), drawing for
//                      each A term then each B term: one word for the witness index
//                      (low log_n bits) and a uniform field element for the coefficient.
// Every row and witness element has its own stream, so the bits do not depend on
// evaluation order (a future parallel synthesis gives the same result). Changing any
// of this changes every generated circuit: the math tests freeze a known answer.
#include "core/circuit/synthetic.hpp"

#include "core/ff/random.hpp"
#include "core/util/parallel.hpp"
#include "core/util/splitmix64.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch::circuit {

namespace {

constexpr uint64_t kCircuitTag = 0x7a6b62617463682dULL;  // "zkbatch-"
constexpr uint64_t kWitnessStream = 0;
constexpr uint64_t kRowStream = 1;

}  // namespace

void synthesize(const CircuitShape& shape, uint64_t job_seed, uint64_t partition_index, ff::Fr* a, ff::Fr* b,
                ff::Fr* c, unsigned threads) {
    using ff::Fr;
    if (shape.terms_per_row == 0) {
        throw std::invalid_argument("synthetic circuit: terms_per_row must be at least 1");
    }
    if (shape.log_n > Fr::kTwoAdicity) {
        throw std::invalid_argument("synthetic circuit: log_n = " + std::to_string(shape.log_n) +
                                    " exceeds the field's largest domain (log_n <= 32)");
    }
    const size_t n = size_t{1} << shape.log_n;
    const uint64_t index_mask = n - 1;
    const uint64_t partition_key = util::derive_key(util::derive_key(kCircuitTag, job_seed), partition_index);
    const uint64_t witness_key = util::derive_key(partition_key, kWitnessStream);
    const uint64_t row_key = util::derive_key(partition_key, kRowStream);

    std::vector<Fr> witness(n);
    util::parallel_for(0, n, threads, [&](size_t begin, size_t end) {
        for (size_t j = begin; j < end; ++j) {
            util::SplitMix64 generator(util::derive_key(witness_key, j));
            witness[j] = ff::uniform_fr(generator);
        }
    });

    util::parallel_for(0, n, threads, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
            util::SplitMix64 generator(util::derive_key(row_key, i));
            auto evaluate_linear_combination = [&] {
                Fr sum = Fr::zero();
                for (uint32_t term = 0; term < shape.terms_per_row; ++term) {
                    const uint64_t variable = generator.next() & index_mask;
                    const Fr coefficient = ff::uniform_fr(generator);
                    sum += coefficient * witness[variable];
                }
                return sum;
            };
            const Fr a_i = evaluate_linear_combination();
            const Fr b_i = evaluate_linear_combination();
            a[i] = a_i;
            b[i] = b_i;
            c[i] = a_i * b_i;
        }
    });
}

}  // namespace zkbatch::circuit
