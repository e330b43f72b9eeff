// Facts fixed when zkbatch was built; build_info.cpp is generated at every build
// (cmake/git_revision.cmake) so the revision never goes stale.
#pragma once

namespace zkbatch::build_info {
extern const char* const version;
extern const char* const git_revision;
}  // namespace zkbatch::build_info
