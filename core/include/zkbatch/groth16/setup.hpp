// A Groth16 proving key made from a seed, for measurement only.
//
// tau, alpha, beta, gamma, delta are drawn from the seed (SplitMix64 streams), as
// bellperson's generate_random_parameters does for tests and benchmarks: WHOEVER KNOWS
// THE SEED CAN FORGE PROOFS. Keys for real use come from a ceremony (a snarkjs .zkey).
#pragma once

#include <zkbatch/circuit/synthetic_r1cs.hpp>
#include <zkbatch/ff/fr.hpp>
#include <zkbatch/groth16/keys.hpp>

#include <cstdint>
#include <string>

namespace zkbatch::groth16 {

// The secrets a key is made from. All nonzero; tau is outside the domain.
struct ToxicWaste {
    ff::Fr tau, alpha, beta, gamma, delta;
};

// Deterministic in the seed. Throws std::invalid_argument for a seed whose tau lands
// in the domain of 2^log_n (probability ~2^-220; a different seed fixes it).
ToxicWaste toxic_waste_from_seed(uint64_t setup_seed, uint32_t log_n);

// What identifies a seeded setup (recorded in key files): "setup=seeded\nseed=N\n".
std::string seeded_setup_description(uint64_t setup_seed);

// The proving key of `circuit` for these secrets, in memory (the key owns vectors),
// with bellman's H convention (HConvention::coefficients). Uses up to `threads` threads;
// the result does not depend on them.
ProvingKey generate_key(const circuit::SyntheticR1cs& circuit, const ToxicWaste& secrets, unsigned threads);

}  // namespace zkbatch::groth16
