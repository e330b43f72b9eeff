// A Groth16 manifest's circuit and proving key, made ready before anything proves: the
// .zkey read and checked with every witness file's header, or the synthetic circuit and
// its seeded key, taken from the key cache or made there first. `zkbatch run` does this
// for each arm (once per distinct circuit), `zkbatch setup` on its own.
#pragma once

#include "manifest/manifest.hpp"
#include "proof/job_circuit.hpp"
#include "proof/proving_key.hpp"

#include <memory>
#include <string>

namespace zkbatch {

struct JobProof {
    std::unique_ptr<JobCircuit> circuit;
    PreparedKey key;
};

// For a manifest with proof.system = "groth16" (a .zkey job's witness files already
// resolved: circuit.witness_files). Throws groth16::ZkeyError (a bad .zkey or witness),
// groth16::KeyFileError (a damaged cached key, no room for one) and UsageError (a shape
// the synthetic circuit refuses).
JobProof prepare_job_proof(const Manifest& manifest, unsigned threads);

// What makes two manifests prove the same circuit with the same key: arms that agree on
// it share one JobProof.
std::string job_proof_identity(const Manifest& manifest);

}  // namespace zkbatch
