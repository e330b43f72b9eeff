// The checks parse_manifest makes before TOML++ sees the text (prescan_toml,
// runner/manifest/prescan.cpp): what they must let through (strings, comments and
// multi-line strings with anything valid in them; nesting up to the limit) and where
// they refuse.
#include "manifest/manifest.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using zkbatch::Manifest;
using zkbatch::ManifestError;
using zkbatch::parse_manifest;

std::string refusal(const std::string& text, const std::vector<std::string>& overrides = {}) {
    try {
        parse_manifest(text, "m.toml", overrides);
    } catch (const ManifestError& e) {
        return e.what();
    }
    return "accepted";
}

std::string dotted(int segments) {
    std::string key = "k";
    for (int i = 1; i < segments; ++i) key += ".k";
    return key;
}

TEST(Prescan, NonAsciiInStringsAndCommentsIsAccepted) {
    const Manifest m = parse_manifest(
        "# caf\u00e9 \u025c \u3001\n"
        "[job]\nname = \"x\"  # \u00e9\n"
        "[output.tags]\n"
        "\"cl\u00e9\" = \"caf\u00e9 \u025c\"\n"
        "lit = 'caf\u00e9 \u025c'\n"
        "multi = \"\"\"\n\u025c line\n\u3001\"\"\"\n"
        "multilit = '''\n\u025c\\\n\u00e9'''\n",
        "m.toml");
    EXPECT_EQ(m.output.tags.at("cl\u00e9"), "caf\u00e9 \u025c");
    EXPECT_EQ(m.output.tags.at("lit"), "caf\u00e9 \u025c");
    EXPECT_EQ(m.output.tags.at("multi"), "\u025c line\n\u3001");
    EXPECT_EQ(m.output.tags.at("multilit"), "\u025c\\\n\u00e9");
}

TEST(Prescan, StringEndsAreFoundWhereTomlPutsThem) {
    // Escaped quotes, and multi-line strings ending in one or two quotes of content:
    // the text after them is outside the string again and still checked.
    const Manifest m = parse_manifest(
        "[job]\nname = \"x\"\n[output.tags]\n"
        "a = \"q\\\"# not a comment\"\n"
        "b = \"\"\"two\"\"\"\"\"\n"
        "c = '''one''''\n"
        "d = \"\"\"line \\\n   continued\"\"\"\n",
        "m.toml");
    EXPECT_EQ(m.output.tags.at("a"), "q\"# not a comment");
    EXPECT_EQ(m.output.tags.at("b"), "two\"\"");
    EXPECT_EQ(m.output.tags.at("c"), "one'");
    EXPECT_EQ(m.output.tags.at("d"), "line continued");
    EXPECT_NE(refusal("[job]\nname = \"x\"\n[output.tags]\nc = '''one'''' \u025c\n").find(
                  "m.toml:4:16: a character outside ASCII outside quotes"),
              std::string::npos);
}

TEST(Prescan, NestingUpToTheLimitIsTomlsToJudge) {
    // 64 levels pass the prescan (TOML++ and validation then refuse the unknown table);
    // 65 do not, counted across a header, a dotted key and inline tables.
    EXPECT_NE(refusal("[job]\nname = \"x\"\n[" + dotted(64) + "]\n").find("k: unknown table"), std::string::npos);
    EXPECT_NE(refusal("[job]\nname = \"x\"\n[" + dotted(65) + "]\n").find("m.toml:3:"), std::string::npos);
    EXPECT_NE(refusal("[job]\nname = \"x\"\n[" + dotted(65) + "]\n").find("nested more than 64 levels deep"),
              std::string::npos);
    EXPECT_NE(refusal("[job]\nname = \"x\"\n[" + dotted(40) + "]\n" + dotted(20) + " = {" + dotted(5) + " = 1}\n")
                  .find("nested more than 64 levels deep"),
              std::string::npos);
    // job.k is level 2, so its 63rd array (column 67) is level 65.
    EXPECT_NE(refusal("[job]\nname = \"x\"\nk = " + std::string(65, '[') + std::string(65, ']') + "\n")
                  .find("m.toml:3:67: tables or arrays nested more than 64 levels deep"),
              std::string::npos);
    // Dots in values are not levels.
    std::string floats = "1.5";
    for (int i = 0; i < 100; ++i) floats += ", 2.5";
    EXPECT_NE(refusal("[job]\nname = \"x\"\n[output.tags]\nv = [" + floats + "]\n")
                  .find("m.toml:4:5: output.tags.v: expected a scalar"),
              std::string::npos);
}

TEST(Prescan, OverrideOutsideAsciiIsABareString) {
    // Not TOML as written, so --set takes it as a string, as it does any non-TOML text.
    const Manifest m = parse_manifest("[job]\nname = \"x\"\n", "m.toml", {"output.tags.who=caf\u00e9 \u025c"});
    EXPECT_EQ(m.output.tags.at("who"), "caf\u00e9 \u025c");
}

TEST(Prescan, SizeCapIsOneMebibyte) {
    std::string text = "[job]\nname = \"x\"\n#";
    text += std::string((1u << 20) - text.size(), 'c');
    EXPECT_EQ(text.size(), 1u << 20);
    EXPECT_EQ(refusal(text), "accepted");
    EXPECT_NE(refusal(text + "c").find("m.toml: is 1048577 bytes; a manifest may be at most 1048576 bytes"),
              std::string::npos);
}

}  // namespace
