// A tiny file system of a test's own: a tmpfs mounted in a mount namespace of the test
// process alone (as root, or as an unprivileged user through a user namespace), so
// nothing outside the test sees it and it disappears with the process. The zkbatch
// processes a test starts inherit the namespace. Where neither is allowed the caller
// skips, saying why. Header-only, like temp_dir.hpp.
#pragma once

#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace zkbatch::test {

// Enters a mount namespace of this process alone; "" on success, else why not. Enter it
// before the process starts threads (a user namespace demands a single thread).
inline std::string enter_private_mount_namespace() {
    auto write_text = [](const char* path, const std::string& text) {
        std::ofstream out(path);
        out << text;
        return static_cast<bool>(out.flush());
    };
    const uid_t uid = geteuid();
    const gid_t gid = getegid();
    if (uid == 0) {
        if (unshare(CLONE_NEWNS) != 0) return std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
    } else {
        // An unprivileged user may mount a tmpfs inside its own user namespace.
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
            return std::string("unshare(CLONE_NEWUSER | CLONE_NEWNS): ") + std::strerror(errno) +
                   " (user namespaces disabled?)";
        if (!write_text("/proc/self/setgroups", "deny") ||
            !write_text("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
            !write_text("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
            return "cannot map the user into the new user namespace";
    }
    // Mounts made from here on must not propagate back to the host's namespace.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return std::string("making / private: ") + std::strerror(errno);
    return {};
}

// Enters the namespace and mounts a tmpfs of `size` (mount's size= option: "1m", "64k")
// on the existing folder `mount_point`; "" on success, else why not.
inline std::string mount_private_tmpfs(const std::filesystem::path& mount_point, const std::string& size) {
    if (std::string why = enter_private_mount_namespace(); !why.empty()) return "cannot mount a tmpfs here: " + why;
    const std::string options = "size=" + size + ",mode=0755";
    if (mount("tmpfs", mount_point.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
        return "cannot mount a tmpfs on " + mount_point.string() + ": " + std::strerror(errno);
    return {};
}

}  // namespace zkbatch::test
