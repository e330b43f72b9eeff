// DomainTables: the precomputed constants of all NTTs of one size n = 2^log_n — the
// pass plan, the in-pass roots, the twist and coset power tables and (g^n - 1)^-1 — of
// one family of roots (ntt::Roots): zkbatch's, or snarkjs's, whose coset is the odd points
// of the domain of 2n and which a .zkey's H convention needs (ntt_steps.hpp).
// Built once per (device, log_n, roots) and cached (DomainTablesCache). Expanded, the power
// tables hold one entry per exponent (omega^e, g^e/n, g^-e/n: 3 x 32 bytes x n, 1.5 GiB
// at 2^24, 12 GiB at 2^27) so the passes look powers up instead of multiplying two
// seeds; the device expands them from seed tables of 2 x sqrt(n) entries in a kernel.
// Seeded, the passes make each power from the seeds (ntt_pass.hpp: PowerTableView).
#pragma once

#include "gpu/util/device_buffer.hpp"
#include "gpu/ntt/ntt_pass.hpp"
#include "core/ff/fr.hpp"
#include "core/ntt/ntt.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace zkbatch::cuda::ntt {

// How the log_n stages are split into passes of at most kMaxStagesPerPass, as evenly as
// possible; stage_counts[i] is the size of the i-th pass in DIT order (lowest stages
// first). A DIF runs the same passes in reverse order.
struct NttPlan {
    static constexpr uint32_t kMaxPasses = 8;
    uint32_t log_n = 0;
    uint32_t pass_count = 0;
    uint32_t stage_counts[kMaxPasses] = {};
    uint32_t max_stage_count = 0;
    uint32_t tile_log = 0;  // every pass's block holds 2^tile_log elements

    // The plan the backends use. Tests pass smaller limits to get many passes (and
    // several groups per block) at sizes the host can emulate quickly. Throws
    // std::invalid_argument unless 1 <= log_n <= kMaxLogN and the limits are usable.
    static NttPlan for_log_n(uint32_t log_n, uint32_t max_stages_per_pass = kMaxStagesPerPass,
                             uint32_t max_tile_log = kDefaultTileLog);
    // The first stage of pass i (DIT order).
    uint32_t first_stage(uint32_t pass) const;
};

enum class Direction { forward, inverse };

// How the passes get the power tables' entries (PowerTableView): looked up in tables of
// n entries, or made from the seeds, a product each, where the tables do not fit.
enum class PowerTables { expanded, seeded };

// Pointers into one table allocation (host or device) plus the plan: all a launch needs.
// Of Fr, either curve's scalar field (ff::Fr or ff::bn254::Fr), as everything below;
// both instances are in domain_tables.cpp.
template <class Fr>
struct DomainTablesView {
    NttPlan plan;
    zkbatch::ntt::Roots family = zkbatch::ntt::Roots::zkbatch;  // of omega and g
    const Fr* roots_forward = nullptr;  // w_(2^roots_log)^i, i < 2^(roots_log - 1)
    const Fr* roots_inverse = nullptr;  // the inverses
    uint32_t roots_log = 0;
    PowerTableView<Fr> twist_forward;  // omega^e
    PowerTableView<Fr> twist_inverse;  // omega^-e (the same table, read backwards)
    PowerTableView<Fr> coset_scale;    // g^e / n: inverse NTT output -> coefficients ready for the coset
    // g^-e / (n (g^n - 1)): coset inverse NTT output of A*B - C -> coefficients of h,
    // (g^n - 1)^-1 the quotient's pointwise factor. Entries are stored times R^-1, so a
    // Montgomery product by one leaves the plain integer: h comes out canonical, as the
    // plugin ABI wants it, with no conversion step. Unused with snarkjs's roots, whose
    // quotient ends on the coset.
    PowerTableView<Fr> quotient_unscale;

    uint32_t log_n() const { return plan.log_n; }
    bool seeded_powers() const { return twist_forward.seeded; }  // PowerTables::seeded
    const Fr* roots(Direction direction) const {
        return direction == Direction::forward ? roots_forward : roots_inverse;
    }
    const PowerTableView<Fr>& twist(Direction direction) const {
        return direction == Direction::forward ? twist_forward : twist_inverse;
    }
};

// Everything small, computed on the host: the in-pass roots and, for each of the three
// power tables, its seeds (ntt_pass.hpp: power_from_seeds). `storage` holds them all;
// the offsets say where.
template <class Fr>
struct DomainSeeds {
    static constexpr int kPowerTables = 3;  // omega^e, g^e/n, g^-e/(n (g^n - 1)) R^-1
    NttPlan plan;
    zkbatch::ntt::Roots family;
    uint32_t roots_log = 0;
    uint32_t lo_bits = 0;
    std::vector<Fr> storage;
    size_t roots_forward = 0, roots_inverse = 0;
    size_t seeds_lo[kPowerTables] = {}, seeds_hi[kPowerTables] = {};

    DomainSeeds(const NttPlan& plan, zkbatch::ntt::Roots family);
    // The view of tables laid out as: storage's contents at `seeds_base`, and the three
    // power tables of n entries each at `powers_base`, or none (null: seeded views).
    DomainTablesView<Fr> view(const Fr* seeds_base, const Fr* powers_base) const;
    size_t table_size() const { return size_t{1} << plan.log_n; }
};

// The tables in host memory, power tables filled from the seeds on the host (or left
// seeded): what the host emulation of the kernels (tests) runs with.
template <class Fr>
class HostDomainTables {
public:
    explicit HostDomainTables(uint32_t log_n) : HostDomainTables(NttPlan::for_log_n(log_n)) {}
    explicit HostDomainTables(const NttPlan& plan, PowerTables power_tables = PowerTables::expanded,
                              zkbatch::ntt::Roots roots = zkbatch::ntt::Roots::zkbatch);
    const DomainTablesView<Fr>& view() const { return view_; }

private:
    DomainSeeds<Fr> seeds_;
    std::vector<Fr> powers_;
    DomainTablesView<Fr> view_;
};

// The tables in device memory of the current device: the seeds are uploaded and the
// power tables expanded from them on the device (ntt_kernels.hpp: expand_power_table),
// unless seeded.
template <class Fr>
class DeviceDomainTables {
public:
    explicit DeviceDomainTables(uint32_t log_n, PowerTables power_tables = PowerTables::expanded,
                                zkbatch::ntt::Roots roots = zkbatch::ntt::Roots::zkbatch)
        : DeviceDomainTables(NttPlan::for_log_n(log_n), power_tables, roots) {}
    explicit DeviceDomainTables(const NttPlan& plan, PowerTables power_tables = PowerTables::expanded,
                                zkbatch::ntt::Roots roots = zkbatch::ntt::Roots::zkbatch);
    const DomainTablesView<Fr>& view() const { return view_; }
    // Device memory the tables of a domain of 2^log_n take.
    static uint64_t device_bytes(uint32_t log_n, PowerTables power_tables = PowerTables::expanded);

private:
    DeviceBuffer<Fr> seeds_;
    DeviceBuffer<Fr> powers_;
    DomainTablesView<Fr> view_;
};

// One per backend (one device): tables built on first use of each log_n, kind and family of
// roots, then reused by every worker. Thread-safe.
template <class Fr>
class DomainTablesCache {
public:
    explicit DomainTablesCache(int device) : device_(device) {}
    const DomainTablesView<Fr>& get(uint32_t log_n, PowerTables power_tables, zkbatch::ntt::Roots roots);

private:
    int device_;
    std::mutex mutex_;
    std::map<std::tuple<uint32_t, PowerTables, zkbatch::ntt::Roots>, std::unique_ptr<DeviceDomainTables<Fr>>> tables_;
};

}  // namespace zkbatch::cuda::ntt
