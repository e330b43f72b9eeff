// The plugin host: finds backend plugins, loads them with Boost.DLL, checks their
// ABI version, and wraps the C ABI in RAII types. The loaded library outlives every
// object it created: Backend and Worker hold a shared_ptr to their Plugin, and a
// Worker also keeps its backend's zkb_backend alive, so destruction order is free.
#pragma once

#include "manifest/manifest.hpp"

#include "core/curve/curve_id.hpp"

#include "core/plugin/abi.h"

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace zkbatch {

struct PluginError : std::runtime_error {
    enum class Kind { not_found, not_a_plugin, abi_mismatch, unavailable, create_failed, call_failed };
    Kind kind;
    PluginError(Kind kind_in, const std::string& what) : std::runtime_error(what), kind(kind_in) {}
};

// Plugin files are named libzkbatch-<name>.so.
std::string plugin_file_name(const std::string& name);

// Where plugins are looked for, in order: an explicit path (a folder; a file is
// looked at on its own by load_plugin/list_plugins and is not in this list),
// each folder of $ZKBATCH_PLUGIN_PATH (':'-separated), <folder of the executable>/plugins,
// <folder of the executable>/../lib/zkbatch/plugins, the build tree's plugins folder.
// The same folder reached twice is listed once. Folders that do not exist are kept,
// so an error message can show them.
std::vector<std::filesystem::path> plugin_search_folders(const std::string& explicit_path = {});

class Plugin;  // one loaded shared object

// What `zkbatch backends` lists for each plugin file found (loaded or not).
struct PluginListing {
    std::filesystem::path file;
    bool loaded = false;
    std::string name;  // from the file name, the name to put in a manifest
    std::string version, description;  // from the plugin, when loaded
    uint32_t abi_version = 0;
    uint32_t curves = 0;  // zkb_plugin_api.curves, when loaded
    bool usable = false;
    std::string why;  // why it cannot run here, or why it failed to load
    // Set when an earlier file of the same name wins; this one is then not loaded.
    std::filesystem::path shadowed_by;
};
// Every libzkbatch-*.so in the search locations, in search order.
std::vector<PluginListing> list_plugins(const std::string& explicit_path = {});

// Loads the plugin named `name` ("cpu-ref") from the search locations, or the file
// `name` itself when it is a path (contains '/' or ends in ".so"). An explicit_path that
// is a file is used when its file name is plugin_file_name(name). Throws PluginError.
std::shared_ptr<Plugin> load_plugin(const std::string& name, const std::string& explicit_path = {});

// The same, looking in `folders` alone, in order (none of the default locations).
std::shared_ptr<Plugin> load_plugin_in(const std::string& name, const std::vector<std::filesystem::path>& folders);

// `backend.name = "auto"`: the first usable GPU backend that proves `curve` (cuda-pinned,
// then cuda-pageable), else cpu-ref. Returns the name chosen and, in *why (may be null),
// one line on how it was chosen.
std::string resolve_auto_backend(const std::string& explicit_path, std::string* why,
                                 curve::CurveId curve = curve::CurveId::bls12_381);
// The same, looking in `folders` alone.
std::string resolve_auto_backend_in(const std::vector<std::filesystem::path>& folders, std::string* why,
                                    curve::CurveId curve = curve::CurveId::bls12_381);

class Plugin {
public:
    const zkb_plugin_api& api() const { return *api_; }
    // Whether it proves keys of `curve` (zkb_plugin_api.curves).
    bool proves(curve::CurveId curve) const { return (api_->curves & (1u << static_cast<unsigned>(curve))) != 0; }
    const std::filesystem::path& file() const { return file_; }
    std::string name() const { return api_->name; }
    // Runs probe: true, or false with the plugin's reason in *why.
    bool usable(std::string* why) const;
    // Throws PluginError(unavailable, "<name> cannot run here: <reason> ...") if probe says no.
    void require_usable() const;

    struct Impl;  // holds the boost::dll::shared_library
    Plugin(std::unique_ptr<Impl> impl, const zkb_plugin_api* api, std::filesystem::path file);
    ~Plugin();
    Plugin(const Plugin&) = delete;
    Plugin& operator=(const Plugin&) = delete;

private:
    std::unique_ptr<Impl> impl_;
    const zkb_plugin_api* api_;
    std::filesystem::path file_;
};

class Worker;

// The device indices a run proves on: `choice` resolved ("all" asks the plugin's
// device_count with `options`). Not given: the backend's own `device` option, else 0.
// Throws PluginError(create_failed) when the plugin cannot say how many devices exist.
std::vector<int32_t> resolve_devices(const Plugin& plugin, const std::string& options,
                                     const DeviceChoice& choice);

// The backend of one run: one created zkb_backend per device the run proves on (a
// "slot": 0 .. device_count()-1, in pipeline.devices order). Calls without a slot use
// slot 0, the only one of a run that names no devices.
class Backend {
public:
    // Creates one backend per device of `devices` (resolve_devices), each with
    // "device=<index>" added to `options` and `prove_workers` workers; with devices not
    // given, one backend with `options` as they are. Throws
    // PluginError(create_failed, "<name>: <plugin's own message>").
    Backend(std::shared_ptr<Plugin> plugin, const std::string& options, uint32_t max_log_n,
            uint32_t prove_workers, const DeviceChoice& devices = {});
    ~Backend();
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    const zkb_plugin_api& api() const;
    const Plugin& plugin() const;
    zkb_backend* raw(size_t slot = 0) const;
    size_t device_count() const { return device_indices_.size(); }
    int32_t device_index(size_t slot) const { return device_indices_.at(slot); }
    // describe(), as (key, value) pairs in the plugin's order. Throws PluginError(call_failed).
    std::vector<std::pair<std::string, std::string>> facts(size_t slot = 0) const;

    // What one slot's load of the proving key took and where the key now lives.
    struct KeyLoad {
        double load_ms = 0;       // the plugin's own start and end, on the runner's clock
        uint64_t key_bytes = 0;
        uint64_t host_key_bytes = 0;  // of key_bytes, those in host memory (plugin ABI v9)
        uint64_t num_variables = 0;
        std::string where, how;   // "device0", "read"; "host", "mapped"; "device0", "generated"
        std::string points_digest;  // of a key the backend made (ZKB_KEY_FORMAT_SEEDED); "" otherwise
    };
    // Hands every slot's backend the proving key (plugin ABI v6), one slot after another.
    // Throws PluginError(unavailable) for a plugin without load_key (it cannot prove
    // Groth16) and PluginError(call_failed, "<name>: <plugin's message>") for a key the
    // plugin refuses or cannot hold.
    std::vector<KeyLoad> load_key(const zkb_key_source& source);

    // Blocking; throws PluginError(call_failed, ...) with the plugin's message. The
    // buffers are checked: n == 2^log_n and a, b, c, h present (and z of `witness`
    // elements when the key asks for a witness). Buffers go back to the slot they came from.
    zkb_host_buffers acquire_buffers(uint32_t log_n, size_t slot = 0) const;
    void release_buffers(zkb_host_buffers& buffers, size_t slot = 0) const;
    // Throws PluginError(call_failed, ...) with the plugin's message. `worker_index`
    // counts the workers of that slot's backend.
    std::unique_ptr<Worker> create_worker(uint32_t worker_index, size_t slot = 0) const;

    struct Handle;  // the zkb_backend and its plugin, shared with the workers

private:
    std::vector<std::shared_ptr<Handle>> handles_;  // one per slot
    std::vector<int32_t> device_indices_;           // one per slot
    uint64_t witness_elements_ = 0;                 // m, once load_key told the backends
};

class Worker {
public:
    Worker(std::shared_ptr<const Backend::Handle> backend, zkb_worker* raw);
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;
    // Returns ZKB_OK or the plugin's code; on failure *error (may be null) holds the
    // plugin's message. A report with more than ZKB_MAX_PHASES phases is refused.
    int prove(const zkb_prove_request& request, zkb_prove_report* report, std::string* error) const;

private:
    std::shared_ptr<const Backend::Handle> backend_;
    zkb_worker* raw_;
};

}  // namespace zkbatch
