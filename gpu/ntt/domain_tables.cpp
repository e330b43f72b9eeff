#include "gpu/ntt/domain_tables.hpp"

#include "gpu/util/cuda_check.hpp"
#include "gpu/ntt/ntt_kernels.hpp"
#include "core/plugin/error.hpp"

#include <stdexcept>

namespace zkbatch::cuda::ntt {

NttPlan NttPlan::for_log_n(uint32_t log_n, uint32_t max_stages_per_pass, uint32_t max_tile_log) {
    if (log_n < 1 || log_n > kMaxLogN) {
        throw std::invalid_argument(
            plugin::concat("NTT size 2^", log_n, " is not supported (1 <= log_n <= ", kMaxLogN, ")"));
    }
    if (max_stages_per_pass < 1 || max_stages_per_pass > max_tile_log || max_tile_log > kTileLog ||
        (log_n + max_stages_per_pass - 1) / max_stages_per_pass > kMaxPasses) {
        throw std::invalid_argument(plugin::concat("NttPlan: unusable limits (", max_stages_per_pass,
                                                   " stages per pass, tiles of 2^", max_tile_log, ") for log_n ",
                                                   log_n));
    }
    NttPlan plan;
    plan.log_n = log_n;
    plan.pass_count = (log_n + max_stages_per_pass - 1) / max_stages_per_pass;
    const uint32_t base = log_n / plan.pass_count;
    const uint32_t extra = log_n % plan.pass_count;
    for (uint32_t pass = 0; pass < plan.pass_count; ++pass) {
        plan.stage_counts[pass] = base + (pass < extra ? 1 : 0);
        if (plan.stage_counts[pass] > plan.max_stage_count) plan.max_stage_count = plan.stage_counts[pass];
    }
    plan.tile_log = log_n < max_tile_log ? log_n : max_tile_log;
    return plan;
}

uint32_t NttPlan::first_stage(uint32_t pass) const {
    uint32_t stage = 0;
    for (uint32_t i = 0; i < pass; ++i) stage += stage_counts[i];
    return stage;
}

namespace {

// lo[i] = base^i (i < 2^lo_bits) and hi[j] = scale * base^(j * 2^lo_bits) for exponents
// < 2^range_log: the seeds of power_from_seeds.
template <class Fr>
void fill_seeds(Fr* lo, Fr* hi, uint32_t lo_bits, uint32_t range_log, const Fr& base, const Fr& scale) {
    Fr power = Fr::one();
    for (uint64_t i = 0; i < (uint64_t{1} << lo_bits); ++i) {
        lo[i] = power;
        power = power * base;
    }
    const Fr step = power;  // base^(2^lo_bits)
    Fr high = scale;
    for (uint64_t j = 0; j < (uint64_t{1} << (range_log - lo_bits)); ++j) {
        hi[j] = high;
        high = high * step;
    }
}

}  // namespace

template <class Fr>
DomainSeeds<Fr>::DomainSeeds(const NttPlan& domain_plan, zkbatch::ntt::Roots roots) : plan(domain_plan), family(roots) {
    const uint32_t log_n = plan.log_n;
    roots_log = plan.max_stage_count;
    lo_bits = PowerTableView<Fr>::lo_bits(log_n);  // the seeds' split a seeded view assumes
    const size_t roots_size = size_t{1} << (roots_log - 1);
    const size_t lo_size = size_t{1} << lo_bits;
    const size_t hi_size = size_t{1} << (log_n - lo_bits);

    size_t offset = 0;
    roots_forward = offset;
    offset += roots_size;
    roots_inverse = offset;
    offset += roots_size;
    for (int table = 0; table < kPowerTables; ++table) {  // hi right after lo: a seeded view's layout
        seeds_lo[table] = offset;
        offset += lo_size;
        seeds_hi[table] = offset;
        offset += hi_size;
    }
    storage.assign(offset, Fr::zero());

    const Fr omega = zkbatch::ntt::root_of_unity<Fr>(roots, log_n);
    const Fr g = zkbatch::ntt::coset_shift<Fr>(roots, log_n);
    const Fr n_inverse = Fr::from_u64(uint64_t{1} << log_n).inverse();

    // In-pass roots: w = omega^(2^(log_n - roots_log)), a primitive 2^roots_log-th root.
    const Fr stage_root = omega.pow(uint64_t{1} << (log_n - roots_log));
    const Fr stage_root_inverse = stage_root.inverse();
    Fr power = Fr::one();
    Fr power_inverse = Fr::one();
    for (size_t i = 0; i < roots_size; ++i) {
        storage[roots_forward + i] = power;
        storage[roots_inverse + i] = power_inverse;
        power = power * stage_root;
        power_inverse = power_inverse * stage_root_inverse;
    }

    // g^n - 1 != 0 because g is not in the domain (BLS12-381's 7 and BN254's 5 are no
    // 2^kTwoAdicity-th roots of unity; snarkjs's omega'_2n^n is -1).
    const Fr vanishing_inverse = (g.pow(uint64_t{1} << log_n) - Fr::one()).inverse();
    // The Fr whose Montgomery limbs are the integer 1 is R^-1 (DomainTablesView::quotient_unscale).
    const Fr r_inverse{{1, 0, 0, 0}};
    const Fr bases[kPowerTables] = {omega, g, g.inverse()};
    const Fr scales[kPowerTables] = {Fr::one(), n_inverse, n_inverse * vanishing_inverse * r_inverse};
    for (int table = 0; table < kPowerTables; ++table) {
        fill_seeds(&storage[seeds_lo[table]], &storage[seeds_hi[table]], lo_bits, log_n, bases[table], scales[table]);
    }
}

template <class Fr>
DomainTablesView<Fr> DomainSeeds<Fr>::view(const Fr* seeds_base, const Fr* powers_base) const {
    DomainTablesView<Fr> view;
    view.plan = plan;
    view.family = family;
    view.roots_log = roots_log;
    view.roots_forward = seeds_base + roots_forward;
    view.roots_inverse = seeds_base + roots_inverse;
    const uint32_t log_n = plan.log_n;
    const auto table = [&](int index, bool negate) {
        const bool seeded = powers_base == nullptr;
        const Fr* entries = seeded ? seeds_base + seeds_lo[index] : powers_base + index * table_size();
        return PowerTableView<Fr>{entries, log_n, negate, seeded};
    };
    view.twist_forward = table(0, false);
    view.twist_inverse = table(0, true);
    view.coset_scale = table(1, false);
    view.quotient_unscale = table(2, false);
    return view;
}

template <class Fr>
HostDomainTables<Fr>::HostDomainTables(const NttPlan& plan, PowerTables power_tables, zkbatch::ntt::Roots roots)
    : seeds_(plan, roots) {
    if (power_tables == PowerTables::seeded) {
        view_ = seeds_.view(seeds_.storage.data(), nullptr);
        return;
    }
    const size_t n = seeds_.table_size();
    powers_.resize(DomainSeeds<Fr>::kPowerTables * n);
    for (int table = 0; table < DomainSeeds<Fr>::kPowerTables; ++table) {
        const Fr* lo = &seeds_.storage[seeds_.seeds_lo[table]];
        const Fr* hi = &seeds_.storage[seeds_.seeds_hi[table]];
        for (size_t e = 0; e < n; ++e) {
            powers_[table * n + e] = power_from_seeds(lo, hi, seeds_.lo_bits, static_cast<uint32_t>(e));
        }
    }
    view_ = seeds_.view(seeds_.storage.data(), powers_.data());
}

template <class Fr>
DeviceDomainTables<Fr>::DeviceDomainTables(const NttPlan& plan, PowerTables power_tables, zkbatch::ntt::Roots roots) {
    const DomainSeeds<Fr> seeds(plan, roots);
    seeds_ = DeviceBuffer<Fr>(seeds.storage.size());
    seeds_.copy_from_host(seeds.storage.data(), seeds.storage.size());
    if (power_tables == PowerTables::seeded) {
        view_ = seeds.view(seeds_.data(), nullptr);
        return;
    }
    const size_t n = seeds.table_size();
    powers_ = DeviceBuffer<Fr>(DomainSeeds<Fr>::kPowerTables * n);
    for (int table = 0; table < DomainSeeds<Fr>::kPowerTables; ++table) {
        expand_power_table(seeds_.data() + seeds.seeds_lo[table], seeds_.data() + seeds.seeds_hi[table], seeds.lo_bits,
                           powers_.data() + table * n, plan.log_n);
    }
    ZKB_CUDA_CHECK(cudaDeviceSynchronize());
    view_ = seeds.view(seeds_.data(), powers_.data());
}

template <class Fr>
uint64_t DeviceDomainTables<Fr>::device_bytes(uint32_t log_n, PowerTables power_tables) {
    const DomainSeeds<Fr> seeds(NttPlan::for_log_n(log_n), zkbatch::ntt::Roots::zkbatch);  // either family's size
    const uint64_t powers =
        power_tables == PowerTables::expanded ? DomainSeeds<Fr>::kPowerTables * seeds.table_size() : 0;
    return (seeds.storage.size() + powers) * sizeof(Fr);
}

template <class Fr>
const DomainTablesView<Fr>& DomainTablesCache<Fr>::get(uint32_t log_n, PowerTables power_tables,
                                                       zkbatch::ntt::Roots roots) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const std::tuple key{log_n, power_tables, roots};
    auto found = tables_.find(key);
    if (found == tables_.end()) {
        ZKB_CUDA_CHECK(cudaSetDevice(device_));
        found = tables_.emplace(key, std::make_unique<DeviceDomainTables<Fr>>(log_n, power_tables, roots)).first;
    }
    return found->second->view();
}

#define ZKB_DOMAIN_TABLES_INSTANTIATE(Fr)  \
    template struct DomainSeeds<Fr>;       \
    template class HostDomainTables<Fr>;   \
    template class DeviceDomainTables<Fr>; \
    template class DomainTablesCache<Fr>;
ZKB_DOMAIN_TABLES_INSTANTIATE(ff::Fr)
ZKB_DOMAIN_TABLES_INSTANTIATE(ff::bn254::Fr)
#undef ZKB_DOMAIN_TABLES_INSTANTIATE

}  // namespace zkbatch::cuda::ntt
