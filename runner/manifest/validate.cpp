// Manifest validation: one pass over the parsed (and overridden) TOML tree that fills a
// Manifest, checking every key against the schema and every value's type and range, and
// throwing at the first problem with the position of the node it is about.
#include "manifest/manifest_internal.hpp"

#include "core/circuit/porep_profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <span>
#include <sstream>
#include <type_traits>
#include <utility>

namespace zkbatch::manifest_detail {

namespace {

// Every table and key a manifest may contain. Unknown-key checks and did-you-mean
// suggestions come from here; backend.options and output.tags are free-form inside.
struct SchemaTable {
    std::string_view name;
    std::vector<std::string_view> keys;
};
const std::array<SchemaTable, 9> kSchema = {{
    {"job", {"name", "partitions", "seed"}},
    {"circuit",
     {"kind", "curve", "profile", "log_n", "terms_per_row", "public_inputs", "boolean_share", "seed", "zkey",
      "witnesses"}},
    {"setup", {"seed", "cache_dir", "key"}},
    {"proof", {"system", "randomness"}},
    {"pipeline", {"synthesis_workers", "prove_workers", "queue_depth", "finalize_workers", "on_error", "replay_inputs", "devices"}},
    {"backend", {"name", "options"}},
    {"output", {"db", "tags"}},
    {"verify", {"mode", "every"}},
    {"finalize", {"malloc_trim"}},
}};

std::string dotted(std::string_view table, std::string_view key) {
    return fmt::format("{}.{}", table, key);
}

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), so
// "lgo_n" is one edit from "log_n". Case-insensitive: "Log_N" is a near miss too.
size_t edit_distance(std::string_view a, std::string_view b) {
    auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

// The closest candidate, if it is close enough to be a plausible typo.
std::optional<std::string_view> closest(std::string_view word, std::span<const std::string_view> candidates) {
    if (word.size() > 64) return std::nullopt;  // no typo of a schema key is this long
    const size_t max_distance = word.size() >= 9 ? 3 : word.size() >= 5 ? 2 : 1;
    std::optional<std::string_view> best;
    size_t best_distance = max_distance + 1;
    for (std::string_view candidate : candidates) {
        const size_t distance = edit_distance(word, candidate);
        if (distance < best_distance) {
            best = candidate;
            best_distance = distance;
        }
    }
    return best;
}

// The table that has `key` among its known keys, for a key written in the wrong table.
std::optional<std::string_view> table_owning(std::string_view key) {
    for (const SchemaTable& table : kSchema)
        if (std::find(table.keys.begin(), table.keys.end(), key) != table.keys.end()) return table.name;
    return std::nullopt;
}

std::string join_quoted(std::span<const std::string_view> words, std::string_view quote) {
    std::string out;
    for (std::string_view word : words) {
        if (!out.empty()) out += ", ";
        out += fmt::format("{}{}{}", quote, word, quote);
    }
    return out;
}

const char* describe(toml::node_type type) {
    switch (type) {
        case toml::node_type::table: return "a table";
        case toml::node_type::array: return "an array";
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a floating-point number";
        case toml::node_type::boolean: return "a boolean";
        case toml::node_type::date: return "a date";
        case toml::node_type::time: return "a time";
        case toml::node_type::date_time: return "a date-time";
        case toml::node_type::none: break;
    }
    return "nothing";
}

// A float in TOML's own spelling, shortest form that reads back to the same double:
// 0.1 -> "0.1", 2.0 -> "2.0", 1e300 -> "1e+300", inf -> "inf".
std::string float_text(double value) {
    std::array<char, 64> buffer{};
    const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    std::string text = ec == std::errc{} ? std::string(buffer.data(), end) : std::string("nan");
    const bool looks_integral =
        std::all_of(text.begin(), text.end(), [](char c) { return c == '-' || (c >= '0' && c <= '9'); });
    if (looks_integral) text += ".0";
    return text;
}

// A scalar's value as text (the form backend.options and output.tags store): strings
// as-is, integers in decimal, floats/bools/dates as TOML writes them.
std::optional<std::string> scalar_text(const toml::node& node) {
    if (auto* s = node.as_string()) return s->get();
    if (auto* i = node.as_integer()) return std::to_string(i->get());
    if (auto* f = node.as_floating_point()) return float_text(f->get());
    if (auto* b = node.as_boolean()) return std::string(b->get() ? "true" : "false");
    if (node.is_date() || node.is_time() || node.is_date_time()) {
        std::ostringstream out;
        node.visit([&](auto&& value) {
            if constexpr (toml::is_date<decltype(value)> || toml::is_time<decltype(value)> ||
                          toml::is_date_time<decltype(value)>)
                out << value;
        });
        return out.str();
    }
    return std::nullopt;
}

// Walks the parsed (and overridden) tree, fills a Manifest, and throws on the first
// problem with the position of the node it is about.
class Validator {
public:
    explicit Validator(std::string file_path) : file_path_(std::move(file_path)) {}

    [[noreturn]] void fail(const toml::source_region& given, const std::string& key, const std::string& message) const {
        // A value copied out of an axis list has no source of its own: use the element's.
        const bool unplaced = given.begin.line == 0 && !override_label(given);
        const toml::source_region& where = unplaced && axis_element_ ? *axis_element_ : given;
        if (const std::string* label = override_label(where))
            throw ManifestError(std::string(kOverridePath), 0, 0, key, fmt::format("{} (from {})", message, *label));
        throw ManifestError(file_path_, where.begin.line, where.begin.column, key, message);
    }

    // The tables in this order: a manifest with several problems reports the same first.
    Manifest validate(const toml::table& root) const {
        check_unknown_tables(root);
        Manifest m;
        read_job(root, m);
        if (const toml::table* proof = table(root, "proof")) read_proof(*proof, m);
        if (const toml::table* circuit = table(root, "circuit")) read_circuit(root, *circuit, m);
        if (const toml::table* setup = table(root, "setup")) read_setup(*setup, m);
        if (const toml::table* pipeline = table(root, "pipeline")) read_pipeline(*pipeline, m);
        if (const toml::table* backend = table(root, "backend")) read_backend(*backend, m);
        if (const toml::table* output = table(root, "output")) {
            read_string(*output, "output", "db", m.output.db, "give a file path such as \"results/zkbatch.db\"");
            m.output.tags = read_scalars(*output, "output", "tags", /*bare_keys=*/false);
        }
        // A Groth16 partition is checked by its proof, a quotient-only one by h's identity.
        m.verify.mode = m.proof.system == ProofSystem::groth16 ? VerifyMode::proof : VerifyMode::identity;
        if (const toml::table* verify = table(root, "verify")) read_verify(*verify, m);
        if (const toml::table* finalize = table(root, "finalize")) {
            read_bool(*finalize, "finalize", "malloc_trim", m.finalize.malloc_trim);
        }
        if (m.pipeline.devices.given()) refuse_device_option(root, m);
        return m;
    }

private:
    // [job], and job.name, which every manifest needs.
    void read_job(const toml::table& root, Manifest& m) const {
        if (const toml::table* job = table(root, "job")) {
            read_job_name(*job, m.job.name);
            read_int(*job, "job", "partitions", 1, kMaxPartitions, m.job.partitions);
            read_int(*job, "job", "seed", 0, INT64_MAX, m.job.seed);
        }
        if (!m.job.name.empty()) return;
        // Point at [job] when it exists, else the top of the file.
        const toml::node* job = root.get("job");
        toml::source_region where = job ? job->source() : toml::source_region{};
        if (where.begin.line == 0 && !override_label(where)) where.begin = {1, 1};
        fail(where, "job.name", "required key is missing; add name = \"my-job\" under [job]");
    }

    void read_proof(const toml::table& proof, Manifest& m) const {
        static constexpr std::array<std::pair<std::string_view, ProofSystem>, 2> kSystems = {
            {{"groth16", ProofSystem::groth16}, {"quotient", ProofSystem::quotient}}};
        for_each_axis_value(proof, "proof", "system", m.axes, [&](const toml::table& one) {
            read_choice(one, "proof", "system", kSystems, m.proof.system);
            return toml_quoted(to_string(m.proof.system));
        });
        static constexpr std::array<std::pair<std::string_view, ProofRandomness>, 2> kRandomness = {
            {{"derived", ProofRandomness::derived}, {"random", ProofRandomness::random}}};
        read_choice(proof, "proof", "randomness", kRandomness, m.proof.randomness);
    }

    void read_setup(const toml::table& setup, Manifest& m) const {
        read_int(setup, "setup", "seed", 0, INT64_MAX, m.setup.seed);
        read_string(setup, "setup", "cache_dir", m.setup.cache_dir,
                    "give the folder for seeded proving keys, such as \"cache/keys\"");
        static constexpr std::array<std::pair<std::string_view, KeySource>, 2> kKeySources = {
            {{"cache", KeySource::cache}, {"backend", KeySource::backend}}};
        read_choice(setup, "setup", "key", kKeySources, m.setup.key);
        if (m.setup.key == KeySource::backend && m.circuit.kind == CircuitKind::zkey)
            fail(setup.get("key")->source(), "setup.key",
                 "\"backend\" makes a seeded key; a .zkey circuit proves with its ceremony's key (remove it)");
    }

    void read_pipeline(const toml::table& pipeline, Manifest& m) const {
        read_int_axis(pipeline, "pipeline", "synthesis_workers", 1, 256, m.pipeline.synthesis_workers, m.axes);
        read_int_axis(pipeline, "pipeline", "prove_workers", 1, 64, m.pipeline.prove_workers, m.axes);
        read_int_axis(pipeline, "pipeline", "queue_depth", 1, 1024, m.pipeline.queue_depth, m.axes);
        read_int(pipeline, "pipeline", "finalize_workers", 1, 64, m.pipeline.finalize_workers);
        static constexpr std::array<std::pair<std::string_view, OnPartitionError>, 2> kOnError = {
            {{"stop", OnPartitionError::stop}, {"continue", OnPartitionError::continue_run}}};
        read_choice(pipeline, "pipeline", "on_error", kOnError, m.pipeline.on_error);
        read_int(pipeline, "pipeline", "replay_inputs", 0, 1'000'000, m.pipeline.replay_inputs);
        read_devices_axis(pipeline, m);
    }

    void read_backend(const toml::table& backend, Manifest& m) const {
        for_each_axis_value(backend, "backend", "name", m.axes, [&](const toml::table& one) {
            read_string(one, "backend", "name", m.backend.name,
                        "use \"auto\", a plugin name such as \"cpu-ref\", or the path of a plugin .so");
            return toml_quoted(m.backend.name);
        });
        // [backend.options.<plugin>] tables hold options for that backend alone (an A/B
        // of cuda-pinned and cuda-pageable can size the pinned pool); the scalars
        // directly in [backend.options] go to every backend.
        m.backend.options = option_lines(
            read_scalars(backend, "backend", "options", /*bare_keys=*/true, /*backend_tables=*/true));
        if (const toml::node* node = backend.get("options"); node && node->is_table()) {
            for (const auto& [key, value] : *node->as_table()) {
                if (!value.is_table()) continue;
                if (!is_bare_key(key.str()))
                    fail(key_region(key, value), fmt::format("backend.options.{}", key.str()),
                         "a backend name may use only letters, digits, '_' and '-'");
                require_length(key_region(key, value), "backend.options", std::string(key.str()), kMaxNameBytes);
                m.backend.options_by_backend[std::string(key.str())] = option_lines(
                    read_scalars(*node->as_table(), "backend.options", key.str(), /*bare_keys=*/true));
            }
        }
    }

    void read_verify(const toml::table& verify, Manifest& m) const {
        static constexpr std::array<std::pair<std::string_view, VerifyMode>, 4> kModes = {
            {{"proof", VerifyMode::proof},
             {"identity", VerifyMode::identity},
             {"sampled", VerifyMode::sampled},
             {"none", VerifyMode::none}}};
        read_choice(verify, "verify", "mode", kModes, m.verify.mode);
        read_int(verify, "verify", "every", 1, 1'000'000, m.verify.every);
        check_verify_mode(verify, m);
    }

    const std::string* override_label(const toml::source_region& where) const {
        if (where.path && *where.path != file_path_ && where.path->starts_with(kOverrideLabelPrefix))
            return where.path.get();
        return nullptr;
    }

    // An unknown key is reported at the key, unless an override wrote the value.
    const toml::source_region& key_region(const toml::key& key, const toml::node& value) const {
        return override_label(value.source()) ? value.source() : key.source();
    }

    void check_unknown_tables(const toml::table& root) const {
        std::vector<std::string_view> names;
        for (const SchemaTable& table : kSchema) names.push_back(table.name);
        for (const auto& [key, value] : root) {
            if (std::find(names.begin(), names.end(), key.str()) != names.end()) continue;
            const auto& where = key_region(key, value);
            if (!value.is_table()) {
                // A key above the first [table] header, e.g. `log_n = 12`.
                if (auto owner = table_owning(key.str()))
                    fail(where, std::string(key.str()),
                         fmt::format("unknown key; did you mean '{}'? (it belongs under [{}])",
                                     dotted(*owner, key.str()), *owner));
                fail(where, std::string(key.str()),
                     fmt::format("unknown key; keys belong in one of the tables {}", join_quoted(names, "")));
            }
            if (auto suggestion = closest(key.str(), names))
                fail(where, std::string(key.str()), fmt::format("unknown table; did you mean '{}'?", *suggestion));
            fail(where, std::string(key.str()), fmt::format("unknown table; known tables: {}", join_quoted(names, "")));
        }
    }

    // The table `name` of the root, checked for type and unknown keys; null when absent.
    const toml::table* table(const toml::table& root, std::string_view name) const {
        const toml::node* node = root.get(name);
        if (!node) return nullptr;
        const toml::table* t = node->as_table();
        if (!t) fail(node->source(), std::string(name), fmt::format("expected a table, found {}", describe(node->type())));
        const auto& known = std::find_if(kSchema.begin(), kSchema.end(), [&](auto& s) { return s.name == name; })->keys;
        for (const auto& [key, value] : *t) {
            if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
            const auto& where = key_region(key, value);
            const std::string full = dotted(name, key.str());
            if (auto suggestion = closest(key.str(), known))
                fail(where, full, fmt::format("unknown key; did you mean '{}'?", dotted(name, *suggestion)));
            if (auto owner = table_owning(key.str()))
                fail(where, full, fmt::format("unknown key; did you mean '{}'?", dotted(*owner, key.str())));
            fail(where, full, fmt::format("unknown key; known keys of [{}]: {}", name, join_quoted(known, "")));
        }
        return t;
    }

    // The node at table.key if present and of the expected type; null when absent.
    template <typename T>
    const toml::value<T>* value(const toml::table& t, std::string_view table_name, std::string_view key,
                                const char* expected) const {
        const toml::node* node = t.get(key);
        if (!node) return nullptr;
        const auto* v = node->as<T>();
        if (!v) {
            std::string message = fmt::format("expected {}, found {}", expected, describe(node->type()));
            // `--set job.name=2024-06-01` parses as a date; say how to pass text.
            if (const std::string* label = override_label(node->source()); label && std::is_same_v<T, std::string>) {
                const std::string_view text = std::string_view(*label).substr(label->find('=') + 1);
                message += fmt::format("; to pass it as text, quote it: --set '{}.{}=\"{}\"'", table_name, key, text);
            }
            fail(node->source(), dotted(table_name, key), message);
        }
        return v;
    }

    template <typename Int>
    void read_int(const toml::table& t, std::string_view table_name, std::string_view key, int64_t min, int64_t max,
                  Int& out) const {
        const auto* v = value<int64_t>(t, table_name, key, "an integer");
        if (!v) return;
        const int64_t n = v->get();
        if (n < min || n > max)
            fail(v->source(), dotted(table_name, key),
                 max == INT64_MAX ? fmt::format("must be in {}..2^63-1, found {}", min, n)
                                  : fmt::format("must be in {}..{}, found {}", min, max, n));
        out = static_cast<Int>(n);
    }

    // Keys that may vary between the arms of an experiment accept a list of values
    // (`log_n = [20, 24]`). read_one(table) checks one value, given as the only key of
    // a table, and returns it as TOML text; the manifest keeps the first value, and
    // `axes` all of them, for expand_arms.
    template <typename ReadOne>
    void for_each_axis_value(const toml::table& t, std::string_view table_name, std::string_view key,
                             std::vector<Manifest::Axis>& axes, ReadOne&& read_one) const {
        const toml::node* node = t.get(key);
        const toml::array* list = node ? node->as_array() : nullptr;
        if (!list) {
            read_one(t);
            return;
        }
        const std::string full = dotted(table_name, key);
        if (list->empty()) fail(node->source(), full, "an empty list; give one value, or a list of values to compare");
        Manifest::Axis axis{full, {}};
        // Reads one element as the only key of a table (a copy, without a source).
        const auto read_element = [&](const toml::node& element) {
            toml::table one;
            one.insert(key, element);
            axis_element_ = &element.source();
            std::string text = read_one(one);
            axis_element_ = nullptr;
            return text;
        };
        for (const toml::node& element : *list) {
            std::string text = read_element(element);
            if (std::find(axis.values.begin(), axis.values.end(), text) != axis.values.end())
                fail(element.source(), full, fmt::format("{} is listed twice", text));
            axis.values.push_back(std::move(text));
        }
        // The first value stands for the manifest as a whole (validate, describe).
        read_element(*list->get(0));
        if (axis.values.size() > 1) axes.push_back(std::move(axis));
    }

    template <typename Int>
    void read_int_axis(const toml::table& t, std::string_view table_name, std::string_view key, int64_t min,
                       int64_t max, Int& out, std::vector<Manifest::Axis>& axes) const {
        for_each_axis_value(t, table_name, key, axes, [&](const toml::table& one) {
            read_int(one, table_name, key, min, max, out);
            return std::to_string(out);
        });
    }

    // [circuit]: a synthetic R1CS (the default) or a .zkey with its witnesses. Keys of
    // the other kind are refused, not ignored: a typo never silently runs the default.
    void read_circuit(const toml::table& root, const toml::table& circuit, Manifest& m) const {
        static constexpr std::array<std::pair<std::string_view, CircuitKind>, 2> kKinds = {
            {{"synthetic", CircuitKind::synthetic}, {"zkey", CircuitKind::zkey}}};
        read_choice(circuit, "circuit", "kind", kKinds, m.circuit.kind);
        static constexpr std::array<std::pair<std::string_view, CircuitProfile>, 2> kProfiles = {
            {{"uniform", CircuitProfile::uniform}, {"porep", CircuitProfile::porep}}};
        read_choice(circuit, "circuit", "profile", kProfiles, m.circuit.profile);
        const bool porep = m.circuit.profile == CircuitProfile::porep;
        read_int_axis(circuit, "circuit", "log_n", 1, 28, m.circuit.log_n, m.axes);
        read_int_axis(circuit, "circuit", "terms_per_row", 1, 1024, m.circuit.terms_per_row, m.axes);
        read_int(circuit, "circuit", "public_inputs", 0, (int64_t{1} << 28) - 1, m.circuit.public_inputs);
        for_each_axis_value(circuit, "circuit", "boolean_share", m.axes, [&](const toml::table& one) {
            read_fraction(one, "circuit", "boolean_share", m.circuit.boolean_share);
            if (porep && m.circuit.boolean_share < circuit::kPorepMinBitShare)
                fail(one.get("boolean_share")->source(), "circuit.boolean_share",
                     fmt::format("with circuit.profile = \"porep\" it is the share of private variables that are "
                                 "bits, {}..1 (the profile's estimate is {}); found {}",
                                 float_text(circuit::kPorepMinBitShare), float_text(circuit::kPorepBitShare),
                                 float_text(m.circuit.boolean_share)));
            return float_text(m.circuit.boolean_share);
        });
        read_int(circuit, "circuit", "seed", 0, INT64_MAX, m.circuit.seed);
        read_curve(circuit, m);
        read_string(circuit, "circuit", "zkey", m.circuit.zkey, "give the path of the circuit's .zkey");
        read_witnesses(circuit, m.circuit.witnesses);

        const bool zkey = m.circuit.kind == CircuitKind::zkey;
        const char* synthetic_only[] = {"profile", "log_n", "terms_per_row", "public_inputs", "boolean_share", "seed"};
        for (const char* key : zkey ? std::span<const char* const>(synthetic_only) : std::span<const char* const>{})
            if (const toml::node* node = circuit.get(key))
                fail(node->source(), dotted("circuit", key),
                     "applies to synthetic circuits; a .zkey fixes its own circuit (remove it, or set circuit.kind "
                     "= \"synthetic\")");
        const char* zkey_only[] = {"zkey", "witnesses"};
        for (const char* key : zkey ? std::span<const char* const>{} : std::span<const char* const>(zkey_only))
            if (const toml::node* node = circuit.get(key))
                fail(node->source(), dotted("circuit", key), "applies to circuit.kind = \"zkey\"; set it too");
        if (m.proof.system == ProofSystem::quotient && !zkey) {
            for (const char* key : {"profile", "public_inputs", "boolean_share", "seed"})
                if (const toml::node* node = circuit.get(key))
                    fail(node->source(), dotted("circuit", key),
                         "applies to Groth16 circuits; proof.system = \"quotient\" proves the quotient alone of "
                         "its own synthetic workload (remove it, or set proof.system = \"groth16\")");
        }
        if (porep) read_porep_profile(circuit, m);
        if (!zkey) return;
        const toml::source_region& where = circuit.source();
        if (m.circuit.zkey.empty()) fail(where, "circuit.zkey", "required with circuit.kind = \"zkey\": the .zkey file");
        if (m.circuit.witnesses.empty())
            fail(where, "circuit.witnesses",
                 "required with circuit.kind = \"zkey\": a glob or a list of .wtns files, one partition each");
        if (m.proof.system != ProofSystem::groth16)
            fail(where, "proof.system", "a .zkey job proves Groth16; remove proof.system = \"quotient\"");
        if (const toml::node* partitions = root.at_path("job.partitions").node())
            fail(partitions->source(), "job.partitions",
                 "a .zkey job proves one partition per witness file (circuit.witnesses); remove it");
        // A real circuit's proofs are randomized unless deterministic ones are asked for.
        if (!root.at_path("proof.randomness").node()) m.proof.randomness = ProofRandomness::random;
    }

    // circuit.curve: "bls12-381" or "bn254" (snarkjs's "bls12381" and "bn128" too). A .zkey
    // names its own (the run's plan checks that they agree); a synthetic circuit is over
    // the one given (BLS12-381 by default), except the porep profile and the quotient
    // workload, which are BLS12-381's.
    void read_curve(const toml::table& circuit, Manifest& m) const {
        const toml::node* node = circuit.get("curve");
        if (node == nullptr) return;
        std::string text;
        read_string(circuit, "circuit", "curve", text, "give \"bls12-381\" or \"bn254\"");
        m.circuit.curve = curve::curve_from_name(text);
        if (!m.circuit.curve)
            fail(node->source(), "circuit.curve",
                 fmt::format("\"{}\" is not a curve zkbatch proves: give \"bls12-381\" or \"bn254\"", text));
        if (*m.circuit.curve == curve::CurveId::bls12_381 || m.circuit.kind == CircuitKind::zkey) return;
        if (m.proof.system == ProofSystem::quotient)
            fail(node->source(), "circuit.curve",
                 fmt::format("proof.system = \"quotient\" is BLS12-381's; a {} job proves Groth16 (remove "
                             "proof.system, or this key)",
                             curve::name(*m.circuit.curve)));
        if (m.circuit.profile == CircuitProfile::porep)
            fail(node->source(), "circuit.curve",
                 fmt::format("circuit.profile = \"porep\" is BLS12-381's; a {} synthetic circuit takes the "
                             "uniform profile (remove circuit.profile)",
                             curve::name(*m.circuit.curve)));
    }

    // circuit.profile = "porep" fixes its rows' shapes and has its own defaults: the
    // published public inputs and the estimated share of bits (core/circuit/porep_profile.hpp).
    void read_porep_profile(const toml::table& circuit, Manifest& m) const {
        if (const toml::node* node = circuit.get("terms_per_row"))
            fail(node->source(), "circuit.terms_per_row",
                 "applies to the uniform profile; circuit.profile = \"porep\" fixes its rows' terms (remove it)");
        m.circuit.terms_per_row = 0;
        const toml::node* inputs = circuit.get("public_inputs");
        if (!inputs) m.circuit.public_inputs = circuit::kPorepPublicInputs;
        if (!circuit.get("boolean_share")) m.circuit.boolean_share = circuit::kPorepBitShare;
        const uint64_t rows = uint64_t{1} << m.circuit.log_n;
        const uint64_t constraints = circuit::porep_constraint_rows(m.circuit.log_n);
        if (constraints + m.circuit.public_inputs + 1 <= rows) return;
        uint32_t log_n = m.circuit.log_n;
        while (log_n < 28 && circuit::porep_constraint_rows(log_n) + m.circuit.public_inputs + 1 > uint64_t{1} << log_n)
            ++log_n;
        const toml::node* log_n_node = circuit.get("log_n");
        fail(inputs ? inputs->source() : log_n_node ? log_n_node->source() : circuit.get("profile")->source(),
             inputs ? "circuit.public_inputs" : "circuit.log_n",
             fmt::format("the porep profile's {} constraint rows at 2^{} leave room for {} public inputs, not {}{}; "
                         "lower circuit.public_inputs or raise circuit.log_n{}",
                         constraints, m.circuit.log_n, constraints < rows ? rows - constraints - 1 : 0,
                         m.circuit.public_inputs, inputs ? "" : " (the profile's default)",
                         log_n > m.circuit.log_n ? fmt::format(" to {}", log_n) : ""));
    }

    // circuit.witnesses: one string (a file or a glob) or a list of them.
    void read_witnesses(const toml::table& circuit, std::vector<std::string>& out) const {
        const toml::node* node = circuit.get("witnesses");
        if (!node) return;
        const std::string key = "circuit.witnesses";
        const std::string what_to_use = "give a glob such as \"witnesses/*.wtns\" or a list of .wtns files";
        auto take = [&](const toml::node& element) {
            const auto* text = element.as_string();
            if (!text) fail(element.source(), key, fmt::format("expected a string, found {}; {}", describe(element.type()), what_to_use));
            if (text->get().empty()) fail(element.source(), key, "must not be empty; " + what_to_use);
            require_length(element.source(), key, text->get(), kMaxTextBytes);
            out.push_back(text->get());
        };
        if (const toml::array* list = node->as_array()) {
            if (list->empty()) fail(node->source(), key, "an empty list; " + what_to_use);
            for (const toml::node& element : *list) take(element);
        } else {
            take(*node);
        }
    }

    // A share in 0..1: a float, or the integer 0 or 1.
    void read_fraction(const toml::table& t, std::string_view table_name, std::string_view key, double& out) const {
        const toml::node* node = t.get(key);
        if (!node) return;
        double value;
        if (const auto* f = node->as_floating_point()) value = f->get();
        else if (const auto* i = node->as_integer()) value = static_cast<double>(i->get());
        else fail(node->source(), dotted(table_name, key), fmt::format("expected a number in 0..1, found {}", describe(node->type())));
        if (!(value >= 0.0 && value <= 1.0))
            fail(node->source(), dotted(table_name, key), fmt::format("must be in 0..1, found {}", float_text(value)));
        out = value;
    }

    // What each verify.mode checks must exist in the job.
    void check_verify_mode(const toml::table& verify, const Manifest& m) const {
        const toml::node* mode = verify.get("mode");
        if (!mode) return;
        if (m.verify.mode == VerifyMode::proof && m.proof.system == ProofSystem::quotient)
            fail(mode->source(), "verify.mode",
                 "\"proof\" checks Groth16 proofs, and proof.system = \"quotient\" makes none; use \"identity\"");
        const bool identity = m.verify.mode == VerifyMode::identity || m.verify.mode == VerifyMode::sampled;
        if (identity && m.circuit.kind == CircuitKind::zkey)
            fail(mode->source(), "verify.mode",
                 "a .zkey job's h is snarkjs's odd-coset evaluation, which the identity check does not apply to; "
                 "use \"proof\"");
    }

    // With pipeline.devices the runner gives each backend its `device` option; one in
    // the manifest as well would be ambiguous.
    void refuse_device_option(const toml::table& root, const Manifest& m) const {
        std::vector<std::string> paths = {"backend.options.device"};
        for (const auto& [name, lines] : m.backend.options_by_backend) paths.push_back("backend.options." + name + ".device");
        for (const std::string& path : paths) {
            const toml::node* node = root.at_path(path).node();
            if (!node) continue;
            fail(node->source(), path,
                 "conflicts with pipeline.devices, which creates one backend per listed device with "
                 "device=<index>; remove one of the two");
        }
    }

    // pipeline.devices is a list itself, so a list of choices makes it an axis:
    // [[0], [0, 1]] compares one GPU with two, ["all", [0]] every GPU with the first.
    void read_devices_axis(const toml::table& pipeline, Manifest& m) const {
        const toml::node* node = pipeline.get("devices");
        const toml::array* list = node ? node->as_array() : nullptr;
        if (!list || list->empty() || list->get(0)->is_integer()) {
            read_devices(pipeline, m.pipeline.devices);
            return;
        }
        for_each_axis_value(pipeline, "pipeline", "devices", m.axes, [&](const toml::table& one) {
            m.pipeline.devices = {};
            read_devices(one, m.pipeline.devices);
            if (m.pipeline.devices.all) return std::string("\"all\"");
            return fmt::format("[{}]", fmt::join(m.pipeline.devices.indices, ","));  // arm=pipeline.devices=[0,1]
        });
    }

    // pipeline.devices: "all", or a list of distinct device indices.
    void read_devices(const toml::table& pipeline, DeviceChoice& out) const {
        constexpr int64_t kMaxDevice = 1023;
        constexpr size_t kMaxDevices = 64;
        const toml::node* node = pipeline.get("devices");
        if (!node) return;
        const std::string key = "pipeline.devices";
        const std::string what_to_use = "use \"all\" or a list of device indices such as [0, 1]";
        if (const auto* text = node->as_string()) {
            if (text->get() != "all")
                fail(node->source(), key, fmt::format("\"{}\" is not a device choice; {}", shown_text(text->get()), what_to_use));
            out.all = true;
            return;
        }
        const toml::array* list = node->as_array();
        if (!list) fail(node->source(), key, fmt::format("expected \"all\" or a list, found {}; {}", describe(node->type()), what_to_use));
        if (list->empty()) fail(node->source(), key, "an empty list; " + what_to_use);
        if (list->size() > kMaxDevices)
            fail(node->source(), key, fmt::format("lists {} devices; at most {} are supported", list->size(), kMaxDevices));
        for (const toml::node& element : *list) {
            const auto* index = element.as_integer();
            if (!index)
                fail(element.source(), key, fmt::format("expected a device index (an integer), found {}", describe(element.type())));
            if (index->get() < 0 || index->get() > kMaxDevice)
                fail(element.source(), key, fmt::format("device index must be in 0..{}, found {}", kMaxDevice, index->get()));
            const auto device = static_cast<uint32_t>(index->get());
            if (std::find(out.indices.begin(), out.indices.end(), device) != out.indices.end())
                fail(element.source(), key, fmt::format("device {} is listed twice", device));
            out.indices.push_back(device);
        }
    }

    void read_bool(const toml::table& t, std::string_view table_name, std::string_view key, bool& out) const {
        if (const auto* v = value<bool>(t, table_name, key, "a boolean (true or false)")) out = v->get();
    }

    void read_string(const toml::table& t, std::string_view table_name, std::string_view key, std::string& out,
                     std::string_view what_to_use) const {
        const auto* v = value<std::string>(t, table_name, key, "a string");
        if (!v) return;
        if (v->get().empty()) fail(v->source(), dotted(table_name, key), fmt::format("must not be empty; {}", what_to_use));
        require_length(v->source(), dotted(table_name, key), v->get(), kMaxTextBytes);
        out = v->get();
    }

    // A name or value of at most `limit` bytes.
    void require_length(const toml::source_region& where, const std::string& key, const std::string& text,
                        size_t limit) const {
        if (text.size() > limit)
            fail(where, key, fmt::format("\"{}\" is {} bytes long; at most {} are accepted", shown_text(text),
                                         text.size(), limit));
    }

    void read_job_name(const toml::table& job, std::string& out) const {
        const auto* v = value<std::string>(job, "job", "name", "a string");
        if (!v) return;
        const std::string& name = v->get();
        if (name.empty()) fail(v->source(), "job.name", "must not be empty; name the job, e.g. \"nightly-porep\"");
        const auto bad = std::find_if(name.begin(), name.end(), [](char c) { return !is_bare_key({&c, 1}) && c != '.'; });
        if (bad != name.end()) {
            const auto byte = static_cast<unsigned char>(*bad);
            const std::string what = byte == ' '                 ? "a space"
                                     : byte < 0x20 || byte == 0x7f ? "a control character"
                                     : byte > 0x7f                 ? "a character outside ASCII"
                                                                   : fmt::format("'{}'", *bad);
            fail(v->source(), "job.name",
                 fmt::format("\"{}\" contains {}; use only letters, digits, '.', '_' and '-'", shown_text(name), what));
        }
        require_length(v->source(), "job.name", name, kMaxNameBytes);
        out = name;
    }

    template <typename Enum, size_t N>
    void read_choice(const toml::table& t, std::string_view table_name, std::string_view key,
                     const std::array<std::pair<std::string_view, Enum>, N>& choices, Enum& out) const {
        const auto* v = value<std::string>(t, table_name, key, "a string");
        if (!v) return;
        std::vector<std::string_view> names;
        for (const auto& [name, e] : choices) {
            if (v->get() == name) {
                out = e;
                return;
            }
            names.push_back(name);
        }
        fail(v->source(), dotted(table_name, key),
             fmt::format("\"{}\" is not a valid choice; use one of {}", shown_text(v->get()), join_quoted(names, "\"")));
    }

    // A free-form table of scalars (backend.options, output.tags), values as text.
    // Option keys must be bare keys and values single-line: they travel as "key=value" lines.
    // With backend_tables, entries that are tables are skipped: [backend.options.<name>].
    std::map<std::string, std::string> read_scalars(const toml::table& t, std::string_view table_name,
                                                    std::string_view key, bool bare_keys,
                                                    bool backend_tables = false) const {
        std::map<std::string, std::string> out;
        const toml::node* node = t.get(key);
        if (!node) return out;
        const toml::table* entries = node->as_table();
        if (!entries)
            fail(node->source(), dotted(table_name, key), fmt::format("expected a table, found {}", describe(node->type())));
        for (const auto& [entry_key, entry] : *entries) {
            if (backend_tables && entry.is_table()) continue;
            const std::string full = fmt::format("{}.{}.{}", table_name, key, entry_key.str());
            if (bare_keys && !is_bare_key(entry_key.str()))
                fail(key_region(entry_key, entry), full, "option names may use only letters, digits, '_' and '-'");
            if (!bare_keys && entry_key.str().empty()) fail(key_region(entry_key, entry), full, "tag names must not be empty");
            require_length(key_region(entry_key, entry), dotted(table_name, key), std::string(entry_key.str()),
                           kMaxNameBytes);
            std::optional<std::string> text = scalar_text(entry);
            if (!text)
                fail(entry.source(), full,
                     fmt::format("expected a scalar (string, integer, float, boolean or date), found {}",
                                 describe(entry.type())));
            if (bare_keys && text->find_first_of("\r\n") != std::string::npos)
                fail(entry.source(), full, "option values must be a single line");
            require_length(entry.source(), full, *text, kMaxTextBytes);
            out.emplace(std::string(entry_key.str()), std::move(*text));
        }
        return out;
    }

    std::string file_path_;
    // The axis list element being read, while one is (for_each_axis_value); a failure
    // ends validation, so it needs no reset on the way out.
    mutable const toml::source_region* axis_element_ = nullptr;
};

}  // namespace

Manifest validate_manifest(const toml::table& root, const std::string& file_path) {
    return Validator(file_path).validate(root);
}

}  // namespace zkbatch::manifest_detail
