#include "gpu/key/device_key.hpp"

#include "gpu/util/event.hpp"
#include "gpu/key/fixed_base.hpp"
#include "gpu/util/pinned_buffer.hpp"
#include "core/groth16/key_file.hpp"
#include "core/plugin/error.hpp"
#include "core/util/parallel.hpp"

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace zkbatch::cuda {

namespace {

// Scalars copied up per fixed-base launch: 128 MiB of Fr.
constexpr uint64_t kScalarChunk = uint64_t{1} << 22;
// Bytes per download of the digest's pass.
constexpr uint64_t kDigestChunkBytes = uint64_t{64} << 20;

template <class Point>
DeviceBuffer<Point> upload(std::span<const Point> points) {
    DeviceBuffer<Point> buffer(points.size());
    if (!points.empty()) buffer.copy_from_host(points.data(), points.size());
    return buffer;
}

// A query of `points` (host memory): on the device, or, `in_host`, copied into pinned
// host memory on the host's threads.
template <class Point>
KeyQuery<Point> place(std::span<const Point> points, bool in_host, unsigned threads) {
    KeyQuery<Point> query;
    if (!in_host) {
        query.device = upload(points);
        return query;
    }
    query.host = PinnedBuffer(points.size_bytes());
    auto* out = static_cast<Point*>(query.host.data());
    util::parallel_for(0, points.size(), threads, [&](size_t begin, size_t end) {
        std::memcpy(static_cast<void*>(out + begin), points.data() + begin, (end - begin) * sizeof(Point));
    });
    return query;
}

// out[i] = [scalars[i]] generator for the whole vector, a chunk at a time: into device
// memory, or, `in_host`, through `points_chunk` (device, kScalarChunk points) into pinned
// host memory.
template <class C>
KeyQuery<ec::Affine<C>> multiply(const FixedBaseGenerator<C>& generator, const std::vector<ff::Fr>& scalars,
                                 bool in_host, DeviceBuffer<ff::Fr>& chunk, DeviceBuffer<uint8_t>& points_chunk,
                                 const Stream& stream) {
    using Point = ec::Affine<C>;
    KeyQuery<Point> query;
    if (in_host) {
        query.host = PinnedBuffer(scalars.size() * sizeof(Point));
    } else {
        query.device = DeviceBuffer<Point>(scalars.size());
    }
    for (uint64_t first = 0; first < scalars.size(); first += kScalarChunk) {
        const uint64_t count = std::min<uint64_t>(kScalarChunk, scalars.size() - first);
        // The previous chunk's kernel reads `chunk`, and its copy down `points_chunk`,
        // until they end.
        stream.synchronize();
        stream.copy_to_device(chunk.data(), scalars.data() + first, count * sizeof(ff::Fr));
        Point* out = in_host ? reinterpret_cast<Point*>(points_chunk.data()) : query.device.data() + first;
        generator.multiply(chunk.data(), count, out, stream);
        if (in_host) stream.copy_to_host(static_cast<Point*>(query.host.data()) + first, out, count * sizeof(Point));
    }
    stream.synchronize();
    return query;
}

// Each present table with its name, in the facts' order.
template <class Curve, class F>
void for_each_table(const KeyTables<Curve>& tables, F&& visit) {
    visit("a", tables.a.get());
    visit("b_g1", tables.b_g1.get());
    visit("b_g2", tables.b_g2.get());
    visit("l", tables.l.get());
    visit("h", tables.h.get());
}

std::string listed(const std::vector<std::string>& items) {
    std::string list;
    for (const std::string& item : items) list += (list.empty() ? "" : ",") + item;
    return list.empty() ? "none" : list;
}

// items[indices[j]] for every j, gathered on the host's threads.
template <class T>
std::vector<T> gathered(std::span<const T> items, const std::vector<uint32_t>& indices, unsigned threads) {
    std::vector<T> out(indices.size());
    util::parallel_for(0, indices.size(), threads, [&](size_t begin, size_t end) {
        for (size_t j = begin; j < end; ++j) out[j] = items[indices[j]];
    });
    return out;
}

// A B query (host memory) placed: the points of `b_variables`, or all where empty.
template <class Point>
KeyQuery<Point> place_b(std::span<const Point> points, const std::vector<uint32_t>& b_variables, bool in_host,
                        unsigned threads) {
    if (b_variables.empty()) return place(points, in_host, threads);
    const std::vector<Point> compact = gathered(points, b_variables, threads);
    return place(std::span<const Point>(compact), in_host, threads);
}

template <class Curve>
groth16::generic::ProvingKey<Curve> without_queries(groth16::generic::ProvingKey<Curve> key) {
    key.a_query = {};
    key.b_g1_query = {};
    key.b_g2_query = {};
    key.l_query = {};
    key.h_query = {};
    key.storage.reset();
    return key;
}

}  // namespace

std::vector<uint32_t> sparse_b_variables(uint64_t m, unsigned threads, const std::function<bool(uint64_t)>& in_b) {
    // Blocks of variables marked and counted in parallel, then each block's written where
    // the blocks before it end.
    constexpr uint64_t kBlock = uint64_t{1} << 20;
    const uint64_t blocks = (m + kBlock - 1) / kBlock;
    const auto block_end = [&](uint64_t block) { return std::min(m, (block + 1) * kBlock); };
    std::vector<uint8_t> marks(m);
    std::vector<uint64_t> starts(blocks);
    util::parallel_for(0, blocks, threads, [&](size_t first, size_t last) {
        for (size_t block = first; block < last; ++block) {
            for (uint64_t i = block * kBlock; i < block_end(block); ++i) starts[block] += marks[i] = in_b(i) ? 1 : 0;
        }
    });
    uint64_t total = 0;
    for (uint64_t& start : starts) total += std::exchange(start, total);
    if (static_cast<double>(total) > kSparseB * static_cast<double>(m)) return {};
    std::vector<uint32_t> variables(total);
    util::parallel_for(0, blocks, threads, [&](size_t first, size_t last) {
        for (size_t block = first; block < last; ++block) {
            uint64_t next = starts[block];
            for (uint64_t i = block * kBlock; i < block_end(block); ++i) {
                if (marks[i]) variables[next++] = static_cast<uint32_t>(i);
            }
        }
    });
    return variables;
}

template <class Curve>
KeyBytes key_bytes(const groth16::generic::ProvingKey<Curve>& key, uint64_t b_points, const KeyPlacement& placement) {
    using groth16::ProofMsm;
    using G1Affine = curve::G1Affine<Curve>;
    KeyBytes bytes;
    bytes.device = b_points < key.num_variables ? b_points * sizeof(uint32_t) : 0;  // B's variables
    const auto add = [&](ProofMsm query, uint64_t query_bytes) {
        (placement.in_host_memory(query) ? bytes.host : bytes.device) += query_bytes;
    };
    add(ProofMsm::a, key.num_variables * sizeof(G1Affine));
    add(ProofMsm::b_g1, b_points * sizeof(G1Affine));
    add(ProofMsm::b_g2, b_points * sizeof(curve::G2Affine<Curve>));
    add(ProofMsm::l, key.private_variables() * sizeof(G1Affine));
    add(ProofMsm::h, key.h_points() * sizeof(G1Affine));
    return bytes;
}

template <class Curve>
uint64_t KeyTables<Curve>::device_bytes() const {
    uint64_t bytes = 0;
    for_each_table(*this, [&](const char*, const auto* table) { bytes += table ? table->device_bytes() : 0; });
    return bytes;
}

template <class Curve>
std::string KeyTables<Curve>::names() const {
    std::vector<std::string> names;
    for_each_table(*this, [&](const char* name, const auto* table) {
        if (table) names.emplace_back(name);
    });
    return listed(names);
}

template <class Curve>
std::string KeyTables<Curve>::shapes() const {
    std::vector<std::string> shapes;
    for_each_table(*this, [&](const char* name, const auto* table) {
        if (table) shapes.push_back(plugin::concat(name, "=", table->shape().window_bits, "/", table->shape().stride));
    });
    return listed(shapes);
}

std::vector<msm::TableShape> strided_table_shapes(uint64_t points) {
    const double over_bases = msm::estimated_msm_cost(points, msm::choose_window_bits(points));
    std::vector<msm::TableShape> shapes;
    uint32_t fewest_multiples = UINT32_MAX;
    for (uint32_t stride = 2;; ++stride) {
        const msm::TableShape shape{msm::choose_window_bits(points, msm::kMaxWindowBits, stride), stride};
        if (shape.multiples() < 2 || msm::estimated_msm_cost(points, shape.window_bits, stride) >= over_bases) break;
        // A larger stride that saves no memory only adds bucket sets.
        if (shape.multiples() < fewest_multiples) shapes.push_back(shape);
        fewest_multiples = std::min(fewest_multiples, shape.multiples());
    }
    return shapes;
}

namespace {

// One table to build: its device bytes, and its query's, freed once it is built.
struct TableBytes {
    uint64_t table, query;
};

template <class C>
TableBytes table_bytes(uint64_t points, msm::TableShape shape) {
    return {msm::BaseTable<C>::device_bytes_for(points, shape), points * sizeof(ec::Affine<C>)};
}

// A query's table (stride 1 or more), or none.
using TableOption = std::optional<msm::TableShape>;

// The plan of what the free memory buys, grown one candidate at a time: a candidate is
// the plan with something added, and becomes the plan only if it fits.
class MemoryPlanner {
public:
    MemoryPlanner(uint64_t free_bytes, const WorkersBytes& workers_bytes, const KeyPlacement& placement)
        : free_bytes_(free_bytes), workers_bytes_(&workers_bytes) {
        plan_.key = placement;
    }

    const MsmMemoryPlan& plan() const { return plan_; }

    // Makes `candidate`, with `tables` added, the plan if every worker (under the
    // candidate) and each table as it is built, in order, fit beside the tables of the
    // plan so far and those built before it; returns whether it did.
    bool try_add(MsmMemoryPlan candidate, std::initializer_list<TableBytes> tables) {
        const uint64_t workers = (*workers_bytes_)(candidate);
        const uint64_t tables_bytes = plan_.device_bytes - plan_.freed_query_bytes;
        if (workers > free_bytes_ || tables_bytes > free_bytes_ - workers) return false;
        uint64_t left = free_bytes_ - workers - tables_bytes;
        for (const TableBytes& next : tables) {
            if (next.table > left) return false;
            left = left - next.table + next.query;
            candidate.device_bytes += next.table;
            candidate.freed_query_bytes += next.query;
        }
        plan_ = candidate;
        return true;
    }

private:
    uint64_t free_bytes_;
    const WorkersBytes* workers_bytes_;
    MsmMemoryPlan plan_;
};

// z's tables, whole: A's and B1's (G1) and B2's (G2) together, or none.
template <class Curve>
void plan_z_tables(MemoryPlanner& planner, const groth16::generic::ProvingKey<Curve>& shape, uint64_t b_points,
                   msm::TableShape whole) {
    using G1Params = typename Curve::G1Params;
    MsmMemoryPlan candidate = planner.plan();
    candidate.z = whole;
    planner.try_add(candidate,
                    {table_bytes<G1Params>(shape.num_variables, whole), table_bytes<G1Params>(b_points, whole),
                     table_bytes<typename Curve::G2Params>(b_points, whole)});
}

// B2's rounds: the longest segments whose scratch fits on its own, or else in one block
// with a, b and c (whose uploads it delays to L, so only where it must); as `g2_rounds` says.
void plan_g2_rounds(MemoryPlanner& planner, G2Rounds g2_rounds) {
    if (g2_rounds == G2Rounds::off) return;
    for (const uint32_t segment : kG2AffineSegments) {
        MsmMemoryPlan candidate = planner.plan();
        candidate.g2_affine_segment = segment;
        if (g2_rounds == G2Rounds::automatic && planner.try_add(candidate, {})) return;
        candidate.g2_scratch_in_vectors = true;
        if (planner.try_add(candidate, {})) return;
    }
}

// The tables an MSM of `points` points may have, most memory first, then none: whole or
// one of strided_table_shapes; or, for a stride s > 0 asked for, that stride alone (at
// most the table's windows) at the cost model's width for it.
std::vector<TableOption> table_options(uint64_t points, msm::TableShape whole, uint32_t stride) {
    std::vector<TableOption> options;
    if (stride == 0) {
        options.emplace_back(whole);
        for (const msm::TableShape& strided : strided_table_shapes(points)) options.emplace_back(strided);
    } else {
        const uint32_t bits = msm::choose_window_bits(points, msm::kMaxWindowBits, stride);
        options.emplace_back(msm::TableShape{bits, std::min(stride, msm::WindowLayout::windows_for(bits))});
    }
    options.emplace_back(std::nullopt);
    return options;
}

// The cost model's figure for an MSM of `points` points over `table`, or over the bases.
double msm_cost(uint64_t points, const TableOption& table) {
    return table ? msm::estimated_msm_cost(points, table->window_bits, table->stride)
                 : msm::estimated_msm_cost(points, msm::choose_window_bits(points));
}

// H's and L's tables, chosen together: of every pair of options that fits, H's built
// first, the pair the cost model finds cheapest; the first such in the options' order on
// a tie. H's best table alone can take the room that L's needed for more: at 2^26, 24/3
// with L plain against 22/4 with L at 22/6. Returns the planner's plan with that pair.
template <class Curve>
MsmMemoryPlan plan_h_and_l_tables(const MemoryPlanner& planner, const groth16::generic::ProvingKey<Curve>& shape,
                                  msm::TableShape whole, uint32_t stride) {
    using G1Params = typename Curve::G1Params;
    const uint64_t h_points = shape.h_points(), l_points = shape.private_variables();
    const std::vector<TableOption> h_options = table_options(h_points, whole, stride);
    const std::vector<TableOption> l_options = table_options(l_points, whole, stride);
    MsmMemoryPlan best = planner.plan();
    double best_cost = msm_cost(h_points, std::nullopt) + msm_cost(l_points, std::nullopt);
    for (const TableOption& h : h_options) {
        for (const TableOption& l : l_options) {
            MemoryPlanner pair = planner;
            MsmMemoryPlan with_h = pair.plan();
            with_h.h = h;
            if (h && !pair.try_add(with_h, {table_bytes<G1Params>(h_points, *h)})) continue;
            MsmMemoryPlan with_l = pair.plan();
            with_l.l = l;
            if (l && !pair.try_add(with_l, {table_bytes<G1Params>(l_points, *l)})) continue;
            const double pair_cost = msm_cost(h_points, h) + msm_cost(l_points, l);
            if (pair_cost < best_cost) {
                best = pair.plan();
                best_cost = pair_cost;
            }
        }
    }
    return best;
}

}  // namespace

template <class Curve>
MsmMemoryPlan plan_msm_memory(const groth16::generic::ProvingKey<Curve>& shape, uint64_t b_points,
                              const KeyPlacement& placement, uint64_t free_bytes, bool tables, G2Rounds g2_rounds,
                              const WorkersBytes& workers_bytes, uint32_t g1_table_stride) {
    MemoryPlanner planner(free_bytes, workers_bytes, placement);
    tables = tables && !placement.any_in_host_memory();
    const msm::TableShape whole{key_table_window_bits(shape), 1};
    if (tables) plan_z_tables(planner, shape, b_points, whole);
    plan_g2_rounds(planner, placement.b2_on_host() ? G2Rounds::off : g2_rounds);
    if (!tables) return planner.plan();
    return plan_h_and_l_tables(planner, shape, whole, g1_table_stride);
}

template <class Curve>
void build_key_tables(DeviceProvingKey<Curve>& key, const MsmMemoryPlan& plan) {
    const Stream stream;
    // The table of a resident `query`, which is then freed (its points are the table's
    // multiple 0).
    const auto table_of = [&]<class C>(KeyQuery<ec::Affine<C>>& query, msm::TableShape shape) {
        if (query.in_host_memory()) throw std::logic_error("build_key_tables: a table of a query in host memory");
        auto table = std::make_unique<msm::BaseTable<C>>(query.device.size(), shape);
        table->build(query.device.data(), query.device.size(), stream);
        stream.synchronize();
        query.device = DeviceBuffer<ec::Affine<C>>();
        return table;
    };
    KeyTables<Curve>& tables = key.tables;
    if (plan.z) {
        tables.a = table_of(key.a_query, *plan.z);
        tables.b_g1 = table_of(key.b_g1_query, *plan.z);
        tables.b_g2 = table_of(key.b_g2_query, *plan.z);
    }
    if (plan.h) tables.h = table_of(key.h_query, *plan.h);
    if (plan.l) tables.l = table_of(key.l_query, *plan.l);
}

template <class Curve>
DeviceProvingKey<Curve> upload_proving_key(const groth16::generic::ProvingKey<Curve>& key,
                                           const std::vector<uint32_t>& b_variables, unsigned host_threads,
                                           const KeyPlacement& placement) {
    using groth16::ProofMsm;
    DeviceProvingKey<Curve> device;
    device.placement = placement;
    device.b_variables = upload(std::span<const uint32_t>(b_variables));
    if (placement.b2_on_host()) device.host_b_variables = b_variables;
    device.a_query = place(key.a_query, placement.in_host_memory(ProofMsm::a), host_threads);
    device.b_g1_query = place_b(key.b_g1_query, b_variables, placement.in_host_memory(ProofMsm::b_g1), host_threads);
    device.b_g2_query = place_b(key.b_g2_query, b_variables, placement.in_host_memory(ProofMsm::b_g2), host_threads);
    device.l_query = place(key.l_query, placement.in_host_memory(ProofMsm::l), host_threads);
    device.h_query = place(key.h_query, placement.in_host_memory(ProofMsm::h), host_threads);
    device.header = without_queries(key);
    return device;
}

uint64_t key_generation_scratch_bytes() {
    return FixedBaseGenerator<ec::G1Params>::table_bytes() + FixedBaseGenerator<ec::G2Params>::table_bytes() +
           kScalarChunk * (sizeof(ff::Fr) + sizeof(ec::G2Affine));
}

DeviceProvingKey<curve::Bls12_381> generate_proving_key(groth16::ProvingKey header, const groth16::KeyScalars& scalars,
                                                        const std::vector<uint32_t>& b_variables, unsigned host_threads,
                                                        const KeyPlacement& placement) {
    using groth16::ProofMsm;
    const Stream stream;
    DeviceBuffer<ff::Fr> chunk(kScalarChunk);
    DeviceBuffer<uint8_t> points_chunk(placement.any_in_host_memory() ? kScalarChunk * sizeof(ec::G2Affine) : 0);
    const auto made = [&](const auto& generator, const std::vector<ff::Fr>& query_scalars, ProofMsm query) {
        return multiply(generator, query_scalars, placement.in_host_memory(query), chunk, points_chunk, stream);
    };
    DeviceProvingKey<curve::Bls12_381> device;
    device.placement = placement;
    device.b_variables = upload(std::span<const uint32_t>(b_variables));
    if (placement.b2_on_host()) device.host_b_variables = b_variables;
    std::vector<ff::Fr> compact_b;
    if (!b_variables.empty()) compact_b = gathered(std::span<const ff::Fr>(scalars.b), b_variables, host_threads);
    const std::vector<ff::Fr>& b_scalars = b_variables.empty() ? scalars.b : compact_b;
    {
        const FixedBaseGenerator<ec::G1Params> g1(ec::g1_generator(), host_threads);
        device.a_query = made(g1, scalars.a, ProofMsm::a);
        device.b_g1_query = made(g1, b_scalars, ProofMsm::b_g1);
        device.l_query = made(g1, scalars.l, ProofMsm::l);
        device.h_query = made(g1, scalars.h, ProofMsm::h);
    }
    const FixedBaseGenerator<ec::G2Params> g2(ec::g2_generator(), host_threads);
    device.b_g2_query = made(g2, b_scalars, ProofMsm::b_g2);
    device.header = without_queries(std::move(header));
    return device;
}

namespace {

using Section = groth16::KeyPointsDigest::Section;

// Adds a query's points (device memory) to `digest` piece by piece through two pinned
// halves: the next piece downloads while the host digests this one.
void add_device_points(groth16::KeyPointsDigest& digest, Section section, const void* points, uint64_t bytes,
                       const Stream& stream, PinnedBuffer& staging, const Event (&downloaded)[2]) {
    const uint64_t pieces = (bytes + kDigestChunkBytes - 1) / kDigestChunkBytes;
    const auto half = [&](uint64_t k) { return static_cast<uint8_t*>(staging.data()) + (k % 2) * kDigestChunkBytes; };
    const auto piece_bytes = [&](uint64_t k) { return std::min(kDigestChunkBytes, bytes - k * kDigestChunkBytes); };
    const auto enqueue = [&](uint64_t k) {
        stream.copy_to_host(half(k), static_cast<const uint8_t*>(points) + k * kDigestChunkBytes, piece_bytes(k));
        downloaded[k % 2].record(stream);
    };
    if (pieces > 0) enqueue(0);
    for (uint64_t k = 0; k < pieces; ++k) {
        if (k + 1 < pieces) enqueue(k + 1);  // into the other half, digested already
        downloaded[k % 2].synchronize();
        digest.add(section, half(k), piece_bytes(k));
    }
}

// A query's points in host memory: its pinned copy where it has one, else downloaded.
template <class Point>
std::span<const Point> host_view(const KeyQuery<Point>& query, std::vector<Point>& downloaded) {
    if (query.in_host_memory()) return {query.host_points(), query.host.bytes() / sizeof(Point)};
    downloaded.resize(query.device.size());
    query.device.copy_to_host(downloaded.data(), downloaded.size());
    return downloaded;
}

// Adds a sparse B query as its file holds it: every variable's point, those of the
// variables outside `variables` at infinity ((0, 0): zero bytes).
template <class Point>
void add_sparse_points(groth16::KeyPointsDigest& digest, Section section, const KeyQuery<Point>& query,
                       const std::vector<uint32_t>& variables, uint64_t m) {
    std::vector<Point> downloaded;
    const std::span<const Point> points = host_view(query, downloaded);
    const uint64_t piece_points = kDigestChunkBytes / sizeof(Point);
    std::vector<Point> piece(piece_points);
    size_t next = 0;  // the first of `variables` not yet placed
    for (uint64_t first = 0; first < m; first += piece_points) {
        const uint64_t count = std::min(piece_points, m - first);
        std::memset(static_cast<void*>(piece.data()), 0, count * sizeof(Point));
        for (; next < variables.size() && variables[next] < first + count; ++next)
            piece[variables[next] - first] = points[next];
        digest.add(section, piece.data(), count * sizeof(Point));
    }
}

}  // namespace

template <class Curve>
std::string device_key_points_digest(const DeviceProvingKey<Curve>& key) {
    const groth16::generic::ProvingKey<Curve>& header = key.header;
    groth16::KeyPointsDigest digest(Curve::kId, header.log_n, header.num_variables, header.num_public,
                                    header.h_convention);
    const std::vector<uint8_t> vk = groth16::vk_section_bytes(header);
    digest.add(Section::vk, vk.data(), vk.size());
    const Stream stream;
    PinnedBuffer staging(2 * kDigestChunkBytes);
    const Event downloaded[2];
    const auto add = [&](Section section, const auto& query) {
        if (query.in_host_memory()) {
            digest.add(section, query.host.data(), query.host.bytes());
        } else {
            add_device_points(digest, section, query.device.data(), query.device.bytes(), stream, staging, downloaded);
        }
    };
    add(Section::a, key.a_query);
    if (key.b_variables.size() == 0) {
        add(Section::b_g1, key.b_g1_query);
        add(Section::b_g2, key.b_g2_query);
    } else {
        std::vector<uint32_t> variables(key.b_variables.size());
        key.b_variables.copy_to_host(variables.data(), variables.size());
        add_sparse_points(digest, Section::b_g1, key.b_g1_query, variables, header.num_variables);
        add_sparse_points(digest, Section::b_g2, key.b_g2_query, variables, header.num_variables);
    }
    add(Section::l, key.l_query);
    add(Section::h, key.h_query);
    return digest.finish();
}

#define ZKB_DEVICE_KEY_INSTANTIATE(Curve)                                                                             \
    template struct KeyTables<Curve>;                                                                                 \
    template MsmMemoryPlan plan_msm_memory(const groth16::generic::ProvingKey<Curve>&, uint64_t, const KeyPlacement&, \
                                           uint64_t, bool, G2Rounds, const WorkersBytes&, uint32_t);                  \
    template KeyBytes key_bytes(const groth16::generic::ProvingKey<Curve>&, uint64_t, const KeyPlacement&);           \
    template DeviceProvingKey<Curve> upload_proving_key(const groth16::generic::ProvingKey<Curve>&,                   \
                                                        const std::vector<uint32_t>&, unsigned, const KeyPlacement&); \
    template void build_key_tables(DeviceProvingKey<Curve>&, const MsmMemoryPlan&);                                   \
    template std::string device_key_points_digest(const DeviceProvingKey<Curve>&);
ZKB_DEVICE_KEY_INSTANTIATE(curve::Bls12_381)
ZKB_DEVICE_KEY_INSTANTIATE(curve::Bn254)
#undef ZKB_DEVICE_KEY_INSTANTIATE

}  // namespace zkbatch::cuda
