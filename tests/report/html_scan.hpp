// Just enough HTML scanning for the report tests: the pages are zkbatch's own (and
// Chromium's serialization of them), with attributes always in double quotes.
// (No std::regex: GCC 12 warns inside libstdc++'s regex under -fsanitize, and
// warnings are errors.)
#pragma once

#include <map>
#include <string>
#include <vector>

namespace zkbatch::html_scan {

inline size_t count_of(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
    return count;
}

// Each "<name ...>" start tag, in order.
inline std::vector<std::string> start_tags(const std::string& html, const std::string& name) {
    std::vector<std::string> tags;
    const std::string open = "<" + name;
    for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
        const char next = at + open.size() < html.size() ? html[at + open.size()] : '\0';
        if (next != ' ' && next != '>' && next != '/') continue;  // <svgfoo> is another element
        const size_t end = html.find('>', at);
        if (end == std::string::npos) break;
        tags.push_back(html.substr(at, end - at + 1));
    }
    return tags;
}

// Each "<name ...>...</name>" element, whole (elements of this name must not nest).
inline std::vector<std::string> elements(const std::string& html, const std::string& name) {
    std::vector<std::string> found;
    const std::string close = "</" + name + ">";
    size_t from = 0;
    for (const std::string& tag : start_tags(html, name)) {
        const size_t at = html.find(tag, from);
        const size_t end = html.find(close, at);
        if (end == std::string::npos) break;
        found.push_back(html.substr(at, end + close.size() - at));
        from = end;
    }
    return found;
}

// The name="value" attributes of a start tag.
inline std::map<std::string, std::string> attributes(const std::string& start_tag) {
    std::map<std::string, std::string> out;
    size_t at = start_tag.find(' ');
    while (at != std::string::npos) {
        const size_t equals = start_tag.find("=\"", at);
        if (equals == std::string::npos) break;
        size_t name_start = start_tag.find_last_of(' ', equals);
        const std::string name = start_tag.substr(name_start + 1, equals - name_start - 1);
        const size_t value_end = start_tag.find('"', equals + 2);
        if (value_end == std::string::npos) break;
        out[name] = start_tag.substr(equals + 2, value_end - equals - 2);
        at = value_end + 1;
    }
    return out;
}

// Whether some src="..." or href="..." points off the page (http:, https: or //).
inline bool has_remote_reference(const std::string& html) {
    for (const char* attribute : {"src=\"", "href=\""}) {
        const std::string key = attribute;
        for (size_t at = html.find(key); at != std::string::npos; at = html.find(key, at + 1)) {
            const std::string value = html.substr(at + key.size(), 8);
            if (value.starts_with("http:") || value.starts_with("https:") || value.starts_with("//")) return true;
        }
    }
    return false;
}

// The table row "<tr><td>first</td>...</tr>" (empty when there is none).
inline std::string row_starting_with(const std::string& html, const std::string& first_cell) {
    const std::string start = "<tr><td>" + first_cell + "</td>";
    const size_t at = html.find(start);
    if (at == std::string::npos) return {};
    return html.substr(at, html.find("</tr>", at) + 5 - at);
}

}  // namespace zkbatch::html_scan
