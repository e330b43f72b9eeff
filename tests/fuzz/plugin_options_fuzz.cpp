// Fuzz target: a plugin's options text (the [backend.options] lines a plugin receives)
// through PluginOptions, asked for the way the backends ask: every key the input names,
// as each kind of value, then check_all_used. A value handed out must be in range.
#include "core/plugin/options.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using zkbatch::plugin::OptionsError;
    using zkbatch::plugin::PluginOptions;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        PluginOptions options(text);
        // The backends' own options first, then each key of the input by the kind its
        // first letter picks, so every getter meets arbitrary values.
        const uint64_t threads = options.get_uint("threads", 4, 1, 1024);
        const uint64_t pool_sets = options.get_uint("pool_sets", 3, 1, 64);
        if (threads < 1 || threads > 1024 || pool_sets < 1 || pool_sets > 64) {
            std::fprintf(stderr, "get_uint returned a value out of its range\n");
            std::abort();
        }
        for (size_t start = 0; start < text.size();) {
            const size_t end = std::min(text.find('\n', start), text.size());
            const std::string_view line = text.substr(start, end - start);
            start = end + 1;
            const size_t equals = line.find('=');
            if (equals == std::string_view::npos) continue;
            std::string key(line.substr(0, equals));
            while (!key.empty() && (key.back() == ' ' || key.back() == '\t' || key.back() == '\r')) key.pop_back();
            key.erase(0, key.find_first_not_of(" \t\r"));
            if (key.empty() || !options.contains(key)) continue;
            try {
                switch (key[0] % 4) {
                    case 0: {
                        const uint64_t value = options.get_uint(key, 0, 2, 1u << 20);
                        if (value < 2 || value > (1u << 20)) std::abort();
                        break;
                    }
                    case 1: options.get_bool(key, false); break;
                    case 2: {
                        const uint64_t bytes = options.get_bytes(key, 0, 1024, uint64_t{1} << 50);
                        if (bytes < 1024 || bytes > (uint64_t{1} << 50)) std::abort();
                        break;
                    }
                    default: options.get_string(key, ""); break;
                }
            } catch (const OptionsError&) {
            }
        }
        options.check_all_used();
    } catch (const OptionsError&) {
        // Refused with a message, as a plugin's create() reports it.
    }
    return 0;
}
