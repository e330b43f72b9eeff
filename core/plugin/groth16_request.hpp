// What every backend does alike with a Groth16 request (plugin ABI v6): load or make the
// key a zkb_key_source names, check that a request fits it, read its blinding, and
// report a CPU interval. cpu-ref, the CUDA backends and the test backends share these,
// so they refuse alike.
#pragma once

#include "core/groth16/key_file.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/zkey.hpp"
#include "core/plugin/abi.h"
#include "core/plugin/error.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace zkbatch::plugin {

// What a ZKB_KEY_FORMAT_SEEDED source asks for: the circuit and the setup's secrets over
// Curve, rebuilt from their descriptions. Throws Error(ZKB_ERR_INVALID_ARGUMENT) for text
// that names no synthetic circuit or seeded setup, for a circuit of another curve, and for
// a circuit larger than the backend was created for.
template <class Curve = curve::Bls12_381>
struct SeededKeySource {
    circuit::SyntheticR1cs circuit;
    groth16::generic::ToxicWaste<Curve> secrets;
};
template <class Curve = curve::Bls12_381>
SeededKeySource<Curve> seeded_key_source(const zkb_key_source& source, uint32_t max_log_n) {
    if (source.format != ZKB_KEY_FORMAT_SEEDED || source.circuit == nullptr || source.setup == nullptr)
        throw Error(ZKB_ERR_INVALID_ARGUMENT, "a seeded key needs the circuit's and the setup's descriptions");
    try {
        circuit::SyntheticR1cs circuit = circuit::SyntheticR1cs::from_description(source.circuit);
        const uint32_t log_n = circuit.shape().log_n;
        if (circuit.shape().curve != Curve::kId)
            throw Error(ZKB_ERR_INVALID_ARGUMENT, concat("the circuit is over ", curve::name(circuit.shape().curve),
                                                         ", the key source says ", curve::name(Curve::kId)));
        if (log_n > max_log_n)
            throw Error(ZKB_ERR_INVALID_ARGUMENT,
                        concat("the key is for 2^", log_n, " rows, the backend was created for 2^", max_log_n));
        const auto secrets = groth16::toxic_waste_from_seed<Curve>(groth16::seeded_setup_seed(source.setup), log_n);
        return SeededKeySource<Curve>{std::move(circuit), secrets};
    } catch (const std::invalid_argument& e) {
        throw Error(ZKB_ERR_INVALID_ARGUMENT, concat("cannot make the seeded key: ", e.what()));
    }
}

// The curve of `source`'s key, which a backend proving `curves` (zkb_plugin_api.curves)
// proves; else Error(ZKB_ERR_INVALID_ARGUMENT) naming the curve and a backend that
// proves it.
inline curve::CurveId key_curve(const zkb_key_source& source, uint32_t curves, const char* backend) {
    static_assert(ZKB_CURVE_BLS12_381 == static_cast<uint32_t>(curve::CurveId::bls12_381) &&
                      ZKB_CURVE_BN254 == static_cast<uint32_t>(curve::CurveId::bn254),
                  "the ABI's curve numbers are CurveId's values");
    const std::optional<curve::CurveId> id = curve::curve_from_id(source.curve);
    if (!id) throw Error(ZKB_ERR_INVALID_ARGUMENT, concat("unknown curve ", source.curve, " in the key source"));
    if ((curves & (1u << source.curve)) == 0)
        throw Error(ZKB_ERR_INVALID_ARGUMENT, concat(backend, " does not prove ", curve::name(*id),
                                                     " keys yet: prove them with backend.name = \"cpu-ref\""));
    return *id;
}

// The key of `source`, over Curve, in host memory (a mapped key file, a .zkey read and
// checked unless the runner checked it, or a seeded key made here): throws
// Error(ZKB_ERR_INVALID_ARGUMENT) with the file's problem, and for a key larger than the
// backend was created for.
template <class Curve = curve::Bls12_381>
groth16::generic::ProvingKey<Curve> load_host_key(const zkb_key_source& source, uint32_t max_log_n,
                                                  unsigned threads) {
    if (source.format == ZKB_KEY_FORMAT_SEEDED) {
        const SeededKeySource<Curve> seeded = seeded_key_source<Curve>(source, max_log_n);
        return groth16::generate_key(seeded.circuit, seeded.secrets, threads);
    }
    if (source.path == nullptr) throw Error(ZKB_ERR_INVALID_ARGUMENT, "load_key needs a key file");
    groth16::generic::ProvingKey<Curve> key;
    try {
        if (source.format == ZKB_KEY_FORMAT_ZKBATCH) {
            key = groth16::load_key_file<Curve>(source.path, source.circuit ? source.circuit : "");
        } else if (source.format == ZKB_KEY_FORMAT_ZKEY) {
            key = groth16::read_zkey<Curve>(source.path, threads, source.points_checked == 0).key;
        } else
            throw Error(ZKB_ERR_INVALID_ARGUMENT, concat("unknown key format ", source.format));
    } catch (const groth16::KeyFileError& e) {
        throw Error(ZKB_ERR_INVALID_ARGUMENT, e.what());
    } catch (const groth16::ZkeyError& e) {
        throw Error(ZKB_ERR_INVALID_ARGUMENT, e.what());
    }
    if (key.log_n > max_log_n)
        throw Error(ZKB_ERR_INVALID_ARGUMENT, concat("the key is for 2^", key.log_n,
                                                     " rows, the backend was created for 2^", max_log_n));
    return key;
}

// Of a key load_host_key returned for `source`, the bytes it allocated in host memory (the
// key report's host_key_bytes): a seeded key's points; a key file's are mapped, the page
// cache's (a .zkey's few unaligned sections copied aside are not counted).
template <class Curve>
uint64_t allocated_key_bytes(const zkb_key_source& source, const groth16::generic::ProvingKey<Curve>& key) {
    return source.format == ZKB_KEY_FORMAT_SEEDED ? key.point_bytes() : 0;
}

// True for a Groth16 request, false for the quotient workload; throws Error for another
// workload, a Groth16 request before a key, or buffers that do not fit the key.
template <class Curve>
bool check_workload(const zkb_prove_request& request, const groth16::generic::ProvingKey<Curve>* key) {
    if (request.workload == ZKB_WORKLOAD_QUOTIENT) return false;
    if (request.workload != ZKB_WORKLOAD_GROTH16)
        throw Error(ZKB_ERR_INVALID_ARGUMENT, concat("unknown workload ", request.workload));
    if (key == nullptr)
        throw Error(ZKB_ERR_INVALID_ARGUMENT, "a Groth16 partition before load_key: the runner gave no key");
    const zkb_host_buffers& buffers = *request.buffers;
    if (key->log_n != request.log_n || buffers.z == nullptr || buffers.m != key->num_variables)
        throw Error(ZKB_ERR_INVALID_ARGUMENT,
                    concat("partition ", request.partition_index, ": the buffers do not fit the key (2^", key->log_n,
                           " rows, ", key->num_variables, " variables)"));
    return true;
}

// The request's r and s, of Curve's Fr.
template <class Curve = curve::Bls12_381>
groth16::generic::ProofRandomness<Curve> request_blinding(const zkb_prove_request& request) {
    using Fr = typename Curve::Fr;
    groth16::generic::ProofRandomness<Curve> blinding;
    if (!Fr::try_from_canonical_le_bytes(request.r, blinding.r) || !Fr::try_from_canonical_le_bytes(request.s, blinding.s))
        throw Error(ZKB_ERR_INVALID_ARGUMENT, "the request's r or s is not a canonical scalar (>= r)");
    return blinding;
}

// Appends an interval of CPU work (no device time) to the report; one past
// ZKB_MAX_PHASES is dropped.
inline void add_cpu_phase(zkb_prove_report* report, const std::string& lane, const char* name, int64_t start_ns,
                          int64_t end_ns) {
    if (report->phase_count >= ZKB_MAX_PHASES) return;
    zkb_phase& phase = report->phases[report->phase_count++];
    phase = zkb_phase{};
    copy_text(phase.name, name);
    copy_text(phase.lane, lane);
    phase.start_ns = static_cast<uint64_t>(start_ns);
    phase.end_ns = static_cast<uint64_t>(end_ns);
    phase.on_device = 0;
    phase.device_index = -1;
}

}  // namespace zkbatch::plugin
