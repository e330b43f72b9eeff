/* zkbatch plugin ABI, version 9 (ZKB_ABI_VERSION below).
 *
 * The one boundary between the runner and a proving backend. Plain C so that a
 * backend built by another compiler, or at another time, still loads: only
 * fixed-size integers, fixed-size char arrays, raw pointers and function
 * pointers cross it. No C++ standard library type and no exception may cross
 * it; every function reports failure through its return value and a zkb_error.
 *
 * A plugin is a shared object that exports one symbol:
 *
 *     const zkb_plugin_api* zkbatch_plugin_api(void);
 *
 * The runner reads it, checks abi_version against ZKB_ABI_VERSION and refuses
 * the plugin (naming both numbers) when they differ. Any change to a struct or
 * a function signature below bumps ZKB_ABI_VERSION; the size checks at the end of
 * this file fail to compile until the version and the sizes move together.
 *
 * Workloads (version 5). A run proves one of two things per partition:
 *   ZKB_WORKLOAD_GROTH16   a whole Groth16 proof over BLS12-381 (docs/architecture.md#the-proof): the
 *                          backend is given its proving key once (load_key), gets the
 *                          witness z beside a, b, c, and returns the proof's 192 bytes
 *                          (compressed A || B || C) in the report;
 *   ZKB_WORKLOAD_QUOTIENT  the quotient h alone (the 7-NTT computation), as versions
 *                          1-4 did; no key, no witness.
 *
 * Field elements are BLS12-381 Fr, 32 bytes each (core/ff/fr.hpp). The inputs
 * z, a, b, c are in Montgomery form (four little-endian uint64 limbs), as synthesis
 * writes them. The output h is in CANONICAL form: the value itself as 32
 * little-endian bytes, below r. The backend converts it (on the GPU it is one more
 * pass over data already there), so the runner digests and dumps h's bytes as they
 * are; converting on the host cost a multiplication per element on the CPU and made
 * a fast GPU wait for the host (version 3). What h holds follows the key's H
 * convention (core/groth16/keys.hpp): h's n coefficients (bellman's, and the
 * quotient workload), or a*b - c on the odd coset of the size-2n domain (snarkjs's).
 *
 * Digest: the runner records XXH3-128 of h's canonical bytes. A backend may compute it
 * where h lies and report it (version 4); then, when the request says h_to_host = 0,
 * it need not write h to the host at all: a GPU sends the digest's block sums
 * (core/util/xxh3_split.hpp), 1/16 of h, instead of h. A backend that reports no
 * digest writes h every time, and the runner digests it.
 *
 * Devices: a run may prove on several devices of a host. The runner then creates one
 * backend per device, adding the option "device=<index>" to each one's options, and
 * calls device_count to resolve pipeline.devices = "all". A backend without
 * hardware devices (cpu-ref) accepts "device" as a label only. Each device's backend
 * loads its own copy of the proving key.
 *
 * Timestamps are nanoseconds of CLOCK_MONOTONIC (std::chrono::steady_clock on
 * Linux), the runner's clock, so backend phases line up with runner phases.
 */
#ifndef ZKBATCH_PLUGIN_ABI_H
#define ZKBATCH_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZKB_ABI_VERSION 9u /* 2: zkb_host_buffers.keeps_contents; 3: canonical h, device_count;
                              4: h_to_host, the backend's h digest; 5: Groth16 proofs (load_key,
                              the witness buffer, workload and blinding in the request, the
                              proof in the report); 6: seeded keys made by the backend
                              (ZKB_KEY_FORMAT_SEEDED, the key report's points digest); 7: 64
                              phases a report (a 2^27 partition's MSMs in chunks that fit a
                              16 GB card); 8: curves (the plugin's curves, the key's curve,
                              the proof's length); 9: the key report's host_key_bytes */
#define ZKB_PLUGIN_ENTRY_SYMBOL "zkbatch_plugin_api"

#define ZKB_ERROR_MESSAGE_BYTES 1024
#define ZKB_NAME_BYTES 64
#define ZKB_FACT_KEY_BYTES 48
#define ZKB_FACT_VALUE_BYTES 208
#define ZKB_MAX_FACTS 48
#define ZKB_MAX_PHASES 64

#define ZKB_PROOF_BYTES 192   /* room for the longest proof: compressed A || B || C, 192 bytes
                                 for BLS12-381 (48 + 96 + 48), 128 for BN254 (32 + 64 + 32) */
#define ZKB_SCALAR_BYTES 32   /* an Fr element of either curve, canonical little-endian */

/* Curves (version 8): zkb_key_source.curve, and bits of zkb_plugin_api.curves
 * (1u << ZKB_CURVE_*). Every scalar a request carries (z, a, b, c, h, r, s) is of the
 * key's curve's Fr; both take 32 bytes. A quotient-workload run has no key and is
 * BLS12-381's. */
#define ZKB_CURVE_BLS12_381 1u
#define ZKB_CURVE_BN254 2u
#define ZKB_DIGEST_HEX_BYTES 33  /* 32 hex digits and a NUL */

/* Workloads (zkb_prove_request.workload). A zeroed request asks for the quotient, as
 * every request before version 5 did. */
#define ZKB_WORKLOAD_QUOTIENT 0
#define ZKB_WORKLOAD_GROTH16 1

/* Key formats (zkb_key_source.format). */
#define ZKB_KEY_FORMAT_ZKBATCH 1 /* zkbatch's key file (core/groth16/key_file.hpp) */
#define ZKB_KEY_FORMAT_ZKEY 2    /* a snarkjs .zkey (Groth16, either curve) */
#define ZKB_KEY_FORMAT_SEEDED 3  /* no file (path is NULL): the backend makes the seeded key
                                    of `circuit` and `setup` itself (version 6) */

/* Return codes. */
#define ZKB_OK 0
#define ZKB_ERR_INVALID_ARGUMENT 1 /* bad options or request: the user can fix it */
#define ZKB_ERR_UNAVAILABLE 2      /* no usable device, driver too old, ... */
#define ZKB_ERR_OUT_OF_MEMORY 3    /* host or device memory */
#define ZKB_ERR_DEVICE 4           /* a device-side failure (kernel, copy, ...) */
#define ZKB_ERR_INTERNAL 5

/* Filled by the plugin on failure: a complete sentence that says what went
 * wrong and, where it can, what to do. Always NUL-terminated. */
typedef struct zkb_error {
    char message[ZKB_ERROR_MESSAGE_BYTES];
} zkb_error;

/* One fact about the backend or its device, as text ("device.name" =
 * "NVIDIA H200"). Well-known keys are listed in core/plugin/facts.hpp;
 * a plugin may add its own. */
typedef struct zkb_fact {
    char key[ZKB_FACT_KEY_BYTES];
    char value[ZKB_FACT_VALUE_BYTES];
} zkb_fact;

typedef struct zkb_facts {
    uint32_t count;
    zkb_fact items[ZKB_MAX_FACTS];
} zkb_facts;

/* Host memory for one partition, owned by the backend. Synthesis writes z, a, b
 * and c directly (Montgomery form); prove reads them (never writes them) and writes
 * h (canonical form). a, b, c and h point to n elements of 32 bytes, z to m elements
 * (the key's variables; z is NULL and m is 0 for the quotient workload or before
 * load_key), all 64-byte aligned. `token` is the backend's own bookkeeping.
 * `keeps_contents` is 1 when these are the same buffers, with the same z, a, b, c
 * bytes, as the last time this set (same `a` address) was released: a preallocated
 * pool. The runner then skips rewriting inputs it knows are there (replayed inputs).
 * 0 for fresh memory. */
typedef struct zkb_host_buffers {
    uint64_t n;
    void* a;
    void* b;
    void* c;
    void* h;
    void* token;
    int32_t keeps_contents;
    int32_t reserved;
    uint64_t m;
    void* z;
} zkb_host_buffers;

/* Where a backend's proving key comes from (load_key). `path` is a key file of
 * `format`; `circuit` is the circuit's description ("key=value" lines) the key must
 * be for, and `setup` the setup's ("setup=seeded\nseed=N\n" for a key made from a seed,
 * "" for a ceremony's). For ZKB_KEY_FORMAT_SEEDED there is no file (a 2^27 key is some
 * 77 GB): the backend makes the key from those two descriptions, exactly the key
 * zkbatch's setup would write (groth16::generate_key), and reports its points digest
 * so the runner can check that. */
typedef struct zkb_key_source {
    const char* path;
    uint32_t format;
    /* 1: the runner has read the file and checked every point (on its curve, in its
     * subgroup) already, so the backend need not do it again; 0: the backend checks. */
    uint32_t points_checked;
    const char* circuit;
    const char* setup;
    uint32_t curve;    /* ZKB_CURVE_* of the key (version 8); a backend refuses one it
                          does not prove, naming a backend that does */
    uint32_t reserved;
} zkb_key_source;

/* What load_key did, for the run's record. */
typedef struct zkb_key_report {
    uint64_t start_ns;     /* runner's clock */
    uint64_t end_ns;
    uint64_t key_bytes;    /* bytes of key the backend holds */
    uint64_t num_variables;  /* m: the witness length the buffers now carry */
    char where[ZKB_NAME_BYTES];  /* "host", "device0", ... */
    char how[ZKB_NAME_BYTES];    /* "mapped", "read", "uploaded" (to a device), "generated" */
    /* Version 6: for a key the backend made (ZKB_KEY_FORMAT_SEEDED), the points digest
     * its key file would carry (groth16::KeyPointsDigest); "" for a key it loaded. */
    char points_digest[ZKB_DIGEST_HEX_BYTES];
    /* Version 9: of key_bytes, those the backend allocated in host memory (a streamed
     * key's pinned points, a key made on the host; not a key file's mapped points), so
     * that the runner can check that the run still fits the host's memory beside them. */
    uint64_t host_key_bytes;
} zkb_key_report;

/* One interval of work the backend did for a partition, on the runner's clock.
 * `lane` names where it ran, so a timeline can draw one track per lane:
 * "cpu", "stream0.compute", "stream0.copy", ... Phase names the runner
 * aggregates: "h2d", "compute", "d2h" (others are kept as intervals only). */
typedef struct zkb_phase {
    char name[ZKB_NAME_BYTES];
    char lane[ZKB_NAME_BYTES];
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t bytes; /* bytes moved, for copies; 0 otherwise */
    int32_t on_device; /* 1 when the interval is device activity (counts toward GPU busy) */
    int32_t device_index;
} zkb_phase;

typedef struct zkb_prove_request {
    uint64_t partition_index; /* for NVTX ranges and messages */
    uint32_t log_n;
    /* 1: the runner reads h (to verify or dump it): write it to buffers->h. 0: only the
     * digest is needed; a backend that reports one may leave buffers->h as scratch. */
    int32_t h_to_host;
    const zkb_host_buffers* buffers; /* z, a, b, c in; h out */
    uint32_t workload;              /* ZKB_WORKLOAD_* */
    uint32_t reserved;
    /* ZKB_WORKLOAD_GROTH16: the proof's blinding r and s, canonical little-endian. The
     * runner derives them (same bytes on every backend) or draws them at random. */
    uint8_t r[ZKB_SCALAR_BYTES];
    uint8_t s[ZKB_SCALAR_BYTES];
} zkb_prove_request;

typedef struct zkb_prove_report {
    uint32_t phase_count;
    /* 1: h_digest holds XXH3-128 of h's n * 32 canonical bytes, in XXH128_canonical_t
     * order (what `xxhsum -H2` prints). 0: the backend wrote h; the runner digests it. */
    int32_t has_h_digest;
    uint8_t h_digest[16];
    zkb_phase phases[ZKB_MAX_PHASES];
    /* ZKB_WORKLOAD_GROTH16: 1 and the proof's bytes, proof_bytes of them (version 8:
     * 192 for BLS12-381, 128 for BN254). */
    int32_t has_proof;
    uint32_t proof_bytes;
    uint8_t proof[ZKB_PROOF_BYTES];
} zkb_prove_report;

typedef struct zkb_backend zkb_backend; /* opaque, one per run */
typedef struct zkb_worker zkb_worker;   /* opaque, one per prove worker */

typedef struct zkb_plugin_api {
    uint32_t abi_version; /* ZKB_ABI_VERSION the plugin was built with */
    uint32_t curves;      /* version 8: 1u << ZKB_CURVE_* for each curve it proves */
    const char* name;     /* "cpu-ref", "cuda-pinned", ... */
    const char* version;  /* the backend's own version, e.g. "0.1.0" */
    const char* description;

    /* Can this backend run on this machine? Returns 1 if yes; otherwise 0 and
     * a reason in *why ("no CUDA device: cudaGetDeviceCount said ..."). Cheap,
     * allocates nothing that outlives the call. */
    int (*probe)(zkb_error* why);

    /* Create a backend, for one device. `options` is newline-separated
     * "key=value" lines, the [backend.options] table of the manifest
     * (core/plugin/options.hpp parses it), plus "device=<index>" when the run
     * names its devices. `max_log_n` is the largest domain any partition will use
     * and `prove_workers` how many workers will be created on this backend, so it
     * can allocate everything up front. Unknown options are an error. Buffers of
     * one backend may be proved by the workers of another backend of the same
     * plugin in the same process (pinned host memory is visible to every device). */
    int (*create)(const char* options, uint32_t max_log_n, uint32_t prove_workers,
                  zkb_backend** out, zkb_error* err);
    void (*destroy)(zkb_backend* backend);

    /* Facts about the backend and its device, for the run's environment. */
    int (*describe)(zkb_backend* backend, zkb_facts* out, zkb_error* err);

    /* Host buffers for one partition of size 2^log_n (and, after load_key, a witness of
     * the key's m variables). Blocks while a bounded
     * pool is exhausted (the runner times the wait); never falls back to
     * another kind of memory. Thread-safe. */
    int (*acquire_buffers)(zkb_backend* backend, uint32_t log_n, zkb_host_buffers* out,
                           zkb_error* err);
    void (*release_buffers)(zkb_backend* backend, zkb_host_buffers* buffers);

    /* One context per prove worker (a CUDA stream and device buffers each).
     * Workers are used from one thread at a time, different workers from
     * different threads concurrently. */
    int (*create_worker)(zkb_backend* backend, uint32_t worker_index, zkb_worker** out,
                         zkb_error* err);
    void (*destroy_worker)(zkb_worker* worker);

    /* Prove one partition, synchronously: the quotient h (the 7-NTT computation of
     * docs/architecture.md#the-quotient, or snarkjs's odd-coset variant for such a key) and, for
     * ZKB_WORKLOAD_GROTH16, the whole proof. When it returns, h is in the host buffer in
     * canonical form (unless h_to_host = 0 and the report carries the digest), the proof
     * is in the report, and so is every phase ("quotient", "msm.a", "msm.b_g1",
     * "msm.b_g2", "msm.l", "msm.h", copies, ...). */
    int (*prove)(zkb_worker* worker, const zkb_prove_request* request,
                 zkb_prove_report* report, zkb_error* err);

    /* How many devices this backend can prove on here (pipeline.devices = "all"
     * proves on 0 .. count-1). `options` are the manifest's backend options, as
     * create gets them (without "device"), so a backend without hardware devices
     * can take the count from an option. Returns ZKB_OK and *count >= 1, or an
     * error (no device: ZKB_ERR_UNAVAILABLE). */
    int (*device_count)(const char* options, uint32_t* count, zkb_error* err);

    /* Version 5. Takes the proving key, once, before any buffers or workers exist, for
     * ZKB_WORKLOAD_GROTH16 runs: loads it where the MSMs read it (host memory, device
     * memory) or makes it, and reports how long that took and how many bytes it holds.
     * A key that does not fit (beside the workers' buffers) is an error that gives the
     * numbers, never a silent fall-back. */
    int (*load_key)(zkb_backend* backend, const zkb_key_source* source, zkb_key_report* report,
                    zkb_error* err);
} zkb_plugin_api;

typedef const zkb_plugin_api* (*zkb_plugin_entry_fn)(void);

/* The layout of every struct above, pinned for ZKB_ABI_VERSION 9 on the 64-bit targets
 * zkbatch supports. A change that moves one of these sizes is an ABI change: bump
 * ZKB_ABI_VERSION, say what changed beside it, and update the size here. */
#ifdef __cplusplus
#define ZKB_ABI_ASSERT(condition, message) static_assert(condition, message)
#else
#define ZKB_ABI_ASSERT(condition, message) _Static_assert(condition, message)
#endif
#define ZKB_ABI_SIZE(type, bytes) \
    ZKB_ABI_ASSERT(sizeof(type) == (bytes), #type " changed size: a new ZKB_ABI_VERSION is due")
ZKB_ABI_ASSERT(ZKB_ABI_VERSION == 9u, "ZKB_ABI_VERSION moved: check the struct sizes below against it");
ZKB_ABI_ASSERT(sizeof(void*) == 8, "the zkbatch plugin ABI is defined for 64-bit targets");
ZKB_ABI_SIZE(zkb_error, 1024);
ZKB_ABI_SIZE(zkb_fact, 256);
ZKB_ABI_SIZE(zkb_facts, 12292);
ZKB_ABI_SIZE(zkb_host_buffers, 72);
ZKB_ABI_SIZE(zkb_key_source, 40);
ZKB_ABI_SIZE(zkb_key_report, 208);
ZKB_ABI_SIZE(zkb_phase, 160);
ZKB_ABI_SIZE(zkb_prove_request, 96);
ZKB_ABI_SIZE(zkb_prove_report, 10464);
ZKB_ABI_SIZE(zkb_plugin_api, 120);
#undef ZKB_ABI_SIZE
#undef ZKB_ABI_ASSERT

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ZKBATCH_PLUGIN_ABI_H */
