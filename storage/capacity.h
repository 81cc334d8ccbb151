// Free space of the data folder's filesystem, and the one decision of whether a write fits.
//
// The store keeps a reserve: writes that would leave less than the reserve free are refused
// (kNoSpace) before they start, and a write of unknown size stops as soon as free space falls
// below it. Deletes never check it, so they can use the reserve to free space (a delete needs a
// little: its WAL record, later a flush and the compaction that drops the data).
//
// Below the reserve lies the engine's headroom: with less than that free, nothing is written to
// the engine at all, deletes included. RocksDB must never meet ENOSPC while appending to its
// write-ahead log: Debian's RocksDB 7.8 keeps a log writer that failed, and when every memtable
// was empty at that moment its DB::Resume does not switch to a new log, so the next write
// appends to the failed writer and the process aborts (an assertion). The headroom leaves room
// for the log's next preallocated block and for the flushes and compactions running meanwhile;
// the reserve is never smaller than the headroom.
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

// Free space below which the engine is not written at all: 32 MiB (RocksDB's log grows in
// preallocated blocks of up to 8.8 MiB here, and a flush writes up to a memtable's size), but
// at most an eighth of the filesystem (a 64 MiB volume: 8 MiB).
uint64_t EngineHeadroom(uint64_t total_bytes);

// The reserve in force: `configured` (the operator's, or DefaultReserve when nullopt), never
// below EngineHeadroom.
uint64_t EffectiveReserve(std::optional<uint64_t> configured, uint64_t total_bytes);

// The store's view of its space, for monitoring and readiness.
struct Capacity {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
  uint64_t reserve_bytes = 0;   // EffectiveReserve
  uint64_t headroom_bytes = 0;  // EngineHeadroom
  // The engine stopped writing after a failure (RocksDB's background error, e.g. ENOSPC while
  // flushing) and has not recovered yet.
  bool engine_stopped = false;
  // The engine stopped in the one way it cannot resume from in this process (a failed log
  // append while every memtable was empty, see above) and the space is back: only a restart
  // brings writes back. Reads keep working. Implies engine_stopped.
  bool engine_needs_restart = false;
  // Writes are refused: less than the reserve is free, or the engine stopped.
  bool full() const { return engine_stopped || available_bytes < reserve_bytes; }
};

// OK when writing `bytes` more leaves at least `reserve` free; otherwise kNoSpace with a
// message that says the store is full and gives the figures.
Status CheckFits(const FsSpace& space, uint64_t reserve, uint64_t bytes);

// OK when at least EngineHeadroom is free, so anything (a delete too) may be written to the
// engine; otherwise kNoSpace with a message that says so and gives the figures.
Status CheckHeadroom(const FsSpace& space);

}  // namespace cubby::storage
