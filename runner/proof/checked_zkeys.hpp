// CheckedZkeys: the .zkey files whose every point a run has checked (on its curve and in
// its subgroup), each named by the SHA-256 of its bytes, in one text file beside the key
// cache (setup.cache_dir/checked-zkeys). Those checks are most of a one-proof command's
// time (12.5 of 14.9 s at 2^16 on 2 cores), so a run of a key checked before reads it
// without them; the other checks of the file (its sections, sizes, curve, the points
// that must not be at infinity) run every time. A file whose bytes differ by one bit has
// another digest and is checked again.
//
// The record is trusted as the key cache beside it is: whoever can write there can also
// replace a cached key. A record that cannot be read or written costs checks, never a
// run. Lines are "zkey-points-v1 SHA256 BYTES"; the version names the checks, so a
// zkbatch that checks more ignores the lines of one that checked less.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace zkbatch {

class CheckedZkeys {
public:
    // The record in the key cache folder `cache_dir` (setup.cache_dir).
    explicit CheckedZkeys(const std::filesystem::path& cache_dir) : file_(cache_dir / "checked-zkeys") {}

    const std::filesystem::path& file() const { return file_; }
    // Whether a .zkey of this SHA-256 (sha256_hex of its bytes) had its points checked.
    // No when the record is missing, unreadable or damaged.
    bool contains(std::string_view sha256) const;
    // Records that a .zkey of this SHA-256 and size passed every point check: one line
    // appended in one write, so runs that add at once keep whole lines. Returns false,
    // with the system's reason in `why`, when it cannot be written.
    bool add(std::string_view sha256, uint64_t bytes, std::string& why) const;

private:
    std::filesystem::path file_;
};

}  // namespace zkbatch
