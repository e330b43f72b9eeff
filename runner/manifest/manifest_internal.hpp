// What the parts of the manifest library share (manifest.cpp, validate.cpp,
// overrides.cpp, arms.cpp, serialize.cpp); private to the library: manifest.hpp is its
// interface.
#pragma once

#include "manifest/manifest.hpp"

#include <toml++/toml.h>

#include <map>
#include <string>
#include <string_view>

namespace zkbatch::manifest_detail {

// The path of an error about a --set override.
inline constexpr std::string_view kOverridePath = "--set";
// Source path given to an override's parsed nodes: "--set circuit.log_n=12".
inline constexpr std::string_view kOverrideLabelPrefix = "--set ";

// Text echoed in a message, cut to a readable length: a hostile manifest's 1 MiB key
// should not become a 1 MiB error line. Cuts at a UTF-8 character boundary.
std::string shown_text(std::string_view text);

// A TOML bare key: letters, digits, '_' and '-', at least one.
bool is_bare_key(std::string_view key);

// Options as the plugin receives them: "key=value" lines, sorted by key.
std::string option_lines(const std::map<std::string, std::string>& options);
// The reverse: adds each "key=value" line of `lines` to `options`, replacing a key's
// earlier value; a line without '=' is skipped.
void add_option_lines(std::string_view lines, std::map<std::string, std::string>& options);

// Walks the parsed (and overridden) tree and fills a Manifest; throws ManifestError on
// the first problem, at the node it is about. `file_path` is used in messages.
Manifest validate_manifest(const toml::table& root, const std::string& file_path);

// Parses one --set KEY=VALUE (the value as TOML, else as a bare string) and merges it
// into `root`, its nodes labelled with the override. Throws ManifestError.
void apply_override(toml::table& root, const std::string& text);

}  // namespace zkbatch::manifest_detail
