// A manifest written out: the one-line description of its job, and the effective
// manifest as TOML text.
#include "manifest/manifest.hpp"

#include "manifest/manifest_internal.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace zkbatch {

using manifest_detail::add_option_lines;
using manifest_detail::is_bare_key;

std::string toml_quoted(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20 || byte == 0x7f) {
            out += fmt::format("\\u{:04X}", byte);
        } else {
            out += c;
        }
    }
    return out + '"';
}

std::string describe_job(const Manifest& m) {
    std::string circuit =
        m.circuit.kind == CircuitKind::zkey
            ? fmt::format("the circuit of {}, one partition per witness of {}", m.circuit.zkey, fmt::join(m.circuit.witnesses, ", "))
        : m.proof.system == ProofSystem::quotient
            ? fmt::format("{} partition{} of 2^{} ({} terms/row)", m.job.partitions, m.job.partitions == 1 ? "" : "s",
                          m.circuit.log_n, m.circuit.terms_per_row)
        : m.circuit.profile == CircuitProfile::porep
            ? fmt::format("{} partition{} of the PoRep profile at 2^{} ({} public input{}, {:.1f}% of private "
                          "variables bits)",
                          m.job.partitions, m.job.partitions == 1 ? "" : "s", m.circuit.log_n, m.circuit.public_inputs,
                          m.circuit.public_inputs == 1 ? "" : "s", 100 * m.circuit.boolean_share)
            : fmt::format("{} partition{} of a 2^{} R1CS ({} terms/row, {} public input{}, {:.0f}% boolean rows)",
                          m.job.partitions, m.job.partitions == 1 ? "" : "s", m.circuit.log_n, m.circuit.terms_per_row,
                          m.circuit.public_inputs, m.circuit.public_inputs == 1 ? "" : "s",
                          100 * m.circuit.boolean_share);
    std::string text = fmt::format("job '{}': {}: {}, backend {}, verify {}", m.job.name,
                                   m.proof.system == ProofSystem::groth16 ? "Groth16 proofs" : "quotients", circuit,
                                   m.backend.name, to_string(m.verify.mode));
    if (!m.axes.empty()) {
        size_t arms = 1;
        std::string axes;
        for (const auto& axis : m.axes) {
            arms *= axis.values.size();
            axes += fmt::format("{}{} ({})", axes.empty() ? "" : ", ", axis.key, fmt::join(axis.values, ", "));
        }
        text += fmt::format("; an experiment of {} arms over {}", arms, axes);
    }
    return text;
}

namespace {

int64_t as_int(uint64_t n) { return static_cast<int64_t>(n); }

// "key=value" lines as a table of strings: the plugin receives text either way.
toml::table option_table(std::string_view lines) {
    std::map<std::string, std::string> options;
    add_option_lines(lines, options);
    toml::table table;
    for (const auto& [key, value] : options) table.insert_or_assign(key, value);
    return table;
}

// [backend.options]: the options of every backend, then a table per backend of its own.
toml::table backend_options_table(const Manifest::Backend& backend) {
    toml::table options = option_table(backend.options);
    for (const auto& [name, lines] : backend.options_by_backend) options.insert_or_assign(name, option_table(lines));
    return options;
}

toml::table pipeline_table(const Manifest::Pipeline& pipeline) {
    toml::table table{{"synthesis_workers", as_int(pipeline.synthesis_workers)},
                      {"prove_workers", as_int(pipeline.prove_workers)},
                      {"queue_depth", as_int(pipeline.queue_depth)},
                      {"finalize_workers", as_int(pipeline.finalize_workers)},
                      {"on_error", to_string(pipeline.on_error)},
                      {"replay_inputs", as_int(pipeline.replay_inputs)}};
    if (pipeline.devices.all) {
        table.insert_or_assign("devices", "all");
    } else if (!pipeline.devices.indices.empty()) {
        toml::array devices;
        for (uint32_t device : pipeline.devices.indices) devices.push_back(as_int(device));
        table.insert_or_assign("devices", std::move(devices));
    }
    return table;
}

// [job] and [circuit], with only the keys of the circuit's kind, profile and proof
// system: the others are refused.
std::pair<toml::table, toml::table> job_and_circuit_tables(const Manifest& m) {
    toml::table job{{"name", m.job.name}, {"seed", as_int(m.job.seed)}};
    toml::table circuit{{"kind", to_string(m.circuit.kind)}};
    if (m.circuit.curve) circuit.insert_or_assign("curve", std::string(curve::name(*m.circuit.curve)));
    if (m.circuit.kind == CircuitKind::zkey) {
        toml::array witnesses;
        for (const std::string& pattern : m.circuit.witnesses) witnesses.push_back(pattern);
        circuit.insert_or_assign("zkey", m.circuit.zkey);
        circuit.insert_or_assign("witnesses", std::move(witnesses));
    } else {
        job.insert_or_assign("partitions", as_int(m.job.partitions));
        circuit.insert_or_assign("log_n", as_int(m.circuit.log_n));
        if (m.circuit.profile == CircuitProfile::porep) circuit.insert_or_assign("profile", to_string(m.circuit.profile));
        else circuit.insert_or_assign("terms_per_row", as_int(m.circuit.terms_per_row));
        if (m.proof.system == ProofSystem::groth16) {
            circuit.insert_or_assign("public_inputs", as_int(m.circuit.public_inputs));
            circuit.insert_or_assign("boolean_share", m.circuit.boolean_share);
            circuit.insert_or_assign("seed", as_int(m.circuit.seed));
        }
    }
    return {std::move(job), std::move(circuit)};
}

std::string formatted(const toml::table& doc) {
    std::ostringstream out;
    // Every string as a one-line basic string with escapes: TOML++ 3.3 writes a value
    // holding a newline and three single quotes as a multi-line literal string that
    // ends early (the manifest fuzzer's round trip found it).
    constexpr auto flags = toml::toml_formatter::default_flags & ~toml::format_flags::indent_sub_tables &
                           ~toml::format_flags::allow_literal_strings & ~toml::format_flags::allow_multi_line_strings;
    out << toml::toml_formatter(doc, flags) << '\n';
    return out.str();
}

// Tag names are free-form, and TOML++ 3.3 writes a key holding a single quote, tab or
// newline bare (its bare-key check passes over those characters), which no parser
// accepts: so [output.tags] is written here, each name quoted unless it is bare (the
// manifest fuzzer's round trip found it). It goes where TOML++ would put it, right
// after [output]'s own keys.
void insert_tags(std::string& text, const std::map<std::string, std::string>& tags) {
    if (tags.empty()) return;
    std::string block = "\n[output.tags]\n";
    for (const auto& [key, value] : tags)
        block += (is_bare_key(key) ? key : toml_quoted(key)) + " = " + toml_quoted(value) + "\n";
    const size_t output = text.find("\n[output]\n");
    const size_t next = output == std::string::npos ? std::string::npos : text.find("\n[", output + 1);
    text.insert(next == std::string::npos ? text.size() : next, block);
}

}  // namespace

std::string to_toml(const Manifest& m) {
    auto [job, circuit] = job_and_circuit_tables(m);
    const toml::table doc{
        {"job", std::move(job)},
        {"circuit", std::move(circuit)},
        {"setup", toml::table{{"seed", as_int(m.setup.seed)},
                              {"cache_dir", m.setup.cache_dir},
                              {"key", to_string(m.setup.key)}}},
        {"proof", toml::table{{"system", to_string(m.proof.system)}, {"randomness", to_string(m.proof.randomness)}}},
        {"pipeline", pipeline_table(m.pipeline)},
        {"backend", toml::table{{"name", m.backend.name}, {"options", backend_options_table(m.backend)}}},
        {"output", toml::table{{"db", m.output.db}}},
        {"verify", toml::table{{"mode", to_string(m.verify.mode)}, {"every", as_int(m.verify.every)}}},
        {"finalize", toml::table{{"malloc_trim", m.finalize.malloc_trim}}},
    };
    std::string text = formatted(doc);
    insert_tags(text, m.output.tags);
    return text;
}

}  // namespace zkbatch
