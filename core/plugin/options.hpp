// A backend's options: the manifest's [backend.options] table, which reaches the
// plugin's create() as newline-separated "key=value" lines. Parsed once; each getter
// records the key it was asked for, so check_all_used() can name every option the
// backend does not know, together with the ones it does (a typo is then obvious).
//
//     PluginOptions options(text);                          // throws OptionsError
//     unsigned threads = options.get_uint("threads", 4, 1, 1024);
//     options.check_all_used();                            // after the last getter
#pragma once

#include "core/plugin/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkbatch::plugin {

// A bad options string or value; guarded() reports it as ZKB_ERR_INVALID_ARGUMENT.
class OptionsError : public Error {
public:
    explicit OptionsError(const std::string& message) : Error(ZKB_ERR_INVALID_ARGUMENT, message) {}
};

class PluginOptions {
public:
    // Blank lines are ignored; whitespace around keys and values is trimmed. A line
    // without '=', an empty key or a key given twice throws OptionsError.
    explicit PluginOptions(std::string_view text);

    // The value of `key`, or `default_value` when it is absent. A value that is not a
    // decimal unsigned integer in [min, max], or not one of true/false/1/0, throws.
    uint64_t get_uint(std::string_view key, uint64_t default_value, uint64_t min, uint64_t max);
    // A size in bytes: an integer, or one with a binary unit, "16GiB", "512 MiB" (B, KiB,
    // MiB, GiB, TiB), in [min, max]; anything else throws.
    uint64_t get_bytes(std::string_view key, uint64_t default_value, uint64_t min, uint64_t max);
    bool get_bool(std::string_view key, bool default_value);
    std::string get_string(std::string_view key, std::string_view default_value);

    bool contains(std::string_view key) const;

    // Throws OptionsError naming every given key that no getter asked for, and the
    // keys the getters did ask for: "option 'thredas' is unknown (known: threads)".
    void check_all_used() const;

private:
    struct Entry {
        std::string key, value;
        bool used = false;
    };
    // The entry for key, or nullptr; records key as known either way.
    Entry* lookup(std::string_view key);

    std::vector<Entry> entries_;       // in the order given
    std::vector<std::string> known_;   // keys asked for, in the order asked
};

// One option as an unsigned integer, for a host that must read it before the plugin
// does (the runner: `device`, `pool_sets`). nullopt when it is absent, or when the text
// or the value is malformed: the plugin refuses those itself, with its own message.
std::optional<uint64_t> find_uint_option(std::string_view text, std::string_view key);

}  // namespace zkbatch::plugin
