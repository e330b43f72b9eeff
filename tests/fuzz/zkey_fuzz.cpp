// Fuzz target: a snarkjs .zkey through groth16::parse_zkey, as `[circuit] kind = "zkey"`
// reads one: the curve from its header (parse_zkey_header), then the reader of that
// curve. It either parses (and then its sizes agree with each other) or throws
// ZkeyError; any other outcome (a crash, a sanitizer report, a hang) is a finding.
#include "core/curve/curves.hpp"
#include "core/groth16/zkey.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace zkbatch;
    try {
        const std::span<const uint8_t> bytes(data, size);
        const curve::CurveId curve = groth16::parse_zkey_header(bytes, "fuzz.zkey").curve;
        curve::with_curve(curve, [&](auto c) {
            const auto zkey = groth16::parse_zkey<decltype(c)>(bytes, "fuzz.zkey", 1, nullptr);
            const auto& key = zkey.key;
            const uint64_t n = uint64_t{1} << key.log_n;
            if (key.a_query.size() != key.num_variables || key.h_query.size() != n ||
                zkey.circuit.num_variables != key.num_variables) {
                std::fprintf(stderr, "parse_zkey accepted a key whose sizes disagree\n");
                std::abort();
            }
            for (const auto* terms : {&zkey.circuit.a_terms, &zkey.circuit.b_terms})
                for (const auto& term : *terms)
                    if (term.row >= n || term.signal >= key.num_variables) std::abort();
        });
    } catch (const groth16::ZkeyError&) {
    }
    return 0;
}
