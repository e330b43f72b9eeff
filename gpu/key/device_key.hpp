// DeviceProvingKey: a Groth16 proving key for the MSM kernels, its queries resident in
// device memory, or, for a key larger than the card, some of them in pinned host memory
// from where their chunks are copied up as the MSMs run (KeyPlacement, QueryStager).
// Both CUDA plugins hold their key this way (only their host memory policy for a, b, c,
// z and the outputs differs). Made once per backend by load_key, from a key in host
// memory (upload_proving_key) or, for a seeded BLS12-381 setup, on the device itself
// (generate_proving_key): the same points either way, in groth16::generic::ProvingKey's
// layout (ec::Affine, .zkey coordinates). A template over the curve description, as the
// host's key is. With backend option msm_tables, load_key also builds
// base tables of resident queries (KeyTables) in the memory the workers leave.
#pragma once

#include "gpu/key/key_placement.hpp"
#include "gpu/util/device_buffer.hpp"
#include "gpu/util/host_memory.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/util/pinned_buffer.hpp"
#include "gpu/util/stream.hpp"
#include "core/curve/curves.hpp"
#include "core/ec/curve.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/setup.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace zkbatch::cuda {

// Base tables (msm::BaseTable) of a resident key's queries. A key never changes within a
// run, so each query's window multiples can be made once and every proof's MSM over it
// then adds all windows into one set of buckets (docs/msm.md#base-tables), or into s sets
// over a table of every s-th window's multiples (docs/msm.md#tables-of-every-s-th-window).
// Three sets, each present or absent: z's (A, B1 and
// B2, whose one plan of z then has the tables' layout), H's, L's.
template <class Curve>
struct KeyTables {
    std::unique_ptr<msm::BaseTable<typename Curve::G1Params>> a, b_g1, l, h;
    std::unique_ptr<msm::BaseTable<typename Curve::G2Params>> b_g2;

    bool empty() const { return !a && !b_g1 && !b_g2 && !l && !h; }
    uint64_t device_bytes() const;
    // The tabled MSMs as the fact cuda.msm_tables lists them ("a,b_g1,b_g2,h"), or "none".
    std::string names() const;
    // Their shapes as the fact cuda.msm_table_shapes lists them, window bits / stride
    // ("a=22/1,b_g1=22/1,b_g2=22/1,h=22/3"), or "none".
    std::string shapes() const;
};

// What load_key spends the device memory the key and the workers' buffers leave on: the
// key's base tables (KeyTables), for MSMs that run whole (unchunked) over a key that
// streams nothing, and, in every worker's G2 accumulator, scratch for B2's batched affine
// rounds (msm_steps.hpp). It also carries the key's placement, planned before the key is
// made: every worker holds two chunks of device memory for the streamed queries' copies.
struct MsmMemoryPlan {
    KeyPlacement key;
    // Each set's table; none where it has none. z's are whole (stride 1): one plan of z
    // in their layout serves A, B1 and B2.
    std::optional<msm::TableShape> z, h, l;
    // The longest level-0 segment B2's rounds get scratch for (MsmCapacity::affine_segment);
    // 0: none. ProofMsms gives B2 what its entries can use of it.
    uint32_t g2_affine_segment = 0;
    // That scratch shares one block with the worker's a, b and c (ProofMsms::lent_bytes),
    // which are then uploaded only once z's MSMs are done: under L, the quotient after it
    // (CudaWorker::prove). Planned where the scratch would not fit otherwise (2^27).
    bool g2_scratch_in_vectors = false;
    // The lane beside H (ProofMsms::beside_h): whether it may run, and the bytes of the
    // worker's a vector it may take (what h's digest block sums leave of it).
    BesideH beside_h = BesideH::off;
    uint64_t beside_h_room_bytes = 0;
    uint64_t device_bytes = 0;       // the tables'
    uint64_t freed_query_bytes = 0;  // their queries', freed once they are built

    bool any_table() const { return z || h || l; }
};

// The most points any of the proof's five MSMs has (at least 1): MSMs in chunks of this
// many are in no chunks.
template <class Curve>
uint64_t largest_query(const groth16::generic::ProvingKey<Curve>& shape) {
    return std::max({shape.num_variables, shape.private_variables(), shape.h_points(), uint64_t{1}});
}

// The whole tables' width for a key of `shape`'s sizes: the cost model's best over a
// table of stride 1 for its largest MSM (msm::choose_window_bits), 22 bits at 2^24 points.
template <class Curve>
uint32_t key_table_window_bits(const groth16::generic::ProvingKey<Curve>& shape) {
    return msm::choose_window_bits(largest_query(shape), msm::kMaxWindowBits, 1);
}

// The tables of every s-th window an MSM of `points` points may have where a whole one
// does not fit, most memory first: for s = 2, 3, ..., the width the cost model
// (msm::estimated_msm_cost) likes best at s, while the table holds at least two multiples
// and the model finds the MSM over it cheaper than over the bases; a stride that saves
// no memory over a smaller one is left out. At 2^26 points: 24 bits at s = 2 (6
// multiples) and 3 (4), then 22 bits at s = 4 (3) and 6 (2).
std::vector<msm::TableShape> strided_table_shapes(uint64_t points);

// B2's rounds get scratch for segments up to the first of these that fits: longer
// segments share each inversion among more pairs, so fewer waves over the scratch, and
// every length here pays against none (docs/msm.md#where-the-rounds-pay). A 2^27 key
// leaves room for 4096 only in a, b and c's block (MsmMemoryPlan::g2_scratch_in_vectors).
inline constexpr uint32_t kG2AffineSegments[] = {6144, 4096, 2048};

// Every worker's device bytes (buffers, plans, accumulators, rounds' scratch) under a plan.
using WorkersBytes = std::function<uint64_t(const MsmMemoryPlan&)>;

// What fits in `free_bytes` beside every worker (`workers_bytes`), for a key of `shape`
// with `b_points` points in each of B's queries, taken in the order of
// the time each buys per byte (docs/msm.md#the-memory-plan) while it
// fits in what the earlier ones left: z's tables (A, B1 and B2 together; at 2^24 ~110 ms
// a proof for 66 GiB), B2's rounds (~70 ms for 42 GiB a worker; the longest segments
// whose scratch fits, on its own or else sharing a, b and c's block), then H's and L's
// tables together (~14 ms each for 17 GiB at 2^24, but a mostly boolean witness gains
// little from L's): of every pair of shapes that fits, each whole, one of
// strided_table_shapes or none, the one msm::estimated_msm_cost finds cheapest. Tables
// only when `tables`, rounds as `g2_rounds` says. g1_table_stride s > 0 (backend option
// msm_table_stride) gives H and L tables of stride s alone (at most their windows), at
// the cost model's width for s, where they fit. A table is built from its query, which
// is then freed (multiple 0 is a copy of it), so each table needs its own bytes while it
// is built and one multiple fewer after.
// The plan carries `placement`; tables only where it streams nothing.
template <class Curve>
MsmMemoryPlan plan_msm_memory(const groth16::generic::ProvingKey<Curve>& shape, uint64_t b_points,
                              const KeyPlacement& placement, uint64_t free_bytes, bool tables, G2Rounds g2_rounds,
                              const WorkersBytes& workers_bytes, uint32_t g1_table_stride = 0);

// Where B is sparse (at most kSparseB of the variables in it, as in a PoRep partition or
// most circom circuits), the device key holds B's points of those variables alone: the
// others' are at infinity and add nothing. A PoRep partition has a quarter of its
// variables in B, so its B queries take a quarter of the memory (bellman's parameters
// leave them out the same way) and its B MSMs a quarter of the points.
inline constexpr double kSparseB = 0.75;

// The variables in B, ascending, where B is sparse; empty where it is dense. `in_b(i)`:
// whether variable i's B points are not both at infinity (of m variables).
std::vector<uint32_t> sparse_b_variables(uint64_t m, unsigned threads, const std::function<bool(uint64_t)>& in_b);

// The points in each of B's queries of a key of `shape` whose sparse_b_variables list
// `listed` variables (0: B is dense).
template <class Curve>
uint64_t b_points_of(const groth16::generic::ProvingKey<Curve>& shape, uint64_t listed) {
    return listed != 0 ? listed : shape.num_variables;
}

// One query's points: in device memory, or, where the key's placement streams it (or runs
// B2 on the host), in pinned host memory.
template <class Point>
struct KeyQuery {
    DeviceBuffer<Point> device;  // resident (empty once a table holds its points)
    PinnedBuffer host;           // streamed, or B2's on the host

    bool in_host_memory() const { return host.bytes() != 0; }
    const Point* host_points() const { return static_cast<const Point*>(host.data()); }
};

template <class CurveDescription>
struct DeviceProvingKey {
    using Curve = CurveDescription;
    // Everything but the queries: sizes, H convention, verifying key, beta_g1, delta_g1.
    // Its spans are empty and its storage is null.
    groth16::generic::ProvingKey<Curve> header;
    KeyQuery<curve::G1Affine<Curve>> a_query, b_g1_query, l_query, h_query;
    KeyQuery<curve::G2Affine<Curve>> b_g2_query;  // b_points() each, B's
    // Built by build_key_tables; none by default. A tabled query's buffer is then empty:
    // its points are the table's window 0.
    KeyTables<Curve> tables;
    // Where B is sparse (sparse_b_variables): the variables whose points B's queries hold,
    // ascending, the gather of B's plans of z (ScalarPlan::prepare). Empty where B is dense:
    // B's queries hold every variable's points and B's MSMs share A's plan of z.
    DeviceBuffer<uint32_t> b_variables;
    // The same list in host memory, where B2's MSM runs on the host (gathering its scalars
    // from the host's z); empty otherwise.
    std::vector<uint32_t> host_b_variables;
    // Which queries are in pinned host memory, and whether B2's MSM runs on the host.
    KeyPlacement placement;

    // The points in each of B's queries.
    uint64_t b_points() const { return b_points_of(header, b_variables.size()); }
    // The resident queries' bytes and B's variables (the tables' are tables.device_bytes()).
    uint64_t device_bytes() const {
        return a_query.device.bytes() + b_g1_query.device.bytes() + l_query.device.bytes() +
               h_query.device.bytes() + b_g2_query.device.bytes() + b_variables.bytes();
    }
    // The streamed queries' bytes (pinned host memory).
    uint64_t host_bytes() const {
        return a_query.host.bytes() + b_g1_query.host.bytes() + l_query.host.bytes() + h_query.host.bytes() +
               b_g2_query.host.bytes();
    }
};

// Where a key's points live.
struct KeyBytes {
    uint64_t device = 0;  // resident queries and B's variables
    uint64_t host = 0;    // streamed queries, pinned
};

// What a DeviceProvingKey of `key`'s shape with `b_points` points in each of B's queries
// (key.num_variables where B is dense) holds under `placement` (only the header's sizes
// are read: a key_header will do).
template <class Curve>
KeyBytes key_bytes(const groth16::generic::ProvingKey<Curve>& key, uint64_t b_points,
                   const KeyPlacement& placement = {});

// The queries of `key` (host memory: a mapped key file or a read .zkey) copied to the
// current device, or, where `placement` keeps them in host memory (streamed, or B2 on the
// host), into pinned host memory, synchronously; B's of `b_variables` alone
// (sparse_b_variables; every variable's when empty); the header keeps everything else.
// Throws CudaError.
template <class Curve>
DeviceProvingKey<Curve> upload_proving_key(const groth16::generic::ProvingKey<Curve>& key,
                                           const std::vector<uint32_t>& b_variables, unsigned host_threads,
                                           const KeyPlacement& placement = {});

// The seeded key made on the current device: `header` from groth16::key_header, each
// query's points its scalars (groth16::key_scalars) times a generator, by
// FixedBaseGenerator, the scalars copied up in chunks; B's of `b_variables` alone, as in
// upload_proving_key. A query the placement keeps in host memory is made a chunk at a
// time and copied down into pinned host memory. The same points as
// groth16::generate_key. Synchronous; throws CudaError. BLS12-381's: BN254's seeded keys
// are made on the host and uploaded (the fixed-base kernels are BLS12-381's alone).
DeviceProvingKey<curve::Bls12_381> generate_proving_key(groth16::ProvingKey header, const groth16::KeyScalars& scalars,
                                                        const std::vector<uint32_t>& b_variables, unsigned host_threads,
                                                        const KeyPlacement& placement = {});

// Device memory generate_proving_key needs beside the key: the generators' tables, a
// chunk of scalars and one of points (for a streamed query).
uint64_t key_generation_scratch_bytes();

// Builds `plan`'s tables of `key`'s queries on the current device into key.tables and
// frees each tabled query, synchronously: seconds a table at 2^24
// (docs/msm.md#base-tables). Throws CudaError.
template <class Curve>
void build_key_tables(DeviceProvingKey<Curve>& key, const MsmMemoryPlan& plan);

// The points digest of a key: what its key file's header would carry
// (groth16::KeyPointsDigest), from its points in file order (downloaded where resident),
// before build_key_tables frees any query. Synchronous.
template <class Curve>
std::string device_key_points_digest(const DeviceProvingKey<Curve>& key);

// A proving key on the device of either curve, or none (before load_key, and in a run of
// the quotient workload).
using AnyDeviceKey = std::variant<std::monostate, DeviceProvingKey<curve::Bls12_381>, DeviceProvingKey<curve::Bn254>>;

}  // namespace zkbatch::cuda
