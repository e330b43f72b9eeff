// What every plugin uses to implement the C ABI of abi.h: the export macro for its
// entry point, and guarded(), the one place where C++ exceptions are turned into
// ZKB_ERR_* codes and zkb_error messages so that none ever crosses the boundary.
//
//     static int create(const char* options, uint32_t max_log_n, uint32_t workers,
//                       zkb_backend** out, zkb_error* err) {
//         return zkbatch::plugin::guarded(err, "cpu-ref", [&] { ... may throw ... });
//     }
//     ZKB_PLUGIN_EXPORT const zkb_plugin_api* zkbatch_plugin_api(void) { return &api; }
#pragma once

#include "core/plugin/abi.h"
#include "core/plugin/error.hpp"

#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>

// Plugins are built with hidden visibility; only the entry point is exported.
#define ZKB_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace zkbatch::plugin {

namespace detail {
inline void report(zkb_error* error, std::string_view plugin_name, std::string_view message) noexcept {
    try {
        set_error(error, concat(plugin_name, ": ", message));
    } catch (...) {
        set_error(error, message);
    }
}
}  // namespace detail

// Runs body() and returns ZKB_OK, or, if it throws, writes "<plugin_name>: <message>"
// to *error and returns the matching code: plugin::Error carries its own code
// (OptionsError is ZKB_ERR_INVALID_ARGUMENT), std::bad_alloc is ZKB_ERR_OUT_OF_MEMORY,
// anything else ZKB_ERR_INTERNAL.
template <class Body>
int guarded(zkb_error* error, std::string_view plugin_name, Body&& body) noexcept {
    static_assert(std::is_void_v<std::invoke_result_t<Body&>>,
                  "guarded() bodies report failure by throwing plugin::Error, not by returning a code");
    try {
        body();
        return ZKB_OK;
    } catch (const Error& e) {
        detail::report(error, plugin_name, e.what());
        return e.code();
    } catch (const std::bad_alloc&) {
        detail::report(error, plugin_name, "out of host memory");
        return ZKB_ERR_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        detail::report(error, plugin_name, std::string("internal error: ") + e.what());
        return ZKB_ERR_INTERNAL;
    } catch (...) {
        detail::report(error, plugin_name, "internal error: an exception of unknown type");
        return ZKB_ERR_INTERNAL;
    }
}

// For zkb_plugin_api::probe: body() returns an empty string when the backend can run
// here, else the reason it cannot. Returns 1 or 0 as probe must; a throwing body
// counts as "cannot run", with the exception's message as the reason.
template <class Body>
int guarded_probe(zkb_error* why, Body&& body) noexcept {
    try {
        const std::string reason = body();
        if (reason.empty()) return 1;
        set_error(why, reason);
        return 0;
    } catch (const std::exception& e) {
        set_error(why, "probe failed: ", e.what());
        return 0;
    } catch (...) {
        set_error(why, "probe failed with an exception of unknown type");
        return 0;
    }
}

}  // namespace zkbatch::plugin
