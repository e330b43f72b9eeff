// Output files written whole or not at all (core/util/output_file.hpp).
#include "core/util/output_file.hpp"

#include "core/util/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace zkbatch::util {

namespace {

std::filesystem::path folder_of(const std::filesystem::path& path) {
    return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

}  // namespace

OutputFile::OutputFile(std::filesystem::path path) : path_(std::move(path)) {
    if (path_.filename().empty()) fail("it names a folder, not a file");
    // Renaming over a device, a FIFO or a folder would destroy it (as root, /dev/null).
    if (const auto why = not_a_regular_file(path_)) fail(*why + "; give the path of a file ('-' for standard output)");
    // O_EXCL: a new file, never one that exists and never through a link; mode 0644
    // less the umask, as any file the user makes.
    static std::atomic<uint64_t> counter{0};
    const uint64_t salt = std::random_device{}();
    for (int attempt = 0; fd_ < 0; ++attempt) {
        temporary_ = folder_of(path_) / ("." + path_.filename().string() + ".partial-" + std::to_string(::getpid()) +
                                         "-" + std::to_string(salt ^ counter.fetch_add(1)));
        fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd_ < 0 && (errno != EEXIST || attempt == 100)) {
            temporary_.clear();
            fail(std::string("cannot write the file: ") + std::strerror(errno));
        }
    }
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::fail(const std::string& what) const { throw OutputFileError(path_.string() + ": " + what); }

void OutputFile::write(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) fail(std::string("cannot write the file: ") + std::strerror(errno));
        bytes.remove_prefix(static_cast<size_t>(wrote));
    }
}

void OutputFile::commit() {
    if (::fsync(fd_) != 0) fail(std::string("cannot write the file: ") + std::strerror(errno));
    const int closed = ::close(fd_);
    fd_ = -1;
    if (closed != 0) fail(std::string("cannot write the file: ") + std::strerror(errno));
    if (::rename(temporary_.c_str(), path_.c_str()) != 0)
        fail(std::string("cannot write the file: ") + std::strerror(errno));
    committed_ = true;
    if (const int folder = ::open(folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); folder >= 0) {
        ::fsync(folder);  // the rename itself, durable
        ::close(folder);
    }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
    OutputFile file(path);
    file.write(text);
    file.commit();
}

}  // namespace zkbatch::util
