// Free space of the data folder's filesystem, and the one decision of whether a write fits.
//
// The store keeps a reserve: writes that would leave less than the reserve free are refused
// (kNoSpace) before they start, and a write of unknown size stops as soon as free space falls
// below it. Deletes never check it, so they can always use the reserve to free space (a delete
// needs a little: its WAL record, later a flush and the compaction that drops the data).
//
// Engine-neutral: a distributed engine answers the same questions from its cluster's figures.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "storage/status.h"

namespace cubby::storage {

// One filesystem's figures, in bytes (statvfs: f_blocks and f_bavail times f_frsize).
struct FsSpace {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;  // what an unprivileged writer may still use
};

// Reads the figures of the filesystem holding `path`. kIOError when statvfs fails.
using StatFsFn = std::function<Result<FsSpace>(const std::string& path)>;

// statvfs(2) of `path`.
Result<FsSpace> StatFs(const std::string& path);

// The reserve when the operator sets none: max(64 MiB, 1% of the filesystem), but at most a
// quarter of it, so a small filesystem (a 64 MiB volume: 16 MiB) still takes writes.
uint64_t DefaultReserve(uint64_t total_bytes);

// The store's view of its space, for monitoring and readiness.
struct Capacity {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
  uint64_t reserve_bytes = 0;
  // The engine stopped writing after a failure (RocksDB's background error, e.g. ENOSPC while
  // flushing) and has not recovered yet.
  bool engine_stopped = false;
  // Writes are refused: less than the reserve is free, or the engine stopped.
  bool full() const { return engine_stopped || available_bytes < reserve_bytes; }
};

// OK when writing `bytes` more leaves at least `reserve` free; otherwise kNoSpace with a
// message that says the store is full and gives the figures.
Status CheckFits(const FsSpace& space, uint64_t reserve, uint64_t bytes);

}  // namespace cubby::storage
