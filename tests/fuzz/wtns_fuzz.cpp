// Fuzz target: a snarkjs .wtns through groth16::parse_wtns for circuits of a few sizes,
// over each curve's scalar field. It either parses (every value reduced, w[0] = 1) or
// throws ZkeyError.
#include "core/curve/curves.hpp"
#include "core/groth16/zkey.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace zkbatch;
    for (const curve::CurveId curve : {curve::CurveId::bls12_381, curve::CurveId::bn254}) {
        curve::with_curve(curve, [&](auto c) {
            using Fr = typename decltype(c)::Fr;
            for (uint64_t variables : {uint64_t{1}, uint64_t{7}, uint64_t{66}}) {
                try {
                    const auto witness = groth16::parse_wtns<Fr>(std::span(data, size), "fuzz.wtns", variables);
                    if (witness.size() != variables || witness[0] != Fr::one()) std::abort();
                    for (const auto& value : witness)
                        if (!Fr::is_canonical(value.limbs)) std::abort();
                } catch (const groth16::ZkeyError&) {
                }
            }
        });
    }
    return 0;
}
