// The check a manifest's text, and each --set value, passes before TOML++ parses it
// (private to the manifest library).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkbatch::manifest_detail {

// Hostile-input cap (docs/manifest.md, "Hostile input and limits"). A real manifest nests
// 3 levels (backend.options.X); this leaves room for comments and tags.
inline constexpr size_t kMaxNestingLevels = 64;

// A reason to refuse text before TOML++ parses it, and where.
struct PrescanProblem {
    uint32_t line = 0, column = 0;
    bool too_deep = false;  // nesting; otherwise a character TOML++ 3.3 mishandles
    std::string message;
};

// Refuses, before TOML++ sees it, text that TOML++ 3.3 cannot parse safely:
// - tables or arrays nested more than kMaxNestingLevels deep, counting [header] and
//   dotted-key segments and the arrays and inline tables around a value ([a.b] then
//   c.d = [1] is 5 levels). TOML++ builds and frees nested tables recursively, so
//   ~30 000 levels of "a.a.a..." (60 KB) overflow the stack.
// - a character outside ASCII where TOML++ tests it for whitespace: outside strings and
//   comments (never valid TOML there), after a '\' in a basic string (never a valid
//   escape), or first after a line-ending backslash in a multi-line string (valid, but
//   rare). TOML++ 3.3's is_non_ascii_horizontal_whitespace reaches __builtin_unreachable
//   for most such characters: undefined behaviour, found by fuzzing.
// It knows just enough TOML to skip strings and comments and to tell keys from values;
// TOML++ still reports every syntax error, and stops at the first, so text past a place
// where the two readings could differ is never parsed.
std::optional<PrescanProblem> prescan_toml(std::string_view text);

}  // namespace zkbatch::manifest_detail
