// Manifest loading: the pre-scan (prescan.cpp), TOML++ parse, --set overrides merged
// into the parsed tree (overrides.cpp), then one validation pass over the result
// (validate.cpp). Also the manifest's names and errors, and the helpers the library's
// parts share (manifest_internal.hpp).
#include "manifest/manifest.hpp"

#include "manifest/manifest_internal.hpp"
#include "manifest/prescan.hpp"

#include "core/util/input_file.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace zkbatch {

namespace manifest_detail {

std::string shown_text(std::string_view text) {
    constexpr size_t kShownBytes = 64;
    if (text.size() <= kShownBytes + 16) return std::string(text);
    size_t cut = kShownBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return fmt::format("{}... ({} bytes)", text.substr(0, cut), text.size());
}

bool is_bare_key(std::string_view key) {
    return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
}

std::string option_lines(const std::map<std::string, std::string>& options) {
    std::string lines;
    for (const auto& [key, value] : options) {
        if (!lines.empty()) lines += '\n';
        lines += key + '=' + value;
    }
    return lines;
}

void add_option_lines(std::string_view lines, std::map<std::string, std::string>& options) {
    while (!lines.empty()) {
        const size_t end = std::min(lines.find('\n'), lines.size());
        const std::string_view line = lines.substr(0, end);
        if (const size_t equals = line.find('='); equals != std::string_view::npos)
            options[std::string(line.substr(0, equals))] = std::string(line.substr(equals + 1));
        lines.remove_prefix(std::min(end + 1, lines.size()));
    }
}

}  // namespace manifest_detail

using manifest_detail::add_option_lines;
using manifest_detail::apply_override;
using manifest_detail::option_lines;
using manifest_detail::prescan_toml;
using manifest_detail::shown_text;
using manifest_detail::validate_manifest;

namespace {

// Hostile-input cap (docs/manifest.md, "Hostile input and limits"): a real manifest is a
// few KiB; this leaves room for comments and tags.
constexpr size_t kMaxManifestBytes = size_t{1} << 20;

}  // namespace

ManifestError::ManifestError(std::string path_, uint32_t line_, uint32_t column_, std::string key_,
                             const std::string& what)
    : std::runtime_error([&] {
          std::string where = path_;
          if (line_ > 0) where += column_ > 0 ? fmt::format(":{}:{}", line_, column_) : fmt::format(":{}", line_);
          return key_.empty() ? fmt::format("{}: {}", where, what) : fmt::format("{}: {}: {}", where, shown_text(key_), what);
      }()),
      path(std::move(path_)),
      line(line_),
      column(column_),
      key(std::move(key_)) {}

const char* to_string(VerifyMode mode) {
    switch (mode) {
        case VerifyMode::proof: return "proof";
        case VerifyMode::identity: return "identity";
        case VerifyMode::sampled: return "sampled";
        case VerifyMode::none: return "none";
    }
    return "?";
}

const char* to_string(ProofSystem system) {
    return system == ProofSystem::groth16 ? "groth16" : "quotient";
}

const char* to_string(CircuitKind kind) { return kind == CircuitKind::synthetic ? "synthetic" : "zkey"; }

const char* to_string(CircuitProfile profile) { return profile == CircuitProfile::uniform ? "uniform" : "porep"; }

const char* to_string(ProofRandomness randomness) {
    return randomness == ProofRandomness::derived ? "derived" : "random";
}

const char* to_string(KeySource source) { return source == KeySource::cache ? "cache" : "backend"; }

const char* to_string(OnPartitionError mode) {
    switch (mode) {
        case OnPartitionError::stop: return "stop";
        case OnPartitionError::continue_run: return "continue";
    }
    return "?";
}

std::string Manifest::Backend::options_for(const std::string& backend_name) const {
    const auto specific = options_by_backend.find(backend_name);
    if (specific == options_by_backend.end()) return options;
    std::map<std::string, std::string> merged;
    add_option_lines(options, merged);
    add_option_lines(specific->second, merged);
    return option_lines(merged);
}

Manifest parse_manifest(std::string_view text, const std::string& path, const std::vector<std::string>& overrides) {
    if (text.size() > kMaxManifestBytes)
        throw ManifestError(path, 0, 0, "",
                            fmt::format("is {} bytes; a manifest may be at most {} bytes (1 MiB): is this the "
                                        "right file?", text.size(), kMaxManifestBytes));
    if (const auto problem = prescan_toml(text)) throw ManifestError(path, problem->line, problem->column, "", problem->message);
    toml::table root;
    try {
        root = toml::parse(text, std::string(path));
    } catch (const toml::parse_error& e) {
        throw ManifestError(path, e.source().begin.line, e.source().begin.column, "", std::string(e.description()));
    }
    for (const std::string& override_text : overrides) apply_override(root, override_text);

    Manifest m = validate_manifest(root, path);
    m.source_path = path;
    m.source_text = std::string(text);
    m.overrides = overrides;
    return m;
}

std::optional<RecordedRunSettings> read_recorded_run_settings(std::string_view manifest_text,
                                                              const std::vector<std::string>& overrides) {
    if (manifest_text.size() > kMaxManifestBytes || prescan_toml(manifest_text)) return std::nullopt;
    toml::table root;
    try {
        root = toml::parse(manifest_text, std::string("recorded manifest"));
        for (const std::string& override_text : overrides) apply_override(root, override_text);
    } catch (const toml::parse_error&) {
        return std::nullopt;
    } catch (const ManifestError&) {
        return std::nullopt;
    }
    const Manifest defaults;
    RecordedRunSettings settings{defaults.pipeline.replay_inputs, defaults.pipeline.finalize_workers,
                                 defaults.verify.every, defaults.pipeline.on_error};
    // A key not given keeps its default; one given must be a count.
    const auto read_count = [&](std::string_view key, uint32_t& out) {
        const toml::node_view<toml::node> node = root.at_path(key);
        if (!node) return true;
        const std::optional<int64_t> value = node.value_exact<int64_t>();
        if (!value || *value < 0 || *value > UINT32_MAX) return false;
        out = static_cast<uint32_t>(*value);
        return true;
    };
    if (!read_count("pipeline.replay_inputs", settings.replay_inputs) ||
        !read_count("pipeline.finalize_workers", settings.finalize_workers) ||
        !read_count("verify.every", settings.verify_every))
        return std::nullopt;
    if (const toml::node_view<toml::node> node = root.at_path("pipeline.on_error")) {
        const std::optional<std::string> value = node.value_exact<std::string>();
        if (value == to_string(OnPartitionError::stop)) settings.on_error = OnPartitionError::stop;
        else if (value == to_string(OnPartitionError::continue_run)) settings.on_error = OnPartitionError::continue_run;
        else return std::nullopt;
    }
    return settings;
}

Manifest load_manifest(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
    const std::string shown = path.string();
    std::string why;
    const int fd = util::open_input_file(path, why);
    if (fd < 0)
        throw ManifestError(shown, 0, 0, "",
                            fmt::format("cannot open the manifest: {}; give the path of a .toml manifest (jobs/ has "
                                        "examples)",
                                        why));
    // One byte past the cap is enough to refuse; a huge file is never read whole.
    std::string bytes;
    if (!util::read_and_close(fd, kMaxManifestBytes, bytes, why))
        throw ManifestError(shown, 0, 0, "", fmt::format("cannot read the manifest: {}", why));
    return parse_manifest(bytes, shown, overrides);
}

}  // namespace zkbatch
