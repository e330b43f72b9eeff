// A command line asking for what cannot be done, in a way its user can fix: exit 2
// (cli/exit_codes.hpp), the message saying what to give instead. Each subsystem names its
// own (ShardError, RunPlanError, SlurmError); a manifest's problems are ManifestError,
// which carries the file, line and column.
#pragma once

#include <stdexcept>

namespace zkbatch {

struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

}  // namespace zkbatch
