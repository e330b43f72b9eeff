// Fuzz target: manifest text, optionally with --set overrides, through parse_manifest.
// Input: TOML text; the lines after a line "# --set" are overrides, one per line (a TOML
// comment, so every input is also a plain manifest). Besides crashes, leaks and
// undefined behaviour, it checks that an accepted manifest round-trips through to_toml.
#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace zkbatch;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kSeparator = "\n# --set\n";
    const size_t split = input.find(kSeparator);
    const std::string_view text = input.substr(0, split);
    std::vector<std::string> overrides;
    if (split != std::string_view::npos) overrides = fuzz::split_lines(input.substr(split + kSeparator.size()));
    try {
        fuzz::check_round_trip(parse_manifest(text, "fuzz.toml", overrides));
    } catch (const ManifestError&) {
        // Refused with a message: the expected outcome for most inputs.
    }
    return 0;
}
