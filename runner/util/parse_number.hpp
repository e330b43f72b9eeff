// Numbers in text that users, Slurm, /proc and the database hand to zkbatch: the whole of
// `text` must be the number in decimal (no spaces, no '+', no sign for unsigned types)
// and fit in T; anything else is nothing, for the caller to turn into its own message.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace zkbatch {

template <class T>
std::optional<T> parse_number(std::string_view text) {
    T value{};
    const char* const last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(text.data(), last, value);
    if (text.empty() || ec != std::errc() || end != last) return std::nullopt;
    return value;
}

}  // namespace zkbatch
