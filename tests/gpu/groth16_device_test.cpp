// Whole Groth16 proofs on the GPU: cuda-pinned and cuda-pageable, loaded through the
// plugin host as the runner loads them, prove partitions of seeded synthetic circuits
// (log_n 1..20) and of the circom fixtures' .zkey and .wtns files; every proof must be
// byte-equal to cpu-ref's for the same key, witness and blinding, and verify (the
// pairing equation). The phases of a Groth16 prove are checked too.
#include "support/circom_fixtures.hpp"
#include "support/temp_dir.hpp"
#include "test_support.hpp"

#include "plugin_host/plugin_host.hpp"

#include "core/circuit/porep_profile.hpp"
#include "core/circuit/synthetic_r1cs.hpp"
#include "gpu/key/device_key.hpp"
#include "core/ff/fr.hpp"
#include "core/groth16/key_file.hpp"
#include "core/groth16/proof.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"
#include "core/groth16/zkey.hpp"
#include "core/plugin/request.hpp"

#include <gtest/gtest.h>


#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace zkbatch {
namespace {

namespace fs = std::filesystem;
using ff::Fr;
using Proof = std::array<uint8_t, ZKB_PROOF_BYTES>;

const char* const kGpuBackends[] = {"cuda-pinned", "cuda-pageable"};

unsigned host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// One backend of `name` with its key loaded, one worker.
struct LoadedBackend {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Worker> worker;
    Backend::KeyLoad load;
};

LoadedBackend load_backend(const std::string& name, uint32_t log_n, const zkb_key_source& source,
                           const std::string& options = "") {
    LoadedBackend loaded;
    loaded.backend = std::make_unique<Backend>(load_plugin(name, test::plugin_folder()), options, log_n, 1);
    loaded.load = loaded.backend->load_key(source).at(0);
    loaded.worker = loaded.backend->create_worker(0);
    return loaded;
}

// One partition's inputs, of a curve's Fr, written into a backend's buffers by
// `fill(z, a, b, c)`.
template <class F>
using FillOf = std::function<void(F* z, F* a, F* b, F* c)>;
using Fill = FillOf<Fr>;

// The proof `loaded` makes of the inputs `fill` writes, with the given blinding.
template <class Curve>
Proof prove_with(const LoadedBackend& loaded, uint32_t log_n, uint64_t partition,
                 const FillOf<typename Curve::Fr>& fill, const groth16::generic::ProofRandomness<Curve>& blinding,
                 zkb_prove_report* report_out = nullptr) {
    using F = typename Curve::Fr;
    zkb_host_buffers buffers = loaded.backend->acquire_buffers(log_n);
    fill(static_cast<F*>(buffers.z), static_cast<F*>(buffers.a), static_cast<F*>(buffers.b),
         static_cast<F*>(buffers.c));
    zkb_prove_request request = plugin::quotient_request(partition, log_n, false, &buffers);
    request.workload = ZKB_WORKLOAD_GROTH16;
    blinding.r.to_canonical_le_bytes(request.r);
    blinding.s.to_canonical_le_bytes(request.s);
    auto report = std::make_unique<zkb_prove_report>();
    std::string error;
    const int rc = loaded.worker->prove(request, report.get(), &error);
    loaded.backend->release_buffers(buffers);
    EXPECT_EQ(rc, ZKB_OK) << error;
    EXPECT_EQ(report->has_proof, 1);
    EXPECT_EQ(report->proof_bytes, groth16::kProofBytesOf<Curve>);
    Proof proof{};
    std::copy(report->proof, report->proof + ZKB_PROOF_BYTES, proof.begin());
    if (report_out != nullptr) *report_out = *report;
    return proof;
}

// cpu-ref and both CUDA backends prove `partitions` partitions with `key_file`'s key:
// the GPU proofs equal cpu-ref's byte for byte, and cpu-ref's verify against `vk` with
// the public inputs `fill` wrote (z_1..z_l).
template <class Curve>
void expect_gpu_proofs_equal_cpu_ref(uint32_t log_n, const zkb_key_source& source,
                                     const groth16::generic::VerifyingKey<Curve>& vk, uint64_t m, uint64_t partitions,
                                     const std::function<FillOf<typename Curve::Fr>(uint64_t)>& fill_for,
                                     uint64_t job_seed, const std::string& gpu_options = "") {
    using F = typename Curve::Fr;
    const LoadedBackend reference = load_backend("cpu-ref", log_n, source);
    std::vector<LoadedBackend> gpus;
    for (const char* name : kGpuBackends) {
        gpus.push_back(load_backend(name, log_n, source, gpu_options));
        // "device0+host" where the key streams from host memory
        EXPECT_EQ(gpus.back().load.where.rfind("device0", 0), 0u) << name;
        EXPECT_EQ(gpus.back().load.num_variables, m) << name;
    }
    for (uint64_t partition = 0; partition < partitions; ++partition) {
        SCOPED_TRACE(testing::Message() << "log_n " << log_n << ", partition " << partition);
        const FillOf<F> fill = fill_for(partition);
        const auto blinding = groth16::derived_randomness<Curve>(job_seed, partition);
        const Proof expected = prove_with(reference, log_n, partition, fill, blinding);
        std::vector<F> z(m), a(size_t{1} << log_n), b(a.size()), c(a.size());
        fill(z.data(), a.data(), b.data(), c.data());
        const auto verdict = groth16::verify_encoded(vk, expected.data(), z.data() + 1, vk.num_public());
        EXPECT_TRUE(verdict.ok) << "cpu-ref's proof: " << verdict.detail;
        for (size_t i = 0; i < gpus.size(); ++i) {
            EXPECT_EQ(prove_with(gpus[i], log_n, partition, fill, blinding), expected)
                << kGpuBackends[i] << "'s proof differs from cpu-ref's";
        }
    }
}

// A seeded key for `shape`, written to a key file in `folder`; its source for load_key.
template <class Curve = curve::Bls12_381>
struct SeededKey {
    using F = typename Curve::Fr;
    circuit::SyntheticR1cs circuit;
    groth16::generic::ProvingKey<Curve> key;
    fs::path path;
    std::string circuit_description, setup_description;
    zkb_key_source source() const {
        return {path.c_str(), ZKB_KEY_FORMAT_ZKBATCH, 0, circuit_description.c_str(), setup_description.c_str(),
                static_cast<uint32_t>(Curve::kId), 0};
    }
    // The same key, made by the backend from the descriptions (setup.key = "backend").
    zkb_key_source seeded_source() const {
        return {nullptr, ZKB_KEY_FORMAT_SEEDED, 0, circuit_description.c_str(), setup_description.c_str(),
                static_cast<uint32_t>(Curve::kId), 0};
    }
    // Each partition's inputs as the runner synthesizes them for `job_seed`.
    std::function<FillOf<F>(uint64_t)> synthesized(uint64_t job_seed) const {
        return [this, job_seed](uint64_t partition) -> FillOf<F> {
            return [this, job_seed, partition](F* z, F* a, F* b, F* c) {
                circuit.synthesize(job_seed, partition, z, a, b, c, host_threads());
            };
        };
    }
};

// Over the curve `shape` names (a description's `curve`).
template <class Curve = curve::Bls12_381>
std::unique_ptr<SeededKey<Curve>> seeded_key(circuit::R1csShape shape, uint64_t setup_seed, const fs::path& folder) {
    shape.curve = Curve::kId;
    auto made = std::unique_ptr<SeededKey<Curve>>(new SeededKey<Curve>{circuit::SyntheticR1cs(shape), {}, {}, {}, {}});
    made->key = groth16::generate_key(made->circuit, groth16::toxic_waste_from_seed<Curve>(setup_seed, shape.log_n),
                                      host_threads());
    made->path = folder / ("log" + std::to_string(shape.log_n) + ".zkbkey");
    made->circuit_description = made->circuit.description();
    made->setup_description = groth16::seeded_setup_description(setup_seed);
    groth16::write_key_file(made->path, made->key, made->circuit_description, made->setup_description);
    return made;
}

// The report of `loaded`'s proof of partition 0 of `made`'s circuit, witness of job seed
// `job_seed`, derived randomness: the phases a test reads.
zkb_prove_report first_partition_report(const LoadedBackend& loaded, const SeededKey<>& made, uint64_t job_seed) {
    zkb_prove_report report{};
    prove_with(loaded, made.circuit.shape().log_n, 0, made.synthesized(job_seed)(0),
               groth16::derived_randomness(job_seed, 0), &report);
    return report;
}

TEST(CudaGroth16, ProofsAreByteEqualToCpuRefForEveryLogNUpTo20) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    for (uint32_t log_n = 1; log_n <= 20; ++log_n) {
        // Shapes that vary what the MSMs see: public inputs, terms, and the share of 0/1
        // witness values (all boolean at 2^7, none at 2^9, PoRep-like elsewhere); at 2^13,
        // 2^17 and 2^20 the PoRep profile, whose sparse B gets plans of its own.
        const uint32_t public_inputs = log_n == 1 ? 0 : std::min<uint32_t>(log_n % 4 + 1, (1u << log_n) - 2);
        const bool porep = log_n == 13 || log_n == 17 || log_n == 20;
        const double boolean_share = porep ? circuit::kPorepBitShare : log_n == 7 ? 1.0 : log_n == 9 ? 0.0 : 0.9;
        const circuit::R1csShape shape{log_n, porep ? 0u : 1 + log_n % 4, public_inputs, boolean_share, 100 + log_n,
                                       porep ? circuit::R1csProfile::porep : circuit::R1csProfile::uniform};
        const auto made = seeded_key(shape, 7 + log_n, folder.path());
        // Several seeds where proving is cheap, one job seed above 2^16.
        const uint64_t partitions = log_n <= 16 ? 3 : 1;
        const uint64_t job_seed = 11 * log_n;
        expect_gpu_proofs_equal_cpu_ref(
            log_n, made->source(), made->key.vk, made->circuit.variables(), partitions,
            made->synthesized(job_seed), job_seed);
        fs::remove(made->path);
    }
}

// A Groth16 prove's phases: the copies (a, b, c and z up; the digest's block sums
// down), the quotient's kernel groups, the five MSMs on the device (B2 on its own lane)
// and the host's combination, all inside `prove`, on the runner's clock.
TEST(CudaGroth16, ReportsEveryStepOfTheProof) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const uint32_t log_n = 12;
    const auto made = seeded_key({log_n, 4, 2, 0.9, 5}, 3, folder.path());
    const uint64_t n = uint64_t{1} << log_n, m = made->circuit.variables();
    for (const char* name : kGpuBackends) {
        SCOPED_TRACE(name);
        const LoadedBackend loaded = load_backend(name, log_n, made->source());
        EXPECT_EQ(loaded.load.how, "uploaded");
        const groth16::ProvingKey& key = made->key;
        EXPECT_EQ(loaded.load.key_bytes, sizeof(ec::G1Affine) * (2 * m + key.private_variables() + key.h_points()) +
                                             sizeof(ec::G2Affine) * m);
        zkb_prove_report report{};
        prove_with(loaded, log_n, 0, made->synthesized(1)(0), groth16::derived_randomness(1, 0), &report);
        std::map<std::string, int> counts;
        std::map<std::string, std::string> lanes;
        uint64_t uploaded_bytes = 0;
        for (uint32_t i = 0; i < report.phase_count; ++i) {
            const zkb_phase& phase = report.phases[i];
            ++counts[phase.name];
            lanes[phase.name] = phase.lane;
            EXPECT_LE(phase.start_ns, phase.end_ns) << phase.name;
            if (std::string(phase.name) == "h2d") uploaded_bytes += phase.bytes;
        }
        EXPECT_EQ(counts["h2d"], 4);
        EXPECT_EQ(uploaded_bytes, (3 * n + m) * sizeof(Fr));
        EXPECT_EQ(counts["quotient"], 4);
        EXPECT_EQ(counts["compute"], 0) << "a Groth16 prove times its steps, the runner sums them";
        for (const groth16::ProofMsm msm : groth16::kProofMsms) EXPECT_EQ(counts[groth16::phase_name(msm)], 1);
        EXPECT_EQ(lanes["msm.a"], "gpu0.w0.compute");
        EXPECT_EQ(lanes["msm.b_g2"], "gpu0.w0.compute");
        EXPECT_EQ(counts["combine"], 1);
        EXPECT_EQ(lanes["combine"], "gpu0.w0.host");
    }
}

// The circom fixtures' folder (tools/js/circuit-fixture.mjs builds them into
// tools/js/cache/circom/NAME/, BN254's under bn128/; the GPU machine gets them with the
// working tree), or none.
std::optional<fs::path> circom_cache() {
    const char* set = std::getenv("ZKBATCH_CIRCOM_CACHE");
    const fs::path cache = set != nullptr ? set : "tools/js/cache/circom";
    if (!fs::is_directory(cache)) return std::nullopt;
    return cache;
}

// Each witness of each fixture in `folder` (`names`, over Curve) proved on the GPU,
// byte-equal to cpu-ref, verified against the .zkey's own verifying key; returns how many
// fixtures had a .zkey. snarkjs's H convention: the odd-coset quotient and the MSMs on
// the device.
template <class Curve, size_t N>
int expect_circom_fixtures_prove_as_on_cpu_ref(const fs::path& folder, const std::string (&names)[N]) {
    using F = typename Curve::Fr;
    int proved = 0;
    for (const std::string& name : names) {
        const fs::path zkey_path = folder / name / (name + ".zkey");
        if (!fs::exists(zkey_path)) continue;
        SCOPED_TRACE(name);
        const groth16::generic::Zkey<Curve> zkey = groth16::read_zkey<Curve>(zkey_path, host_threads());
        std::vector<std::vector<F>> witnesses;
        for (const auto& entry : fs::directory_iterator(folder / name / "wtns"))
            witnesses.push_back(groth16::read_wtns<F>(entry.path(), zkey.circuit.num_variables));
        EXPECT_FALSE(witnesses.empty());
        const std::string circuit_description = zkey.circuit.description();
        const std::string path = zkey_path.string();
        const zkb_key_source source{path.c_str(), ZKB_KEY_FORMAT_ZKEY, 1, circuit_description.c_str(), "",
                                    static_cast<uint32_t>(Curve::kId), 0};
        // The MSMs over the key's points and over base tables of them (a .zkey's queries
        // hold points at infinity, for wires that never appear in A or B); the lean
        // quotient's schedule.
        for (const char* options : {"", "msm_tables=auto\n", "quotient_memory=lean\n"}) {
            SCOPED_TRACE(options);
            expect_gpu_proofs_equal_cpu_ref(
                zkey.circuit.log_n, source, zkey.key.vk, zkey.circuit.num_variables, witnesses.size(),
                [&](uint64_t partition) -> FillOf<F> {
                    return [&, partition](F* z, F* a, F* b, F* c) {
                        const std::vector<F>& w = witnesses[partition];
                        std::copy(w.begin(), w.end(), z);
                        zkey.circuit.synthesize(w.data(), a, b, c, host_threads());
                    };
                },
                3, options);
        }
        ++proved;
    }
    return proved;
}

constexpr const char* kNoCircomCache =
    "no circom fixtures in tools/js/cache/circom: build them with `node tools/js/circuit-fixture.mjs NAME "
    "tools/js/cache/circom/NAME` or set ZKBATCH_CIRCOM_CACHE";

TEST(CudaGroth16, CircomFixturesProveAsOnCpuRef) {
    ZKB_REQUIRE_GPU();
    const std::optional<fs::path> cache = circom_cache();
    if (!cache) GTEST_SKIP() << kNoCircomCache;
    EXPECT_GE(expect_circom_fixtures_prove_as_on_cpu_ref<curve::Bls12_381>(*cache, test::kCircomFixtures), 1)
        << "no fixture with a .zkey in " << cache->string();
}

// The same for BN254's fixtures (circom's default curve).
TEST(CudaGroth16, Bn254CircomFixturesProveAsOnCpuRef) {
    ZKB_REQUIRE_GPU();
    const std::optional<fs::path> cache = circom_cache();
    if (!cache) GTEST_SKIP() << kNoCircomCache;
    EXPECT_GE(expect_circom_fixtures_prove_as_on_cpu_ref<curve::Bn254>(*cache / "bn128", test::kCircomBn254Fixtures), 1)
        << "no fixture with a .zkey in " << (*cache / "bn128").string();
}

// Synthetic BN254 circuits (circuit.curve = "bn254"), their keys uploaded from a key file
// and made by the backend (on the host's cores: the fixed-base kernels are BLS12-381's;
// reported with the key file's points digest), proved as cpu-ref proves them: the MSMs
// whole, over base tables, in chunks of a quarter, and with B2 on the host.
TEST(CudaGroth16, Bn254ProofsAreByteEqualToCpuRef) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const circuit::R1csShape shapes[] = {{1, 1, 0, 0.9, 3}, {5, 2, 3, 1.0, 4}, {9, 4, 2, 0.0, 5}, {14, 3, 1, 0.9, 6}};
    for (const circuit::R1csShape& shape : shapes) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n);
        const auto made = seeded_key<curve::Bn254>(shape, 40 + shape.log_n, folder.path());
        const uint64_t job_seed = 50 + shape.log_n, m = made->circuit.variables();
        expect_gpu_proofs_equal_cpu_ref(shape.log_n, made->source(), made->key.vk, m, 2, made->synthesized(job_seed),
                                        job_seed);
        expect_gpu_proofs_equal_cpu_ref(shape.log_n, made->seeded_source(), made->key.vk, m, 1,
                                        made->synthesized(job_seed), job_seed);
        const LoadedBackend made_here = load_backend("cuda-pinned", shape.log_n, made->seeded_source());
        EXPECT_EQ(made_here.load.how, "generated");
        EXPECT_EQ(made_here.load.points_digest, groth16::key_points_digest(made->key));
        const std::string chunks = "msm_chunk_log=" + std::to_string(std::max(12u, shape.log_n) - 2) + "\n";
        for (const std::string& options : {std::string("msm_tables=auto\n"), chunks, std::string("b2_msm=host\n")}) {
            SCOPED_TRACE(options);
            expect_gpu_proofs_equal_cpu_ref(shape.log_n, made->source(), made->key.vk, m, 1,
                                            made->synthesized(job_seed + 1), job_seed + 1, options);
        }
    }
}

// setup.key = "backend" (plugin ABI v6): the CUDA backends make the seeded key on the
// device, from the descriptions alone. Each must report the points digest of the key
// file groth16::generate_key and write_key_file make, and prove what cpu-ref proves
// with it, for shapes from one row to 2^16 (a full-density, an all-boolean, PoRep-like,
// and the PoRep profile: fewer variables than rows, zero padding, points at infinity).
TEST(CudaGroth16, KeysMadeOnTheDeviceAreTheSetupsKeys) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const circuit::R1csShape shapes[] = {{1, 1, 0, 0.9, 3},
                                         {6, 2, 3, 1.0, 4},
                                         {11, 4, 2, 0.0, 5},
                                         {16, 3, 1, 0.9, 6},
                                         {12, 0, 2, 0.6, 7, circuit::R1csProfile::porep}};
    for (const circuit::R1csShape& shape : shapes) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n);
        const auto made = seeded_key(shape, 20 + shape.log_n, folder.path());
        groth16::KeyFileInfo info;
        (void)groth16::load_verifying_key(made->path, made->circuit_description, &info);
        const zkb_key_source seeded = made->seeded_source();
        for (const char* name : kGpuBackends) {
            const LoadedBackend loaded = load_backend(name, shape.log_n, seeded);
            EXPECT_EQ(loaded.load.how, "generated") << name;
            EXPECT_EQ(loaded.load.points_digest, info.points_digest) << name;
            EXPECT_EQ(loaded.load.key_bytes, load_backend(name, shape.log_n, made->source()).load.key_bytes)
                << name << ": the made key's bytes differ from the uploaded one's";
        }
        const uint64_t job_seed = 31 + shape.log_n;
        expect_gpu_proofs_equal_cpu_ref(
            shape.log_n, seeded, made->key.vk, made->circuit.variables(), 2,
            made->synthesized(job_seed), job_seed);
    }
}

// The points of B's queries a key's device copy holds (DeviceProvingKey::b_points): those
// of the variables in B where B is sparse, else all of them.
uint64_t device_b_points(const groth16::ProvingKey& key) {
    uint64_t listed = 0;
    for (uint64_t i = 0; i < key.num_variables; ++i)
        listed += !key.b_g1_query[i].is_infinity() || !key.b_g2_query[i].is_infinity();
    return listed > cuda::kSparseB * static_cast<double>(key.num_variables) ? key.num_variables : listed;
}

// MSMs in chunks (backend option msm_chunk_log; what a 2^27 key needs on a 141 GB GPU):
// the chunks' sums added on the host give cpu-ref's proof. Where B is dense, each of z's
// chunks is its own interval of A's, B1's and B2's phases; where it is sparse (the PoRep
// profile), A's chunks run back to back, one interval, and each of B's own chunks is an
// interval of B1's and B2's; L's and H's chunks one interval each. Four chunks of z and
// two of each MSM: z's cut evenly, L's and H's last chunk a few points short.
TEST(CudaGroth16, ProofsWithMsmsInChunksAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const std::pair<circuit::R1csShape, uint32_t> cases[] = {
        {{12, 3, 2, 0.9, 52}, 10},
        {{14, 3, 2, 0.0, 54}, 13},
        {{13, 0, 3, circuit::kPorepBitShare, 55, circuit::R1csProfile::porep}, 10}};
    for (const auto& [shape, chunk_log] : cases) {
        const uint32_t log_n = shape.log_n;
        SCOPED_TRACE(testing::Message() << "log_n " << log_n << ", chunks of 2^" << chunk_log);
        const auto made = seeded_key(shape, 50, folder.path());
        const std::string options = "msm_chunk_log=" + std::to_string(chunk_log) + "\n";
        const uint64_t job_seed = 60 + log_n;
        expect_gpu_proofs_equal_cpu_ref(
            log_n, made->source(), made->key.vk, made->circuit.variables(), 2,
            made->synthesized(job_seed), job_seed, options);
        const LoadedBackend loaded = load_backend("cuda-pinned", log_n, made->source(), options);
        const zkb_prove_report report = first_partition_report(loaded, *made, job_seed);
        std::map<std::string, int> intervals;
        for (uint32_t i = 0; i < report.phase_count; ++i) ++intervals[report.phases[i].name];
        const uint64_t b_points = device_b_points(made->key);
        const bool sparse_b = b_points < made->key.num_variables;
        const uint64_t chunk = uint64_t{1} << chunk_log;
        const int z_chunks = static_cast<int>((made->key.num_variables + chunk - 1) / chunk);
        const int b_chunks = static_cast<int>((b_points + chunk - 1) / chunk);
        EXPECT_EQ(sparse_b, shape.profile == circuit::R1csProfile::porep);
        EXPECT_EQ(intervals["msm.a"], sparse_b ? 1 : z_chunks);
        for (const char* msm : {"msm.b_g1", "msm.b_g2"}) EXPECT_EQ(intervals[msm], b_chunks) << msm;
        for (const char* msm : {"msm.l", "msm.h"}) EXPECT_EQ(intervals[msm], 1) << msm;
    }
}

// A key streamed from pinned host memory (backend option key_placement = host; what a key
// larger than the card gets under auto): each query's chunks go up as its MSM runs, two
// device slots in turn. The proofs are cpu-ref's, for keys whole and in chunks, uniform
// and PoRep-profile (B sparse: B's chunks are its own), from a file and made on the
// device; the report has one interval of the key's copies with every point's bytes.
TEST(CudaGroth16, ProofsOverAStreamedKeyAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const std::pair<circuit::R1csShape, const char*> cases[] = {
        {{12, 3, 2, 0.9, 71}, "key_placement=host\n"},
        {{12, 3, 2, 0.0, 72}, "key_placement=host\nmsm_chunk_log=10\n"},
        {{13, 0, 3, circuit::kPorepBitShare, 73, circuit::R1csProfile::porep}, "key_placement=host\nmsm_chunk_log=11\n"}};
    for (const auto& [shape, options] : cases) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", " << options);
        const auto made = seeded_key(shape, 80 + shape.log_n, folder.path());
        const uint64_t job_seed = 90 + shape.log_n;
        for (const zkb_key_source& source : {made->source(), made->seeded_source()}) {
            expect_gpu_proofs_equal_cpu_ref(shape.log_n, source, made->key.vk, made->circuit.variables(), 2,
                                            made->synthesized(job_seed), job_seed, options);
        }
        const LoadedBackend loaded = load_backend("cuda-pinned", shape.log_n, made->source(), options);
        EXPECT_EQ(loaded.load.where, "device0+host");
        const zkb_prove_report report = first_partition_report(loaded, *made, job_seed);
        uint64_t intervals = 0, bytes = 0;
        for (uint32_t i = 0; i < report.phase_count; ++i) {
            if (std::string(report.phases[i].name) != "key_h2d") continue;
            ++intervals;
            bytes += report.phases[i].bytes;
        }
        const groth16::ProvingKey& key = made->key;
        const uint64_t b_points = device_b_points(key);
        EXPECT_EQ(intervals, 1u);
        EXPECT_EQ(bytes, 96 * (key.num_variables + b_points + key.private_variables() + key.h_points()) + 192 * b_points);
    }
}

// A streamed A's and L's MSMs on a lane of their own beside H's (backend option
// msm_beside_h; at these sizes the a vector has no room for the lane, so "on" puts it in
// memory of its own, as "auto" puts it in a's at 2^27). The proofs are cpu-ref's, for a
// uniform key (L beside H; A shares z's plan with B1 and B2) and a PoRep key (B sparse: A
// and L beside H, in chunks as large as the others'), from a file and made on the device,
// with the lean quotient too (L no longer under c's upload). Each MSM is one interval
// (A's and L's on the lane's own), and the key's copies are one per lane, every point's
// bytes in all; "off" has no lane.
TEST(CudaGroth16, ProofsWithMsmsBesideHAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    struct Case {
        circuit::R1csShape shape;
        const char* options;
        const char* beside_h;  // the fact cuda.msm_beside_h
    };
    const Case cases[] = {{{12, 3, 2, 0.9, 74}, "key_placement=host\nmsm_beside_h=on\n", "l"},
                          {{13, 0, 3, circuit::kPorepBitShare, 75, circuit::R1csProfile::porep},
                           "key_placement=host\nmsm_chunk_log=11\nmsm_beside_h=on\n",
                           "a,l"},
                          {{13, 0, 3, circuit::kPorepBitShare, 76, circuit::R1csProfile::porep},
                           "key_placement=host\nmsm_chunk_log=10\nquotient_memory=lean\nmsm_beside_h=on\n",
                           "a,l"},
                          {{13, 0, 3, circuit::kPorepBitShare, 77, circuit::R1csProfile::porep},
                           "key_placement=host\nmsm_chunk_log=11\nmsm_beside_h=off\n",
                           "none"}};
    for (const Case& test_case : cases) {
        const circuit::R1csShape& shape = test_case.shape;
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", " << test_case.options);
        const auto made = seeded_key(shape, 80 + shape.seed, folder.path());
        const uint64_t job_seed = 95 + shape.seed;
        for (const zkb_key_source& source : {made->source(), made->seeded_source()}) {
            expect_gpu_proofs_equal_cpu_ref(shape.log_n, source, made->key.vk, made->circuit.variables(), 2,
                                            made->synthesized(job_seed), job_seed, test_case.options);
        }
        const LoadedBackend loaded = load_backend("cuda-pinned", shape.log_n, made->source(), test_case.options);
        std::map<std::string, std::string> facts;
        for (const auto& [key, value] : loaded.backend->facts()) facts[key] = value;
        EXPECT_EQ(facts["cuda.msm_beside_h"], test_case.beside_h);
        const bool lane = std::string(test_case.beside_h) != "none";
        if (lane) {
            EXPECT_EQ(facts["cuda.msm_beside_h_memory"], "own");
            EXPECT_EQ(facts["cuda.msm_beside_h_chunk_points"], facts["cuda.msm_chunk_points"]);
        }
        const zkb_prove_report report = first_partition_report(loaded, *made, job_seed);
        std::map<std::string, std::vector<std::string>> lanes;  // each MSM's intervals' lanes
        uint64_t copies = 0, bytes = 0;
        for (uint32_t i = 0; i < report.phase_count; ++i) {
            const std::string name = report.phases[i].name;
            if (name.starts_with("msm.")) lanes[name].emplace_back(report.phases[i].lane);
            if (name != "key_h2d") continue;
            ++copies;
            bytes += report.phases[i].bytes;
        }
        const std::string beside_h = test_case.beside_h;
        for (const char* msm : {"msm.a", "msm.l", "msm.h"}) {
            ASSERT_EQ(lanes[msm].size(), 1u) << msm;
            const bool beside =
                lane && (std::string(msm) == "msm.l" || (beside_h == "a,l" && std::string(msm) == "msm.a"));
            EXPECT_EQ(lanes[msm][0].ends_with(".beside_h"), beside) << msm << " on " << lanes[msm][0];
        }
        const groth16::ProvingKey& key = made->key;
        const uint64_t b_points = device_b_points(key);
        EXPECT_EQ(copies, lane ? 2u : 1u);
        EXPECT_EQ(bytes,
                  96 * (key.num_variables + b_points + key.private_variables() + key.h_points()) + 192 * b_points);
    }
}

// The lean quotient (backend option quotient_memory = lean; what auto picks where a, b and
// c and the domain's expanded tables do not fit): a and b on the device, c up into b once
// a holds A*B, the power tables made from their seeds. The proofs are cpu-ref's, for a
// uniform key and for a PoRep key streamed in chunks of 2^10 (z in 8, A's chunks one
// interval); the report has the quotient's six kernel groups and four uploads.
TEST(CudaGroth16, ProofsWithALeanQuotientAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const std::pair<circuit::R1csShape, const char*> cases[] = {
        {{12, 3, 2, 0.9, 81}, "quotient_memory=lean\n"},
        {{13, 0, 3, circuit::kPorepBitShare, 82, circuit::R1csProfile::porep},
         "quotient_memory=lean\nkey_placement=host\nmsm_chunk_log=10\n"}};
    for (const auto& [shape, options] : cases) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", " << options);
        const auto made = seeded_key(shape, 100 + shape.log_n, folder.path());
        const uint64_t job_seed = 110 + shape.log_n;
        expect_gpu_proofs_equal_cpu_ref(shape.log_n, made->source(), made->key.vk, made->circuit.variables(), 2,
                                        made->synthesized(job_seed), job_seed, options);
        const LoadedBackend loaded = load_backend("cuda-pinned", shape.log_n, made->source(), options);
        const zkb_prove_report report = first_partition_report(loaded, *made, job_seed);
        std::map<std::string, int> intervals;
        for (uint32_t i = 0; i < report.phase_count; ++i) ++intervals[report.phases[i].name];
        EXPECT_EQ(intervals["quotient"], 6) << "a, b and c to the coset, A*B, A*B - C, h";
        EXPECT_EQ(intervals["h2d"], 4);
        EXPECT_EQ(intervals["msm.a"], 1);
    }
}

// Base tables of the key's queries (backend option msm_tables = auto): at these sizes
// all five fit, every MSM runs over its table, and the proofs are cpu-ref's, for keys
// from a file and made on the device, full-density, PoRep-like and all-boolean.
TEST(CudaGroth16, ProofsOverBaseTablesAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const std::string options = "msm_tables=auto\n";
    const circuit::R1csShape shapes[] = {{2, 1, 1, 0.9, 3}, {7, 2, 3, 1.0, 4}, {12, 4, 2, 0.0, 5}, {15, 3, 1, 0.9, 6}};
    for (const circuit::R1csShape& shape : shapes) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n);
        const auto made = seeded_key(shape, 70 + shape.log_n, folder.path());
        const zkb_key_source seeded = made->seeded_source();
        for (const zkb_key_source& source : {made->source(), seeded}) {
            const uint64_t job_seed = 80 + shape.log_n;
            expect_gpu_proofs_equal_cpu_ref(
                shape.log_n, source, made->key.vk, made->circuit.variables(), 2,
                made->synthesized(job_seed), job_seed, options);
        }
        const LoadedBackend loaded = load_backend("cuda-pinned", shape.log_n, made->source(), options);
        std::map<std::string, std::string> facts;
        for (const auto& [key, value] : loaded.backend->facts()) facts[key] = value;
        EXPECT_EQ(facts["cuda.msm_tables"], "a,b_g1,b_g2,l,h");
        const std::string bits = std::to_string(cuda::key_table_window_bits(made->key)) + "/1";
        EXPECT_EQ(facts["cuda.msm_table_shapes"],
                  "a=" + bits + ",b_g1=" + bits + ",b_g2=" + bits + ",l=" + bits + ",h=" + bits);
        EXPECT_GT(std::stoull(facts["cuda.msm_table_bytes"]), 0u);
    }
}

// H's and L's tables of every third window (msm_table_stride = 3; whole ones would fit at
// these sizes): three bucket sets each, and the proofs are still cpu-ref's.
TEST(CudaGroth16, ProofsOverStridedTablesAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const std::string options = "msm_tables=auto\nmsm_table_stride=3\n";
    const circuit::R1csShape shapes[] = {{7, 2, 3, 1.0, 4}, {12, 4, 2, 0.0, 5}, {14, 3, 1, 0.9, 6}};
    for (const circuit::R1csShape& shape : shapes) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n);
        const auto made = seeded_key(shape, 90 + shape.log_n, folder.path());
        const uint64_t job_seed = 100 + shape.log_n;
        expect_gpu_proofs_equal_cpu_ref(shape.log_n, made->source(), made->key.vk, made->circuit.variables(), 2,
                                        made->synthesized(job_seed), job_seed, options);
        const LoadedBackend loaded = load_backend("cuda-pinned", shape.log_n, made->source(), options);
        std::map<std::string, std::string> facts;
        for (const auto& [key, value] : loaded.backend->facts()) facts[key] = value;
        const auto strided = [](uint64_t points) {
            const uint32_t bits = cuda::msm::choose_window_bits(points, cuda::msm::kMaxWindowBits, 3);
            return std::to_string(bits) + "/3";
        };
        const std::string whole = std::to_string(cuda::key_table_window_bits(made->key)) + "/1";
        EXPECT_EQ(facts["cuda.msm_table_shapes"], "a=" + whole + ",b_g1=" + whole + ",b_g2=" + whole +
                                                      ",l=" + strided(made->key.private_variables()) +
                                                      ",h=" + strided(made->key.h_points()));
    }
}

// msm_affine_rounds = shared: B2's rounds' scratch in one block with a, b and c, which go
// up only once z's MSMs are done (L before the quotient) where the rounds ran. These
// sizes give the rounds too few entries to run, so what this checks is that a, b and c
// go up at once into the block the rounds left alone; the shared block itself is
// MsmDevice.AffineRoundsMatchTheCpu's lent cases, and a 2^27 full-density proof's
// (tools/gpu-bench.sh OUT proofs; docs/performance.md).
TEST(CudaGroth16, ProofsWithTheRoundsScratchInTheVectorsAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    // Whole MSMs over tables; MSMs in four chunks (z in four pieces), as at 2^27.
    const std::pair<circuit::R1csShape, const char*> cases[] = {
        {{7, 2, 3, 1.0, 4}, "msm_tables=auto\nmsm_affine_rounds=shared\n"},
        {{12, 4, 2, 0.9, 5}, "msm_affine_rounds=shared\nmsm_chunk_log=10\n"}};
    for (const auto& [shape, options] : cases) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n);
        const auto made = seeded_key(shape, 190 + shape.log_n, folder.path());
        const uint64_t job_seed = 200 + shape.log_n;
        expect_gpu_proofs_equal_cpu_ref(shape.log_n, made->source(), made->key.vk, made->circuit.variables(), 2,
                                        made->synthesized(job_seed), job_seed, options);
    }
}

// What load_key spends the memory left on (no GPU needed: sizes only). At 2^24 points the
// whole tables are 22 bits wide (docs/msm.md#window-width), 12 windows, so a table is
// 12 times its query (q bytes: 96 a G1 point, 192 a G2 point), needs that much free while
// it is built, and costs 11 q once its query is freed. z's set (A, B1, B2) first, then
// B2's rounds (the longest segment whose scratch fits), then H's table, then L's, each
// only if it fits, beside every worker, in what the earlier ones left; then, for H and L
// without one, a table of every s-th window (docs/msm.md#tables-of-every-s-th-window), k
// multiples: k times the query.
class MsmMemory : public ::testing::Test {
protected:
    MsmMemory() {
        shape.log_n = 24;
        shape.num_variables = uint64_t{1} << 24;
        shape.num_public = 1;
        qh = 96 * shape.h_points();
        ql = 96 * shape.private_variables();
    }
    // The sets taken ("z", "h", "l", a strided one with its stride: "h/3") and the rounds'
    // segment ("+6144"), checking the tables' byte counts and widths on the way. `stride`
    // is msm_table_stride: 1 (whole tables alone) unless a test asks for another.
    std::string taken(uint64_t free_bytes, bool tables, bool rounds, const cuda::WorkersBytes& workers,
                      uint32_t stride = 1, cuda::G2Rounds where = cuda::G2Rounds::automatic) {
        const cuda::MsmMemoryPlan plan = cuda::plan_msm_memory(
            shape, shape.num_variables, {}, free_bytes, tables, rounds ? where : cuda::G2Rounds::off, workers, stride);
        std::string sets;
        uint64_t queries = 0, table_bytes = 0;
        const auto add = [&](const char* name, const std::optional<cuda::msm::TableShape>& table, uint64_t bytes) {
            if (!table) return;
            sets += name;
            if (table->stride != 1) sets += "/" + std::to_string(table->stride);
            queries += bytes;
            table_bytes += table->multiples() * bytes;
            // Whole: the key's width; strided: the cost model's at the stride (at 2^24 22
            // bits up to s = 3, 20 beyond).
            EXPECT_EQ(table->window_bits, table->stride <= 3 ? 22u : 20u) << sets;
        };
        add("z", plan.z, 4 * q);
        add("h", plan.h, qh);
        add("l", plan.l, ql);
        EXPECT_EQ(plan.freed_query_bytes, queries) << sets;
        EXPECT_EQ(plan.device_bytes, table_bytes) << sets;
        EXPECT_EQ(plan.any_table(), !sets.empty());
        if (plan.g2_affine_segment != 0) sets += "+" + std::to_string(plan.g2_affine_segment);
        if (plan.g2_scratch_in_vectors) sets += " in a, b, c";
        return sets;
    }

    groth16::ProvingKey shape;
    const uint64_t q = 96 * (uint64_t{1} << 24);  // A's query, B1's; B2's is 2 q
    uint64_t qh = 0, ql = 0;  // H's query, L's
    // z's set: A needs 12 q, B1 12 q with 11 q taken, B2 24 q with 22 q taken: 46 q.
    const uint64_t z_needs = 46 * q, z_costs = 44 * q;
};

TEST_F(MsmMemory, TablesTakeTheSetsThatFitMostTimePerByteFirst) {
    ASSERT_EQ(cuda::key_table_window_bits(shape), 22u);
    ASSERT_LT(ql, qh);
    const uint64_t w = 5 * q;  // the workers, whatever the plan
    const auto workers = [&](const cuda::MsmMemoryPlan&) { return w; };
    const auto sets = [&](uint64_t budget) { return taken(w + budget, true, false, workers); };
    EXPECT_EQ(taken(0, true, false, workers), "");  // not even the workers fit
    EXPECT_EQ(sets(0), "");
    EXPECT_EQ(sets(12 * ql - 1), "");
    EXPECT_EQ(sets(12 * ql), "l");
    EXPECT_EQ(sets(12 * qh), "h");
    EXPECT_EQ(sets(z_needs - 1), "hl");
    EXPECT_EQ(sets(z_needs), "z");
    EXPECT_EQ(sets(z_costs + 12 * qh - 1), "zl");  // H does not fit in what z's set left, L does
    EXPECT_EQ(sets(z_costs + 12 * qh), "zh");
    EXPECT_EQ(sets(z_costs + 11 * qh + 12 * ql - 1), "zh");
    EXPECT_EQ(sets(z_costs + 11 * qh + 12 * ql), "zhl");
    EXPECT_EQ(sets(UINT64_MAX - w), "zhl");
    EXPECT_EQ(taken(UINT64_MAX, false, false, workers), "");  // msm_tables = off
}

TEST_F(MsmMemory, RoundsComeAfterZsTablesAndBeforeHs) {
    const uint64_t w = 5 * q, r6144 = 7 * q, r4096 = 4 * q, r2048 = 2 * q;  // the workers, and their rounds' scratch
    const auto workers = [&](const cuda::MsmMemoryPlan& plan) {
        switch (plan.g2_affine_segment) {
        case 6144: return w + r6144;
        case 4096: return w + r4096;
        case 2048: return w + r2048;
        default: return w;
        }
    };
    const auto sets = [&](uint64_t budget) { return taken(w + budget, true, true, workers); };
    EXPECT_EQ(sets(r2048 - 1), "");
    EXPECT_EQ(sets(r2048), "+2048");
    EXPECT_EQ(sets(r4096 - 1), "+2048");
    EXPECT_EQ(sets(r4096), "+4096");
    EXPECT_EQ(sets(r6144), "+6144");
    EXPECT_EQ(sets(z_needs - 1), "hl+6144");  // z's set does not fit: the rounds, then H, then L
    EXPECT_EQ(sets(z_needs), "z+2048");        // z's set leaves 2 q: room for 2048's
    EXPECT_EQ(sets(z_costs + r4096 - 1), "z+2048");
    EXPECT_EQ(sets(z_costs + r4096), "z+4096");
    EXPECT_EQ(sets(z_costs + r6144 - 1), "z+4096");
    EXPECT_EQ(sets(z_costs + r6144 + 12 * qh - 1), "zl+6144");  // H does not fit beside the rounds
    EXPECT_EQ(sets(z_costs + r6144 + 12 * qh), "zh+6144");
    EXPECT_EQ(taken(UINT64_MAX, false, true, workers), "+6144");  // msm_tables = off
    EXPECT_EQ(taken(UINT64_MAX, true, false, workers), "zhl");    // msm_affine_rounds = off
}

// B2's scratch shares a, b and c's block only where it does not fit on its own (sharing
// delays their uploads): a worker then holds the larger of the two instead of both.
TEST_F(MsmMemory, RoundsShareTheVectorsOnlyWhereTheirOwnScratchDoesNotFit) {
    const uint64_t w = 5 * q, vectors = 3 * q;  // the workers, a, b and c among them
    const auto workers = [&](const cuda::MsmMemoryPlan& plan) {
        const uint64_t scratch = plan.g2_affine_segment == 6144   ? 7 * q
                                 : plan.g2_affine_segment == 4096 ? 4 * q
                                 : plan.g2_affine_segment == 2048 ? 2 * q
                                                                  : 0;
        return w + (plan.g2_scratch_in_vectors ? std::max(scratch, vectors) - vectors : scratch);
    };
    const auto sets = [&](uint64_t budget) { return taken(w + budget, false, true, workers); };
    EXPECT_EQ(taken(w - 1, false, true, workers), "");  // not even the workers fit
    EXPECT_EQ(sets(0), "+2048 in a, b, c");              // within a, b and c's 3 q
    EXPECT_EQ(sets(q - 1), "+2048 in a, b, c");
    EXPECT_EQ(sets(q), "+4096 in a, b, c");              // 4 q in a block of 3 q and q more
    EXPECT_EQ(sets(2 * q), "+4096 in a, b, c");          // before 2048 on its own: longer segments first
    EXPECT_EQ(sets(4 * q - 1), "+4096 in a, b, c");
    EXPECT_EQ(sets(4 * q), "+6144 in a, b, c");
    EXPECT_EQ(sets(7 * q - 1), "+6144 in a, b, c");
    EXPECT_EQ(sets(7 * q), "+6144");                     // on its own: nothing shared
    EXPECT_EQ(taken(UINT64_MAX, false, false, workers), "");  // msm_affine_rounds = off
    // msm_affine_rounds = shared
    EXPECT_EQ(taken(UINT64_MAX, false, true, workers, 1, cuda::G2Rounds::shared), "+6144 in a, b, c");
    EXPECT_EQ(taken(w + q, false, true, workers, 1, cuda::G2Rounds::shared), "+4096 in a, b, c");
}

// A worker's buffers depend on the tables (ProofMsms sizes G2's buckets for B2's table
// alone once it has one): each set is weighed with the workers it leaves.
TEST_F(MsmMemory, WeighsEachSetWithTheWorkersItLeaves) {
    const uint64_t w = 5 * q, saved = 2 * q;
    const auto workers = [&](const cuda::MsmMemoryPlan& plan) { return plan.z ? w - saved : w; };
    EXPECT_EQ(taken(w - saved + z_needs, true, false, workers), "z");
    EXPECT_EQ(taken(w - saved + z_needs - 1, true, false, workers), "hl");
}

// Where H's or L's whole table does not fit, the first stride that fits: at 2^24 the cost
// model's shapes are 22 bits at s = 2 (6 multiples) and 3 (4), 20 bits at s = 5 (3) and 7
// (2), each cheaper than the plain MSM by its count (computed apart from the code).
TEST_F(MsmMemory, StridedTablesWhereWholeOnesDoNotFit) {
    EXPECT_EQ(cuda::strided_table_shapes(uint64_t{1} << 24),
              (std::vector<cuda::msm::TableShape>{{22, 2}, {22, 3}, {20, 5}, {20, 7}}));
    EXPECT_EQ(cuda::strided_table_shapes(uint64_t{1} << 26),
              (std::vector<cuda::msm::TableShape>{{24, 2}, {24, 3}, {22, 4}, {22, 6}}));
    const uint64_t w = 5 * q;
    const auto workers = [&](const cuda::MsmMemoryPlan&) { return w; };
    const auto sets = [&](uint64_t budget) { return taken(w + budget, true, false, workers, 0); };
    // H and L chosen together, by the cost model: 2^24 (12 n + 40 buckets a window a
    // bucket set, computed apart from the code): plain 156 n + 273 M, whole 144 n + 84 M,
    // 22/2 144 n + 168 M, 22/3 144 n + 252 M, 20/5 156 n + 105 M, 20/7 156 n + 147 M.
    EXPECT_EQ(sets(z_costs + 12 * qh), "zh/2l/2");      // not H whole, which leaves qh: L plain
    EXPECT_EQ(sets(z_costs + 11 * qh + 6 * ql), "zhl/2");
    EXPECT_EQ(sets(z_costs + 6 * qh), "zh/3l/5");       // not H at 22/2 alone, which leaves qh
    EXPECT_EQ(sets(z_costs + 6 * qh - 1), "zh/3l/5");  // H's 4 multiples leave 3 qh - 1
    EXPECT_EQ(sets(2 * ql - 1), "");                    // no stride fits either
    EXPECT_EQ(sets(2 * ql), "l/7");                     // L's 2 multiples, not H's 2 qh
    EXPECT_EQ(sets(UINT64_MAX - w), "zhl");              // whole wherever they fit
    EXPECT_EQ(taken(UINT64_MAX, false, false, workers, 0), "");  // msm_tables = off
    // msm_table_stride = 3: H and L at stride 3 alone; z's set stays whole.
    EXPECT_EQ(taken(UINT64_MAX, true, false, workers, 3), "zh/3l/3");
    EXPECT_EQ(taken(w + z_costs + 4 * qh, true, false, workers, 3), "zh/3");
    EXPECT_EQ(taken(w + z_costs + 4 * qh - 1, true, false, workers, 3), "zl/3");
}

// The key's placement: the queries leave the device in kStreamOrder, their bytes go to
// the host's side, and a key that streams anything gets no tables (they are built from
// resident queries), whatever memory is left.
TEST_F(MsmMemory, AStreamedKeyPutsItsBytesOnTheHostAndGetsNoTables) {
    using groth16::ProofMsm;
    EXPECT_EQ(cuda::KeyPlacement().names(), "none");
    EXPECT_EQ(cuda::KeyPlacement::streaming_first(1).names(), "h");
    EXPECT_EQ(cuda::KeyPlacement::streaming_first(2).names(), "b_g2,h");
    EXPECT_EQ(cuda::KeyPlacement::streaming_first(5).names(), "a,b_g1,b_g2,l,h");
    EXPECT_FALSE(cuda::KeyPlacement::streaming_first(4).streamed(ProofMsm::b_g1));
    const uint64_t b_points = shape.num_variables / 4;
    const uint64_t a = 96 * shape.num_variables, b1 = 96 * b_points, b2 = 192 * b_points;
    const uint64_t b_variables = 4 * b_points;  // their indices, on the device
    const cuda::KeyBytes resident = cuda::key_bytes(shape, b_points);
    EXPECT_EQ(resident.device, a + b1 + b2 + ql + qh + b_variables);
    EXPECT_EQ(resident.host, 0u);
    const cuda::KeyBytes streamed_h = cuda::key_bytes(shape, b_points, cuda::KeyPlacement::streaming_first(1));
    EXPECT_EQ(streamed_h.device, a + b1 + b2 + ql + b_variables);
    EXPECT_EQ(streamed_h.host, qh);
    const cuda::KeyBytes dense = cuda::key_bytes(shape, shape.num_variables, cuda::KeyPlacement::streaming_first(5));
    EXPECT_EQ(dense.device, 0u);  // a dense B lists no variables
    EXPECT_EQ(dense.host, 4 * a + ql + qh);  // A, B1, and B2 of twice the bytes

    const auto workers = [](const cuda::MsmMemoryPlan&) { return uint64_t{0}; };
    const cuda::MsmMemoryPlan plan = cuda::plan_msm_memory(shape, shape.num_variables,
                                                           cuda::KeyPlacement::streaming_first(1), UINT64_MAX, true,
                                                           cuda::G2Rounds::automatic, workers);
    EXPECT_FALSE(plan.any_table());
    EXPECT_EQ(plan.key, cuda::KeyPlacement::streaming_first(1));
    EXPECT_NE(plan.g2_affine_segment, 0u);  // the rounds still get their scratch
}

// B2 on the host's cores (backend option b2_msm = host): B's G2 points stay in host
// memory, the other queries leave the device in kStreamOrder as before, and the plan
// gives B2 no table and no rounds' scratch on the device.
TEST_F(MsmMemory, B2OnTheHostKeepsItsPointsThereWithNoTableOrRounds) {
    using groth16::ProofMsm;
    const cuda::KeyPlacement b2_alone = cuda::KeyPlacement::streaming_first(0, true);
    EXPECT_TRUE(b2_alone.b2_on_host());
    EXPECT_FALSE(b2_alone.any_streamed());
    EXPECT_TRUE(b2_alone.in_host_memory(ProofMsm::b_g2));
    EXPECT_FALSE(b2_alone.in_host_memory(ProofMsm::h));
    EXPECT_EQ(b2_alone.names(), "none");
    EXPECT_EQ(cuda::KeyPlacement::streaming_first(2, true).names(), "l,h");
    EXPECT_EQ(cuda::KeyPlacement::streaming_first(4, true).names(), "a,b_g1,l,h");
    EXPECT_FALSE(cuda::KeyPlacement::streaming_first(4, true).streamed(ProofMsm::b_g2));
    const uint64_t b_points = shape.num_variables / 4;
    const uint64_t a = 96 * shape.num_variables, b1 = 96 * b_points, b2 = 192 * b_points;
    const uint64_t b_variables = 4 * b_points;
    const cuda::KeyBytes bytes = cuda::key_bytes(shape, b_points, b2_alone);
    EXPECT_EQ(bytes.device, a + b1 + ql + qh + b_variables);
    EXPECT_EQ(bytes.host, b2);

    const auto workers = [](const cuda::MsmMemoryPlan&) { return uint64_t{0}; };
    const cuda::MsmMemoryPlan plan = cuda::plan_msm_memory(shape, b_points, b2_alone, UINT64_MAX, true,
                                                           cuda::G2Rounds::automatic, workers);
    EXPECT_FALSE(plan.any_table());
    EXPECT_EQ(plan.g2_affine_segment, 0u);
    EXPECT_FALSE(plan.g2_scratch_in_vectors);
}

// B2 on the host's cores (backend option b2_msm = host), beside the GPU's four G1 MSMs
// and quotient: the proofs are cpu-ref's, for a uniform key and for a PoRep key (B
// sparse, B's scalars gathered on the host) with every other query streamed in chunks,
// from a file and made on the device. B2 is one interval of the worker's host lane, and
// no B2 runs on the device.
TEST(CudaGroth16, ProofsWithB2OnTheHostAreTheSame) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const std::pair<circuit::R1csShape, const char*> cases[] = {
        {{12, 3, 2, 0.9, 91}, "b2_msm=host\n"},
        {{13, 0, 3, circuit::kPorepBitShare, 92, circuit::R1csProfile::porep},
         "b2_msm=host\nkey_placement=host\nmsm_chunk_log=11\n"}};
    for (const auto& [shape, options] : cases) {
        SCOPED_TRACE(testing::Message() << "log_n " << shape.log_n << ", " << options);
        const auto made = seeded_key(shape, 120 + shape.log_n, folder.path());
        const uint64_t job_seed = 130 + shape.log_n;
        for (const zkb_key_source& source : {made->source(), made->seeded_source()}) {
            expect_gpu_proofs_equal_cpu_ref(shape.log_n, source, made->key.vk, made->circuit.variables(), 2,
                                            made->synthesized(job_seed), job_seed, options);
        }
        const LoadedBackend loaded = load_backend("cuda-pinned", shape.log_n, made->source(), options);
        EXPECT_EQ(loaded.load.where, "device0+host");
        std::map<std::string, std::string> facts;
        for (const auto& [key, value] : loaded.backend->facts()) facts[key] = value;
        EXPECT_EQ(facts["cuda.b2_msm"], "host");
        const zkb_prove_report report = first_partition_report(loaded, *made, job_seed);
        std::vector<std::string> b2_lanes;
        for (uint32_t i = 0; i < report.phase_count; ++i) {
            if (std::string(report.phases[i].name) == "msm.b_g2") b2_lanes.emplace_back(report.phases[i].lane);
        }
        ASSERT_EQ(b2_lanes.size(), 1u);
        EXPECT_TRUE(b2_lanes[0].ends_with(".host")) << b2_lanes[0];
    }
}

// A key that cannot fit beside the workers is refused at load_key with the numbers,
// before anything is uploaded. At 2^10, 4096 workers' a, b and c (384 MiB) pass the
// backend's own check, but their MSM scratch (the level-0 spill buffers alone are
// 2^19 bucket sums per curve, some 300 MiB a worker) needs terabytes.
TEST(CudaGroth16, RefusesAKeyThatDoesNotFitBesideTheWorkers) {
    ZKB_REQUIRE_GPU();
    test::TempDir folder("zkbatch-gpu-groth16");
    const auto made = seeded_key({10, 2, 1, 0.9, 1}, 1, folder.path());
    for (const char* name : kGpuBackends) {
        std::unique_ptr<Backend> backend;
        try {
            backend = std::make_unique<Backend>(load_plugin(name, test::plugin_folder()), "", 10, 4096);
        } catch (const PluginError& e) {
            // The constructor's own check (a, b, c of every worker) may refuse first.
            EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
            continue;
        }
        try {
            backend->load_key(made->source());
            ADD_FAILURE() << name << " accepted a key beside 4096 workers";
        } catch (const PluginError& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("of device memory"), std::string::npos) << message;
            EXPECT_NE(message.find("prove_workers"), std::string::npos) << message;
        }
    }
}

}  // namespace
}  // namespace zkbatch
