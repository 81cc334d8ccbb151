// StoreImpl: recovery (store_impl.h). At Open: the leftovers of writes a crash cut short, the
// data id counter, expired completed-upload records, stats of an older store. While running:
// the engine's background error (EngineErrorListener) and resuming writes after ENOSPC.
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "storage/blob_files.h"
#include "storage/codec.h"
#include "storage/store_impl.h"
#include "text/time.h"

namespace cubby::storage::internal {

namespace {

// Set once stats records cover every bucket. Starts with NUL: no setting name does.
constexpr std::string_view kStatsReadySetting("\0stats-ready", 12);

}  // namespace

void EngineErrorListener::OnBackgroundError(rocksdb::BackgroundErrorReason reason,
                                            rocksdb::Status* error) {
  if (error == nullptr || error->ok()) return;
  if (reason == rocksdb::BackgroundErrorReason::kWriteCallback ||
      reason == rocksdb::BackgroundErrorReason::kMemTable) {
    log_write_failed_.store(true);
  }
  stopped_.store(true);
}

// RocksDB would resume by itself (DB::Open gives every DB an SstFileManager, which polls free
// space and resumes after ENOSPC), including in the one case where resuming makes the next
// write abort the process; the store decides instead (StoreImpl::ResumeIfRoom).
void EngineErrorListener::OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status,
                                               bool* auto_recovery) {
  *auto_recovery = false;
}

void EngineErrorListener::OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) {
  if (info.new_bg_error.ok()) Recovered();
}

Status StoreImpl::Recover() {
  // Data files nobody references: writers that never committed, and released files whose
  // unlink did not happen. Removed before the batch below, which removes nothing they need.
  // Ids are seeded above every referenced id too, even if its file went missing: a new file
  // must never take the id a (damaged) record still names.
  std::unordered_set<uint64_t> referenced;
  uint64_t max_file_id = 0;
  {
    std::string start(1, codec::kFileRefTag), end(1, codec::kFileRefTag + 1);
    Status s = ForEach(kUploadsCf, start, end, [&](std::string_view k, std::string_view) {
      uint64_t id;
      if (!codec::DecodeFileRefKey(k, &id)) return Status(Code::kCorruption, "bad file reference");
      referenced.insert(id);
      max_file_id = std::max(max_file_id, id);
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  Result<std::vector<uint64_t>> file_ids = files_->List();
  if (!file_ids.ok()) return file_ids.status();
  for (uint64_t id : *file_ids) {
    max_file_id = std::max(max_file_id, id);
    if (referenced.contains(id)) continue;
    Status removed = files_->Remove(id);
    if (!removed.ok()) return removed;
  }
  rocksdb::WriteBatch batch;
  uint64_t max_id = 0;
  {
    std::string start(1, codec::kMarkerTag), end(1, codec::kMarkerTag + 1);
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(kUploadsCf)));
    for (it->Seek(start); it->Valid(); it->Next()) {
      uint64_t id;
      if (!codec::DecodeMarkerKey(ToView(it->key()), &id)) {
        return Status(Code::kCorruption, "bad pending-write marker");
      }
      max_id = std::max(max_id, id);
      batch.DeleteRange(cf(kDataCf), codec::DataKey(id, 0), codec::DataKey(id + 1, 0));
      batch.Delete(cf(kUploadsCf), it->key());
    }
    if (!it->status().ok()) return FromRocks(it->status());
  }
  {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, cf(kDataCf)));
    it->SeekToLast();
    if (it->Valid()) {
      uint64_t id, chunk;
      if (!codec::DecodeDataKey(ToView(it->key()), &id, &chunk)) {
        return Status(Code::kCorruption, "bad data key");
      }
      max_id = std::max(max_id, id);
    }
    if (!it->status().ok()) return FromRocks(it->status());
  }
  next_data_id_.store(std::max(max_id, max_file_id) + 1);
  {
    // Completed-upload records are only needed for a day.
    const int64_t now = text::NowUnixMillis();
    std::string start(1, codec::kCompletedTag), end(1, codec::kCompletedTag + 1);
    Status s = ForEach(kUploadsCf, start, end, [&](std::string_view k, std::string_view v) {
      Result<codec::CompletedRecord> r = codec::DecodeCompleted(v);
      if (!r.ok()) return r.status();
      if (now - r->completed_ms > kCompletedTtlMs) batch.Delete(cf(kUploadsCf), ToSlice(k));
      return Status::Ok();
    });
    if (!s.ok()) return s;
  }
  Status s = InitStats(&batch);
  if (!s.ok()) return s;
  if (batch.Count() == 0) return Status::Ok();
  return Apply(&batch);
}

Status StoreImpl::InitStats(rocksdb::WriteBatch* batch) {
  Result<std::optional<std::string>> ready = GetRaw(kDefaultCf, kStatsReadySetting, nullptr);
  if (!ready.ok()) return ready.status();
  if (ready->has_value()) return Status::Ok();
  std::string current;
  int64_t objects = 0, bytes = 0;
  auto flush = [&] {
    if (objects == 0) return;
    batch->Put(cf(kDefaultCf), codec::StatsKey(current), codec::EncodeStatsDelta(objects, bytes));
  };
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, cf(kObjectsCf)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view k = ToView(it->key());
    std::string_view bucket = k.substr(0, k.find('\0'));
    if (bucket != current) {
      flush();
      current = std::string(bucket);
      objects = bytes = 0;
    }
    Result<codec::ObjectSummary> summary = codec::DecodeObjectSummary(ToView(it->value()));
    if (!summary.ok()) return summary.status();
    ++objects;
    bytes += static_cast<int64_t>(summary->size);
  }
  if (!it->status().ok()) return FromRocks(it->status());
  flush();
  batch->Put(cf(kDefaultCf), ToSlice(kStatsReadySetting), "1");
  return Status::Ok();
}

// Resumes a DB stopped by a background error once the reserve is free again (its flush needs
// room); true when it writes again. RocksDB's own recovery from ENOSPC (through the
// SstFileManager DB::Open adds) is switched off by EngineErrorListener: its free-space rule
// differs from the reserve, and it cannot tell the case below.
//   https://github.com/facebook/rocksdb/wiki/Background-Error-Handling
//
// One stop cannot be resumed in this process. DB::Resume flushes the memtables, and only
// switching a non-empty memtable moves RocksDB to a new WAL file
// (DBImpl::FlushMemTable in 7.8): when a WAL append failed while every memtable was empty,
// Resume would succeed and keep the failed log writer, and the next write's append to it
// aborts the process (WritableFileWriter::AssertFalseAndGetStatusForPrevError). The engine
// headroom makes that rare (another process must fill the disk past it); when it happens
// anyway the store stays stopped, reads keep working, and needs_restart_ says that a restart
// (which opens a new WAL) brings writes back.
bool StoreImpl::ResumeIfRoom(const FsSpace& space, uint64_t reserve) {
  if (space.available_bytes < reserve) return false;
  std::lock_guard lock(resume_mu_);
  if (!engine_errors_->stopped()) return true;
  if (needs_restart_.load()) return false;
  if (engine_errors_->log_write_failed() && !AnyMemtableHoldsData()) {
    needs_restart_.store(true);
    return false;
  }
  if (!db_->Resume().ok()) return false;
  engine_errors_->Recovered();
  return true;
}

bool StoreImpl::AnyMemtableHoldsData() {
  for (rocksdb::ColumnFamilyHandle* family : handles_) {
    uint64_t entries = 1;
    db_->GetIntProperty(family, rocksdb::DB::Properties::kNumEntriesActiveMemTable, &entries);
    if (entries > 0) return true;
  }
  return false;
}

}  // namespace cubby::storage::internal
