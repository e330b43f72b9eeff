// Fuzz target: `--set KEY=VALUE` arguments, one per input line, applied to a fixed
// valid manifest (tests/manifest/base.toml's shape, options and tags included, so
// overrides can merge into existing tables). Checks the round trip like manifest_fuzz.
#include "fuzz_support.hpp"

#include <cstddef>
#include <cstdint>

namespace {

constexpr std::string_view kBase = R"(# base manifest for the --set fuzzer
[job]
name = "base"

[circuit]
log_n = 10

[backend.options]
pool_sets = 2

[output.tags]
owner = "tests"
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace zkbatch;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    try {
        fuzz::check_round_trip(parse_manifest(kBase, "base.toml", fuzz::split_lines(input)));
    } catch (const ManifestError&) {
    }
    return 0;
}
