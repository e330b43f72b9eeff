#include "job_circuit.hpp"

#include "util/sha256.hpp"

#include "core/groth16/zkey.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace zkbatch {

namespace {

class SyntheticJobCircuit final : public JobCircuit {
public:
    SyntheticJobCircuit(const circuit::R1csShape& shape, uint64_t job_seed) : circuit_(shape), job_seed_(job_seed) {}
    uint32_t log_n() const override { return circuit_.shape().log_n; }
    uint64_t variables() const override { return circuit_.variables(); }
    uint64_t public_inputs() const override { return circuit_.public_inputs(); }
    curve::CurveId curve() const override { return circuit_.shape().curve; }
    std::string description() const override { return circuit_.description(); }
    groth16::HConvention h_convention() const override { return groth16::HConvention::coefficients; }
    void synthesize(uint64_t partition_index, void* z, void* a, void* b, void* c, unsigned threads) const override {
        curve::with_curve(curve(), [&](auto description) {
            using Fr = typename decltype(description)::Fr;
            circuit_.synthesize(job_seed_, partition_index, static_cast<Fr*>(z), static_cast<Fr*>(a),
                                static_cast<Fr*>(b), static_cast<Fr*>(c), threads);
        });
    }
    const circuit::SyntheticR1cs* synthetic_r1cs() const override { return &circuit_; }

private:
    circuit::SyntheticR1cs circuit_;
    uint64_t job_seed_;
};

template <class Curve>
class ZkeyJobCircuit final : public JobCircuit {
public:
    using Fr = typename Curve::Fr;
    ZkeyJobCircuit(std::filesystem::path path, groth16::generic::Zkey<Curve> zkey, bool checked_before,
                   std::vector<std::filesystem::path> witnesses)
        : zkey_(std::move(zkey)), witnesses_(std::move(witnesses)) {
        file_ = {std::move(path), zkey_.file_bytes, zkey_.file_digest, checked_before, zkey_.key.vk};
        for (const auto& witness : witnesses_)
            witness_digests_.push_back(groth16::check_wtns<Fr>(witness, variables()));
    }
    curve::CurveId curve() const override { return Curve::kId; }
    uint32_t log_n() const override { return zkey_.circuit.log_n; }
    uint64_t variables() const override { return zkey_.circuit.num_variables; }
    uint64_t public_inputs() const override { return zkey_.circuit.num_public; }
    std::string description() const override { return zkey_.circuit.description(); }
    groth16::HConvention h_convention() const override { return groth16::HConvention::odd_coset; }
    uint64_t fixed_partitions() const override { return witnesses_.size(); }
    std::string partition_source(uint64_t partition_index) const override {
        return witnesses_.at(partition_index).string();
    }
    void synthesize(uint64_t partition_index, void* z, void* a, void* b, void* c, unsigned threads) const override {
        const std::filesystem::path& file = witnesses_.at(partition_index);
        std::string digest;
        const std::vector<Fr> witness = groth16::read_wtns<Fr>(file, variables(), &digest);
        if (digest != witness_digests_.at(partition_index))
            throw groth16::ZkeyError(file.string() + ": the witness file changed after the run checked it (digest " +
                                     witness_digests_[partition_index] + ", now " + digest +
                                     "); prove the new file in a new run");
        std::copy(witness.begin(), witness.end(), static_cast<Fr*>(z));
        zkey_.circuit.synthesize(static_cast<const Fr*>(z), static_cast<Fr*>(a), static_cast<Fr*>(b),
                                 static_cast<Fr*>(c), threads);
    }
    const ZkeyFile* zkey_file() const override { return &file_; }
    std::vector<std::string> witness_digests() const override { return witness_digests_; }

private:
    groth16::generic::Zkey<Curve> zkey_;
    ZkeyFile file_;
    std::vector<std::filesystem::path> witnesses_;
    std::vector<std::string> witness_digests_;
};

}  // namespace

std::unique_ptr<JobCircuit> synthetic_job_circuit(const circuit::R1csShape& shape, uint64_t job_seed) {
    return std::make_unique<SyntheticJobCircuit>(shape, job_seed);
}

std::unique_ptr<JobCircuit> zkey_job_circuit(const std::filesystem::path& zkey,
                                             std::vector<std::filesystem::path> witnesses, unsigned threads,
                                             const CheckedZkeys& checked) {
    if (witnesses.empty()) throw std::invalid_argument("circuit.witnesses matches no .wtns file");
    const curve::CurveId curve = groth16::read_zkey_header(zkey).curve;
    return curve::with_curve(curve, [&](auto c) -> std::unique_ptr<JobCircuit> {
        using Curve = decltype(c);
        std::string sha256;
        bool checked_before = false;
        groth16::generic::Zkey<Curve> key =
            groth16::read_zkey<Curve>(zkey, threads, [&](std::span<const uint8_t> bytes) {
                sha256 = sha256_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
                checked_before = checked.contains(sha256);
                return !checked_before;
            });
        std::string why;
        if (!checked_before && !checked.add(sha256, key.file_bytes, why)) {
            spdlog::warn("{}: its points were checked, but {} cannot record that ({}): the next run checks them "
                         "again",
                         zkey.string(), checked.file().string(), why);
        }
        return std::make_unique<ZkeyJobCircuit<Curve>>(zkey, std::move(key), checked_before, std::move(witnesses));
    });
}

}  // namespace zkbatch
