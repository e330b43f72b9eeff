// Fuzz target: snarkjs's verification_key.json, proof.json and public.json as `zkbatch
// verify` reads them (runner/proof/snarkjs_reader.hpp). Input: one byte choosing the file
// (0, 1, 2 mod 3) and the curve read first (its "curve" field, as `zkbatch verify` does
// with the verifying key; BLS12-381 when it names none), then its text. Each is accepted
// (and then its points are on their curves, its counts agree) or refused with
// UsageError; any other outcome (a crash, an exception of another kind, a sanitizer
// report, a hang) is a finding.
#include "proof/snarkjs_reader.hpp"
#include "util/usage_error.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace zkbatch;
    if (size == 0) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        const curve::CurveId curve = data[0] % 3 == 2 ? (data[0] & 0x80 ? curve::CurveId::bn254 : curve::CurveId::bls12_381)
                                                      : snarkjs_curve(text, "fuzz.json").value_or(curve::CurveId::bls12_381);
        curve::with_curve(curve, [&](auto c) {
            using Curve = decltype(c);
            switch (data[0] % 3) {
                case 0: {
                    const auto key = parse_snarkjs_verification_key<Curve>(text, "fuzz.json");
                    if (key.ic.empty() || !key.alpha_g1.is_on_curve() || !key.delta_g2.is_on_curve()) std::abort();
                    break;
                }
                case 1: {
                    const auto proof = parse_snarkjs_proof<Curve>(text, "fuzz.json");
                    if (!proof.a.is_on_curve() || !proof.b.is_on_curve() || !proof.c.is_on_curve()) std::abort();
                    break;
                }
                default:
                    (void)parse_snarkjs_public<typename Curve::Fr>(text, "fuzz.json");
            }
        });
    } catch (const UsageError&) {
    }
    return 0;
}
