// Process exit codes: a stable contract for scripts (README "When things go wrong").
#pragma once

namespace zkbatch::exit_code {

inline constexpr int ok = 0;                // every partition proved and (where asked) verified
inline constexpr int internal_error = 1;    // a bug in zkbatch: please report it
inline constexpr int usage_error = 2;       // bad command line or manifest: fix the input
inline constexpr int plugin_error = 3;      // backend not found, incompatible, unusable here, or failed to start
inline constexpr int storage_error = 4;     // database or dump directory cannot be opened or written
inline constexpr int partition_failed = 5;  // the run finished but a partition failed or failed verification
inline constexpr int cancelled = 6;         // stopped by SIGINT/SIGTERM before all partitions ran
inline constexpr int regression = 7;        // compare --fail-on-regression: a phase got significantly slower

}  // namespace zkbatch::exit_code
