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

uint64_t EngineHeadroom(uint64_t total_bytes) {
  constexpr uint64_t kHeadroom = 32ull << 20;
  return std::min(kHeadroom, total_bytes / 8);
}

uint64_t EffectiveReserve(std::optional<uint64_t> configured, uint64_t total_bytes) {
  return std::max(configured.value_or(DefaultReserve(total_bytes)), EngineHeadroom(total_bytes));
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

Status CheckHeadroom(const FsSpace& space) {
  const uint64_t headroom = EngineHeadroom(space.total_bytes);
  if (space.available_bytes >= headroom) return Status::Ok();
  return Status(Code::kNoSpace, "the store is full: " + std::to_string(space.available_bytes) +
                                    " bytes free, less than the " + std::to_string(headroom) +
                                    " the engine needs to write anything, deletes included");
}

}  // namespace cubby::storage
