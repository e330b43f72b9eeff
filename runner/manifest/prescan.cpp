// The TOML pre-scan (prescan.hpp): one pass over the text that skips strings and
// comments, refuses the characters TOML++ 3.3 mishandles, and counts nesting.
#include "manifest/prescan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace zkbatch::manifest_detail {

namespace {

bool non_ascii(char c) { return static_cast<unsigned char>(c) >= 0x80; }

// One pass over the text; pos_ is the index of the byte being read. Each step leaves
// pos_ on the last byte it consumed, and scan() moves on from there.
class Prescanner {
public:
    // A UTF-8 byte order mark may open the text; TOML++ skips it.
    explicit Prescanner(std::string_view text)
        : text_(text), pos_(text.starts_with("\xEF\xBB\xBF") ? 3 : 0), line_start_(pos_) {}

    std::optional<PrescanProblem> scan() {
        for (; pos_ < text_.size(); ++pos_) {
            const char c = text_[pos_];
            if (c == '\n') {
                end_line();
                continue;
            }
            if (c == '#') {
                skip_comment();
                continue;
            }
            if (c == '"' || c == '\'') {  // a string or quoted key segment
                if (auto problem = skip_string(c)) return problem;
                key_started_ = true;
                continue;
            }
            if (non_ascii(c))
                return problem_at(pos_, "a character outside ASCII outside quotes; TOML allows them only in strings "
                                        "and comments (quote the key or value)");
            if (auto problem = check_bare_value(c)) return problem;
            if (nesting_step(c) > kMaxNestingLevels)
                return PrescanProblem{line_, column(pos_), true,
                                      fmt::format("tables or arrays nested more than {} levels deep; a manifest "
                                                  "needs 3 (backend.options.X)", kMaxNestingLevels)};
        }
        return std::nullopt;
    }

private:
    struct Container {
        char bracket;  // '[' an array value, '{' an inline table
        size_t depth;  // of the array or table itself
    };

    void new_line(size_t newline_index) { ++line_, line_start_ = newline_index + 1; }
    uint32_t column(size_t index) const { return static_cast<uint32_t>(index - line_start_ + 1); }
    PrescanProblem problem_at(size_t index, std::string_view message) const {
        return PrescanProblem{line_, column(index), false, std::string(message)};
    }

    // A newline outside arrays and inline tables ends the key, header or value: a key
    // of the last header's table comes next.
    void end_line() {
        new_line(pos_);
        if (!open_.empty()) return;
        in_key_ = true, key_started_ = false, in_header_ = false, depth_ = header_depth_ + 1;
    }

    // A comment runs to the end of the line.
    void skip_comment() {
        while (pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') ++pos_;
    }

    // Skips a string whole, pos_ at its opening quote, checking a basic string's escapes.
    std::optional<PrescanProblem> skip_string(char quote) {
        const std::string triple(3, quote);
        const bool multi_line = text_.substr(pos_, 3) == triple;
        const size_t quotes = multi_line ? 3 : 1;
        for (pos_ += quotes; pos_ < text_.size(); ++pos_) {
            const char c = text_[pos_];
            if (c == quote && (!multi_line || text_.substr(pos_, 3) == triple)) {
                // A multi-line string may end with one or two quotes of content.
                pos_ += quotes - 1;
                for (int extra = 0; multi_line && extra < 2 && pos_ + 1 < text_.size() && text_[pos_ + 1] == quote;
                     ++extra)
                    ++pos_;
                return std::nullopt;
            }
            if (c == '\n') {
                if (!multi_line) {  // unterminated: TOML++ stops here
                    --pos_;         // the newline is scan()'s
                    return std::nullopt;
                }
                new_line(pos_);
                continue;
            }
            if (quote == '"' && c == '\\')
                if (auto problem = skip_escape(multi_line)) return problem;
        }
        return std::nullopt;
    }

    // An escape in a basic string, pos_ at its '\'.
    std::optional<PrescanProblem> skip_escape(bool multi_line) {
        if (pos_ + 1 < text_.size() && non_ascii(text_[pos_ + 1]))
            return problem_at(pos_, "'\\' followed by a character outside ASCII is not a TOML escape");
        size_t next = pos_ + 1;
        while (next < text_.size() && (text_[next] == ' ' || text_[next] == '\t' || text_[next] == '\r')) ++next;
        if (!multi_line || next >= text_.size() || text_[next] != '\n') {
            ++pos_;  // the escaped character
            return std::nullopt;
        }
        // A line-ending backslash: TOML++ skips the whitespace after it.
        while (next < text_.size() &&
               (text_[next] == ' ' || text_[next] == '\t' || text_[next] == '\r' || text_[next] == '\n')) {
            if (text_[next] == '\n') new_line(next);
            ++next;
        }
        if (next < text_.size() && non_ascii(text_[next]))
            return problem_at(next, "a character outside ASCII right after a line-ending backslash; TOML++ 3.3 "
                                    "misreads it there: put it on the line before, or write it as \\uXXXX");
        pos_ = next - 1;
        return std::nullopt;
    }

    // TOML++ reads a bare value (number, date, boolean) ahead up to whitespace, ',', ']',
    // '}' or '#', through any quotes in it, before it refuses a malformed one. Check
    // that run whole, up to the end of its line (valid TOML has nothing else there).
    std::optional<PrescanProblem> check_bare_value(char c) {
        if (in_key_ || in_header_ || pos_ < bare_value_checked_ ||
            std::string_view(" \t\r[]{},=").find(c) != std::string_view::npos)
            return std::nullopt;
        bare_value_checked_ = std::min(text_.find_first_of("\n#,]}", pos_), text_.size());
        for (size_t j = pos_; j < bare_value_checked_; ++j)
            if (non_ascii(text_[j]))
                return problem_at(j, "a character outside ASCII in or right after a value outside quotes; TOML "
                                     "allows them only in strings and comments");
        return std::nullopt;
    }

    // Follows `c` through a header, a key or a value; returns the depth it opens a level
    // at, or 0 when it opens none.
    size_t nesting_step(char c) {
        if (in_header_) return header_step(c);
        if (in_key_) return key_step(c);
        return value_step(c);
    }

    size_t header_step(char c) {
        if (c == '.') return ++header_depth_;
        if (c == ']') in_header_ = false, in_key_ = false;
        return 0;
    }

    size_t key_step(char c) {
        if (c == '[' && open_.empty() && !key_started_) {  // [a.b], or [[a.b]]: one level more
            in_header_ = true;
            header_depth_ = 1;
            if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '[') ++pos_, ++header_depth_;
            return header_depth_;
        }
        if (c == '.') return ++depth_;
        if (c == '=') {
            in_key_ = false;
        } else if (c == '}' && !open_.empty()) {  // "{}" or a trailing ','
            depth_ = open_.back().depth;
            open_.pop_back();
            in_key_ = false;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            key_started_ = true;
        }
        return 0;
    }

    size_t value_step(char c) {
        if (c == '[' || c == '{') {
            open_.push_back({c, depth_});
            in_key_ = c == '{';
            key_started_ = false;
            return ++depth_;
        }
        if (c == ',' && !open_.empty()) {
            depth_ = open_.back().depth + 1;
            in_key_ = open_.back().bracket == '{';
            key_started_ = false;
        } else if ((c == ']' || c == '}') && !open_.empty()) {
            depth_ = open_.back().depth;
            open_.pop_back();
        }
        return 0;
    }

    std::string_view text_;
    size_t pos_;
    uint32_t line_ = 1;
    size_t line_start_;               // index of the current line's first byte
    std::vector<Container> open_;     // the arrays and inline tables around the value being read
    size_t header_depth_ = 0;         // of the table the last [header] or [[header]] opened
    size_t depth_ = 1;                // of the key segment or value being read
    bool in_key_ = true;              // reading a key: at a line start, after '{', or after ',' in one
    bool key_started_ = false;        // the key has a character already (a '[' then is not a header)
    bool in_header_ = false;
    size_t bare_value_checked_ = 0;   // bare values before this index were checked whole
};

}  // namespace

std::optional<PrescanProblem> prescan_toml(std::string_view text) { return Prescanner(text).scan(); }

}  // namespace zkbatch::manifest_detail
