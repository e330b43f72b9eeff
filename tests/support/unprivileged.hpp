// Tests of permission errors mean nothing as root (root writes any file, enters any
// folder, and may start any number of threads), and CI runs as root. These helpers run
// the code under test as the user nobody instead when the test runs as root, and as
// the test's own user otherwise. Header-only, like temp_dir.hpp.
#pragma once

#include <grp.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace zkbatch::test {

inline constexpr uid_t kNobodyUid = 65534;  // nobody and nogroup on Debian
inline constexpr gid_t kNobodyGid = 65534;

inline bool running_as_root() { return geteuid() == 0; }

// Gives `folder` and everything under it to nobody, so code run as nobody may work
// there. Does nothing when not root.
inline void hand_over_to_unprivileged(const std::filesystem::path& folder) {
    if (!running_as_root()) return;
    std::error_code ec;
    if (chown(folder.c_str(), kNobodyUid, kNobodyGid) != 0) return;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder, ec))
        if (lchown(entry.path().c_str(), kNobodyUid, kNobodyGid) != 0) return;
}

// Runs `body` in a child process that has dropped root's privileges (uid and gid of
// nobody, no supplementary groups) and returns the text it returned; directly, in this
// process, when not root. A child that fails to drop them, throws or crashes returns a
// text saying so (which the test's expectations then fail on).
inline std::string run_unprivileged(const std::function<std::string()>& body) {
    if (!running_as_root()) return body();
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return "run_unprivileged: no pipe";
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) return "run_unprivileged: cannot fork";
    if (child == 0) {
        close(pipe_fds[0]);
        std::string text;
        if (setgroups(0, nullptr) != 0 || setgid(kNobodyGid) != 0 || setuid(kNobodyUid) != 0) {
            text = "run_unprivileged: cannot become nobody";
        } else {
            try {
                text = body();
            } catch (const std::exception& e) {
                text = std::string("run_unprivileged: the body threw: ") + e.what();
            }
        }
        for (size_t written = 0; written < text.size();) {
            const ssize_t n = write(pipe_fds[1], text.data() + written, text.size() - written);
            if (n <= 0) break;
            written += static_cast<size_t>(n);
        }
        _exit(0);  // no atexit handlers, no gtest teardown in the child
    }
    close(pipe_fds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "run_unprivileged: the child crashed";
    return text;
}

// The command prefix that starts a program as nobody when root (setpriv, util-linux);
// empty otherwise.
inline std::vector<std::string> unprivileged_command() {
    if (!running_as_root()) return {};
    return {"/usr/bin/setpriv", "--reuid=" + std::to_string(kNobodyUid), "--regid=" + std::to_string(kNobodyGid),
            "--clear-groups"};
}

}  // namespace zkbatch::test
