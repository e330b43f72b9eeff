// The plugin host: finds backend plugins, loads them with Boost.DLL, checks their
// ABI version, and wraps the C ABI in RAII types. The loaded library outlives every
// object it created: Backend and Worker hold a shared_ptr to their Plugin.
#pragma once

#include <zkbatch/plugin/abi.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkbatch {

struct PluginError : std::runtime_error {
    enum class Kind { not_found, not_a_plugin, abi_mismatch, unavailable, create_failed, call_failed };
    Kind kind;
    PluginError(Kind kind, const std::string& what) : std::runtime_error(what), kind(kind) {}
};

// Where plugins are looked for, in order: an explicit path (a file, or a folder),
// each folder of $ZKBATCH_PLUGIN_PATH (':'-separated), <folder of the executable>/plugins,
// <folder of the executable>/../lib/zkbatch/plugins, the build tree's plugins folder.
std::vector<std::filesystem::path> plugin_search_folders(const std::string& explicit_path = {});

class Plugin;  // one loaded shared object

// What `zkbatch backends` lists for each plugin file found (loaded or not).
struct PluginListing {
    std::filesystem::path file;
    bool loaded = false;
    std::string name, version, description;
    uint32_t abi_version = 0;
    bool usable = false;
    std::string why;  // why it cannot run here, or why it failed to load
};
std::vector<PluginListing> list_plugins(const std::string& explicit_path = {});

// Loads the plugin named `name` ("cpu-ref") from the search folders, or the file
// `name` itself when it is a path to a .so. Throws PluginError.
std::shared_ptr<Plugin> load_plugin(const std::string& name, const std::string& explicit_path = {});

// `backend.name = "auto"`: the first usable GPU backend (cuda-pinned, then cuda-pageable),
// else cpu-ref. Returns the name chosen and, in *why, one line on how it was chosen.
std::string resolve_auto_backend(const std::string& explicit_path, std::string* why);

class Plugin {
public:
    const zkb_plugin_api& api() const { return *api_; }
    const std::filesystem::path& file() const { return file_; }
    // Throws PluginError(unavailable, "<name> cannot run here: <reason>") if probe says no.
    void require_usable() const;

    struct Impl;  // holds the boost::dll::shared_library
    Plugin(std::unique_ptr<Impl> impl, const zkb_plugin_api* api, std::filesystem::path file);
    ~Plugin();

private:
    std::unique_ptr<Impl> impl_;
    const zkb_plugin_api* api_;
    std::filesystem::path file_;
};

class Worker;

// One created backend (zkb_backend), for one run.
class Backend {
public:
    // Throws PluginError(create_failed, "<name>: <plugin's own message>").
    Backend(std::shared_ptr<Plugin> plugin, const std::string& options, uint32_t max_log_n,
            uint32_t prove_workers);
    ~Backend();
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    const zkb_plugin_api& api() const { return plugin_->api(); }
    zkb_backend* raw() const { return raw_; }
    std::vector<std::pair<std::string, std::string>> facts() const;

    // Blocking; throws PluginError(call_failed, ...) with the plugin's message.
    zkb_host_buffers acquire_buffers(uint32_t log_n) const;
    void release_buffers(zkb_host_buffers& buffers) const;
    std::unique_ptr<Worker> create_worker(uint32_t worker_index) const;

private:
    std::shared_ptr<Plugin> plugin_;
    zkb_backend* raw_ = nullptr;
};

class Worker {
public:
    Worker(std::shared_ptr<Plugin> plugin, zkb_worker* raw) : plugin_(std::move(plugin)), raw_(raw) {}
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;
    // Returns ZKB_OK or the plugin's code; on failure *error holds its message.
    int prove(const zkb_prove_request& request, zkb_prove_report* report, std::string* error) const;

private:
    std::shared_ptr<Plugin> plugin_;
    zkb_worker* raw_;
};

}  // namespace zkbatch
