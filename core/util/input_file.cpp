// Input files that must be regular files (core/util/input_file.hpp).
#include "core/util/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace zkbatch::util {

namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "not a file";
}

std::string refusal(mode_t mode) { return std::string("it is ") + kind_of(mode) + ", not a regular file"; }

}  // namespace

std::optional<std::string> not_a_regular_file(const std::filesystem::path& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0 || S_ISREG(status.st_mode)) return std::nullopt;
    return refusal(status.st_mode);
}

int open_input_file(const std::filesystem::path& path, std::string& error) {
    // Refused before open: opening some devices has effects of its own. O_NONBLOCK keeps a
    // FIFO put in place between the two checks from blocking the open.
    if (auto why = not_a_regular_file(path)) {
        error = *why;
        return -1;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        error = std::strerror(errno);
        return -1;
    }
    struct stat status {};
    const bool stat_ok = ::fstat(fd, &status) == 0;
    if (!stat_ok || !S_ISREG(status.st_mode)) {
        error = stat_ok ? refusal(status.st_mode) : std::string(std::strerror(errno));
        ::close(fd);
        return -1;
    }
    return fd;
}

bool read_and_close(int fd, size_t max_bytes, std::string& bytes, std::string& error) {
    bytes.assign(max_bytes + 1, '\0');
    size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = std::strerror(errno);
            ::close(fd);
            return false;
        }
        if (n == 0) break;
        got += static_cast<size_t>(n);
    }
    ::close(fd);
    bytes.resize(got);
    return true;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    struct stat first {}, second {};
    return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 && first.st_dev == second.st_dev &&
           first.st_ino == second.st_ino;
}

}  // namespace zkbatch::util
