// Progress of a run for the person watching: on a terminal one live line
// (done/total, rate, ETA) rewritten in place; otherwise one log line per partition.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace zkbatch {

class Progress {
public:
    Progress(uint64_t total_partitions, bool live_line);
    void partition_done(uint64_t partition_index, bool ok, const std::string& error);
    void finish();  // ends the live line

private:
    void draw_line();
    const uint64_t total_;
    const bool live_line_;
    const int64_t start_ns_;
    uint64_t done_ = 0, failed_ = 0;
    bool line_drawn_ = false;
    std::mutex mutex_;
};

}  // namespace zkbatch
