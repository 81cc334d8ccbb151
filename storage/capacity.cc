#include "storage/capacity.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cubby::storage {

Result<FsSpace> StatFs(const std::string& path) {
  struct statvfs st;
  if (::statvfs(path.c_str(), &st) != 0) {
    return Status(Code::kIOError, "statvfs " + path + ": " + std::strerror(errno));
  }
  FsSpace space;
  space.total_bytes = static_cast<uint64_t>(st.f_blocks) * st.f_frsize;
  space.available_bytes = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  return space;
}

uint64_t DefaultReserve(uint64_t total_bytes) {
  constexpr uint64_t kFloor = 64ull << 20;
  return std::min(std::max(kFloor, total_bytes / 100), total_bytes / 4);
}

Status CheckFits(const FsSpace& space, uint64_t reserve, uint64_t bytes) {
  // Written so that no sum can overflow: a client may claim a size near 2^64.
  if (space.available_bytes >= reserve && space.available_bytes - reserve >= bytes) {
    return Status::Ok();
  }
  return Status(Code::kNoSpace, "the store is full: " + std::to_string(space.available_bytes) +
                                    " bytes free, " + std::to_string(reserve) +
                                    " kept in reserve for deletes, " + std::to_string(bytes) +
                                    " needed");
}

}  // namespace cubby::storage
