#include "proof/checked_zkeys.hpp"

#include "core/util/input_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <system_error>

namespace zkbatch {

namespace {

constexpr std::string_view kChecks = "zkey-points-v1";
// A record of this many bytes holds some 200,000 keys; a larger file is read this far.
constexpr size_t kMaxRecordBytes = size_t{16} << 20;

}  // namespace

bool CheckedZkeys::contains(std::string_view sha256) const {
    std::string error;
    const int fd = util::open_input_file(file_, error);
    if (fd < 0) return false;
    std::string text;
    if (!util::read_and_close(fd, kMaxRecordBytes, text, error)) return false;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string checks, digest;
        if (fields >> checks >> digest && checks == kChecks && digest == sha256) return true;
    }
    return false;
}

bool CheckedZkeys::add(std::string_view sha256, uint64_t bytes, std::string& why) const {
    std::error_code ec;
    std::filesystem::create_directories(file_.parent_path(), ec);
    if (ec) {
        why = ec.message();
        return false;
    }
    const int fd = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        why = std::strerror(errno);
        return false;
    }
    const std::string line = std::string(kChecks) + " " + std::string(sha256) + " " + std::to_string(bytes) + "\n";
    const ssize_t written = ::write(fd, line.data(), line.size());
    const int write_errno = errno;
    const bool closed = ::close(fd) == 0;
    if (written != static_cast<ssize_t>(line.size()) || !closed) {
        why = written < 0 ? std::strerror(write_errno) : "the line was not written whole";
        return false;
    }
    return true;
}

}  // namespace zkbatch
