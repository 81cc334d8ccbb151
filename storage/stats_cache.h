// StatsCache: the stores's per-bucket stats (BucketStats) in memory, kept in step with every
// batch the store applies, so that a read costs no walk of the stats record's merge chain.
//
// Why: a bucket's stats record (codec::StatsKey) takes a merge operand from every write, and
// until a flush folds them a read applies them all: thousands in a busy memtable, so a read
// per request (bucket quotas check the usage before and after each write) made PUTs into a
// bucket with a quota a third slower.
//
// How it stays exact without a lock around the writes: an entry is loaded from a snapshot
// read, whose sequence number S is kept; a write adds its stats changes to a loaded entry only
// when its batch's sequence number is above S (the ones below are in the snapshot). While an
// entry loads, writes that reach it park their changes with their sequence numbers, and the
// load adds those above S. A write's batch carries its sequence number once DB::Write returns
// (the batch header, whose first 8 bytes are the sequence, little-endian: the WAL's record
// format). A Put or Delete of a stats record (a bucket deleted, stats counted again at
// recovery) drops the entry; a failed write drops every entry (what it did is unknown).
//
// Thread-safe; one mutex around the map, never held across I/O.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <rocksdb/write_batch.h>

#include "storage/status.h"
#include "storage/store.h"

namespace cubby::storage::internal {

class StatsCache {
 public:
  // Reads a bucket's stats from the DB at a snapshot: the stats and the snapshot's sequence.
  using Loader = std::function<Result<std::pair<BucketStats, uint64_t>>()>;

  // The bucket's stats: the cached entry, or `load`'s (which then fills the entry). A load
  // that races with another load of the same bucket, or whose entry was dropped meanwhile,
  // is returned as read and not kept.
  Result<BucketStats> Get(std::string_view bucket, const Loader& load);

  // After DB::Write(batch) returned `status` for a batch of `default_cf_id`'s stats records
  // (among other records): keeps the entries in step. Cheap when nothing is cached.
  void Applied(const rocksdb::WriteBatch& batch, uint32_t default_cf_id, bool ok);

  // Entries kept (for tests).
  size_t size() const;

 private:
  struct Delta {
    uint64_t sequence;
    int64_t objects, bytes;
  };
  struct Entry {
    bool loading = true;
    uint64_t snapshot = 0;         // loaded: changes at or below this are in the value
    int64_t objects = 0, bytes = 0;
    std::vector<Delta> parked;     // loading: changes seen meanwhile
    uint64_t generation = 0;       // tells a load whether its entry is still the same one
  };

  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  uint64_t next_generation_ = 1;
  std::atomic<bool> any_{false};  // entries_ is not empty: writes must look
};

}  // namespace cubby::storage::internal
