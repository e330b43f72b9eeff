// Errors inside a plugin, and the truncation-safe copies that put text into the
// fixed-size char arrays of the C ABI (zkb_error, zkb_fact, zkb_phase).
//
// Inside a plugin, code throws plugin::Error (or lets std::bad_alloc escape);
// guarded() in export.hpp turns it into a ZKB_ERR_* code and a zkb_error message
// at the ABI boundary, so no exception ever crosses it.
#pragma once

#include "core/plugin/abi.h"

#include <cstddef>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace zkbatch::plugin {

// An error with the ZKB_ERR_* code the caller should see.
class Error : public std::runtime_error {
public:
    Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

// Joins the parts as an ostream would print them: concat("log_n ", 30, " > ", 20).
template <class... Parts>
std::string concat(const Parts&... parts) {
    std::ostringstream out;
    (out << ... << parts);
    return std::move(out).str();
}

// Copies text into a fixed char array, truncating if it does not fit; the result is
// always NUL-terminated. Returns false when the text was truncated.
template <std::size_t N>
bool copy_text(char (&destination)[N], std::string_view text) noexcept {
    static_assert(N > 0);
    const std::size_t length = text.size() < N - 1 ? text.size() : N - 1;
    std::memcpy(destination, text.data(), length);
    destination[length] = '\0';
    return length == text.size();
}

// Reads a fixed char array that the other side of the ABI filled: stops at the first
// NUL or at the end of the array, so a missing terminator cannot overrun it.
template <std::size_t N>
std::string read_text(const char (&source)[N]) {
    std::size_t length = 0;
    while (length < N && source[length] != '\0') ++length;
    return std::string(source, length);
}

// Writes a message into *error (when error is not null), truncated to fit.
inline void set_error(zkb_error* error, std::string_view message) noexcept {
    if (error != nullptr) copy_text(error->message, message);
}

// set_error(err, "log_n ", log_n, " exceeds max_log_n ", max_log_n).
template <class First, class Second, class... Rest>
void set_error(zkb_error* error, const First& first, const Second& second, const Rest&... rest) noexcept {
    try {
        set_error(error, concat(first, second, rest...));
    } catch (...) {
        set_error(error, "out of memory while formatting an error message");
    }
}

}  // namespace zkbatch::plugin
