// An output a command writes must not be one of the files it reads: `report -o` given
// the database, `merge --into` given a shard, Slurm scripts written over the manifest.
// Compared as files (device and inode), so no spelling of the path (a link, "./", the
// database's -wal) gets past it.
#pragma once

#include "util/usage_error.hpp"

#include "core/util/input_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>
#include <vector>

namespace zkbatch {

// Throws UsageError (exit 2) when `output` is one of `inputs`. `option` says where the
// output was given ("-o", "--out").
inline void refuse_output_onto_input(const std::filesystem::path& output,
                                     const std::vector<std::filesystem::path>& inputs, std::string_view option) {
    for (const std::filesystem::path& input : inputs)
        if (util::same_file(output, input))
            throw UsageError(fmt::format("{} {}: that is {}, which this command reads; writing it would destroy it. "
                                         "Write somewhere else.",
                                         option, output.string(), input.string()));
}

}  // namespace zkbatch
