// The circom fixtures (tests/fixtures/circom): the circuits every suite that proves them
// iterates, the same list as ZKBATCH_CIRCOM_CIRCUITS in tests/groth16/CMakeLists.txt,
// which builds them. Header-only.
#pragma once

#include <string>

namespace zkbatch::test {

inline const std::string kCircomFixtures[] = {"chain-4", "chain-4000", "many-public", "merkle-poseidon", "bits-sum"};
// The same toolchain on BN254 (ZKBATCH_CIRCOM_BN254_CIRCUITS), under bn128/ of the folder.
inline const std::string kCircomBn254Fixtures[] = {"chain-4", "merkle-poseidon"};

// A fixture's name as a gtest parameter name ("chain-4" -> "chain_4", "bn128/chain-4" ->
// "bn128_chain_4").
inline std::string circom_test_name(std::string name) {
    for (char& ch : name)
        if (ch == '-' || ch == '/') ch = '_';
    return name;
}

}  // namespace zkbatch::test
