#include "plugin_host/plugin_host.hpp"

#include "core/plugin/error.hpp"
#include "core/plugin/options.hpp"
#include "core/util/input_file.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>

namespace zkbatch {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view file_prefix = "libzkbatch-";
constexpr std::string_view file_suffix = ".so";

const char* code_name(int code) {
    switch (code) {
        case ZKB_OK: return "ZKB_OK";
        case ZKB_ERR_INVALID_ARGUMENT: return "ZKB_ERR_INVALID_ARGUMENT";
        case ZKB_ERR_UNAVAILABLE: return "ZKB_ERR_UNAVAILABLE";
        case ZKB_ERR_OUT_OF_MEMORY: return "ZKB_ERR_OUT_OF_MEMORY";
        case ZKB_ERR_DEVICE: return "ZKB_ERR_DEVICE";
        case ZKB_ERR_INTERNAL: return "ZKB_ERR_INTERNAL";
        default: return "an unknown code";
    }
}

// The plugin's message from a failed call, prefixed with its name once (messages
// written through plugin::guarded() already carry it).
std::string plugin_message(const std::string& plugin_name, const zkb_error& error, int code) {
    std::string message = plugin::read_text(error.message);
    if (message.empty()) {
        message = fmt::format("the plugin failed with code {} ({}) and gave no message", code, code_name(code));
    }
    if (message.rfind(plugin_name + ":", 0) == 0) return message;
    return plugin_name + ": " + message;
}

// "libzkbatch-cpu-ref.so" -> "cpu-ref"; a file not named that way keeps its stem.
std::string name_from_file(const fs::path& file) {
    const std::string file_name = file.filename().string();
    if (file_name.size() > file_prefix.size() + file_suffix.size() && file_name.starts_with(file_prefix) &&
        file_name.ends_with(file_suffix)) {
        return file_name.substr(file_prefix.size(), file_name.size() - file_prefix.size() - file_suffix.size());
    }
    return file.stem().string();
}

bool is_path_like(const std::string& name) {
    return name.find('/') != std::string::npos || name.ends_with(file_suffix);
}

bool is_file(const fs::path& path) {
    std::error_code ec;
    return fs::exists(path, ec) && !fs::is_directory(path, ec);
}

std::string describe_folder(const fs::path& folder) {
    std::error_code ec;
    if (!fs::exists(folder, ec)) return folder.string() + " (does not exist)";
    if (!fs::is_directory(folder, ec)) return folder.string() + " (not a folder)";
    return folder.string();
}

// Opens the shared object and calls its entry point. Everything that can be said about
// the file without trusting the layout of the table it returns.
const zkb_plugin_api* open_library(const fs::path& file, boost::dll::shared_library& library) {
    // dlopen would wait forever on a FIFO.
    if (const auto why = util::not_a_regular_file(file))
        throw PluginError(PluginError::Kind::not_a_plugin,
                          fmt::format("{} is not a zkbatch plugin: {}. Remove it from the plugin folder.",
                                      file.string(), *why));
    boost::dll::fs::error_code ec;
    // rtld_now: a plugin with an unresolved symbol is refused here, with the symbol's
    // name, instead of crashing in the middle of a run.
    library.load(boost::dll::fs::path(file.string()), ec,
                 boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    if (ec) {
        const char* loader_message = dlerror();  // boost leaves dlopen's message in place
        throw PluginError(PluginError::Kind::not_a_plugin,
                          fmt::format("{} is not a zkbatch plugin: it cannot be loaded ({}). Rebuild it, or "
                                      "remove it from the plugin folder.",
                                      file.string(), loader_message != nullptr ? loader_message : ec.message()));
    }
    if (!library.has(ZKB_PLUGIN_ENTRY_SYMBOL)) {
        throw PluginError(PluginError::Kind::not_a_plugin,
                          fmt::format("{} is not a zkbatch plugin: it loads but does not export {}(). Remove it "
                                      "from the plugin folder, or build it with zkbatch_add_plugin().",
                                      file.string(), ZKB_PLUGIN_ENTRY_SYMBOL));
    }
    const zkb_plugin_api* api = library.get<const zkb_plugin_api*()>(ZKB_PLUGIN_ENTRY_SYMBOL)();
    if (api == nullptr) {
        throw PluginError(PluginError::Kind::not_a_plugin,
                          fmt::format("{} is a broken zkbatch plugin: {}() returned no API table. Rebuild it.",
                                      file.string(), ZKB_PLUGIN_ENTRY_SYMBOL));
    }
    return api;
}

// The ABI version first: only when it matches may the rest of the table be read.
void check_api(const fs::path& file, const zkb_plugin_api& api) {
    if (api.abi_version != ZKB_ABI_VERSION) {
        throw PluginError(PluginError::Kind::abi_mismatch,
                          fmt::format("{} was built for ABI v{}, this zkbatch speaks ABI v{}: rebuild the plugin "
                                      "against this zkbatch.",
                                      file.string(), api.abi_version, ZKB_ABI_VERSION));
    }
    std::vector<std::string_view> missing;
    const auto need = [&](const void* pointer, std::string_view what) {
        if (pointer == nullptr) missing.push_back(what);
    };
    need(api.name, "name");
    need(api.version, "version");
    need(api.description, "description");
    need(reinterpret_cast<const void*>(api.probe), "probe");
    need(reinterpret_cast<const void*>(api.create), "create");
    need(reinterpret_cast<const void*>(api.destroy), "destroy");
    need(reinterpret_cast<const void*>(api.describe), "describe");
    need(reinterpret_cast<const void*>(api.acquire_buffers), "acquire_buffers");
    need(reinterpret_cast<const void*>(api.release_buffers), "release_buffers");
    need(reinterpret_cast<const void*>(api.create_worker), "create_worker");
    need(reinterpret_cast<const void*>(api.destroy_worker), "destroy_worker");
    need(reinterpret_cast<const void*>(api.prove), "prove");
    if (!missing.empty()) {
        throw PluginError(PluginError::Kind::not_a_plugin,
                          fmt::format("{} is a broken zkbatch plugin: its API table lacks {}. Rebuild it.",
                                      file.string(), fmt::join(missing, ", ")));
    }
}

}  // namespace

struct Plugin::Impl {
    boost::dll::shared_library library;
};

namespace {

std::shared_ptr<Plugin> open_plugin(const fs::path& file) {
    auto impl = std::make_unique<Plugin::Impl>();
    const zkb_plugin_api* api = open_library(file, impl->library);
    check_api(file, *api);
    return std::make_shared<Plugin>(std::move(impl), api, file);
}

// The first `folders` holds libzkbatch-NAME.so in; `searched` lists what was looked at
// before them, for the message when none does.
std::shared_ptr<Plugin> load_plugin_from(const std::string& name, const std::vector<fs::path>& folders,
                                         std::vector<std::string> searched) {
    const std::string file_name = plugin_file_name(name);
    for (const fs::path& folder : folders) {
        const fs::path candidate = folder / file_name;
        if (is_file(candidate)) return open_plugin(candidate);
        searched.push_back(describe_folder(folder));
    }
    throw PluginError(PluginError::Kind::not_found,
                      fmt::format("backend plugin '{}' not found: there is no {} in\n  {}\nTo fix: build it "
                                  "(target zkbatch-{}), or set ZKBATCH_PLUGIN_PATH to the folder that holds it "
                                  "(several folders: separate them with ':'). `zkbatch backends` lists the "
                                  "plugins that are found.",
                                  name, file_name, fmt::join(searched, "\n  "), name));
}

// backend.name = "auto", with `load` finding a plugin by name.
template <class Load>
std::string choose_auto_backend(const Load& load, curve::CurveId curve, std::string* why) {
    std::vector<std::string> rejected;
    for (const char* candidate : {"cuda-pinned", "cuda-pageable"}) {
        try {
            const std::shared_ptr<Plugin> plugin = load(candidate);
            std::string reason;
            if (!plugin->proves(curve)) {
                rejected.push_back(fmt::format("{} does not prove {} keys", candidate, curve::name(curve)));
                continue;
            }
            if (plugin->usable(&reason)) {
                if (why != nullptr) {
                    *why = fmt::format("auto chose {}: it can run here ({})", candidate, plugin->file().string());
                }
                return candidate;
            }
            rejected.push_back(fmt::format("{} cannot run here: {}", candidate, reason));
        } catch (const PluginError& e) {
            if (e.kind == PluginError::Kind::not_found) {
                rejected.push_back(fmt::format("{} is not installed", candidate));
            } else {
                rejected.push_back(e.what());
            }
        }
    }
    if (why != nullptr) {
        *why = fmt::format("auto chose cpu-ref: no GPU backend can run this job ({})", fmt::join(rejected, "; "));
    }
    return "cpu-ref";
}

}  // namespace

std::string plugin_file_name(const std::string& name) {
    return fmt::format("{}{}{}", file_prefix, name, file_suffix);
}

std::vector<fs::path> plugin_search_folders(const std::string& explicit_path) {
    std::vector<fs::path> folders;
    const auto add = [&](const fs::path& folder) {
        if (folder.empty()) return;
        std::error_code ec;
        fs::path normal = fs::weakly_canonical(folder, ec);
        if (ec) normal = folder.lexically_normal();
        if (std::find(folders.begin(), folders.end(), normal) == folders.end()) folders.push_back(normal);
    };

    if (!explicit_path.empty() && !is_file(explicit_path)) add(explicit_path);
    if (const char* env = std::getenv("ZKBATCH_PLUGIN_PATH")) {
        std::string_view rest = env;
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            add(fs::path(rest.substr(0, colon)));
            rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        }
    }
    boost::dll::fs::error_code ec;
    const boost::dll::fs::path executable = boost::dll::program_location(ec);
    if (!ec) {
        const fs::path executable_folder = fs::path(executable.string()).parent_path();
        add(executable_folder / "plugins");
        add(executable_folder / ".." / "lib" / "zkbatch" / "plugins");
    }
    add(ZKBATCH_BUILD_PLUGIN_DIR);
    return folders;
}

std::shared_ptr<Plugin> load_plugin(const std::string& name, const std::string& explicit_path) {
    if (is_path_like(name)) {
        if (!is_file(name)) {
            throw PluginError(PluginError::Kind::not_found,
                              fmt::format("backend plugin file {} does not exist. Check the path, or give a "
                                          "backend name such as cpu-ref (`zkbatch backends` lists them).",
                                          name));
        }
        return open_plugin(name);
    }

    std::vector<std::string> searched;
    if (!explicit_path.empty() && is_file(explicit_path)) {
        if (fs::path(explicit_path).filename() == plugin_file_name(name)) return open_plugin(explicit_path);
        searched.push_back(explicit_path + " (a different plugin)");
    }
    return load_plugin_from(name, plugin_search_folders(explicit_path), std::move(searched));
}

std::shared_ptr<Plugin> load_plugin_in(const std::string& name, const std::vector<fs::path>& folders) {
    return load_plugin_from(name, folders, {});
}

std::vector<PluginListing> list_plugins(const std::string& explicit_path) {
    std::vector<fs::path> files;
    if (!explicit_path.empty() && is_file(explicit_path)) files.emplace_back(explicit_path);
    for (const fs::path& folder : plugin_search_folders(explicit_path)) {
        std::error_code ec;
        std::vector<fs::path> in_folder;
        for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
            const std::string file_name = entry.path().filename().string();
            if (file_name.starts_with(file_prefix) && file_name.ends_with(file_suffix) &&
                !entry.is_directory(ec)) {
                in_folder.push_back(entry.path());
            }
        }
        std::sort(in_folder.begin(), in_folder.end());
        files.insert(files.end(), in_folder.begin(), in_folder.end());
    }

    std::vector<PluginListing> listings;
    std::map<std::string, fs::path> first_file_of_name;
    for (const fs::path& file : files) {
        PluginListing listing;
        listing.file = file;
        listing.name = name_from_file(file);
        const auto [first, inserted] = first_file_of_name.emplace(listing.name, file);
        if (!inserted) {
            listing.shadowed_by = first->second;
            listing.why = fmt::format("not used: {} comes first in the search order", first->second.string());
            listings.push_back(std::move(listing));
            continue;
        }
        try {
            auto impl = std::make_unique<Plugin::Impl>();
            const zkb_plugin_api* api = open_library(file, impl->library);
            listing.abi_version = api->abi_version;
            check_api(file, *api);
            const Plugin plugin(std::move(impl), api, file);
            listing.loaded = true;
            listing.version = api->version;
            listing.description = api->description;
            listing.curves = api->curves;
            listing.usable = plugin.usable(&listing.why);
        } catch (const PluginError& e) {
            listing.why = e.what();
        }
        listings.push_back(std::move(listing));
    }
    return listings;
}

std::string resolve_auto_backend(const std::string& explicit_path, std::string* why, curve::CurveId curve) {
    return choose_auto_backend([&](const std::string& name) { return load_plugin(name, explicit_path); }, curve, why);
}

std::string resolve_auto_backend_in(const std::vector<fs::path>& folders, std::string* why, curve::CurveId curve) {
    return choose_auto_backend([&](const std::string& name) { return load_plugin_in(name, folders); }, curve, why);
}

// ---------------------------------------------------------------------------------
// Plugin

Plugin::Plugin(std::unique_ptr<Impl> impl, const zkb_plugin_api* api, fs::path file)
    : impl_(std::move(impl)), api_(api), file_(std::move(file)) {}

Plugin::~Plugin() = default;

bool Plugin::usable(std::string* why) const {
    zkb_error error{};
    if (api_->probe(&error) == 1) return true;
    if (why != nullptr) {
        *why = plugin::read_text(error.message);
        if (why->empty()) *why = "its probe said no and gave no reason";
    }
    return false;
}

void Plugin::require_usable() const {
    std::string why;
    if (usable(&why)) return;
    throw PluginError(PluginError::Kind::unavailable,
                      fmt::format("{} cannot run here: {}. Choose another backend (`zkbatch backends` lists "
                                  "them and whether each can run here).",
                                  name(), why));
}

// ---------------------------------------------------------------------------------
// Backend

struct Backend::Handle {
    std::shared_ptr<Plugin> plugin;
    zkb_backend* raw = nullptr;

    Handle(std::shared_ptr<Plugin> plugin_in, zkb_backend* raw_in) : plugin(std::move(plugin_in)), raw(raw_in) {}
    ~Handle() { plugin->api().destroy(raw); }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
};

namespace {

std::shared_ptr<Backend::Handle> create_backend(const std::shared_ptr<Plugin>& plugin, const std::string& options,
                                                uint32_t max_log_n, uint32_t prove_workers,
                                                const std::string& context) {
    zkb_error error{};
    zkb_backend* raw = nullptr;
    const int code = plugin->api().create(options.c_str(), max_log_n, prove_workers, &raw, &error);
    if (code != ZKB_OK) {
        throw PluginError(PluginError::Kind::create_failed, context + plugin_message(plugin->name(), error, code));
    }
    if (raw == nullptr) {
        throw PluginError(PluginError::Kind::create_failed,
                          fmt::format("{}{}: create() reported success but returned no backend (a bug in {})",
                                      context, plugin->name(), plugin->file().string()));
    }
    return std::make_shared<Backend::Handle>(plugin, raw);
}

}  // namespace

std::vector<int32_t> resolve_devices(const Plugin& plugin, const std::string& options,
                                     const DeviceChoice& choice) {
    if (!choice.given()) {
        const std::optional<uint64_t> device = plugin::find_uint_option(options, "device");
        return {device && *device <= INT32_MAX ? static_cast<int32_t>(*device) : 0};
    }
    if (!choice.all) return {choice.indices.begin(), choice.indices.end()};
    if (plugin.api().device_count == nullptr) {
        throw PluginError(PluginError::Kind::create_failed,
                          fmt::format("{}: pipeline.devices = \"all\" needs the plugin's device_count, which "
                                      "{} does not provide; list the devices instead (pipeline.devices = [0, 1])",
                                      plugin.name(), plugin.file().string()));
    }
    zkb_error error{};
    uint32_t count = 0;
    const int code = plugin.api().device_count(options.c_str(), &count, &error);
    if (code != ZKB_OK) {
        throw PluginError(PluginError::Kind::create_failed,
                          "pipeline.devices = \"all\": " + plugin_message(plugin.name(), error, code));
    }
    if (count == 0) {
        throw PluginError(PluginError::Kind::create_failed,
                          fmt::format("pipeline.devices = \"all\": {} reports no devices here; `zkbatch "
                                      "backends` says whether it can run here",
                                      plugin.name()));
    }
    std::vector<int32_t> indices(count);
    for (uint32_t i = 0; i < count; ++i) indices[i] = static_cast<int32_t>(i);
    return indices;
}

Backend::Backend(std::shared_ptr<Plugin> plugin, const std::string& options, uint32_t max_log_n,
                 uint32_t prove_workers, const DeviceChoice& devices)
    : device_indices_(resolve_devices(*plugin, options, devices)) {
    if (!devices.given()) {
        handles_.push_back(create_backend(plugin, options, max_log_n, prove_workers, ""));
        return;
    }
    std::string prefix = options;
    if (!prefix.empty() && !prefix.ends_with('\n')) prefix += '\n';
    for (const int32_t device : device_indices_) {
        handles_.push_back(create_backend(plugin, prefix + "device=" + std::to_string(device), max_log_n,
                                          prove_workers, fmt::format("device {}: ", device)));
    }
}

Backend::~Backend() = default;

const zkb_plugin_api& Backend::api() const { return handles_.front()->plugin->api(); }
const Plugin& Backend::plugin() const { return *handles_.front()->plugin; }
zkb_backend* Backend::raw(size_t slot) const { return handles_.at(slot)->raw; }

std::vector<std::pair<std::string, std::string>> Backend::facts(size_t slot) const {
    auto facts = std::make_unique<zkb_facts>();  // ~12 KiB: not on the stack
    zkb_error error{};
    const int code = api().describe(raw(slot), facts.get(), &error);
    if (code != ZKB_OK) {
        throw PluginError(PluginError::Kind::call_failed, plugin_message(plugin().name(), error, code));
    }
    std::vector<std::pair<std::string, std::string>> out;
    const uint32_t count = std::min<uint32_t>(facts->count, ZKB_MAX_FACTS);
    for (uint32_t i = 0; i < count; ++i) {
        out.emplace_back(plugin::read_text(facts->items[i].key), plugin::read_text(facts->items[i].value));
    }
    return out;
}

zkb_host_buffers Backend::acquire_buffers(uint32_t log_n, size_t slot) const {
    zkb_host_buffers buffers{};
    zkb_error error{};
    const int code = api().acquire_buffers(raw(slot), log_n, &buffers, &error);
    if (code != ZKB_OK) {
        throw PluginError(PluginError::Kind::call_failed, plugin_message(plugin().name(), error, code));
    }
    const auto aligned = [](const void* p) { return p != nullptr && reinterpret_cast<uintptr_t>(p) % 64 == 0; };
    const bool sized = log_n < 64 && buffers.n == (uint64_t{1} << log_n);
    const bool witness = witness_elements_ == 0 || (buffers.m == witness_elements_ && aligned(buffers.z));
    if (!sized || !aligned(buffers.a) || !aligned(buffers.b) || !aligned(buffers.c) || !aligned(buffers.h) ||
        !witness) {
        const std::string problem = fmt::format(
            "{}: acquire_buffers(log_n = {}) returned n = {}, m = {} and a/b/c/h/z = {}/{}/{}/{}/{}; expected "
            "n = 2^log_n, m = {} and 64-byte-aligned buffers (a bug in {})",
            plugin().name(), log_n, buffers.n, buffers.m, buffers.a, buffers.b, buffers.c, buffers.h, buffers.z,
            witness_elements_, plugin().file().string());
        api().release_buffers(raw(slot), &buffers);
        throw PluginError(PluginError::Kind::call_failed, problem);
    }
    return buffers;
}

std::vector<Backend::KeyLoad> Backend::load_key(const zkb_key_source& source) {
    if (api().load_key == nullptr)
        throw PluginError(PluginError::Kind::unavailable,
                          fmt::format("{} proves the quotient alone (its plugin has no load_key, plugin ABI v5): "
                                      "use another backend for Groth16 proofs, or set proof.system = \"quotient\"",
                                      plugin().name()));
    std::vector<KeyLoad> loads;
    for (size_t slot = 0; slot < handles_.size(); ++slot) {
        zkb_key_report report{};
        zkb_error error{};
        const int code = api().load_key(raw(slot), &source, &report, &error);
        if (code != ZKB_OK) {
            const std::string device = device_count() > 1 ? fmt::format("device {}: ", device_index(slot)) : "";
            throw PluginError(PluginError::Kind::call_failed, device + plugin_message(plugin().name(), error, code));
        }
        KeyLoad& load = loads.emplace_back();
        load.load_ms = report.end_ns >= report.start_ns ? static_cast<double>(report.end_ns - report.start_ns) / 1e6 : 0;
        load.key_bytes = report.key_bytes;
        load.host_key_bytes = report.host_key_bytes;
        load.num_variables = report.num_variables;
        load.where = plugin::read_text(report.where);
        load.how = plugin::read_text(report.how);
        load.points_digest = plugin::read_text(report.points_digest);
    }
    // From here on every buffer set carries a witness of the key's length.
    witness_elements_ = loads.front().num_variables;
    return loads;
}

void Backend::release_buffers(zkb_host_buffers& buffers, size_t slot) const {
    api().release_buffers(raw(slot), &buffers);
    buffers = zkb_host_buffers{};
}

std::unique_ptr<Worker> Backend::create_worker(uint32_t worker_index, size_t slot) const {
    zkb_error error{};
    zkb_worker* raw_worker = nullptr;
    const int code = api().create_worker(raw(slot), worker_index, &raw_worker, &error);
    if (code != ZKB_OK || raw_worker == nullptr) {
        throw PluginError(PluginError::Kind::call_failed,
                          code != ZKB_OK ? plugin_message(plugin().name(), error, code)
                                         : fmt::format("{}: create_worker() reported success but returned no "
                                                       "worker (a bug in {})",
                                                       plugin().name(), plugin().file().string()));
    }
    return std::make_unique<Worker>(handles_.at(slot), raw_worker);
}

// ---------------------------------------------------------------------------------
// Worker

Worker::Worker(std::shared_ptr<const Backend::Handle> backend, zkb_worker* raw)
    : backend_(std::move(backend)), raw_(raw) {}

Worker::~Worker() { backend_->plugin->api().destroy_worker(raw_); }

int Worker::prove(const zkb_prove_request& request, zkb_prove_report* report, std::string* error) const {
    const Plugin& plugin = *backend_->plugin;
    zkb_error plugin_error{};
    report->phase_count = 0;
    const int code = plugin.api().prove(raw_, &request, report, &plugin_error);
    if (code != ZKB_OK) {
        if (error != nullptr) *error = plugin_message(plugin.name(), plugin_error, code);
        return code;
    }
    if (report->phase_count > ZKB_MAX_PHASES) {
        if (error != nullptr) {
            *error = fmt::format("{}: prove reported {} phases, more than the {} a report holds (a bug in {})",
                                 plugin.name(), report->phase_count, ZKB_MAX_PHASES, plugin.file().string());
        }
        return ZKB_ERR_INTERNAL;
    }
    return ZKB_OK;
}

}  // namespace zkbatch
