// Plugins for plugin_tests, one source shaped by ZKB_TEST_VARIANT_*: working stand-ins
// (WORKING) for the search-order tests, and plugins broken in exactly one way each.
// ZKB_TEST_NAME and ZKB_TEST_DESCRIPTION come from tests/plugins/CMakeLists.txt.
#include "core/plugin/abi.h"
#include "core/plugin/export.hpp"
#include "core/plugin/facts.hpp"
#include "core/plugin/options.hpp"

#include <string>

struct zkb_backend {
    int unused = 0;
};
struct zkb_worker {
    int unused = 0;
};

namespace {

int probe(zkb_error* why) {
    return zkbatch::plugin::guarded_probe(why, []() -> std::string {
#if defined(ZKB_TEST_VARIANT_UNAVAILABLE)
        return "no frobnicator on this machine (test plugin)";
#else
        return {};
#endif
    });
}

int create(const char* options_text, uint32_t, uint32_t, zkb_backend** out, zkb_error* err) {
    return zkbatch::plugin::guarded(err, ZKB_TEST_NAME, [&] {
#if defined(ZKB_TEST_VARIANT_CREATE_FAILS)
        throw zkbatch::plugin::Error(ZKB_ERR_UNAVAILABLE, "the test frobnicator is out of frobs");
#endif
        zkbatch::plugin::PluginOptions options(options_text);
        options.check_all_used();
        *out = new zkb_backend;
    });
}

void destroy(zkb_backend* backend) { delete backend; }

int describe(zkb_backend*, zkb_facts* out, zkb_error* err) {
    return zkbatch::plugin::guarded(err, ZKB_TEST_NAME, [&] {
        out->count = 0;
        zkbatch::plugin::add_fact(out, "test.description", ZKB_TEST_DESCRIPTION);
    });
}

int acquire_buffers(zkb_backend*, uint32_t, zkb_host_buffers*, zkb_error* err) {
    zkbatch::plugin::set_error(err, ZKB_TEST_NAME ": test plugins have no buffers");
    return ZKB_ERR_UNAVAILABLE;
}

void release_buffers(zkb_backend*, zkb_host_buffers*) {}

int create_worker(zkb_backend*, uint32_t, zkb_worker** out, zkb_error*) {
    *out = new zkb_worker;
    return ZKB_OK;
}

void destroy_worker(zkb_worker* worker) { delete worker; }

[[maybe_unused]] int prove(zkb_worker*, const zkb_prove_request*, zkb_prove_report*, zkb_error* err) {
    zkbatch::plugin::set_error(err, ZKB_TEST_NAME ": test plugins do not prove");
    return ZKB_ERR_UNAVAILABLE;
}

#if defined(ZKB_TEST_VARIANT_ABI_999)
constexpr uint32_t kAbiVersion = 999;
#else
constexpr uint32_t kAbiVersion = ZKB_ABI_VERSION;
#endif

#if defined(ZKB_TEST_VARIANT_MISSING_PROVE)
constexpr auto kProve = nullptr;
#else
constexpr auto kProve = prove;
#endif

[[maybe_unused]] constexpr zkb_plugin_api kApi = {
    kAbiVersion,  1u << ZKB_CURVE_BLS12_381, ZKB_TEST_NAME,   "0.0.1-test",  ZKB_TEST_DESCRIPTION, probe,          create, destroy,
    describe,     acquire_buffers, release_buffers, create_worker,      destroy_worker, kProve,
    nullptr,  // device_count: left out, as a plugin without devices may (pipeline.devices = "all" is refused)
    nullptr,  // load_key: quotient workloads only
};

}  // namespace

#if defined(ZKB_TEST_VARIANT_NO_ENTRY)
// Exports something, just not the entry point.
ZKB_PLUGIN_EXPORT int zkbatch_plugin_api_misspelled(void) { return 0; }
#elif defined(ZKB_TEST_VARIANT_NULL_API)
ZKB_PLUGIN_EXPORT const zkb_plugin_api* zkbatch_plugin_api(void) { return nullptr; }
#else
ZKB_PLUGIN_EXPORT const zkb_plugin_api* zkbatch_plugin_api(void) { return &kApi; }
#endif
