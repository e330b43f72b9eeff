// The helpers every plugin uses at the ABI boundary: guarded calls, text copies, facts.
#include "core/plugin/export.hpp"
#include "core/plugin/facts.hpp"
#include "core/plugin/options.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

namespace {

namespace plugin = zkbatch::plugin;

TEST(CopyText, FitsOrTruncatesAndAlwaysTerminates) {
    char small[6];
    std::memset(small, 'x', sizeof small);
    EXPECT_TRUE(plugin::copy_text(small, "abcde"));
    EXPECT_STREQ(small, "abcde");
    EXPECT_FALSE(plugin::copy_text(small, "abcdefgh"));
    EXPECT_STREQ(small, "abcde");
    EXPECT_TRUE(plugin::copy_text(small, ""));
    EXPECT_STREQ(small, "");
}

TEST(ReadText, StopsAtTheEndOfAnUnterminatedArray) {
    char unterminated[4] = {'a', 'b', 'c', 'd'};
    EXPECT_EQ(plugin::read_text(unterminated), "abcd");
    char terminated[4] = {'a', '\0', 'c', 'd'};
    EXPECT_EQ(plugin::read_text(terminated), "a");
}

TEST(SetError, FormatsPartsAndTruncatesToTheMessageSize) {
    zkb_error error{};
    plugin::set_error(&error, "log_n = ", 30, " exceeds ", 20u);
    EXPECT_STREQ(error.message, "log_n = 30 exceeds 20");
    plugin::set_error(&error, std::string(5000, 'y'));
    EXPECT_EQ(std::strlen(error.message), ZKB_ERROR_MESSAGE_BYTES - 1u);
    plugin::set_error(nullptr, "a null error is ignored");
}

TEST(Guarded, ReturnsOkWhenTheBodyDoesNotThrow) {
    zkb_error error{};
    bool ran = false;
    EXPECT_EQ(plugin::guarded(&error, "p", [&] { ran = true; }), ZKB_OK);
    EXPECT_TRUE(ran);
    EXPECT_STREQ(error.message, "");
}

TEST(Guarded, PluginErrorKeepsItsCodeAndIsPrefixedWithThePluginName) {
    zkb_error error{};
    EXPECT_EQ(plugin::guarded(&error, "cuda-pinned",
                              [] { throw plugin::Error(ZKB_ERR_DEVICE, "kernel launch failed: invalid argument"); }),
              ZKB_ERR_DEVICE);
    EXPECT_STREQ(error.message, "cuda-pinned: kernel launch failed: invalid argument");
}

TEST(Guarded, OptionsErrorIsInvalidArgument) {
    zkb_error error{};
    const int code = plugin::guarded(&error, "cpu-ref", [] {
        plugin::PluginOptions options("thredas=4");
        options.get_uint("threads", 1, 1, 8);
        options.check_all_used();
    });
    EXPECT_EQ(code, ZKB_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(error.message, "cpu-ref: option 'thredas' is unknown (known: threads)");
}

TEST(Guarded, BadAllocIsOutOfMemory) {
    zkb_error error{};
    EXPECT_EQ(plugin::guarded(&error, "p", [] { throw std::bad_alloc(); }), ZKB_ERR_OUT_OF_MEMORY);
    EXPECT_STREQ(error.message, "p: out of host memory");
}

TEST(Guarded, OtherExceptionsAreInternalErrors) {
    zkb_error error{};
    EXPECT_EQ(plugin::guarded(&error, "p", [] { throw std::out_of_range("index 9 of 4"); }), ZKB_ERR_INTERNAL);
    EXPECT_STREQ(error.message, "p: internal error: index 9 of 4");
    EXPECT_EQ(plugin::guarded(&error, "p", [] { throw 42; }), ZKB_ERR_INTERNAL);
    EXPECT_STREQ(error.message, "p: internal error: an exception of unknown type");
}

TEST(GuardedProbe, EmptyReasonMeansUsable) {
    zkb_error why{};
    EXPECT_EQ(plugin::guarded_probe(&why, [] { return std::string(); }), 1);
    EXPECT_EQ(plugin::guarded_probe(&why, [] { return std::string("no CUDA device"); }), 0);
    EXPECT_STREQ(why.message, "no CUDA device");
    EXPECT_EQ(plugin::guarded_probe(&why, []() -> std::string { throw std::runtime_error("driver gone"); }), 0);
    EXPECT_STREQ(why.message, "probe failed: driver gone");
}

TEST(AddFact, AppendsTextAndNumbers) {
    auto facts = std::make_unique<zkb_facts>();
    facts->count = 0;
    plugin::add_fact(facts.get(), plugin::fact::device_name, "NVIDIA H200");
    plugin::add_fact(facts.get(), plugin::fact::device_memory_bytes, uint64_t{150'000'000'000});
    ASSERT_EQ(facts->count, 2u);
    EXPECT_STREQ(facts->items[0].key, "device.name");
    EXPECT_STREQ(facts->items[0].value, "NVIDIA H200");
    EXPECT_STREQ(facts->items[1].key, "device.memory_bytes");
    EXPECT_STREQ(facts->items[1].value, "150000000000");
}

TEST(AddFact, TruncatesLongValues) {
    auto facts = std::make_unique<zkb_facts>();
    facts->count = 0;
    plugin::add_fact(facts.get(), "x.long", std::string(1000, 'v'));
    EXPECT_EQ(std::strlen(facts->items[0].value), ZKB_FACT_VALUE_BYTES - 1u);
}

TEST(AddFact, RefusesAKeyThatDoesNotFitAndAFullTable) {
    auto facts = std::make_unique<zkb_facts>();
    facts->count = 0;
    try {
        plugin::add_fact(facts.get(), std::string(ZKB_FACT_KEY_BYTES, 'k'), "v");
        ADD_FAILURE() << "a key of ZKB_FACT_KEY_BYTES characters was accepted";
    } catch (const plugin::Error& e) {
        EXPECT_EQ(e.code(), ZKB_ERR_INTERNAL);
    }
    EXPECT_EQ(facts->count, 0u);

    for (int i = 0; i < ZKB_MAX_FACTS; ++i) plugin::add_fact(facts.get(), "k" + std::to_string(i), i);
    EXPECT_THROW(plugin::add_fact(facts.get(), "one.too.many", "v"), plugin::Error);
    EXPECT_EQ(facts->count, static_cast<uint32_t>(ZKB_MAX_FACTS));
}

}  // namespace
