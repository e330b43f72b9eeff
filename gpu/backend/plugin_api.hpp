// CudaPlugin<Policy>: the plugin C ABI (core/plugin/abi.h) for a CUDA backend whose
// host memory comes from Policy. cuda-pinned and cuda-pageable each instantiate it with
// their policy and export it; everything else is CudaBackend, shared.
//
// A Policy is a HostMemoryPolicy with:
//   static constexpr const char* kName, kDescription;
//   struct Settings;                        // its options, parsed
//   static Settings read_settings(plugin::PluginOptions&, const BackendConfig&);
//                                           // may refuse early (before the device is touched)
//   Policy(const Settings&, const BackendConfig&);
#pragma once

#include "gpu/backend/backend.hpp"
#include "gpu/util/device_info.hpp"
#include "gpu/util/host_memory.hpp"
#include "core/plugin/abi.h"
#include "core/plugin/export.hpp"
#include "core/plugin/groth16_request.hpp"
#include "core/plugin/options.hpp"

#include <memory>
#include <string>

namespace zkbatch::cuda {

template <class Policy>
class CudaPlugin {
public:
    static const zkb_plugin_api* api() {
        static const zkb_plugin_api table = {
            ZKB_ABI_VERSION, (1u << ZKB_CURVE_BLS12_381) | (1u << ZKB_CURVE_BN254),
            Policy::kName,    backend_version(), Policy::kDescription,
            &probe,          &create,          &destroy,          &describe,
            &acquire_buffers, &release_buffers, &create_worker,   &destroy_worker,
            &prove,          &device_count,    &load_key,
        };
        return &table;
    }

private:
    static CudaBackend* backend_of(zkb_backend* backend) { return reinterpret_cast<CudaBackend*>(backend); }
    static CudaWorker* worker_of(zkb_worker* worker) { return reinterpret_cast<CudaWorker*>(worker); }

    static int probe(zkb_error* why) {
        // Device 0: probe has no options; create checks the device the options name.
        return plugin::guarded_probe(why, [] { return cuda_unavailable_reason(0); });
    }

    static int create(const char* options, uint32_t max_log_n, uint32_t prove_workers, zkb_backend** out,
                      zkb_error* err) {
        return plugin::guarded(err, Policy::kName, [&] {
            *out = nullptr;
            plugin::PluginOptions parsed(options != nullptr ? options : "");
            const BackendConfig config = read_backend_config(parsed, max_log_n, prove_workers);
            const typename Policy::Settings settings = Policy::read_settings(parsed, config);
            parsed.check_all_used();
            auto backend = std::make_unique<CudaBackend>(
                config, [&]() -> std::unique_ptr<HostMemoryPolicy> { return std::make_unique<Policy>(settings, config); });
            *out = reinterpret_cast<zkb_backend*>(backend.release());
        });
    }

    static void destroy(zkb_backend* backend) { delete backend_of(backend); }

    static int describe(zkb_backend* backend, zkb_facts* out, zkb_error* err) {
        return plugin::guarded(err, Policy::kName, [&] {
            out->count = 0;
            backend_of(backend)->describe(out);
        });
    }

    static int acquire_buffers(zkb_backend* backend, uint32_t log_n, zkb_host_buffers* out, zkb_error* err) {
        return plugin::guarded(err, Policy::kName, [&] { *out = backend_of(backend)->acquire_buffers(log_n); });
    }

    static void release_buffers(zkb_backend* backend, zkb_host_buffers* buffers) {
        if (buffers == nullptr) return;
        backend_of(backend)->release_buffers(*buffers);
        *buffers = zkb_host_buffers{};
    }

    static int create_worker(zkb_backend* backend, uint32_t worker_index, zkb_worker** out, zkb_error* err) {
        return plugin::guarded(err, Policy::kName, [&] {
            *out = nullptr;
            *out = reinterpret_cast<zkb_worker*>(backend_of(backend)->create_worker(worker_index).release());
        });
    }

    static void destroy_worker(zkb_worker* worker) { delete worker_of(worker); }

    // pipeline.devices = "all": every CUDA device visible to this process
    // (CUDA_VISIBLE_DEVICES narrows it).
    static int device_count(const char* /*options*/, uint32_t* count, zkb_error* err) {
        return plugin::guarded(err, Policy::kName, [&] {
            if (const std::string why = cuda_unavailable_reason(0); !why.empty())
                throw plugin::Error(ZKB_ERR_UNAVAILABLE, why);
            *count = static_cast<uint32_t>(DeviceInfo::query(0).device_count);
        });
    }

    static int load_key(zkb_backend* backend, const zkb_key_source* source, zkb_key_report* report,
                        zkb_error* err) {
        return plugin::guarded(err, Policy::kName, [&] {
            if (source == nullptr) throw plugin::Error(ZKB_ERR_INVALID_ARGUMENT, "load_key needs a key source");
            backend_of(backend)->load_key(plugin::key_curve(*source, api()->curves, Policy::kName), *source, report);
        });
    }

    static int prove(zkb_worker* worker, const zkb_prove_request* request, zkb_prove_report* report, zkb_error* err) {
        return plugin::guarded(err, Policy::kName, [&] { worker_of(worker)->prove(*request, report); });
    }
};

}  // namespace zkbatch::cuda
