// Fuzz target: a snarkjs .wtns through groth16::parse_wtns for circuits of a few sizes.
// It either parses (every value reduced, w[0] = 1) or throws ZkeyError.
#include "core/groth16/zkey.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    for (uint64_t variables : {uint64_t{1}, uint64_t{7}, uint64_t{66}}) {
        try {
            const auto witness = zkbatch::groth16::parse_wtns(std::span(data, size), "fuzz.wtns", variables);
            if (witness.size() != variables || witness[0] != zkbatch::ff::Fr::one()) std::abort();
            for (const auto& value : witness)
                if (!zkbatch::ff::Fr::is_canonical(value.limbs)) std::abort();
        } catch (const zkbatch::groth16::ZkeyError&) {
        }
    }
    return 0;
}
