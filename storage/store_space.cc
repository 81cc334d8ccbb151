// StoreImpl: space (store_impl.h). Free space and the reserve (capacity.h), the engine
// headroom every write passes (Apply), the reclaimer that returns released data's space to
// the filesystem, and the engine figures for monitoring (stats, memory).
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "storage/blob_files.h"
#include "storage/codec.h"
#include "storage/store_impl.h"

namespace cubby::storage::internal {

namespace {

// The block cache every family shares (MakeDbConfig gives them one), or null.
std::shared_ptr<rocksdb::Cache> SharedBlockCache(rocksdb::DB* db,
                                                 rocksdb::ColumnFamilyHandle* family) {
  rocksdb::ColumnFamilyOptions options = db->GetOptions(family);
  if (options.table_factory == nullptr) return nullptr;
  const auto* table = options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  return table == nullptr ? nullptr : table->block_cache;
}

}  // namespace

Status StoreImpl::ReclaimSpace() {
  std::vector<uint64_t> ids;
  {
    std::lock_guard lock(reclaim_mu_);
    ids.swap(released_ids_);
    released_bytes_ = 0;
  }
  // Compact only the key ranges of released data: that drops the deleted chunks and their
  // range tombstones, and a blob file whose blobs are then all garbage is deleted. Live blobs
  // in partly-garbage files are left to the family's age-based blob GC, so a reclaim never
  // rewrites the whole store. Consecutive ids share a range; many ranges become one span.
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [first id, last id + 1)
  for (uint64_t id : ids) {
    if (!ranges.empty() && ranges.back().second == id) {
      ranges.back().second = id + 1;
    } else {
      ranges.emplace_back(id, id + 1);
    }
  }
  constexpr size_t kMaxRanges = 32;
  if (ranges.size() > kMaxRanges) {
    ranges = {{ranges.front().first, ranges.back().second}};
  }
  rocksdb::CompactRangeOptions options;
  // Rewrite the bottom level too, so range tombstones and the data they cover go away.
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  // Not exclusive: automatic compactions keep running meanwhile, so a reclaim can never let
  // level-0 files pile up into a write stall for the requests being served.
  options.exclusive_manual_compaction = false;
  options.canceled = &reclaim_cancel_;
  for (const auto& [first, end] : ranges) {
    const std::string begin_key = codec::DataKey(first, 0), end_key = codec::DataKey(end, 0);
    rocksdb::Slice begin(begin_key), last(end_key);
    Status s = FromRocks(db_->CompactRange(options, cf(kDataCf), &begin, &last));
    if (!s.ok()) return s;
  }
  // The WAL holding the released bytes is only deleted once every family that shares it has
  // flushed past it; the metadata families are small, so flush them too.
  rocksdb::FlushOptions flush;
  return FromRocks(db_->Flush(flush, handles_));
}

Status StoreImpl::DebugWaitForReclaim() {
  std::unique_lock lock(reclaim_mu_);
  reclaim_cv_.wait(lock, [&] { return (!reclaim_wanted_ && !reclaiming_) || stopping_; });
  return last_reclaim_;
}

void StoreImpl::ReclaimLoop() {
  std::unique_lock lock(reclaim_mu_);
  for (;;) {
    reclaim_cv_.wait(lock, [&] { return reclaim_wanted_ || stopping_; });
    if (stopping_) return;
    reclaim_wanted_ = false;
    reclaiming_ = true;
    lock.unlock();
    Status s = ReclaimSpace();
    lock.lock();
    reclaiming_ = false;
    last_reclaim_ = stopping_ ? Status::Ok() : s;
    reclaim_cv_.notify_all();
  }
}

void StoreImpl::NoteReleased(uint64_t data_id, uint64_t bytes) {
  std::lock_guard lock(reclaim_mu_);
  released_ids_.push_back(data_id);
  released_bytes_ += bytes;
}

void StoreImpl::MaybeWakeReclaimer(const Status& write_status) {
  if (!write_status.ok()) return;
  {
    std::lock_guard lock(reclaim_mu_);
    if (released_bytes_ < options_.reclaim_after_bytes) return;
    reclaim_wanted_ = true;
  }
  reclaim_cv_.notify_all();
}

Result<Capacity> StoreImpl::GetCapacity() {
  Result<FsSpace> space = options_.statfs(options_.path);
  if (!space.ok()) return space.status();
  const uint64_t reserve = ReserveFor(*space);
  if (engine_errors_->stopped()) ResumeIfRoom(*space, reserve);
  Capacity capacity;
  capacity.total_bytes = space->total_bytes;
  capacity.available_bytes = space->available_bytes;
  capacity.reserve_bytes = reserve;
  capacity.headroom_bytes = EngineHeadroom(space->total_bytes);
  capacity.engine_stopped = engine_errors_->stopped();
  capacity.engine_needs_restart = needs_restart_.load();
  return capacity;
}

Status StoreImpl::CheckSpaceFor(uint64_t bytes) {
  Result<FsSpace> space = options_.statfs(options_.path);
  if (!space.ok()) return space.status();
  const uint64_t reserve = ReserveFor(*space);
  if (engine_errors_->stopped() && !ResumeIfRoom(*space, reserve)) {
    if (needs_restart_.load()) {
      return Status(Code::kNoSpace,
                    "the store is full: the engine stopped writing after running out of "
                    "space and takes writes again only after cubby is restarted");
    }
    return Status(Code::kNoSpace,
                  "the store is full: the engine stopped writing after running out of space "
                  "and resumes once " +
                      std::to_string(reserve) + " bytes are free (" +
                      std::to_string(space->available_bytes) + " now)");
  }
  return CheckFits(*space, reserve, bytes);
}

uint64_t StoreImpl::ReserveFor(const FsSpace& space) const {
  return EffectiveReserve(options_.reserve_bytes, space.total_bytes);
}

Status StoreImpl::Apply(rocksdb::WriteBatch* batch) {
  if (Status room = CheckEngineHeadroom(); !room.ok()) return room;
  Status s = FromRocks(db_->Write(sync_, batch));
  stats_cache_.Applied(*batch, cf(kDefaultCf)->GetID(), s.ok());
  return s;
}

Status StoreImpl::ApplyPut(rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                           const rocksdb::Slice& value) {
  if (Status room = CheckEngineHeadroom(); !room.ok()) return room;
  return FromRocks(db_->Put(sync_, family, key, value));
}

Status StoreImpl::CheckEngineHeadroom() {
  Result<FsSpace> space = options_.statfs(options_.path);
  if (!space.ok()) return space.status();
  return CheckHeadroom(*space);
}

Result<uint64_t> StoreImpl::DebugCountDataPieces() {
  uint64_t n = 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, cf(kDataCf)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  if (!it->status().ok()) return FromRocks(it->status());
  Result<std::vector<uint64_t>> files = files_->List();
  if (!files.ok()) return files.status();
  return n + files->size();
}

size_t StoreImpl::DebugDeferredFiles() { return files_->DebugDeferred(); }

Result<Store::EngineStats> StoreImpl::GetEngineStats() {
  rocksdb::DB* db = db_;
  EngineStats stats;
  uint64_t stopped = 0;
  // Pending compaction summed over the column families (object data lives in its own).
  if (!db->GetAggregatedIntProperty(rocksdb::DB::Properties::kEstimatePendingCompactionBytes,
                                    &stats.pending_compaction_bytes) ||
      !db->GetIntProperty(rocksdb::DB::Properties::kActualDelayedWriteRate,
                          &stats.delayed_write_rate) ||
      !db->GetIntProperty(rocksdb::DB::Properties::kIsWriteStopped, &stopped)) {
    return Status(Code::kIOError, "RocksDB did not report its write-stall properties");
  }
  stats.write_stopped = stopped != 0 || engine_errors_->stopped();
  return stats;
}

Result<Store::MemoryUsage> StoreImpl::GetMemoryUsage() {
  rocksdb::DB* db = db_;
  MemoryUsage usage;
  // The block cache is shared, so its figures are the same from any family: read them once.
  if (!db->GetAggregatedIntProperty(rocksdb::DB::Properties::kSizeAllMemTables, &usage.memtables) ||
      !db->GetAggregatedIntProperty(rocksdb::DB::Properties::kEstimateTableReadersMem,
                                    &usage.table_readers) ||
      !db->GetIntProperty(cf(kDefaultCf), rocksdb::DB::Properties::kBlockCacheUsage,
                          &usage.block_cache) ||
      !db->GetIntProperty(cf(kDefaultCf), rocksdb::DB::Properties::kBlockCachePinnedUsage,
                          &usage.block_cache_pinned)) {
    return Status(Code::kIOError, "RocksDB did not report its memory properties");
  }
  return usage;
}

Status StoreImpl::ReleaseIdleMemory() {
  rocksdb::DB* db = db_;
  std::vector<rocksdb::ColumnFamilyHandle*> to_flush;
  for (int i = 0; i < kNumCfs; ++i) {
    rocksdb::ColumnFamilyHandle* family = cf(static_cast<CfIndex>(i));
    uint64_t bytes = 0;  // active and not yet flushed memtables
    if (!db->GetIntProperty(family, rocksdb::DB::Properties::kCurSizeAllMemTables, &bytes)) {
      return Status(Code::kIOError, "RocksDB did not report its memtable size");
    }
    // A quarter of a write buffer at least: an idle flush writes a level-0 file no smaller
    // than a quarter of a normal one, and what stays behind is at most a quarter per family.
    if (bytes >= db->GetOptions(family).write_buffer_size / 4) to_flush.push_back(family);
  }
  if (!to_flush.empty()) {
    rocksdb::FlushOptions flush;  // wait, and never stall writers to flush sooner
    Status s = FromRocks(db->Flush(flush, to_flush));
    if (!s.ok()) return s;
  }
  if (auto cache = SharedBlockCache(db, cf(kDefaultCf))) cache->EraseUnRefEntries();
  return Status::Ok();
}

}  // namespace cubby::storage::internal
