#include "proof/snarkjs_files.hpp"

#include "core/groth16/proof.hpp"
#include "core/groth16/snarkjs_json.hpp"
#include "core/util/output_file.hpp"

#include <stdexcept>
#include <vector>

namespace zkbatch {

void write_snarkjs_proof_files(const std::filesystem::path& proof_path, const std::filesystem::path& public_path,
                               curve::CurveId curve, std::span<const uint8_t> proof,
                               std::span<const uint8_t> public_inputs) {
    const std::string name = proof_path.string();
    if (public_inputs.size() % 32 != 0)
        throw std::runtime_error(name + ": the recorded public inputs are " + std::to_string(public_inputs.size()) +
                                 " bytes, not 32 per input");
    curve::with_curve(curve, [&](auto c) {
        using Curve = decltype(c);
        using Fr = typename Curve::Fr;
        groth16::generic::Proof<Curve> decoded;
        std::string why;
        if (proof.size() != groth16::kProofBytesOf<Curve> || !groth16::decode_proof(proof.data(), decoded, &why))
            throw std::runtime_error(name + ": the recorded proof is not a valid " + std::string(curve::name(curve)) +
                                     " Groth16 proof (" +
                                     (why.empty() ? std::to_string(proof.size()) + " bytes" : why) + ")");
        std::vector<Fr> inputs(public_inputs.size() / 32);
        for (size_t i = 0; i < inputs.size(); ++i)
            if (!Fr::try_from_canonical_le_bytes(public_inputs.data() + 32 * i, inputs[i]))
                throw std::runtime_error(name + ": recorded public input " + std::to_string(i + 1) +
                                         " is not below r");
        util::write_file_atomically(proof_path, groth16::proof_json(decoded));
        util::write_file_atomically(public_path, groth16::public_json(inputs.data(), inputs.size()));
    });
}

void write_snarkjs_proof(const std::filesystem::path& dir, const std::string& stem, curve::CurveId curve,
                         std::span<const uint8_t> proof, std::span<const uint8_t> public_inputs) {
    write_snarkjs_proof_files(dir / (stem + ".proof.json"), dir / (stem + ".public.json"), curve, proof,
                              public_inputs);
}

void write_snarkjs_verification_key(const std::filesystem::path& dir, const groth16::AnyVerifyingKey& key) {
    std::visit([&](const auto& k) { util::write_file_atomically(dir / "verification_key.json",
                                                                groth16::verification_key_json(k)); },
               key);
}

}  // namespace zkbatch
