// Files zkbatch writes: a key file, a report, a trace, an export, proofs, dumps, Slurm
// scripts. Each is written whole or not at all: into a new temporary file beside it
// (the same folder, so the rename cannot cross file systems), flushed to disk, then
// renamed over its path. A reader sees the old file or the new one, never half of one;
// a symbolic link at the path is replaced, never written through; a file that was
// there is left as it was until the new one is complete. A path that is something else
// (a device such as /dev/null, a FIFO, a folder) is refused: renaming over it would
// destroy it.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace zkbatch::util {

// An output file that cannot be written: the message names it and says why.
struct OutputFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class OutputFile {
public:
    // Creates the temporary file (mode 0644 less the umask); throws OutputFileError.
    explicit OutputFile(std::filesystem::path path);
    // Removes the temporary file unless commit() renamed it.
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    // The temporary file, for writers that place bytes themselves (pwrite).
    int descriptor() const { return fd_; }
    // Appends `bytes`; throws OutputFileError.
    void write(std::string_view bytes);
    // Flushes the file to disk, renames it to the path and makes the rename durable;
    // throws OutputFileError, leaving the path as it was.
    void commit();

    const std::filesystem::path& path() const { return path_; }

private:
    [[noreturn]] void fail(const std::string& what) const;
    std::filesystem::path path_, temporary_;
    int fd_ = -1;
    bool committed_ = false;
};

// Writes `text` to `path` through an OutputFile.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace zkbatch::util
