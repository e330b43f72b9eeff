#include "core/plugin/options.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <iterator>
#include <utility>

namespace zkbatch::plugin {
namespace {

std::string_view trim(std::string_view text) {
    constexpr std::string_view whitespace = " \t\r";
    const std::size_t first = text.find_first_not_of(whitespace);
    if (first == std::string_view::npos) return {};
    const std::size_t last = text.find_last_not_of(whitespace);
    return text.substr(first, last - first + 1);
}

std::string quoted_list(const std::vector<std::string>& keys) {
    std::string out;
    for (const std::string& key : keys) {
        if (!out.empty()) out += ", ";
        out += "'" + key + "'";
    }
    return out;
}

}  // namespace

PluginOptions::PluginOptions(std::string_view text) {
    std::vector<std::size_t> line_of_entry;
    std::size_t line_number = 0;
    while (!text.empty()) {
        ++line_number;
        const std::size_t newline = text.find('\n');
        const std::string_view line = trim(text.substr(0, newline));
        text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
        if (line.empty()) continue;

        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos) {
            throw OptionsError(concat("options line ", line_number, " ('", line,
                                      "') has no '=': write each option as key=value"));
        }
        const std::string_view key = trim(line.substr(0, equals));
        if (key.empty()) {
            throw OptionsError(concat("options line ", line_number, " ('", line,
                                      "') has an empty key: write each option as key=value"));
        }
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (entries_[i].key == key) {
                throw OptionsError(concat("option '", key, "' is given twice (lines ", line_of_entry[i],
                                          " and ", line_number, "): keep one"));
            }
        }
        entries_.push_back(Entry{std::string(key), std::string(trim(line.substr(equals + 1)))});
        line_of_entry.push_back(line_number);
    }
}

PluginOptions::Entry* PluginOptions::lookup(std::string_view key) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.emplace_back(key);
    for (Entry& entry : entries_) {
        if (entry.key == key) {
            entry.used = true;
            return &entry;
        }
    }
    return nullptr;
}

bool PluginOptions::contains(std::string_view key) const {
    return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
}

uint64_t PluginOptions::get_uint(std::string_view key, uint64_t default_value, uint64_t min, uint64_t max) {
    const Entry* entry = lookup(key);
    if (entry == nullptr) return default_value;
    const std::string& text = entry->value;
    uint64_t value = 0;
    const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
    const bool all_digits = !text.empty() && end == text.data() + text.size();
    if (status == std::errc::result_out_of_range && all_digits) {
        throw OptionsError(concat("option '", key, "' = ", text, " is out of range: it must be in [", min, ", ",
                                  max, "]"));
    }
    if (status != std::errc() || !all_digits) {
        throw OptionsError(concat("option '", key, "' = '", text, "' is not an unsigned integer"));
    }
    if (value < min || value > max) {
        throw OptionsError(concat("option '", key, "' = ", value, " is out of range: it must be in [", min, ", ",
                                  max, "]"));
    }
    return value;
}

uint64_t PluginOptions::get_bytes(std::string_view key, uint64_t default_value, uint64_t min, uint64_t max) {
    const Entry* entry = lookup(key);
    if (entry == nullptr) return default_value;
    const std::string& text = entry->value;
    uint64_t count = 0;
    const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), count);
    const std::string_view unit = trim(std::string_view(end, static_cast<std::size_t>(text.data() + text.size() - end)));
    static constexpr std::pair<std::string_view, unsigned> kUnits[] = {
        {"", 0}, {"B", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    const auto* found = std::find_if(std::begin(kUnits), std::end(kUnits), [&](const auto& u) { return u.first == unit; });
    if (status != std::errc() || found == std::end(kUnits)) {
        throw OptionsError(concat("option '", key, "' = '", text,
                                  "' is not a size: give bytes, or an integer with B, KiB, MiB, GiB or TiB (\"16GiB\")"));
    }
    const unsigned shift = found->second;
    const uint64_t bytes = count << shift;
    if ((bytes >> shift) != count || bytes < min || bytes > max) {
        throw OptionsError(concat("option '", key, "' = '", text, "' is out of range: it must be in [", min, ", ",
                                  max, "] bytes"));
    }
    return bytes;
}

bool PluginOptions::get_bool(std::string_view key, bool default_value) {
    const Entry* entry = lookup(key);
    if (entry == nullptr) return default_value;
    if (entry->value == "true" || entry->value == "1") return true;
    if (entry->value == "false" || entry->value == "0") return false;
    throw OptionsError(concat("option '", key, "' = '", entry->value, "' is not a boolean: use true or false"));
}

std::string PluginOptions::get_string(std::string_view key, std::string_view default_value) {
    const Entry* entry = lookup(key);
    return entry == nullptr ? std::string(default_value) : entry->value;
}

void PluginOptions::check_all_used() const {
    std::vector<std::string> unknown;
    for (const Entry& entry : entries_) {
        if (!entry.used) unknown.push_back(entry.key);
    }
    if (unknown.empty()) return;

    std::string known;
    for (const std::string& key : known_) known += (known.empty() ? "" : ", ") + key;
    const std::string known_part = known_.empty() ? "this backend takes no options" : "known: " + known;
    if (unknown.size() == 1) {
        throw OptionsError(concat("option ", quoted_list(unknown), " is unknown (", known_part, ")"));
    }
    throw OptionsError(concat("options ", quoted_list(unknown), " are unknown (", known_part, ")"));
}

std::optional<uint64_t> find_uint_option(std::string_view text, std::string_view key) {
    try {
        PluginOptions options(text);
        if (!options.contains(key)) return std::nullopt;
        return options.get_uint(key, 0, 0, UINT64_MAX);
    } catch (const OptionsError&) {
        return std::nullopt;
    }
}

}  // namespace zkbatch::plugin
