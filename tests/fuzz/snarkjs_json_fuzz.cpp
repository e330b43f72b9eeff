// Fuzz target: snarkjs's verification_key.json, proof.json and public.json as `zkbatch
// verify` reads them (runner/proof/snarkjs_reader.hpp). Input: one byte choosing the file
// (0, 1, 2 mod 3), then its text. Each is accepted (and then its points are on their
// curves, its counts agree) or refused with UsageError; any other outcome (a crash, an
// exception of another kind, a sanitizer report, a hang) is a finding.
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
        switch (data[0] % 3) {
            case 0: {
                const groth16::VerifyingKey key = parse_snarkjs_verification_key(text, "fuzz.json");
                if (key.ic.empty() || !key.alpha_g1.is_on_curve() || !key.delta_g2.is_on_curve()) std::abort();
                break;
            }
            case 1: {
                const groth16::Proof proof = parse_snarkjs_proof(text, "fuzz.json");
                if (!proof.a.is_on_curve() || !proof.b.is_on_curve() || !proof.c.is_on_curve()) std::abort();
                break;
            }
            default:
                (void)parse_snarkjs_public(text, "fuzz.json");
        }
    } catch (const UsageError&) {
    }
    return 0;
}
