// Files a user names as input: a .zkey, a .wtns, a key file, a manifest, a database, a
// plugin. Only a regular file (or a link to one) is opened. A FIFO, a directory, a
// device or a socket is refused at once, naming what it is: opening a FIFO would block
// until something writes to it, and the others fail later with errors that do not say
// why.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace zkbatch::util {

// Why `path` cannot be read as an input file ("it is a FIFO (named pipe), not a regular
// file"), or nullopt when it is a regular file or does not exist (which its opener
// reports in its own words). Follows symbolic links.
std::optional<std::string> not_a_regular_file(const std::filesystem::path& path);

// Opens `path` read-only. Returns the descriptor of a regular file, or -1 with `error`
// set to why not, worded to follow "cannot open the FILE: " ("it is a directory, not a
// regular file", "No such file or directory").
int open_input_file(const std::filesystem::path& path, std::string& error);

// Reads the open descriptor `fd` to its end into `bytes`, at most `max_bytes` + 1 bytes (a
// result longer than max_bytes says the file is larger, and a huge file is never read
// whole), then closes it. Returns false with `error` set to the system's words when a
// read fails.
bool read_and_close(int fd, size_t max_bytes, std::string& bytes, std::string& error);

// Whether `a` and `b` name the same file (device and inode), however they are spelled
// and through whatever links. False when either does not exist.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace zkbatch::util
