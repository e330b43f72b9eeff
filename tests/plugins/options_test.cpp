// PluginOptions: the parser of [backend.options] as a plugin receives it.
#include "core/plugin/options.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using zkbatch::plugin::OptionsError;
using zkbatch::plugin::PluginOptions;

// The message of the OptionsError that f throws; fails the test if it throws none.
template <class F>
std::string options_error(F&& f) {
    try {
        f();
    } catch (const OptionsError& e) {
        EXPECT_EQ(e.code(), ZKB_ERR_INVALID_ARGUMENT);
        return e.what();
    }
    ADD_FAILURE() << "no OptionsError thrown";
    return {};
}

TEST(PluginOptions, ParsesLinesTrimsWhitespaceAndSkipsBlankLines) {
    PluginOptions options("\nthreads = 8\r\n\n  name=  a b  \nflag=true\nempty=\n");
    EXPECT_EQ(options.get_uint("threads", 1, 1, 64), 8u);
    EXPECT_EQ(options.get_string("name", "x"), "a b");
    EXPECT_TRUE(options.get_bool("flag", false));
    EXPECT_EQ(options.get_string("empty", "default"), "");
    EXPECT_NO_THROW(options.check_all_used());
}

TEST(PluginOptions, ValueMayContainEquals) {
    PluginOptions options("path=a=b");
    EXPECT_EQ(options.get_string("path", ""), "a=b");
}

TEST(PluginOptions, AbsentKeysGiveDefaults) {
    PluginOptions options("");
    EXPECT_EQ(options.get_uint("threads", 7, 1, 64), 7u);
    EXPECT_FALSE(options.get_bool("flag", false));
    EXPECT_TRUE(options.get_bool("other", true));
    EXPECT_EQ(options.get_string("name", "dflt"), "dflt");
    EXPECT_FALSE(options.contains("threads"));
    EXPECT_NO_THROW(options.check_all_used());
}

TEST(PluginOptions, LineWithoutEqualsIsAnError) {
    const std::string message = options_error([] { PluginOptions("threads=2\n\nthreads 4"); });
    EXPECT_EQ(message, "options line 3 ('threads 4') has no '=': write each option as key=value");
}

TEST(PluginOptions, EmptyKeyIsAnError) {
    const std::string message = options_error([] { PluginOptions(" = 4"); });
    EXPECT_EQ(message, "options line 1 ('= 4') has an empty key: write each option as key=value");
}

TEST(PluginOptions, DuplicateKeyIsAnErrorNamingBothLines) {
    const std::string message = options_error([] { PluginOptions("threads=2\nother=1\nthreads = 3"); });
    EXPECT_EQ(message, "option 'threads' is given twice (lines 1 and 3): keep one");
}

TEST(PluginOptions, UnknownKeyIsNamedWithTheKnownOnes) {
    PluginOptions options("thredas=4");
    EXPECT_EQ(options.get_uint("threads", 1, 1, 64), 1u);
    EXPECT_EQ(options_error([&] { options.check_all_used(); }), "option 'thredas' is unknown (known: threads)");
}

TEST(PluginOptions, EveryUnknownKeyIsNamed) {
    PluginOptions options("pool_bufers=4\nthreads=2\nstreams=3");
    options.get_uint("threads", 1, 1, 64);
    options.get_uint("pool_buffers", 1, 1, 64);
    EXPECT_EQ(options_error([&] { options.check_all_used(); }),
              "options 'pool_bufers', 'streams' are unknown (known: threads, pool_buffers)");
}

TEST(PluginOptions, AnyOptionIsUnknownToABackendWithoutOptions) {
    PluginOptions options("threads=2");
    EXPECT_EQ(options_error([&] { options.check_all_used(); }),
              "option 'threads' is unknown (this backend takes no options)");
}

TEST(PluginOptions, UintRangeIsInclusiveAndEnforced) {
    PluginOptions options("low=1\nhigh=64\nzero=0\nbig=65");
    EXPECT_EQ(options.get_uint("low", 5, 1, 64), 1u);
    EXPECT_EQ(options.get_uint("high", 5, 1, 64), 64u);
    EXPECT_EQ(options_error([&] { options.get_uint("zero", 5, 1, 64); }),
              "option 'zero' = 0 is out of range: it must be in [1, 64]");
    EXPECT_EQ(options_error([&] { options.get_uint("big", 5, 1, 64); }),
              "option 'big' = 65 is out of range: it must be in [1, 64]");
}

TEST(PluginOptions, UintRejectsNonNumbersAndOverflow) {
    PluginOptions options("neg=-1\nword=four\ntail=4x\nempty=\nhuge=99999999999999999999999");
    EXPECT_EQ(options_error([&] { options.get_uint("neg", 1, 0, 10); }),
              "option 'neg' = '-1' is not an unsigned integer");
    EXPECT_EQ(options_error([&] { options.get_uint("word", 1, 0, 10); }),
              "option 'word' = 'four' is not an unsigned integer");
    EXPECT_EQ(options_error([&] { options.get_uint("tail", 1, 0, 10); }),
              "option 'tail' = '4x' is not an unsigned integer");
    EXPECT_EQ(options_error([&] { options.get_uint("empty", 1, 0, 10); }),
              "option 'empty' = '' is not an unsigned integer");
    EXPECT_EQ(options_error([&] { options.get_uint("huge", 1, 0, 10); }),
              "option 'huge' = 99999999999999999999999 is out of range: it must be in [0, 10]");
}

// Sizes: bytes, or an integer with a binary unit; the range is in bytes, after the unit.
TEST(PluginOptions, SizesTakeBinaryUnits) {
    PluginOptions options("plain=4096\nunit=16GiB\nspaced=512 MiB\nbytes=7 B\ntib=1TiB\nkib=3KiB");
    EXPECT_EQ(options.get_bytes("plain", 0, 0, UINT64_MAX), 4096u);
    EXPECT_EQ(options.get_bytes("unit", 0, 0, UINT64_MAX), uint64_t{16} << 30);
    EXPECT_EQ(options.get_bytes("spaced", 0, 0, UINT64_MAX), uint64_t{512} << 20);
    EXPECT_EQ(options.get_bytes("bytes", 0, 0, UINT64_MAX), 7u);
    EXPECT_EQ(options.get_bytes("tib", 0, 0, UINT64_MAX), uint64_t{1} << 40);
    EXPECT_EQ(options.get_bytes("kib", 0, 0, UINT64_MAX), 3u * 1024);
    EXPECT_EQ(options.get_bytes("absent", 99, 0, 10), 99u);
}

TEST(PluginOptions, SizesRefuseOtherUnitsFractionsAndOverflow) {
    PluginOptions options("gb=16GB\nfraction=1.5GiB\nneg=-1GiB\nempty=\nlower=16gib\nwrap=16777216TiB\nsmall=1MiB");
    const std::string units = "' is not a size: give bytes, or an integer with B, KiB, MiB, GiB or TiB (\"16GiB\")";
    EXPECT_EQ(options_error([&] { options.get_bytes("gb", 0, 0, UINT64_MAX); }), "option 'gb' = '16GB" + units);
    EXPECT_EQ(options_error([&] { options.get_bytes("fraction", 0, 0, UINT64_MAX); }),
              "option 'fraction' = '1.5GiB" + units);
    EXPECT_EQ(options_error([&] { options.get_bytes("neg", 0, 0, UINT64_MAX); }), "option 'neg' = '-1GiB" + units);
    EXPECT_EQ(options_error([&] { options.get_bytes("empty", 0, 0, UINT64_MAX); }), "option 'empty' = '" + units);
    EXPECT_EQ(options_error([&] { options.get_bytes("lower", 0, 0, UINT64_MAX); }), "option 'lower' = '16gib" + units);
    // 2^24 TiB is 2^64 bytes: it does not fit, and is not taken modulo 2^64 (as 0).
    EXPECT_EQ(options_error([&] { options.get_bytes("wrap", 0, 0, UINT64_MAX); }),
              "option 'wrap' = '16777216TiB' is out of range: it must be in [0, 18446744073709551615] bytes");
    EXPECT_EQ(options_error([&] { options.get_bytes("small", 0, uint64_t{1} << 30, UINT64_MAX); }),
              "option 'small' = '1MiB' is out of range: it must be in [1073741824, 18446744073709551615] bytes");
}

TEST(PluginOptions, Bools) {
    PluginOptions options("a=true\nb=false\nc=1\nd=0\ne=yes");
    EXPECT_TRUE(options.get_bool("a", false));
    EXPECT_FALSE(options.get_bool("b", true));
    EXPECT_TRUE(options.get_bool("c", false));
    EXPECT_FALSE(options.get_bool("d", true));
    EXPECT_EQ(options_error([&] { options.get_bool("e", false); }),
              "option 'e' = 'yes' is not a boolean: use true or false");
}

TEST(PluginOptions, ReadingAKeyMarksItUsedEvenWhenItsValueIsBad) {
    // The bad value is reported by the getter; check_all_used must not also name it unknown.
    PluginOptions options("threads=abc");
    EXPECT_THROW(options.get_uint("threads", 1, 1, 8), OptionsError);
    EXPECT_NO_THROW(options.check_all_used());
}

}  // namespace

// What the runner reads before a plugin does (pipeline.devices' default device, the
// host-memory estimate's pool_sets): a number, or nothing when absent or malformed.
TEST(FindUintOption, ReadsOneNumberOrNothing) {
    using zkbatch::plugin::find_uint_option;
    EXPECT_EQ(find_uint_option("threads=4\npool_sets=6\n", "pool_sets"), std::optional<uint64_t>(6));
    EXPECT_EQ(find_uint_option(" device = 3 ", "device"), std::optional<uint64_t>(3));
    EXPECT_EQ(find_uint_option("threads=4", "pool_sets"), std::nullopt);
    EXPECT_EQ(find_uint_option("pool_sets=six", "pool_sets"), std::nullopt);
    EXPECT_EQ(find_uint_option("pool_sets=-1", "pool_sets"), std::nullopt);
    EXPECT_EQ(find_uint_option("pool_sets=", "pool_sets"), std::nullopt);
    EXPECT_EQ(find_uint_option("no equals sign", "pool_sets"), std::nullopt);
    EXPECT_EQ(find_uint_option("", "device"), std::nullopt);
    // A longer key that starts with the one asked for is another option.
    EXPECT_EQ(find_uint_option("device_count=4", "device"), std::nullopt);
}
