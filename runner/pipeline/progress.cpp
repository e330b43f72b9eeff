#include "pipeline/progress.hpp"

#include "util/clock.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>

namespace zkbatch {

Progress::Progress(uint64_t total_partitions, bool live_line)
    : total_(total_partitions), live_line_(live_line), start_ns_(steady_now_ns()) {}

void Progress::partition_done(uint64_t partition_index, bool ok, const std::string& error) {
    std::lock_guard lock(mutex_);
    ++done_;
    if (!ok) ++failed_;
    if (!ok) {
        if (line_drawn_) std::fputc('\n', stderr);
        line_drawn_ = false;
        spdlog::error("partition {} failed: {}", partition_index, error);
    }
    if (live_line_)
        draw_line();
    else if (ok)
        spdlog::info("partition {} done ({}/{})", partition_index, done_, total_);
}

void Progress::draw_line() {
    const double elapsed_s = ns_to_ms(steady_now_ns() - start_ns_) / 1e3;
    const double rate_per_s = elapsed_s > 0 ? static_cast<double>(done_) / elapsed_s : 0;
    const double eta_s = rate_per_s > 0 ? static_cast<double>(total_ - done_) / rate_per_s : 0;
    std::string line = fmt::format("\r  {}/{} partitions  {:.2f}/s  {:.0f}/h  ETA {:.0f} s", done_,
                                   total_, rate_per_s, rate_per_s * 3600, eta_s);
    if (failed_ > 0) line += fmt::format("  ({} failed)", failed_);
    std::fputs((line + "\033[K").c_str(), stderr);
    std::fflush(stderr);
    line_drawn_ = true;
}

void Progress::finish() {
    std::lock_guard lock(mutex_);
    if (line_drawn_) std::fputc('\n', stderr);
    line_drawn_ = false;
}

}  // namespace zkbatch
