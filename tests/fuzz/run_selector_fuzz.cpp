// Fuzz target: run selectors, through Store::resolve_run (`zkbatch show`: an id,
// "latest", "latest~K") and select_runs (compare/export: job=, backend=, status=,
// experiment=, arm= terms joined by ','), on a database of five runs made once per
// process. A selector either names some of those runs or is refused with a StoreError
// (no such run) or a UsageError (not a selector).
#include "analysis/selectors.hpp"
#include "store/store.hpp"
#include "util/usage_error.hpp"
#include "support/temp_dir.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Fixture {
    zkbatch::test::TempDir dir{"zkbatch-fuzz-selector"};
    std::unique_ptr<zkbatch::Store> store;  // closed before dir is removed (declared after it)
    std::vector<int64_t> run_ids;
};

Fixture* fixture = nullptr;

void remove_fixture() {
    if (!fixture) return;
    delete fixture;
    fixture = nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fixture = new Fixture;
    fixture->store = std::make_unique<zkbatch::Store>(fixture->dir.path() / "runs.db");
    for (int i = 0; i < 5; ++i) {
        zkbatch::RunRecord run;
        run.job_name = i % 2 ? "nightly" : "smoke";
        run.backend_name = "cpu-ref";
        run.log_n = 10;
        run.partitions = 1;
        run.verify_mode = "identity";
        run.started_unix_ns = 1'700'000'000'000'000'000 + i;
        fixture->run_ids.push_back(fixture->store->begin_run(run));
    }
    std::atexit(remove_fixture);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string selector(reinterpret_cast<const char*>(data), size);
    try {
        const int64_t id = fixture->store->resolve_run(selector);
        const auto& ids = fixture->run_ids;
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
            std::fprintf(stderr, "resolve_run('%s') = %lld, which is not a run\n", selector.c_str(),
                         static_cast<long long>(id));
            std::abort();
        }
        if (selector == "latest" && id != ids.back()) std::abort();
    } catch (const zkbatch::StoreError&) {
        // Refused with a message.
    } catch (const zkbatch::UsageError&) {
    }
    try {
        const zkbatch::RunSelection selection = zkbatch::select_runs(*fixture->store, selector);
        const auto& ids = fixture->run_ids;
        if (selection.run_ids.empty()) std::abort();
        for (const int64_t id : selection.run_ids)
            if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
                std::fprintf(stderr, "select_runs('%s') names %lld, which is not a run\n", selector.c_str(),
                             static_cast<long long>(id));
                std::abort();
            }
    } catch (const zkbatch::StoreError&) {
    } catch (const zkbatch::UsageError&) {
    }
    return 0;
}
