#include <zkbatch/cuda/domain_tables.hpp>

#include <zkbatch/cuda/cuda_check.hpp>
#include <zkbatch/plugin/error.hpp>

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

// Storage layout: offsets (in elements) of each table in one allocation.
struct Layout {
    size_t roots_forward = 0, roots_inverse = 0;
    size_t power_tables[4][2] = {};  // [twist_forward, twist_inverse, coset_scale, coset_unscale][lo, hi]
    size_t total = 0;
};

// Fills lo[i] = base^i and hi[j] = scale * base^(j * 2^lo_bits) for exponents < 2^range_log.
void fill_power_table(Fr* lo, Fr* hi, uint32_t lo_bits, uint32_t range_log, const Fr& base, const Fr& scale) {
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

HostDomainTables::HostDomainTables(const NttPlan& plan) {
    const uint32_t log_n = plan.log_n;
    const uint32_t roots_log = plan.max_stage_count;
    const uint32_t lo_bits = (log_n + 1) / 2;
    const size_t roots_size = size_t{1} << (roots_log - 1);
    const size_t lo_size = size_t{1} << lo_bits;
    const size_t hi_size = size_t{1} << (log_n - lo_bits);

    Layout layout;
    size_t offset = 0;
    layout.roots_forward = offset;
    offset += roots_size;
    layout.roots_inverse = offset;
    offset += roots_size;
    for (auto& table : layout.power_tables) {
        table[0] = offset;
        offset += lo_size;
        table[1] = offset;
        offset += hi_size;
    }
    layout.total = offset;
    storage_.assign(layout.total, Fr::zero());

    const Fr omega = ff::root_of_unity(log_n);
    const Fr omega_inverse = omega.inverse();
    const Fr g = Fr::coset_shift();
    const Fr g_inverse = g.inverse();
    const Fr n_inverse = Fr::from_u64(uint64_t{1} << log_n).inverse();

    // In-pass roots: w = omega^(2^(log_n - roots_log)), a primitive 2^roots_log-th root.
    const Fr stage_root = omega.pow(uint64_t{1} << (log_n - roots_log));
    const Fr stage_root_inverse = stage_root.inverse();
    Fr power = Fr::one();
    Fr power_inverse = Fr::one();
    for (size_t i = 0; i < roots_size; ++i) {
        storage_[layout.roots_forward + i] = power;
        storage_[layout.roots_inverse + i] = power_inverse;
        power = power * stage_root;
        power_inverse = power_inverse * stage_root_inverse;
    }

    const Fr bases[4] = {omega, omega_inverse, g, g_inverse};
    const Fr scales[4] = {Fr::one(), Fr::one(), n_inverse, n_inverse};
    for (int table = 0; table < 4; ++table) {
        fill_power_table(&storage_[layout.power_tables[table][0]], &storage_[layout.power_tables[table][1]], lo_bits,
                         log_n, bases[table], scales[table]);
    }

    view_.plan = plan;
    view_.roots_log = roots_log;
    const Fr* base = storage_.data();
    view_.roots_forward = base + layout.roots_forward;
    view_.roots_inverse = base + layout.roots_inverse;
    PowerTableView* power_views[4] = {&view_.twist_forward, &view_.twist_inverse, &view_.coset_scale,
                                      &view_.coset_unscale};
    for (int table = 0; table < 4; ++table) {
        *power_views[table] = PowerTableView{base + layout.power_tables[table][0],
                                             base + layout.power_tables[table][1], lo_bits};
    }
    // g^n - 1 != 0 because g = 7 is not in the domain (it is not a 2^32-th root of unity).
    view_.vanishing_inverse = (g.pow(uint64_t{1} << log_n) - Fr::one()).inverse();
}

DomainTablesView HostDomainTables::view_at(const Fr* base) const {
    DomainTablesView moved = view_;
    const Fr* old_base = storage_.data();
    auto move = [&](const Fr* pointer) { return base + (pointer - old_base); };
    moved.roots_forward = move(view_.roots_forward);
    moved.roots_inverse = move(view_.roots_inverse);
    for (PowerTableView* table : {&moved.twist_forward, &moved.twist_inverse, &moved.coset_scale, &moved.coset_unscale}) {
        table->lo = move(table->lo);
        table->hi = move(table->hi);
    }
    return moved;
}

DeviceDomainTables::DeviceDomainTables(const HostDomainTables& host) {
    storage_ = DeviceBuffer<Fr>(host.storage().size());
    storage_.copy_from_host(host.storage().data(), host.storage().size());
    view_ = host.view_at(storage_.data());
}

const DomainTablesView& DomainTablesCache::get(uint32_t log_n) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto found = tables_.find(log_n);
    if (found == tables_.end()) {
        ZKB_CUDA_CHECK(cudaSetDevice(device_));
        found = tables_.emplace(log_n, std::make_unique<DeviceDomainTables>(log_n)).first;
    }
    return found->second->view();
}

}  // namespace zkbatch::cuda::ntt
