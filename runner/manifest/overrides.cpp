// --set KEY=VALUE: each override parsed as a one-key TOML document, labelled with the
// override so that its nodes name it in errors, and merged into the manifest's tree.
#include "manifest/manifest_internal.hpp"
#include "manifest/prescan.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zkbatch::manifest_detail {

namespace {

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// Parses `key.path = value` as a TOML document labelled with the override, so the
// parsed nodes carry "--set KEY=VALUE" as their source. Returns null if the text
// is not exactly one assignment to that key (a syntax error, or a value such as
// "1\nx = 2" that would smuggle in a second key).
std::optional<toml::table> parse_assignment(const std::string& key, const std::string& value_text,
                                            const std::string& label, const std::vector<std::string>& segments) {
    toml::table doc;
    try {
        doc = toml::parse(key + " = " + value_text, std::string(label));
    } catch (const toml::parse_error&) {
        return std::nullopt;
    }
    const toml::table* level = &doc;
    for (size_t i = 0; i < segments.size(); ++i) {
        if (level->size() != 1 || !level->contains(segments[i])) return std::nullopt;
        if (i + 1 < segments.size()) {
            level = level->get(segments[i])->as_table();
            if (!level) return std::nullopt;
        }
    }
    return doc;
}

// Moves every node of `from` into `into`: tables merge, anything else replaces.
void merge(toml::table& into, toml::table& from) {
    for (auto& [key, node] : from) {
        toml::node* existing = into.get(key.str());
        if (existing && existing->is_table() && node.is_table()) {
            merge(*existing->as_table(), *node.as_table());
        } else {
            into.insert_or_assign(key, std::move(node));
        }
    }
}

}  // namespace

void apply_override(toml::table& root, const std::string& text) {
    auto malformed = [&](const std::string& what) {
        return ManifestError(std::string(kOverridePath), 0, 0, "",
                             fmt::format("'{}': {}; expected KEY=VALUE, e.g. --set circuit.log_n=12", text, what));
    };
    const size_t equals = text.find('=');
    if (equals == std::string::npos) throw malformed("no '='");
    const std::string key(trim(std::string_view(text).substr(0, equals)));
    const std::string value_text(trim(std::string_view(text).substr(equals + 1)));
    if (key.empty()) throw malformed("missing key before '='");
    std::vector<std::string> segments;
    for (size_t start = 0;;) {
        const size_t dot = key.find('.', start);
        segments.emplace_back(key.substr(start, dot - start));
        if (!is_bare_key(segments.back()))
            throw malformed(fmt::format("key '{}' has an empty or invalid part (use letters, digits, '_' and '-' "
                                        "between dots)", key));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    const std::string label = fmt::format("{}{}", kOverrideLabelPrefix, text);
    // A value TOML++ could not parse safely is not TOML: it is taken as a bare string,
    // unless it nests too deep (no one means that as a string).
    const auto problem = prescan_toml(key + " = " + value_text);
    if (problem && problem->too_deep)
        throw ManifestError(std::string(kOverridePath), 0, 0, key,
                            fmt::format("the value nests more than {} levels deep (from {})", kMaxNestingLevels,
                                        shown_text(label)));
    std::optional<toml::table> doc;
    if (!problem) doc = parse_assignment(key, value_text, label, segments);
    const std::string quoted = toml_quoted(value_text);
    if (!doc && !prescan_toml(key + " = " + quoted)) doc = parse_assignment(key, quoted, label, segments);
    if (!doc)
        throw ManifestError(std::string(kOverridePath), 0, 0, key,
                            fmt::format("cannot use '{}' as a value; is it valid UTF-8?", shown_text(value_text)));
    merge(root, *doc);
}

}  // namespace zkbatch::manifest_detail
