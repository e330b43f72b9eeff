// Run selectors: how `zkbatch compare`, `export` and the regression gate name runs.
//
//   7                 run 7
//   latest, latest~K  the latest run, or the K-th before it
//   job=NAME          the latest run of job NAME
//   backend=NAME      the latest run on backend NAME (cpu-ref, cuda-pinned, ...)
//   status=STATUS     the latest run with that status (ok, failed, ...)
//   experiment=ID     every run of an experiment, by its id, uuid or name
//   arm=ARM           the runs of that arm of an experiment, its label with or without
//                     the quotes: arm=backend.name=cuda-pinned
//
// Terms combine with ',' and must all hold: job=nightly,backend=cuda-pinned is the
// latest run of job nightly on cuda-pinned; job=nightly,latest~1 the one before it;
// experiment=3,backend=cpu-ref the runs of experiment 3 on cpu-ref. A selector with an
// experiment= term selects every matching run unless it also has latest/latest~K; any
// other selector selects one run. A run id with other terms must satisfy them.
#pragma once

#include "store/store.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace zkbatch {

struct RunSelection {
    std::string selector;          // as written
    std::vector<int64_t> run_ids;  // oldest first, never empty
};

// Resolves `selector` among the runs that also satisfy `within` (the regression gate
// passes its --job). Throws UsageError (exit 2), naming the selector and what to write
// instead, for a malformed selector or a term that contradicts `within`; StoreError,
// naming the database, for no matching run or an experiment name that names several
// experiments.
RunSelection select_runs(const Store& store, const std::string& selector,
                         const RunFilter& within = {});

// The runs of several selectors, in the order they name them, each run once.
std::vector<int64_t> select_runs_of(const Store& store, const std::vector<std::string>& selectors);

// Like select_runs, but the selector must name exactly one run.
int64_t select_one_run(const Store& store, const std::string& selector, const RunFilter& within = {});

}  // namespace zkbatch
