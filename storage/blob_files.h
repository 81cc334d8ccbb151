// BlobFiles: the bytes of large objects and parts, one plain file per data id, under
// <store>/blobs/<id mod 256, 2 hex digits>/<id, 16 hex digits>. Private to storage/.
//
// Why files: a large body then costs one write into the page cache and one fdatasync instead of
// going through the WAL and again into blob files, and a GET can hand the file to sendfile(2).
//
// Ownership: a file belongs to exactly one record (object or part), which the store marks with a
// reference key written in the record's own batch. A file without a reference is garbage: either
// a writer that never committed or data whose release was written but not yet unlinked.
//
// Readers and releases: a reader pins the ids it may read while it reads their record (inside
// ReadGate), and a release unlinks a file only once its reference is gone from the DB and no
// reader pins it; a pinned file is unlinked when its last pin goes. Because a release takes the
// gate exclusively after its batch is durable, a reader either saw the record before the release
// (and pinned the id before the release looks at the pins) or sees it gone.
//
// Holds (for an online backup): while a hold is active, Release and Unpin unlink nothing; the
// files they would have unlinked wait in deferred_ until the last hold ends. A backup takes its
// hold before its RocksDB checkpoint, so every file the checkpoint references stays on disk
// until the backup has linked or copied it (see backup.cc for the whole argument).
//
// Thread-safety: every method is safe to call from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "storage/status.h"

namespace cubby::storage {

class BlobFiles {
 public:
  // Creates <root> and its 256 subfolders if missing (and syncs the new folders).
  static Result<std::unique_ptr<BlobFiles>> Open(std::string root);

  std::string PathOf(uint64_t id) const;

  // Every data id with a file, in no particular order; files with other names are left out.
  // For recovery.
  Result<std::vector<uint64_t>> List() const;

  // A new, empty file for `id`, open for writing (O_EXCL: an existing file is kIOError).
  Result<int> Create(uint64_t id);
  // Makes a file written through `fd` durable: its data and its directory entry.
  Status Sync(uint64_t id, int fd);
  // Opens `id` for reading. kCorruption when the file is missing.
  Result<int> OpenForRead(uint64_t id) const;
  // Unlinks the file now (a writer's own uncommitted file, or recovery's garbage). A missing
  // file is fine.
  Status Remove(uint64_t id);

  // ---- Pins (see the header comment).
  std::shared_lock<std::shared_mutex> ReadGate() { return std::shared_lock(gate_); }
  void Pin(const std::vector<uint64_t>& ids);
  void Unpin(const std::vector<uint64_t>& ids);
  // Unlinks the files whose references were removed by a batch that is now durable; pinned
  // ones are unlinked by their last Unpin. Unlink failures leave garbage that the next
  // recovery removes; they are not reported.
  void Release(const std::vector<uint64_t>& ids);

  // ---- Holds (see the header comment). Every BeginHold needs one EndHold; EndHold unlinks
  // what was released meanwhile and is not pinned.
  void BeginHold();
  void EndHold();

  // Files released while pinned, still waiting for their readers. For tests.
  size_t DebugDeferred();

 private:
  explicit BlobFiles(std::string root) : root_(std::move(root)) {}
  void UnlinkQuietly(uint64_t id);

  const std::string root_;
  std::shared_mutex gate_;
  std::mutex mu_;  // guards pins_, deferred_ and holds_
  std::unordered_map<uint64_t, int> pins_;
  std::unordered_set<uint64_t> deferred_;
  int holds_ = 0;
};

// A hold for the lifetime of a scope.
class BlobHold {
 public:
  explicit BlobHold(BlobFiles* files) : files_(files) { files_->BeginHold(); }
  ~BlobHold() { files_->EndHold(); }
  BlobHold(const BlobHold&) = delete;
  BlobHold& operator=(const BlobHold&) = delete;

 private:
  BlobFiles* files_;
};

}  // namespace cubby::storage
