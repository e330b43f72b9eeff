// The plugin host: search order, the messages for each way a plugin can be wrong,
// listing, and the RAII wrappers, using the test plugins of tests/plugins/CMakeLists.txt.
#include "plugin_host/plugin_host.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace {

using zkbatch::Backend;
using zkbatch::PluginError;
namespace fs = std::filesystem;

const std::string kTestPlugins = ZKBATCH_TEST_PLUGIN_DIR;
const std::string kBroken = kTestPlugins + "/broken";
const std::string kFirst = kTestPlugins + "/first";
const std::string kSecond = kTestPlugins + "/second";

// Sets (or, with nullopt, unsets) ZKBATCH_PLUGIN_PATH for one test, and restores it.
class ScopedPluginPath {
public:
    explicit ScopedPluginPath(const std::optional<std::string>& value) {
        if (const char* old = std::getenv("ZKBATCH_PLUGIN_PATH")) old_ = old;
        if (value) {
            setenv("ZKBATCH_PLUGIN_PATH", value->c_str(), 1);
        } else {
            unsetenv("ZKBATCH_PLUGIN_PATH");
        }
    }
    ~ScopedPluginPath() {
        if (old_) {
            setenv("ZKBATCH_PLUGIN_PATH", old_->c_str(), 1);
        } else {
            unsetenv("ZKBATCH_PLUGIN_PATH");
        }
    }
    ScopedPluginPath(const ScopedPluginPath&) = delete;
    ScopedPluginPath& operator=(const ScopedPluginPath&) = delete;

private:
    std::optional<std::string> old_;
};

fs::path canonical(const std::string& path) { return fs::weakly_canonical(path); }

// The PluginError that f throws; fails the test if it throws none.
template <class F>
PluginError plugin_error(F&& f) {
    try {
        f();
    } catch (const PluginError& e) {
        return e;
    }
    ADD_FAILURE() << "no PluginError thrown";
    return PluginError(PluginError::Kind::call_failed, "");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- Search order -------------------------------------------------------------------

TEST(PluginSearch, FoldersInOrderWithoutDuplicates) {
    ScopedPluginPath env(kFirst + "::" + kSecond + ":" + kFirst);
    const auto folders = zkbatch::plugin_search_folders(kBroken);
    ASSERT_GE(folders.size(), 4u);
    EXPECT_EQ(folders[0], canonical(kBroken));
    EXPECT_EQ(folders[1], canonical(kFirst));
    EXPECT_EQ(folders[2], canonical(kSecond));
    // The test binary sits at the top of the build tree, so <exe dir>/plugins and the
    // build tree's plugins folder are the same folder, listed once.
    EXPECT_EQ(std::count(folders.begin(), folders.end(), canonical(ZKBATCH_BUILD_PLUGIN_DIR)), 1);
    EXPECT_EQ(std::count(folders.begin(), folders.end(), canonical(kFirst)), 1);
}

TEST(PluginSearch, BuildTreeIsFoundWithoutAnyConfiguration) {
    ScopedPluginPath env(std::nullopt);
    const auto plugin = zkbatch::load_plugin("cpu-ref");
    EXPECT_EQ(canonical(plugin->file().string()), canonical(CPU_REF_PLUGIN_FILE));
    EXPECT_EQ(plugin->name(), "cpu-ref");
}

TEST(PluginSearch, EnvironmentBeatsBuildTree) {
    ScopedPluginPath env(kSecond);
    const auto plugin = zkbatch::load_plugin("cpu-ref");
    EXPECT_EQ(plugin->file().parent_path(), canonical(kSecond));
    EXPECT_STREQ(plugin->api().description, "test plugin cpu-ref in second");
}

TEST(PluginSearch, ExplicitFolderBeatsEnvironment) {
    ScopedPluginPath env(kSecond);
    const auto plugin = zkbatch::load_plugin("cpu-ref", kFirst);
    EXPECT_STREQ(plugin->api().description, "test plugin cpu-ref in first");
}

TEST(PluginSearch, ExplicitFileBeatsEnvironmentForItsOwnNameOnly) {
    ScopedPluginPath env(kFirst);
    const std::string second_stub = kSecond + "/libzkbatch-stub.so";
    EXPECT_STREQ(zkbatch::load_plugin("stub", second_stub)->api().description, "test plugin stub in second");
    // Another name still comes from the other search locations.
    EXPECT_STREQ(zkbatch::load_plugin("cpu-ref", second_stub)->api().description, "test plugin cpu-ref in first");
}

TEST(PluginSearch, PluginPathWithSeveralFolders) {
    ScopedPluginPath env("/nonexistent/zkbatch-plugins:" + kFirst + ":" + kSecond);
    // In both folders: the first one wins.
    EXPECT_STREQ(zkbatch::load_plugin("stub")->api().description, "test plugin stub in first");
    // Only in the last folder: still found.
    EXPECT_STREQ(zkbatch::load_plugin("only-second")->api().description, "test plugin only-second in second");
}

TEST(PluginSearch, NameThatIsAPathLoadsThatFile) {
    ScopedPluginPath env(kFirst);
    const auto plugin = zkbatch::load_plugin(kSecond + "/libzkbatch-cpu-ref.so");
    EXPECT_STREQ(plugin->api().description, "test plugin cpu-ref in second");

    const PluginError missing = plugin_error([] { zkbatch::load_plugin("/nonexistent/libzkbatch-x.so"); });
    EXPECT_EQ(missing.kind, PluginError::Kind::not_found);
    EXPECT_TRUE(contains(missing.what(), "/nonexistent/libzkbatch-x.so does not exist")) << missing.what();
}

// ---- What goes wrong, and what the user is told ------------------------------------

TEST(PluginErrors, NotFoundListsEveryFolderSearchedAndHowToFix) {
    ScopedPluginPath env("/nonexistent/zkbatch-plugins:" + kFirst);
    const PluginError e = plugin_error([] { zkbatch::load_plugin("no-such-backend", kSecond); });
    const std::string message = e.what();
    EXPECT_EQ(e.kind, PluginError::Kind::not_found);
    EXPECT_TRUE(contains(message, "backend plugin 'no-such-backend' not found")) << message;
    EXPECT_TRUE(contains(message, "libzkbatch-no-such-backend.so")) << message;
    EXPECT_TRUE(contains(message, "\n  " + canonical(kSecond).string() + "\n")) << message;
    EXPECT_TRUE(contains(message, "\n  /nonexistent/zkbatch-plugins (does not exist)\n")) << message;
    EXPECT_TRUE(contains(message, "\n  " + canonical(kFirst).string() + "\n")) << message;
    EXPECT_TRUE(contains(message, "\n  " + canonical(ZKBATCH_BUILD_PLUGIN_DIR).string())) << message;
    EXPECT_TRUE(contains(message, "ZKBATCH_PLUGIN_PATH")) << message;
    EXPECT_TRUE(contains(message, "zkbatch backends")) << message;
    EXPECT_TRUE(contains(message, "build it")) << message;
    // Listed in search order.
    EXPECT_LT(message.find(canonical(kSecond).string()), message.find("/nonexistent/zkbatch-plugins"));
    EXPECT_LT(message.find("/nonexistent/zkbatch-plugins"), message.find(canonical(kFirst).string()));
}

TEST(PluginErrors, FileWithoutTheEntrySymbolIsNotAPlugin) {
    const PluginError e = plugin_error([] { zkbatch::load_plugin(NO_ENTRY_PLUGIN_FILE); });
    EXPECT_EQ(e.kind, PluginError::Kind::not_a_plugin);
    EXPECT_TRUE(contains(e.what(), NO_ENTRY_PLUGIN_FILE)) << e.what();
    EXPECT_TRUE(contains(e.what(), "is not a zkbatch plugin: it loads but does not export zkbatch_plugin_api()"))
        << e.what();
}

TEST(PluginErrors, FileThatIsNotASharedObjectIncludesTheLoadersMessage) {
    const PluginError e = plugin_error([] { zkbatch::load_plugin("garbage", kBroken); });
    EXPECT_EQ(e.kind, PluginError::Kind::not_a_plugin);
    EXPECT_TRUE(contains(e.what(), "libzkbatch-garbage.so is not a zkbatch plugin: it cannot be loaded"))
        << e.what();
    EXPECT_TRUE(contains(e.what(), "invalid ELF header")) << e.what();  // dlopen's own words
}

TEST(PluginErrors, AbiMismatchNamesBothVersions) {
    const PluginError e = plugin_error([] { zkbatch::load_plugin(ABI_999_PLUGIN_FILE); });
    EXPECT_EQ(e.kind, PluginError::Kind::abi_mismatch);
    const std::string expected = "was built for ABI v999, this zkbatch speaks ABI v" +
                                 std::to_string(ZKB_ABI_VERSION) + ": rebuild the plugin against this zkbatch";
    EXPECT_TRUE(contains(e.what(), expected)) << e.what();
}

TEST(PluginErrors, NullApiTable) {
    const PluginError e = plugin_error([] { zkbatch::load_plugin(NULL_API_PLUGIN_FILE); });
    EXPECT_EQ(e.kind, PluginError::Kind::not_a_plugin);
    EXPECT_TRUE(contains(e.what(), "zkbatch_plugin_api() returned no API table")) << e.what();
}

TEST(PluginErrors, MissingFunctionPointerIsNamed) {
    const PluginError e = plugin_error([] { zkbatch::load_plugin(MISSING_PROVE_PLUGIN_FILE); });
    EXPECT_EQ(e.kind, PluginError::Kind::not_a_plugin);
    EXPECT_TRUE(contains(e.what(), "its API table lacks prove.")) << e.what();
}

TEST(PluginErrors, UnavailableCarriesThePluginsReason) {
    const auto plugin = zkbatch::load_plugin(UNAVAILABLE_PLUGIN_FILE);
    std::string why;
    EXPECT_FALSE(plugin->usable(&why));
    EXPECT_EQ(why, "no frobnicator on this machine (test plugin)");
    const PluginError e = plugin_error([&] { plugin->require_usable(); });
    EXPECT_EQ(e.kind, PluginError::Kind::unavailable);
    EXPECT_TRUE(contains(e.what(), "unavailable cannot run here: no frobnicator on this machine (test plugin)"))
        << e.what();
}

TEST(PluginErrors, CreateFailureIsThePluginsOwnMessage) {
    const auto plugin = zkbatch::load_plugin("create-fails", kBroken);
    const PluginError e = plugin_error([&] { Backend backend(plugin, "", 10, 1); });
    EXPECT_EQ(e.kind, PluginError::Kind::create_failed);
    // Once prefixed with the plugin's name, not twice.
    EXPECT_STREQ(e.what(), "create-fails: the test frobnicator is out of frobs");
}

TEST(PluginErrors, CallFailureIsPrefixedWithThePluginName) {
    const auto plugin = zkbatch::load_plugin("stub", kFirst);
    Backend backend(plugin, "", 10, 1);
    const PluginError e = plugin_error([&] { backend.acquire_buffers(4); });
    EXPECT_EQ(e.kind, PluginError::Kind::call_failed);
    EXPECT_STREQ(e.what(), "stub: test plugins have no buffers");
}

// The stub plugins leave device_count out (null): "all" cannot be resolved, a list can;
// a failing device's create names the device.
TEST(PluginErrors, DevicesAllNeedsTheDeviceCountFunction) {
    const auto plugin = zkbatch::load_plugin("stub", kFirst);
    ASSERT_EQ(plugin->api().device_count, nullptr);
    zkbatch::DeviceChoice all;
    all.all = true;
    const PluginError e = plugin_error([&] { Backend backend(plugin, "", 10, 1, all); });
    EXPECT_EQ(e.kind, PluginError::Kind::create_failed);
    EXPECT_TRUE(contains(e.what(), "pipeline.devices = \"all\" needs the plugin's device_count")) << e.what();
    EXPECT_TRUE(contains(e.what(), "pipeline.devices = [0, 1]")) << e.what();
    zkbatch::DeviceChoice listed;
    listed.indices = {0, 1};
    // The stub knows no options, so the runner's device=<index> is refused, per device.
    const PluginError unknown = plugin_error([&] { Backend backend(plugin, "", 10, 1, listed); });
    EXPECT_TRUE(contains(unknown.what(), "device 0: stub: ")) << unknown.what();
    EXPECT_TRUE(contains(unknown.what(), "'device'")) << unknown.what();

    const auto failing = zkbatch::load_plugin("create-fails", kBroken);
    listed.indices = {3};
    const PluginError failed = plugin_error([&] { Backend backend(failing, "", 10, 1, listed); });
    EXPECT_STREQ(failed.what(), "device 3: create-fails: the test frobnicator is out of frobs");
}

// ---- Listing -----------------------------------------------------------------------

TEST(PluginListing, ListsBrokenPluginsWithTheirReasons) {
    ScopedPluginPath env(std::nullopt);
    std::map<std::string, zkbatch::PluginListing> by_name;  // first listing of each name
    for (const auto& listing : zkbatch::list_plugins(kBroken)) by_name.emplace(listing.name, listing);
    for (const char* name : {"abi-999", "create-fails", "garbage", "missing-prove", "no-entry", "null-api",
                             "unavailable", "cpu-ref"}) {
        ASSERT_EQ(by_name.count(name), 1u) << name << " is not listed";
    }
    const auto find = [&](const std::string& name) -> const zkbatch::PluginListing& { return by_name.at(name); };
    EXPECT_FALSE(find("garbage").loaded);
    EXPECT_TRUE(contains(find("garbage").why, "invalid ELF header"));
    EXPECT_FALSE(find("no-entry").loaded);
    EXPECT_FALSE(find("abi-999").loaded);
    EXPECT_EQ(find("abi-999").abi_version, 999u);
    EXPECT_TRUE(contains(find("abi-999").why, "ABI v999"));

    const auto& unavailable = find("unavailable");
    EXPECT_TRUE(unavailable.loaded);
    EXPECT_FALSE(unavailable.usable);
    EXPECT_EQ(unavailable.why, "no frobnicator on this machine (test plugin)");
    EXPECT_EQ(unavailable.version, "0.0.1-test");

    // create-fails loads and probes fine: it fails only when created.
    EXPECT_TRUE(find("create-fails").usable);

    // The real cpu-ref, from the build tree.
    const auto& cpu_ref = find("cpu-ref");
    EXPECT_TRUE(cpu_ref.loaded);
    EXPECT_TRUE(cpu_ref.usable);
    EXPECT_EQ(cpu_ref.abi_version, ZKB_ABI_VERSION);
    EXPECT_EQ(cpu_ref.version, "0.1.0");
}

TEST(PluginListing, FirstOccurrenceOfANameWinsAndLaterOnesAreNoted) {
    ScopedPluginPath env(kFirst + ":" + kSecond);
    const auto listings = zkbatch::list_plugins();
    int stubs = 0;
    for (const auto& listing : listings) {
        if (listing.name != "stub") continue;
        ++stubs;
        if (listing.file.parent_path() == canonical(kFirst)) {
            EXPECT_TRUE(listing.loaded);
            EXPECT_TRUE(listing.shadowed_by.empty());
            EXPECT_EQ(listing.description, "test plugin stub in first");
        } else {
            EXPECT_EQ(listing.file.parent_path(), canonical(kSecond));
            EXPECT_FALSE(listing.loaded);
            EXPECT_EQ(listing.shadowed_by, canonical(kFirst) / "libzkbatch-stub.so");
        }
    }
    EXPECT_EQ(stubs, 2);
}

TEST(PluginListing, ExplicitFileIsListedFirst) {
    ScopedPluginPath env(std::nullopt);
    const auto listings = zkbatch::list_plugins(UNAVAILABLE_PLUGIN_FILE);
    ASSERT_FALSE(listings.empty());
    EXPECT_EQ(listings[0].file, fs::path(UNAVAILABLE_PLUGIN_FILE));
    EXPECT_EQ(listings[0].name, "unavailable");
}

// ---- auto --------------------------------------------------------------------------

TEST(AutoBackend, PrefersPinnedOverPageable) {
    ScopedPluginPath env(std::nullopt);
    std::string why;
    EXPECT_EQ(zkbatch::resolve_auto_backend(kTestPlugins + "/auto-pinned", &why), "cuda-pinned");
    EXPECT_TRUE(contains(why, "auto chose cuda-pinned: it can run here")) << why;
}

// A usable GPU backend that does not prove the job's curve is passed over (the test
// plugins prove BLS12-381 alone).
TEST(AutoBackend, PassesOverABackendThatDoesNotProveTheCurve) {
    ScopedPluginPath env(std::nullopt);
    std::string why;
    EXPECT_EQ(zkbatch::resolve_auto_backend(kTestPlugins + "/auto-pinned", &why, zkbatch::curve::CurveId::bn254),
              "cpu-ref");
    EXPECT_TRUE(contains(why, "cuda-pinned does not prove bn254 keys")) << why;
}

TEST(AutoBackend, TakesPageableWhenPinnedCannotRun) {
    ScopedPluginPath env(std::nullopt);
    std::string why;
    EXPECT_EQ(zkbatch::resolve_auto_backend(kTestPlugins + "/auto-pageable", &why), "cuda-pageable");
}

// Searches the test folder alone: the build tree's plugins (the real CUDA backends,
// where they are built) would decide by this machine's GPU.
TEST(AutoBackend, FallsBackToCpuRefAndSaysWhy) {
    std::string why;
    EXPECT_EQ(zkbatch::resolve_auto_backend_in({kTestPlugins + "/auto-none"}, &why), "cpu-ref");
    EXPECT_TRUE(contains(why, "auto chose cpu-ref: no GPU backend can run")) << why;
    EXPECT_TRUE(contains(why, "cuda-pinned cannot run here: no frobnicator on this machine (test plugin)")) << why;
    EXPECT_TRUE(contains(why, "cuda-pageable is not installed")) << why;
}

}  // namespace
