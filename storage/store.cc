// Store on RocksDB. Key layout and record encoding: codec.h. Options: db_options.cc.
//
// Locking (always acquired in this order, never two of one kind):
//   bucket stripe (shared_mutex on hash(bucket)): shared by object commits/deletes and grant
//     creation, exclusive by bucket create/update/delete, so a bucket cannot vanish between a
//     commit's existence check and its write.
//   key stripe (mutex on hash(bucket, key)): makes a commit's or delete's read of the current
//     object and its write one step, so replaced data is released exactly once.
//   grant_mu_: the keys family: access keys, the grant index, users and their indexes.
// Locks are held across the synced Write on purpose, but they are fine-grained, so commits of
// different keys reach DB::Write concurrently and share fsyncs through group commit.
#include "storage/store.h"

#include <fcntl.h>
#include <openssl/rand.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/snapshot.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_set>

#include "storage/backup.h"
#include "storage/blob_files.h"
#include "storage/codec.h"
#include "storage/db_options.h"
#include "storage/engine_log.h"
#include "storage/format_internal.h"
#include "storage/keygen.h"
#include "storage/users.h"
#include "storage/users_internal.h"
#include "text/encoding.h"

namespace cubby::storage {
namespace {

constexpr size_t kStripes = 64;
// Key and part stripes are held across the synced write, so two commits whose keys share a
// stripe are serialised for a whole sync. With 32 commits in flight over 64 stripes about 7
// pairs collide at any time (birthday bound 32*31/2/64); over 1024, about 0.5. In an A/B of
// 4 KiB PUTs at c=32 this raised the commits sharing one WAL sync from 9.7 to 12.0 (issue 5).
constexpr size_t kKeyStripes = 1024;
constexpr int64_t kCompletedTtlMs = 24 * 3600 * 1000;  // how long a retried complete is answered
// Set once stats records cover every bucket. Starts with NUL: no setting name does.
constexpr std::string_view kStatsReadySetting("\0stats-ready", 12);

// A new upload id: a stamp (ms time << 16 | a sequence number within the ms, 16 hex digits, so
// ids of one key sort by initiation) then 112 random bits, all URL-safe.
Result<std::string> NewUploadId(uint64_t stamp) {
  char raw[8 + 14];  // the stamp big-endian, then the random bits
  for (int i = 0; i < 8; ++i) raw[i] = static_cast<char>(stamp >> (56 - 8 * i));
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw + 8), 14) != 1) {
    return Status(Code::kIOError, "RAND_bytes failed");
  }
  return text::HexEncode(std::string_view(raw, sizeof raw));
}

Status NoSuchUpload() { return Status(Code::kNoSuchUpload, "no such upload"); }

// The one mapping from rocksdb::Status. Callers handle NotFound themselves before this.
Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::Ok();
  if (s.IsCorruption()) return Status(Code::kCorruption, s.ToString());
  // ENOSPC, and every write while the background error it set stops the DB.
  if (s.IsNoSpace()) return Status(Code::kNoSpace, "the store is full: " + s.ToString());
  return Status(Code::kIOError, s.ToString());
}

// Tracks RocksDB's background error: once set (a flush, compaction or WAL write failed, e.g.
// with ENOSPC) the DB refuses every write until DB::Resume succeeds, and
// rocksdb.is-write-stopped does not say so (it reports stalls only). Also notes whether the
// error came from a foreground write (its WAL append; see StoreImpl::ResumeIfRoom). Callbacks
// come from RocksDB's threads.
// https://github.com/facebook/rocksdb/wiki/Background-Error-Handling
class EngineErrorListener final : public rocksdb::EventListener {
 public:
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override {
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
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status,
                            bool* auto_recovery) override {
    *auto_recovery = false;
  }
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override {
    if (info.new_bg_error.ok()) Recovered();
  }
  bool stopped() const { return stopped_.load(); }
  bool log_write_failed() const { return log_write_failed_.load(); }
  void Recovered() {
    log_write_failed_.store(false);
    stopped_.store(false);
  }

 private:
  std::atomic<bool> stopped_{false};
  std::atomic<bool> log_write_failed_{false};
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
std::string_view ToView(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

Status NoSuchBucket(std::string_view name) {
  return Status(Code::kNoSuchBucket, "no such bucket: " + std::string(name));
}

// The one check of a write's conditions against the object it replaces (nullopt: none).
Status CheckWriteCondition(const WriteCondition& cond, const std::optional<ObjectMeta>& current) {
  if (cond.if_none_match_any && current.has_value()) {
    return Status(Code::kPreconditionFailed, "object exists (If-None-Match: *)");
  }
  if (cond.if_match && (!current.has_value() || current->etag != *cond.if_match)) {
    return Status(Code::kPreconditionFailed, "etag does not match (If-Match)");
  }
  return Status::Ok();
}

class StoreImpl;

StoreOptions WithStatFs(StoreOptions options) {
  if (!options.statfs) options.statfs = StatFs;
  return options;
}

// A change's batch, plus the data files it releases: they are unlinked once the batch is
// durable (BlobFiles::Release), never before, so a failed write loses nothing.
class Batch : public rocksdb::WriteBatch {
 public:
  std::vector<uint64_t> released_files;
};

constexpr uint64_t kWritebackBytes = 8 << 20;  // start writeback of a data file every 8 MiB
// A data file of unknown final size checks free space against the reserve every this many
// bytes (a statvfs: cheap beside a MiB of writes).
constexpr uint64_t kSpaceCheckBytes = 1 << 20;

// The data segments of an object: empty for inline objects, one for a plain chunked object,
// one per part for a completed multipart upload.
std::vector<DataSegment> SegmentsOf(const ObjectMeta& meta) {
  if (!meta.segments.empty()) return meta.segments;
  if (meta.data_id == 0) return {};
  return {DataSegment{meta.data_id, meta.size, meta.chunk_size}};
}

// Gives `meta` the fields that say where an object's bytes are (size, part sizes, data id,
// chunk size, inline data, segments) of `source`; the caller-visible metadata stays.
void SetDataOf(const ObjectMeta& source, ObjectMeta* meta) {
  meta->size = source.size;
  meta->part_sizes = source.part_sizes;
  meta->data_id = source.data_id;
  meta->chunk_size = source.chunk_size;
  meta->inline_data = source.inline_data;
  meta->segments = source.segments;
}

// A listing's walk over one bucket's keys in a family (see StoreImpl::WalkListing).
struct ListingWalk {
  std::string_view bucket;
  CfIndex family;
  std::string base;            // the bucket's first key in the family; a name follows it
  std::string end;             // the first key past the bucket's
  std::string start;           // the key to seek to first
  std::string_view prefix;     // names outside it are not walked
  std::string_view delimiter;  // empty: no common prefixes
  std::string_view marker;     // a common prefix is listed only when it sorts after this
  size_t max;                  // entries plus common prefixes in a page; 0: an empty page
};

// ---- Reader.
class ReaderImpl final : public ObjectReader {
 public:
  // `pinned`: the file ids of meta's segments, pinned in `files` by the caller; unpinned here.
  ReaderImpl(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* data_cf, BlobFiles* files,
             std::unique_ptr<rocksdb::ManagedSnapshot> snapshot, ObjectMeta meta,
             std::vector<uint64_t> pinned)
      : db_(db),
        data_cf_(data_cf),
        files_(files),
        snapshot_(std::move(snapshot)),
        meta_(std::move(meta)),
        segments_(SegmentsOf(meta_)),
        pinned_(std::move(pinned)) {
    uint64_t start = 0;
    for (const DataSegment& seg : segments_) {
      starts_.push_back(start);
      start += seg.size;
    }
  }

  ~ReaderImpl() override {
    CloseFile();
    files_->Unpin(pinned_);
  }

  const ObjectMeta& meta() const override { return meta_; }

  Status Seek(uint64_t offset) override {
    if (offset > meta_.size) {
      return Status(Code::kInvalidArgument, "seek past the end of the object");
    }
    pos_ = offset;
    return Status::Ok();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    size_t copied = 0;
    while (copied < n && pos_ < meta_.size) {
      std::string_view chunk;
      uint64_t chunk_start = 0;
      if (segments_.empty()) {
        chunk = meta_.inline_data;
      } else {
        const size_t seg = SegmentAt(pos_);
        if (segments_[seg].chunk_size == 0) {
          Result<size_t> got = ReadFile(seg, buf + copied, n - copied);
          if (!got.ok()) return got.status();
          copied += *got;
          pos_ += *got;
          continue;
        }
        uint64_t index = (pos_ - starts_[seg]) / segments_[seg].chunk_size;
        Status s = LoadChunk(seg, index);
        if (!s.ok()) return s;
        chunk = ToView(chunk_);
        chunk_start = starts_[seg] + index * segments_[seg].chunk_size;
      }
      size_t off = static_cast<size_t>(pos_ - chunk_start);
      size_t take = std::min(n - copied, chunk.size() - off);
      std::memcpy(buf + copied, chunk.data() + off, take);
      copied += take;
      pos_ += take;
    }
    return copied;
  }

  Result<std::optional<FileSpan>> NextFileSpan(size_t max) override {
    if (pos_ >= meta_.size || segments_.empty() || max == 0) return std::optional<FileSpan>();
    const size_t seg = SegmentAt(pos_);
    if (segments_[seg].chunk_size != 0) return std::optional<FileSpan>();
    Status s = OpenFile(seg);
    if (!s.ok()) return s;
    const uint64_t off = pos_ - starts_[seg];
    const size_t len = static_cast<size_t>(std::min<uint64_t>(max, segments_[seg].size - off));
    pos_ += len;
    return std::optional<FileSpan>(FileSpan{fd_, off, len});
  }

 private:
  // The segment holding byte `pos` (< size): the last non-empty one starting at or before it.
  size_t SegmentAt(uint64_t pos) const {
    size_t seg = std::upper_bound(starts_.begin(), starts_.end(), pos) - starts_.begin() - 1;
    while (segments_[seg].size == 0 || pos - starts_[seg] >= segments_[seg].size) ++seg;
    return seg;
  }

  Status OpenFile(size_t seg) {
    if (fd_ >= 0 && fd_seg_ == seg) return Status::Ok();
    CloseFile();
    Result<int> fd = files_->OpenForRead(segments_[seg].data_id);
    if (!fd.ok()) return fd.status();
    struct stat st;
    if (::fstat(*fd, &st) != 0) {
      ::close(*fd);
      return Status(Code::kIOError, "fstat of an object data file failed");
    }
    // A short file would make a response end early: report it before sending anything of it.
    if (static_cast<uint64_t>(st.st_size) != segments_[seg].size) {
      ::close(*fd);
      return Status(Code::kCorruption, "object data file has the wrong size");
    }
    fd_ = *fd;
    fd_seg_ = seg;
    return Status::Ok();
  }

  void CloseFile() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  Result<size_t> ReadFile(size_t seg, char* buf, size_t n) {
    Status s = OpenFile(seg);
    if (!s.ok()) return s;
    const uint64_t off = pos_ - starts_[seg];
    const size_t want = static_cast<size_t>(std::min<uint64_t>(n, segments_[seg].size - off));
    for (;;) {
      ssize_t got = ::pread(fd_, buf, want, static_cast<off_t>(off));
      if (got > 0) return static_cast<size_t>(got);
      if (got == 0) return Status(Code::kCorruption, "object data file ended early");
      if (errno != EINTR) return Status(Code::kIOError, "reading an object data file failed");
    }
  }

  Status LoadChunk(size_t seg, uint64_t index) {
    if (loaded_ && seg == seg_index_ && index == chunk_index_) return Status::Ok();
    loaded_ = false;
    chunk_.Reset();
    const DataSegment& segment = segments_[seg];
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot_->snapshot();
    rocksdb::Status s = db_->Get(ro, data_cf_, codec::DataKey(segment.data_id, index), &chunk_);
    if (s.IsNotFound()) return Status(Code::kCorruption, "object data chunk missing");
    if (!s.ok()) return FromRocks(s);
    uint64_t start = index * segment.chunk_size;
    uint64_t expected = std::min<uint64_t>(segment.chunk_size, segment.size - start);
    if (chunk_.size() != expected) {
      chunk_.Reset();
      return Status(Code::kCorruption, "object data chunk has the wrong size");
    }
    loaded_ = true;
    seg_index_ = seg;
    chunk_index_ = index;
    return Status::Ok();
  }

  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* data_cf_;
  BlobFiles* files_;
  std::unique_ptr<rocksdb::ManagedSnapshot> snapshot_;  // null unless some data is in chunks
  ObjectMeta meta_;
  const std::vector<DataSegment> segments_;
  const std::vector<uint64_t> pinned_;
  std::vector<uint64_t> starts_;  // object offset of each segment
  uint64_t pos_ = 0;
  rocksdb::PinnableSlice chunk_;  // the current chunk: memory bounded by one chunk
  size_t seg_index_ = 0;
  uint64_t chunk_index_ = 0;
  bool loaded_ = false;
  int fd_ = -1;  // the open data file of segment fd_seg_
  size_t fd_seg_ = 0;
};

// Receives a stream of bytes for one object or part. Up to one chunk is kept in memory and
// goes into the final batch (inline in the record when small enough, else as one chunk in the
// data family). A stream that grows past one chunk moves to a data file of its own, written as
// it arrives and synced at Finish; without a commit the file is removed (by the destructor, or
// after a crash by the next Open, since no record references it).
class ChunkStream {
 public:
  ChunkStream(StoreImpl* store);
  ~ChunkStream();

  Status Append(std::string_view data);
  uint64_t size() const { return size_; }
  // Makes the data durable and adds what the record needs to `batch` (the last chunk, or the
  // file's reference); returns where the data is. With allow_inline, small data is returned in
  // *inline_data instead (segment data_id 0). An empty stream has data_id 0.
  Result<DataSegment> Finish(Batch* batch, bool allow_inline, std::string* inline_data);
  // The final batch was written: the data now belongs to a committed record.
  void Committed() { committed_ = true; }

 private:
  Status StartFile();
  Status WriteFile(std::string_view data);

  StoreImpl* store_;
  const uint32_t chunk_size_;
  const size_t inline_limit_;
  std::string buffer_;  // bytes not yet written: at most one chunk
  uint64_t size_ = 0;
  uint64_t file_id_ = 0;  // non-zero once the stream moved to a file
  int fd_ = -1;
  uint64_t kicked_ = 0;  // file bytes whose writeback was started
  uint64_t space_checked_ = 0;  // file size at the last free-space check
  Status status_;        // sticky write failure
  bool committed_ = false;
};

// ---- Writers.
class WriterImpl final : public ObjectWriter {
 public:
  WriterImpl(StoreImpl* store, std::string bucket)
      : store_(store), bucket_(std::move(bucket)), stream_(store) {}

  Status Append(std::string_view data) override {
    if (commit_called_) return Status(Code::kInvalidArgument, "append after commit");
    return stream_.Append(data);
  }
  uint64_t size() const override { return stream_.size(); }
  Result<ObjectMeta> Commit(std::string_view key, ObjectMeta meta,
                            const WriteCondition& cond) override;

 private:
  StoreImpl* store_;
  const std::string bucket_;
  ChunkStream stream_;
  bool commit_called_ = false;
};

class PartWriterImpl final : public PartWriter {
 public:
  PartWriterImpl(StoreImpl* store, std::string bucket, std::string key, std::string upload_id)
      : store_(store),
        bucket_(std::move(bucket)),
        key_(std::move(key)),
        upload_id_(std::move(upload_id)),
        stream_(store) {}

  Status Append(std::string_view data) override {
    if (commit_called_) return Status(Code::kInvalidArgument, "append after commit");
    return stream_.Append(data);
  }
  uint64_t size() const override { return stream_.size(); }
  Result<PartRecord> Commit(uint32_t part_number, PartRecord meta) override;

 private:
  StoreImpl* store_;
  const std::string bucket_, key_, upload_id_;
  ChunkStream stream_;
  bool commit_called_ = false;
};

// ---- Store.
class StoreImpl final : public Store {
 public:
  StoreImpl(const StoreOptions& options, rocksdb::DB* db,
            std::vector<rocksdb::ColumnFamilyHandle*> handles, std::unique_ptr<BlobFiles> files,
            std::shared_ptr<EngineErrorListener> engine_errors, std::shared_ptr<rocksdb::Env> env)
      : options_(WithStatFs(options)),
        env_(std::move(env)),
        db_(db),
        handles_(std::move(handles)),
        files_(std::move(files)),
        engine_errors_(std::move(engine_errors)) {
    sync_.sync = options_.sync;
    reclaimer_ = std::thread([this] { ReclaimLoop(); });
  }

  ~StoreImpl() override {
    {
      std::lock_guard lock(reclaim_mu_);
      stopping_ = true;
      reclaim_cancel_.store(true);
    }
    reclaim_cv_.notify_all();
    reclaimer_.join();
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
    delete db_;
  }

  // Brings the store to kFormatVersion (format.h). The marker is read again now that DB::Open
  // holds the lock: another release may have written the folder since Store::Open looked.
  Status UpgradeFormat(bool existed, const std::function<void(const MigrationEvent&)>& on_event) {
    Result<std::optional<uint32_t>> marker = ReadFormatMarker(db_, cf(kDefaultCf));
    if (!marker.ok()) return marker.status();
    // A store created just now holds nothing older: it starts at the current format.
    if (!existed && !marker->has_value()) return WriteFormatMarker(db_, cf(kDefaultCf));
    const uint32_t version = marker->value_or(0);
    if (version > kFormatVersion) return FormatTooNew(version);
    return Migrate(db_, handles_, version, on_event);
  }

  // Removes the data of writers that never committed and seeds the data id counter.
  Status Recover() {
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
      const int64_t now = NowMs();
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

  // A store written before bucket stats existed: count every bucket once.
  Status InitStats(rocksdb::WriteBatch* batch) {
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

  // Commits a part: stores `part` (its data's last chunk is already in `batch`) and releases
  // the part it replaces, if the upload still exists.
  Status CommitPart(std::string_view bucket, std::string_view key, std::string_view upload_id,
                    const PartRecord& part, Batch* batch) {
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::shared_lock upload_lock(UploadMutex(upload_id));
    std::lock_guard part_lock(PartMutex(upload_id, part.part_number));
    if (Status s = FindUpload(bucket, key, upload_id).status(); !s.ok()) return s;
    const std::string part_key = codec::PartKey(upload_id, part.part_number);
    Result<std::optional<std::string>> old = GetRaw(kUploadsCf, part_key, nullptr);
    if (!old.ok()) return old.status();
    if (old->has_value()) {
      Result<PartRecord> old_part = codec::DecodePart(**old);
      if (!old_part.ok()) return old_part.status();
      AddReleaseSegment(old_part->data, batch);
    }
    batch->Put(cf(kUploadsCf), part_key, codec::EncodePart(part));
    return WriteReleasing(batch);
  }

  // ---- Used by readers and writers.
  rocksdb::ColumnFamilyHandle* cf(CfIndex i) { return handles_[i]; }
  const StoreOptions& options() const { return options_; }
  uint64_t AllocateDataId() { return next_data_id_.fetch_add(1); }
  BlobFiles& files() { return *files_; }

  // Adds to `batch` the object `meta` at (bucket, key) and the release of the object it
  // replaces, after checking `cond`; writes it synced.
  Status CommitObject(std::string_view bucket, std::string_view key, const ObjectMeta& meta,
                      const WriteCondition& cond, Batch* batch) {
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::lock_guard key_lock(KeyMutex(bucket, key));
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    const std::string object_key = codec::ObjectKey(bucket, key);
    Result<std::optional<ObjectMeta>> current = GetForWrite(object_key, cond);
    if (!current.ok()) return current.status();
    AddReplaceObject(bucket, object_key, meta, *current, batch);
    return WriteReleasing(batch);
  }

  // ---- Buckets.
  Status CreateBucket(const BucketRecord& bucket) override {
    bool created = false;
    Result<BucketRecord> r = GetOrCreateBucket(bucket, &created);
    if (!r.ok()) return r.status();
    if (!created) {
      return Status(Code::kBucketAlreadyExists, "bucket exists: " + bucket.name);
    }
    return Status::Ok();
  }

  Result<BucketRecord> GetOrCreateBucket(const BucketRecord& candidate, bool* created) override {
    *created = false;
    if (candidate.name.empty() || candidate.name.find('\0') != std::string::npos) {
      return Status(Code::kInvalidArgument, "bucket name is empty or holds a NUL byte");
    }
    std::unique_lock bucket_lock(BucketMutex(candidate.name));
    Result<BucketRecord> existing = GetBucket(candidate.name);
    if (existing.ok() || existing.status().code() != Code::kNoSuchBucket) return existing;
    Status s = ApplyPut(cf(kBucketsCf), candidate.name,
                                  codec::EncodeBucket(candidate));
    if (!s.ok()) return s;
    *created = true;
    return candidate;
  }

  Result<BucketRecord> GetBucket(std::string_view name) override {
    Result<std::optional<std::string>> raw = GetRaw(kBucketsCf, name, nullptr);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) return NoSuchBucket(name);
    return codec::DecodeBucket(**raw);
  }

  Status UpdateBucket(const BucketRecord& bucket) override {
    std::unique_lock bucket_lock(BucketMutex(bucket.name));
    if (Status s = RequireBucket(bucket.name); !s.ok()) return s;
    return ApplyPut(cf(kBucketsCf), bucket.name, codec::EncodeBucket(bucket));
  }

  Result<std::vector<BucketRecord>> ListBuckets() override {
    std::vector<BucketRecord> out;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, cf(kBucketsCf)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      Result<BucketRecord> r = codec::DecodeBucket(ToView(it->value()));
      if (!r.ok()) return r.status();
      out.push_back(std::move(r).value());
    }
    if (!it->status().ok()) return FromRocks(it->status());
    return out;
  }

  Status DeleteBucket(std::string_view name, bool force) override {
    std::unique_lock bucket_lock(BucketMutex(name));
    if (Status s = RequireBucket(name); !s.ok()) return s;
    Batch batch;
    if (!force) {
      Result<bool> empty = IsEmptyLocked(name);
      if (!empty.ok()) return empty.status();
      if (!*empty) return Status(Code::kBucketNotEmpty, "bucket is not empty: " + std::string(name));
    } else {
      // Every commit and delete in this bucket holds the bucket lock shared, so the set of
      // objects cannot change under this scan.
      const std::string begin = codec::ObjectPrefix(name), end = codec::ObjectPrefixEnd(name);
      Status s = ForEach(kObjectsCf, begin, end, [&](std::string_view, std::string_view value) {
        Result<ObjectMeta> meta = codec::DecodeObjectMeta(value);
        if (!meta.ok()) return meta.status();
        AddReleaseData(*meta, &batch);
        return Status::Ok();
      });
      if (!s.ok()) return s;
      batch.DeleteRange(cf(kObjectsCf), begin, end);
      // Uploads and their parts. Part commits hold the bucket lock shared: no part can appear.
      s = ForEach(kUploadsCf, codec::UploadPrefix(name), codec::UploadPrefixEnd(name),
                  [&](std::string_view, std::string_view value) {
                    Result<UploadRecord> upload = codec::DecodeUpload(value);
                    if (!upload.ok()) return upload.status();
                    return AddReleaseParts(upload->upload_id, &batch);
                  });
      if (!s.ok()) return s;
      batch.DeleteRange(cf(kUploadsCf), codec::UploadPrefix(name), codec::UploadPrefixEnd(name));
    }
    batch.Delete(cf(kBucketsCf), ToSlice(name));
    batch.Delete(cf(kDefaultCf), codec::StatsKey(name));
    std::lock_guard grant_lock(grant_mu_);
    Status s = ForEach(kKeysCf, codec::GrantIndexPrefix(name), codec::GrantIndexPrefixEnd(name),
                       [&](std::string_view index_key, std::string_view key_id) {
                         batch.Delete(cf(kKeysCf), ToSlice(index_key));
                         return RevokeLocked(key_id, name, &batch);
                       });
    if (!s.ok()) return s;
    return WriteReleasing(&batch);
  }

  Result<bool> BucketIsEmpty(std::string_view name) override {
    if (Status s = RequireBucket(name); !s.ok()) return s;
    return IsEmptyLocked(name);
  }

  // ---- Objects.
  Result<ObjectMeta> HeadObject(std::string_view bucket, std::string_view key) override {
    Result<std::optional<ObjectMeta>> meta = GetObjectMeta(codec::ObjectKey(bucket, key), nullptr);
    if (!meta.ok()) return meta.status();
    if (meta->has_value()) return std::move(**meta);
    return MissingObject(bucket, key);
  }

  Result<std::unique_ptr<ObjectReader>> OpenObject(std::string_view bucket,
                                                   std::string_view key) override {
    // Chunks are pinned by the snapshot, files by pins taken inside the read gate (see
    // blob_files.h): a concurrent overwrite or delete changes neither until the reader goes.
    std::unique_ptr<rocksdb::ManagedSnapshot> snapshot;
    std::vector<uint64_t> pinned;
    bool chunked = false;
    ObjectMeta found;
    {
      // The snapshot too is taken inside the gate: one taken before it could still show a
      // version whose release (and unlink) completed before this reader pinned its file.
      auto gate = files_->ReadGate();
      snapshot = std::make_unique<rocksdb::ManagedSnapshot>(db_);
      Result<std::optional<ObjectMeta>> meta =
          GetObjectMeta(codec::ObjectKey(bucket, key), snapshot->snapshot());
      if (!meta.ok()) return meta.status();
      if (!meta->has_value()) {
        gate.unlock();
        return MissingObject(bucket, key);
      }
      found = std::move(**meta);
      for (const DataSegment& seg : SegmentsOf(found)) {
        if (seg.data_id == 0) continue;
        if (seg.chunk_size == 0) {
          pinned.push_back(seg.data_id);
        } else {
          chunked = true;
        }
      }
      files_->Pin(pinned);
    }
    if (!chunked) snapshot.reset();
    return std::unique_ptr<ObjectReader>(std::make_unique<ReaderImpl>(
        db_, cf(kDataCf), files_.get(), std::move(snapshot), std::move(found), std::move(pinned)));
  }

  Result<std::unique_ptr<ObjectWriter>> NewObjectWriter(std::string_view bucket) override {
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    return std::unique_ptr<ObjectWriter>(std::make_unique<WriterImpl>(this, std::string(bucket)));
  }

  Status DeleteObject(std::string_view bucket, std::string_view key) override {
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::lock_guard key_lock(KeyMutex(bucket, key));
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    const std::string object_key = codec::ObjectKey(bucket, key);
    Result<std::optional<ObjectMeta>> current = GetObjectMeta(object_key, nullptr);
    if (!current.ok()) return current.status();
    if (!current->has_value()) return Status::Ok();
    Batch batch;
    batch.Delete(cf(kObjectsCf), object_key);
    AddReleaseData(**current, &batch);
    AddStatsDelta(bucket, -1, -static_cast<int64_t>((*current)->size), &batch);
    return WriteReleasing(&batch);
  }

  Result<ListPage> ListObjects(const ListQuery& q) override;

  Result<ObjectMeta> UpdateObjectMeta(std::string_view bucket, std::string_view key,
                                      ObjectMeta meta, const WriteCondition& cond) override {
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::lock_guard key_lock(KeyMutex(bucket, key));
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    const std::string object_key = codec::ObjectKey(bucket, key);
    Result<std::optional<ObjectMeta>> current = GetForWrite(object_key, cond);
    if (!current.ok()) return current.status();
    if (!current->has_value()) return Status(Code::kNoSuchKey, "no such key");
    const ObjectMeta& old = **current;
    SetDataOf(old, &meta);
    if (meta.etag.empty()) meta.etag = old.etag;
    if (meta.last_modified_ms == 0) meta.last_modified_ms = NowMs();
    Status s = ApplyPut(cf(kObjectsCf), object_key, codec::EncodeObjectMeta(meta));
    if (!s.ok()) return s;
    return meta;
  }

  Result<BucketStats> GetBucketStats(std::string_view bucket) override {
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    Result<std::optional<std::string>> raw = GetRaw(kDefaultCf, codec::StatsKey(bucket), nullptr);
    if (!raw.ok()) return raw.status();
    BucketStats stats;
    if (!raw->has_value()) return stats;
    int64_t objects, bytes;
    if (!codec::DecodeStatsDelta(**raw, &objects, &bytes) || objects < 0 || bytes < 0) {
      return Status(Code::kCorruption, "bad bucket stats record");
    }
    stats.objects = static_cast<uint64_t>(objects);
    stats.bytes = static_cast<uint64_t>(bytes);
    return stats;
  }

  // ---- Multipart uploads.
  Result<UploadRecord> CreateUpload(std::string_view bucket, std::string_view key,
                                    const ObjectMeta& meta, std::string_view checksum_algorithm,
                                    std::string_view checksum_type) override {
    UploadRecord upload;
    upload.bucket = std::string(bucket);
    upload.key = std::string(key);
    upload.initiated_ms = NowMs();
    Result<std::string> id = NewUploadId(NextUploadStamp(upload.initiated_ms));
    if (!id.ok()) return id.status();
    upload.upload_id = std::move(id).value();
    upload.meta = meta;
    // Only the caller-visible metadata is kept: the object's bytes come from its parts.
    SetDataOf(ObjectMeta(), &upload.meta);
    upload.checksum_algorithm = std::string(checksum_algorithm);
    upload.checksum_type = std::string(checksum_type);
    std::shared_lock bucket_lock(BucketMutex(bucket));
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    Status s = ApplyPut(cf(kUploadsCf),
                                  codec::UploadKey(bucket, key, upload.upload_id),
                                  codec::EncodeUpload(upload));
    if (!s.ok()) return s;
    return upload;
  }

  Result<UploadRecord> GetUpload(std::string_view bucket, std::string_view key,
                                 std::string_view upload_id) override {
    return FindUpload(bucket, key, upload_id);
  }

  Result<std::unique_ptr<PartWriter>> NewPartWriter(std::string_view bucket, std::string_view key,
                                                    std::string_view upload_id) override {
    if (Status s = FindUpload(bucket, key, upload_id).status(); !s.ok()) return s;
    return std::unique_ptr<PartWriter>(std::make_unique<PartWriterImpl>(
        this, std::string(bucket), std::string(key), std::string(upload_id)));
  }

  Result<std::vector<PartRecord>> ListParts(std::string_view bucket, std::string_view key,
                                            std::string_view upload_id,
                                            uint32_t part_number_marker, size_t max_parts,
                                            bool* truncated) override {
    *truncated = false;
    // One snapshot for the upload check and the parts, so a concurrent complete is all or nothing.
    rocksdb::ManagedSnapshot snapshot(db_);
    Status s = FindUpload(bucket, key, upload_id, snapshot.snapshot()).status();
    if (!s.ok()) return s;
    std::vector<PartRecord> parts;
    if (max_parts == 0 || part_number_marker == UINT32_MAX) return parts;
    const std::string end = codec::PartPrefixEnd(upload_id);
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    ro.snapshot = snapshot.snapshot();
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(kUploadsCf)));
    for (it->Seek(codec::PartKey(upload_id, part_number_marker + 1)); it->Valid(); it->Next()) {
      if (parts.size() == max_parts) {
        *truncated = true;
        break;
      }
      Result<PartRecord> part = codec::DecodePart(ToView(it->value()));
      if (!part.ok()) return part.status();
      parts.push_back(std::move(part).value());
    }
    if (!it->status().ok()) return FromRocks(it->status());
    return parts;
  }

  Result<ListUploadsPage> ListUploads(const ListUploadsQuery& q) override;

  Result<ObjectMeta> CompleteUpload(std::string_view bucket, std::string_view key,
                                    std::string_view upload_id,
                                    const std::vector<uint32_t>& part_numbers, ObjectMeta meta,
                                    const WriteCondition& cond) override {
    if (part_numbers.empty()) return Status(Code::kInvalidArgument, "no parts to complete");
    for (size_t i = 1; i < part_numbers.size(); ++i) {
      if (part_numbers[i] <= part_numbers[i - 1]) {
        return Status(Code::kInvalidArgument, "part numbers are not strictly ascending");
      }
    }
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::unique_lock upload_lock(UploadMutex(upload_id));
    std::lock_guard key_lock(KeyMutex(bucket, key));
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    if (Status s = FindUpload(bucket, key, upload_id).status(); !s.ok()) return s;
    Result<std::vector<PartRecord>> all = AllParts(upload_id);
    if (!all.ok()) return all.status();

    Batch batch;
    SetDataOf(ObjectMeta(), &meta);
    auto part = all->begin();
    for (uint32_t wanted : part_numbers) {
      for (; part != all->end() && part->part_number < wanted; ++part) {
        AddReleaseSegment(part->data, &batch);  // uploaded but not chosen
      }
      if (part == all->end() || part->part_number != wanted) {
        return Status(Code::kInvalidPart, "no part number " + std::to_string(wanted));
      }
      meta.segments.push_back(part->data);
      meta.part_sizes.push_back(part->size);
      meta.size += part->size;
      ++part;
    }
    for (; part != all->end(); ++part) AddReleaseSegment(part->data, &batch);
    if (meta.last_modified_ms == 0) meta.last_modified_ms = NowMs();

    const std::string object_key = codec::ObjectKey(bucket, key);
    Result<std::optional<ObjectMeta>> current = GetForWrite(object_key, cond);
    if (!current.ok()) return current.status();
    AddReplaceObject(bucket, object_key, meta, *current, &batch);
    batch.DeleteRange(cf(kUploadsCf), codec::PartPrefix(upload_id), codec::PartPrefixEnd(upload_id));
    batch.Delete(cf(kUploadsCf), codec::UploadKey(bucket, key, upload_id));
    codec::CompletedRecord done{std::string(bucket), std::string(key), meta.etag,
                                meta.last_modified_ms, NowMs()};
    batch.Put(cf(kUploadsCf), codec::CompletedKey(upload_id), codec::EncodeCompleted(done));
    Status s = WriteReleasing(&batch);
    if (!s.ok()) return s;
    return meta;
  }

  Result<ObjectMeta> CompletedUpload(std::string_view bucket, std::string_view key,
                                     std::string_view upload_id) override {
    if (upload_id.size() != codec::kUploadIdLength) return NoSuchUpload();
    Result<std::optional<std::string>> raw =
        GetRaw(kUploadsCf, codec::CompletedKey(upload_id), nullptr);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) return NoSuchUpload();
    Result<codec::CompletedRecord> done = codec::DecodeCompleted(**raw);
    if (!done.ok()) return done.status();
    if (done->bucket != bucket || done->key != key ||
        NowMs() - done->completed_ms > kCompletedTtlMs) {
      return NoSuchUpload();
    }
    // Only while the object it produced is still there.
    Result<std::optional<ObjectMeta>> current =
        GetObjectMeta(codec::ObjectKey(bucket, key), nullptr);
    if (!current.ok()) return current.status();
    if (!current->has_value() || (*current)->etag != done->etag ||
        (*current)->last_modified_ms != done->last_modified_ms) {
      return NoSuchUpload();
    }
    return std::move(**current);
  }

  Status AbortUpload(std::string_view bucket, std::string_view key,
                     std::string_view upload_id) override {
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::unique_lock upload_lock(UploadMutex(upload_id));
    if (Status s = FindUpload(bucket, key, upload_id).status(); !s.ok()) return s;
    Batch batch;
    Status s = AddReleaseParts(upload_id, &batch);
    if (!s.ok()) return s;
    batch.Delete(cf(kUploadsCf), codec::UploadKey(bucket, key, upload_id));
    return WriteReleasing(&batch);
  }

  // ---- Disk space.
  Status ReclaimSpace() override {
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

  Status DebugWaitForReclaim() override {
    std::unique_lock lock(reclaim_mu_);
    reclaim_cv_.wait(lock, [&] { return (!reclaim_wanted_ && !reclaiming_) || stopping_; });
    return last_reclaim_;
  }

  // ---- Free space.
  Result<Capacity> GetCapacity() override {
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

  Status CheckSpaceFor(uint64_t bytes) override {
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
                    "and resumes once " + std::to_string(reserve) + " bytes are free (" +
                        std::to_string(space->available_bytes) + " now)");
    }
    return CheckFits(*space, reserve, bytes);
  }

  // ---- Access keys.
  Result<AccessKeyRecord> GetAccessKey(std::string_view access_key_id) override {
    Result<std::optional<std::string>> raw =
        GetRaw(kKeysCf, codec::AccessKeyKey(access_key_id), nullptr);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) return Status(Code::kNoSuchAccessKey, "no such access key");
    return codec::DecodeAccessKey(**raw);
  }

  Status PutAccessKey(const AccessKeyRecord& key) override {
    if (key.access_key_id.empty()) return Status(Code::kInvalidArgument, "empty access key id");
    std::lock_guard grant_lock(grant_mu_);
    rocksdb::WriteBatch batch;
    Result<AccessKeyRecord> previous = GetAccessKey(key.access_key_id);
    if (!previous.ok() && previous.status().code() != Code::kNoSuchAccessKey) {
      return previous.status();
    }
    if (previous.ok() && !previous->user_id.empty() && previous->user_id != key.user_id) {
      batch.Delete(cf(kKeysCf), codec::UserAccessKeyKey(previous->user_id, key.access_key_id));
    }
    AddPutUserKey(&batch, cf(kKeysCf), key);
    if (!key.grant_name.empty()) {
      for (const auto& [bucket, mode] : key.grants) {
        batch.Put(cf(kKeysCf), codec::GrantIndexKey(bucket, key.grant_name), key.access_key_id);
      }
    }
    return Apply(&batch);
  }

  Status DeleteAccessKey(std::string_view access_key_id) override {
    std::lock_guard grant_lock(grant_mu_);
    Result<AccessKeyRecord> key = GetAccessKey(access_key_id);
    if (!key.ok()) return key.status().code() == Code::kNoSuchAccessKey ? Status::Ok() : key.status();
    rocksdb::WriteBatch batch;
    if (Status s = AddDeleteKeyLocked(*key, /*drop_cosi_user=*/true, &batch); !s.ok()) return s;
    return Apply(&batch);
  }

  Result<AccessKeyRecord> GetOrCreateGrant(std::string_view bucket, std::string_view grant_name,
                                           const AccessKeyRecord& candidate,
                                           bool* created) override {
    *created = false;
    if (grant_name.empty() || candidate.access_key_id.empty() ||
        candidate.grant_name != grant_name || candidate.grants.size() != 1 ||
        candidate.grants.begin()->first != bucket) {
      return Status(Code::kInvalidArgument, "grant candidate does not match (bucket, grant_name)");
    }
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::lock_guard grant_lock(grant_mu_);
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    const std::string index_key = codec::GrantIndexKey(bucket, grant_name);
    Result<std::optional<std::string>> existing = GetRaw(kKeysCf, index_key, nullptr);
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) {
      Result<AccessKeyRecord> key = GetAccessKey(**existing);
      if (!key.ok() && key.status().code() == Code::kNoSuchAccessKey) {
        return Status(Code::kCorruption, "grant index points at a missing access key");
      }
      return key;
    }
    Result<std::optional<std::string>> clash =
        GetRaw(kKeysCf, codec::AccessKeyKey(candidate.access_key_id), nullptr);
    if (!clash.ok()) return clash.status();
    if (clash->has_value()) return Status(Code::kAborted, "access key id already in use");
    // The key's user, made in the same batch (format 2: every COSI key is a user's).
    Result<UserRecord> user = NewGrantUserLocked(grant_name, candidate.access_key_id);
    if (!user.ok()) return user.status();
    AccessKeyRecord key = candidate;
    key.user_id = user->user_id;
    key.status = KeyStatus::kActive;
    rocksdb::WriteBatch batch;
    AddPutUser(&batch, cf(kKeysCf), *user);
    AddPutUserKey(&batch, cf(kKeysCf), key);
    batch.Put(cf(kKeysCf), index_key, key.access_key_id);
    Status s = Apply(&batch);
    if (!s.ok()) return s;
    *created = true;
    return key;
  }

  Result<std::vector<AccessKeyRecord>> ListGrants(std::string_view bucket) override {
    std::vector<AccessKeyRecord> out;
    std::lock_guard grant_lock(grant_mu_);
    Status s = ForEach(kKeysCf, codec::GrantIndexPrefix(bucket), codec::GrantIndexPrefixEnd(bucket),
                       [&](std::string_view, std::string_view key_id) {
                         Result<AccessKeyRecord> key = GetAccessKey(key_id);
                         if (!key.ok() && key.status().code() == Code::kNoSuchAccessKey) {
                           return Status(Code::kCorruption,
                                         "grant index points at a missing access key");
                         }
                         if (!key.ok()) return key.status();
                         out.push_back(std::move(key).value());
                         return Status::Ok();
                       });
    if (!s.ok()) return s;
    return out;
  }

  // ---- Users. Every change holds grant_mu_, which guards the whole keys family (keys, grants,
  // users and their indexes), so the checks (name free, key count) and the write are one step.
  Result<std::string> GetAccountId() override { return GetSetting(kAccountIdSetting); }

  Result<UserRecord> CreateUser(const UserRecord& candidate) override {
    UserRecord user = candidate;
    if (Status s = ValidateNewUser(&user); !s.ok()) return s;
    std::lock_guard grant_lock(grant_mu_);
    Result<bool> taken = HasRaw(kKeysCf, codec::UserNameKey(FoldName(user.name)));
    if (!taken.ok()) return taken.status();
    if (*taken) return UserExists(user.name);
    if (!user.email.empty()) {
      taken = HasRaw(kKeysCf, codec::UserEmailKey(FoldName(user.email)));
      if (!taken.ok()) return taken.status();
      if (*taken) {
        return Status(Code::kEntityAlreadyExists,
                      "A user with e-mail address " + user.email + " already exists.");
      }
    }
    if (user.user_id.empty()) {
      Result<std::string> id = GenerateCanonicalId();
      if (!id.ok()) return id.status();
      user.user_id = std::move(id).value();
    } else {
      taken = HasRaw(kKeysCf, codec::UserKey(user.user_id));
      if (!taken.ok()) return taken.status();
      if (*taken) return Status(Code::kEntityAlreadyExists, "user id already in use");
    }
    rocksdb::WriteBatch batch;
    AddPutUser(&batch, cf(kKeysCf), user);
    if (Status s = Apply(&batch); !s.ok()) return s;
    return user;
  }

  Result<UserRecord> GetUser(std::string_view name) override {
    Result<std::optional<std::string>> id =
        GetRaw(kKeysCf, codec::UserNameKey(FoldName(name)), nullptr);
    if (!id.ok()) return id.status();
    if (!id->has_value()) return NoSuchUser(name);
    return UserByIndex(**id);
  }

  Result<UserRecord> GetUserById(std::string_view user_id) override {
    Result<std::optional<std::string>> raw = GetRaw(kKeysCf, codec::UserKey(user_id), nullptr);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) {
      return Status(Code::kNoSuchEntity,
                    "The user with id " + std::string(user_id) + " cannot be found.");
    }
    return codec::DecodeUser(**raw);
  }

  Result<UserRecord> FindUserByEmail(std::string_view email) override {
    Result<std::optional<std::string>> id =
        GetRaw(kKeysCf, codec::UserEmailKey(FoldName(email)), nullptr);
    if (!id.ok()) return id.status();
    if (!id->has_value()) {
      return Status(Code::kNoSuchEntity,
                    "The user with e-mail address " + std::string(email) + " cannot be found.");
    }
    return UserByIndex(**id);
  }

  Result<UsersPage> ListUsers(std::string_view marker, size_t max_items) override {
    UsersPage page;
    const std::string prefix(1, codec::kUserNameTag);
    // <marker> 0x00 is the first key after <marker> itself.
    const std::string begin =
        marker.empty() ? prefix : codec::UserNameKey(marker) + std::string(1, '\0');
    std::string last;
    Status s = ForEach(kKeysCf, begin, codec::PrefixSuccessor(prefix),
                       [&](std::string_view key, std::string_view user_id) {
                         if (page.users.size() == max_items) {
                           page.truncated = true;
                           return Status(Code::kAborted, "page full");
                         }
                         Result<UserRecord> user = UserByIndex(user_id);
                         if (!user.ok()) return user.status();
                         page.users.push_back(std::move(user).value());
                         last = std::string(key.substr(1));
                         return Status::Ok();
                       });
    if (!s.ok() && !page.truncated) return s;
    if (page.truncated) page.next_marker = last;
    return page;
  }

  Status DeleteUser(std::string_view name) override {
    std::lock_guard grant_lock(grant_mu_);
    Result<UserRecord> user = GetUser(name);
    if (!user.ok()) return user.status();
    if (FoldName(user->name) == kRootUserName) {
      return Status(Code::kDeleteConflict, "The root user cannot be deleted.");
    }
    Result<bool> has_keys = AnyKeyIn(kKeysCf, codec::UserAccessKeyPrefix(user->user_id),
                                     codec::UserAccessKeyPrefixEnd(user->user_id));
    if (!has_keys.ok()) return has_keys.status();
    if (*has_keys) {
      return Status(Code::kDeleteConflict, "Cannot delete entity, must delete access keys first.");
    }
    if (!user->policies.empty()) {
      return Status(Code::kDeleteConflict, "Cannot delete entity, must delete policies first.");
    }
    rocksdb::WriteBatch batch;
    AddDeleteUser(&batch, cf(kKeysCf), *user);
    return Apply(&batch);
  }

  Status PutUserPolicy(std::string_view name, std::string_view policy_name,
                       std::string_view document) override {
    if (Status s = ValidatePolicyName(policy_name); !s.ok()) return s;
    if (document.empty() || document.size() > kMaxPolicyDocumentBytes) {
      return Status(Code::kInvalidArgument, "a policy document is 1 to 131072 characters long");
    }
    return ChangeUser(name, [&](UserRecord* user) {
      user->policies[std::string(policy_name)] = std::string(document);
      size_t total = 0;
      for (const auto& [n, doc] : user->policies) total += PolicyChars(doc);
      if (total > kMaxUserPolicyChars) {
        return Status(Code::kLimitExceeded, "Maximum policy size of " +
                                                std::to_string(kMaxUserPolicyChars) +
                                                " bytes exceeded for user " + user->name);
      }
      return Status::Ok();
    });
  }

  Result<std::string> GetUserPolicy(std::string_view name, std::string_view policy_name) override {
    Result<UserRecord> user = GetUser(name);
    if (!user.ok()) return user.status();
    auto it = user->policies.find(std::string(policy_name));
    if (it == user->policies.end()) return NoSuchUserPolicy(policy_name);
    return it->second;
  }

  Result<std::vector<std::string>> ListUserPolicies(std::string_view name) override {
    Result<UserRecord> user = GetUser(name);
    if (!user.ok()) return user.status();
    std::vector<std::string> names;
    for (const auto& [n, doc] : user->policies) names.push_back(n);
    return names;
  }

  Status DeleteUserPolicy(std::string_view name, std::string_view policy_name) override {
    return ChangeUser(name, [&](UserRecord* user) {
      if (user->policies.erase(std::string(policy_name)) == 0) {
        return NoSuchUserPolicy(policy_name);
      }
      return Status::Ok();
    });
  }

  Status TagUser(std::string_view name, const std::vector<UserTag>& tags) override {
    for (const auto& [key, value] : tags) {
      if (Status s = ValidateTag(key, value); !s.ok()) return s;
    }
    return ChangeUser(name, [&](UserRecord* user) {
      // A named pair, not a structured binding: clang 14 (the fuzz/ build) cannot capture one.
      for (const UserTag& tag : tags) {
        auto same = std::find_if(user->tags.begin(), user->tags.end(),
                                 [&](const UserTag& t) { return t.first == tag.first; });
        if (same != user->tags.end()) {
          same->second = tag.second;
        } else {
          user->tags.push_back(tag);
        }
      }
      if (user->tags.size() > kMaxTagsPerUser) {
        return Status(Code::kLimitExceeded, "The number of tags has reached the maximum limit.");
      }
      return Status::Ok();
    });
  }

  Status UntagUser(std::string_view name, const std::vector<std::string>& keys) override {
    return ChangeUser(name, [&](UserRecord* user) {
      std::erase_if(user->tags, [&](const UserTag& t) {
        return std::find(keys.begin(), keys.end(), t.first) != keys.end();
      });
      return Status::Ok();
    });
  }

  Result<std::vector<UserTag>> ListUserTags(std::string_view name) override {
    Result<UserRecord> user = GetUser(name);
    if (!user.ok()) return user.status();
    return std::move(user->tags);
  }

  Result<AccessKeyRecord> CreateAccessKey(std::string_view user_name,
                                          const AccessKeyRecord& candidate) override {
    if (candidate.access_key_id.empty() || candidate.secret.empty()) {
      return Status(Code::kInvalidArgument, "an access key needs an id and a secret");
    }
    std::lock_guard grant_lock(grant_mu_);
    Result<UserRecord> user = GetUser(user_name);
    if (!user.ok()) return user.status();
    Result<std::vector<AccessKeyRecord>> owned = KeysOf(user->user_id);
    if (!owned.ok()) return owned.status();
    if (owned->size() >= kMaxAccessKeysPerUser) {
      return Status(Code::kLimitExceeded, "Cannot exceed quota for AccessKeysPerUser: " +
                                              std::to_string(kMaxAccessKeysPerUser));
    }
    Result<bool> taken = HasRaw(kKeysCf, codec::AccessKeyKey(candidate.access_key_id));
    if (!taken.ok()) return taken.status();
    if (*taken) {
      return Status(Code::kEntityAlreadyExists,
                    "Access key " + candidate.access_key_id + " already exists.");
    }
    AccessKeyRecord key;
    key.access_key_id = candidate.access_key_id;
    key.secret = candidate.secret;
    key.created_ms = candidate.created_ms != 0 ? candidate.created_ms : NowMs();
    key.user_id = user->user_id;
    key.status = KeyStatus::kActive;
    // The administrator's keys are all administrator keys.
    key.all_buckets = FoldName(user->name) == kRootUserName;
    rocksdb::WriteBatch batch;
    AddPutUserKey(&batch, cf(kKeysCf), key);
    if (Status s = Apply(&batch); !s.ok()) return s;
    return key;
  }

  Result<std::vector<AccessKeyRecord>> ListAccessKeys(std::string_view user_name) override {
    Result<UserRecord> user = GetUser(user_name);
    if (!user.ok()) return user.status();
    return KeysOf(user->user_id);
  }

  Status UpdateAccessKeyStatus(std::string_view user_name, std::string_view access_key_id,
                               KeyStatus status) override {
    std::lock_guard grant_lock(grant_mu_);
    Result<AccessKeyRecord> key = KeyOfUser(user_name, access_key_id);
    if (!key.ok()) return key.status();
    key->status = status;
    return ApplyPut(cf(kKeysCf), codec::AccessKeyKey(access_key_id),
                              codec::EncodeAccessKey(*key));
  }

  Status DeleteUserAccessKey(std::string_view user_name, std::string_view access_key_id) override {
    std::lock_guard grant_lock(grant_mu_);
    Result<AccessKeyRecord> key = KeyOfUser(user_name, access_key_id);
    if (!key.ok()) return key.status();
    rocksdb::WriteBatch batch;
    if (Status s = AddDeleteKeyLocked(*key, /*drop_cosi_user=*/false, &batch); !s.ok()) return s;
    return Apply(&batch);
  }

  // ---- Settings.
  Result<std::string> GetSetting(std::string_view name) override {
    Result<std::optional<std::string>> raw = GetRaw(kDefaultCf, name, nullptr);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) return Status(Code::kNoSuchKey, "no such setting: " + std::string(name));
    return std::move(**raw);
  }

  Status PutSetting(std::string_view name, std::string_view value) override {
    return ApplyPut(cf(kDefaultCf), ToSlice(name), ToSlice(value));
  }

  Result<uint64_t> DebugCountDataPieces() override {
    uint64_t n = 0;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, cf(kDataCf)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    if (!it->status().ok()) return FromRocks(it->status());
    Result<std::vector<uint64_t>> files = files_->List();
    if (!files.ok()) return files.status();
    return n + files->size();
  }

  size_t DebugDeferredFiles() override { return files_->DebugDeferred(); }

  // ---- Backup and engine figures (defined after the class).
  Status Backup(const std::string& target_dir, const BackupProgressFn& progress) override;
  Result<EngineStats> GetEngineStats() override;
  Result<MemoryUsage> GetMemoryUsage() override;
  Status ReleaseIdleMemory() override;

 private:
  // ---- Users, private. Reads need no lock; REQUIRES grant_mu_ where a name ends in Locked.
  static Status NoSuchUser(std::string_view name) {
    return Status(Code::kNoSuchEntity,
                  "The user with name " + std::string(name) + " cannot be found.");
  }
  static Status NoSuchUserPolicy(std::string_view policy_name) {
    return Status(Code::kNoSuchEntity,
                  "The user policy with name " + std::string(policy_name) + " cannot be found.");
  }
  static Status UserExists(std::string_view name) {
    return Status(Code::kEntityAlreadyExists,
                  "User with name " + std::string(name) + " already exists.");
  }

  // Checks a new user and fills its defaults (path "/", display name = name, created now).
  static Status ValidateNewUser(UserRecord* user) {
    if (Status s = ValidateUserName(user->name); !s.ok()) return s;
    if (!user->email.empty()) {
      if (Status s = ValidateEmail(user->email); !s.ok()) return s;
    }
    if (!user->user_id.empty() && !IsCanonicalId(user->user_id)) {
      return Status(Code::kInvalidArgument, "a user id is 64 lowercase hex characters");
    }
    if (user->path.empty()) user->path = "/";
    if (user->path.front() != '/' || user->path.back() != '/' || user->path.size() > 512) {
      return Status(Code::kInvalidArgument, "a path starts and ends with /");
    }
    if (user->tags.size() > kMaxTagsPerUser) {
      return Status(Code::kLimitExceeded, "The number of tags has reached the maximum limit.");
    }
    for (const auto& [key, value] : user->tags) {
      if (Status s = ValidateTag(key, value); !s.ok()) return s;
    }
    if (user->display_name.empty()) user->display_name = user->name;
    if (user->created_ms == 0) user->created_ms = NowMs();
    return Status::Ok();
  }

  // The user an index entry names; kCorruption when it is missing.
  Result<UserRecord> UserByIndex(std::string_view user_id) {
    Result<UserRecord> user = GetUserById(user_id);
    if (!user.ok() && user.status().code() == Code::kNoSuchEntity) {
      return Status(Code::kCorruption, "a user index points at a missing user");
    }
    return user;
  }

  Result<bool> HasRaw(CfIndex family, std::string_view key) {
    Result<std::optional<std::string>> raw = GetRaw(family, key, nullptr);
    if (!raw.ok()) return raw.status();
    return raw->has_value();
  }

  // Reads user `name`, applies `change` (which may refuse) and writes it back, under grant_mu_.
  template <typename Change>
  Status ChangeUser(std::string_view name, Change&& change) {
    std::lock_guard grant_lock(grant_mu_);
    Result<UserRecord> user = GetUser(name);
    if (!user.ok()) return user.status();
    if (Status s = change(&*user); !s.ok()) return s;
    return ApplyPut(cf(kKeysCf), codec::UserKey(user->user_id), codec::EncodeUser(*user));
  }

  // The keys `user_id` owns, by id.
  Result<std::vector<AccessKeyRecord>> KeysOf(std::string_view user_id) {
    std::vector<AccessKeyRecord> out;
    Status s = ForEach(
        kKeysCf, codec::UserAccessKeyPrefix(user_id), codec::UserAccessKeyPrefixEnd(user_id),
        [&](std::string_view index_key, std::string_view) {
          Result<AccessKeyRecord> key = GetAccessKey(codec::UserAccessKeyId(user_id, index_key));
          if (!key.ok() && key.status().code() == Code::kNoSuchAccessKey) {
            return Status(Code::kCorruption, "a user's key index points at a missing access key");
          }
          if (!key.ok()) return key.status();
          out.push_back(std::move(key).value());
          return Status::Ok();
        });
    if (!s.ok()) return s;
    return out;
  }

  // Key `access_key_id` of user `user_name`: kNoSuchEntity when either is missing or the key
  // belongs to someone else (IAM's answer).
  Result<AccessKeyRecord> KeyOfUser(std::string_view user_name, std::string_view access_key_id) {
    Result<UserRecord> user = GetUser(user_name);
    if (!user.ok()) return user.status();
    Result<AccessKeyRecord> key = GetAccessKey(access_key_id);
    if ((!key.ok() && key.status().code() == Code::kNoSuchAccessKey) ||
        (key.ok() && key->user_id != user->user_id)) {
      return Status(Code::kNoSuchEntity,
                    "The Access Key with id " + std::string(access_key_id) + " cannot be found.");
    }
    return key;
  }

  // Adds to `batch` the removal of `key`, its grant index entries (those still naming it) and
  // its entry in its user's key index. With `drop_cosi_user`, a key issued by COSI takes its
  // user along when the user owns no other key. REQUIRES: grant_mu_ held.
  Status AddDeleteKeyLocked(const AccessKeyRecord& key, bool drop_cosi_user,
                            rocksdb::WriteBatch* batch) {
    batch->Delete(cf(kKeysCf), codec::AccessKeyKey(key.access_key_id));
    if (!key.grant_name.empty()) {
      for (const auto& [bucket, mode] : key.grants) {
        const std::string index_key = codec::GrantIndexKey(bucket, key.grant_name);
        Result<std::optional<std::string>> target = GetRaw(kKeysCf, index_key, nullptr);
        if (!target.ok()) return target.status();
        if (target->has_value() && **target == key.access_key_id) {
          batch->Delete(cf(kKeysCf), index_key);
        }
      }
    }
    if (key.user_id.empty()) return Status::Ok();
    batch->Delete(cf(kKeysCf), codec::UserAccessKeyKey(key.user_id, key.access_key_id));
    if (!drop_cosi_user || key.grant_name.empty()) return Status::Ok();
    Result<std::vector<AccessKeyRecord>> owned = KeysOf(key.user_id);
    if (!owned.ok()) return owned.status();
    for (const AccessKeyRecord& other : *owned) {
      if (other.access_key_id != key.access_key_id) return Status::Ok();
    }
    Result<UserRecord> user = GetUserById(key.user_id);
    if (!user.ok()) {
      return user.status().code() == Code::kNoSuchEntity ? Status::Ok() : user.status();
    }
    AddDeleteUser(batch, cf(kKeysCf), *user);
    return Status::Ok();
  }

  // The user a new COSI grant's key belongs to: named after the grant, or "cosi-<key id>" when
  // that name is not a valid or free user name. REQUIRES: grant_mu_ held.
  Result<UserRecord> NewGrantUserLocked(std::string_view grant_name, std::string_view key_id) {
    UserRecord user;
    user.name = std::string(grant_name);
    Result<bool> taken = HasRaw(kKeysCf, codec::UserNameKey(FoldName(user.name)));
    if (!taken.ok()) return taken.status();
    if (*taken || !ValidateUserName(user.name).ok()) user.name = "cosi-" + FoldName(key_id);
    if (Status s = ValidateNewUser(&user); !s.ok()) return s;
    Result<std::string> id = GenerateCanonicalId();
    if (!id.ok()) return id.status();
    user.user_id = std::move(id).value();
    return user;
  }

  std::shared_mutex& BucketMutex(std::string_view bucket) {
    return bucket_mu_[std::hash<std::string_view>{}(bucket) % kStripes];
  }
  std::mutex& KeyMutex(std::string_view bucket, std::string_view key) {
    size_t h = std::hash<std::string_view>{}(bucket) * 31 + std::hash<std::string_view>{}(key);
    return key_mu_[h % kKeyStripes];
  }

  // A value, or nullopt when the key is absent.
  Result<std::optional<std::string>> GetRaw(CfIndex family, std::string_view key,
                                            const rocksdb::Snapshot* snapshot) {
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot;
    std::string value;
    rocksdb::Status s = db_->Get(ro, cf(family), ToSlice(key), &value);
    if (s.IsNotFound()) return std::optional<std::string>();
    if (!s.ok()) return FromRocks(s);
    return std::optional<std::string>(std::move(value));
  }

  Result<std::optional<ObjectMeta>> GetObjectMeta(const std::string& object_key,
                                                  const rocksdb::Snapshot* snapshot) {
    Result<std::optional<std::string>> raw = GetRaw(kObjectsCf, object_key, snapshot);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) return std::optional<ObjectMeta>();
    Result<ObjectMeta> meta = codec::DecodeObjectMeta(**raw);
    if (!meta.ok()) return meta.status();
    return std::optional<ObjectMeta>(std::move(meta).value());
  }

  // The object at `object_key` (nullopt: none), once `cond` holds for it.
  Result<std::optional<ObjectMeta>> GetForWrite(const std::string& object_key,
                                                const WriteCondition& cond) {
    Result<std::optional<ObjectMeta>> current = GetObjectMeta(object_key, nullptr);
    if (!current.ok()) return current;
    Status s = CheckWriteCondition(cond, *current);
    if (!s.ok()) return s;
    return current;
  }

  // Adds to `batch` `meta` at `object_key` in `bucket` in place of `current` (nullopt: none):
  // the release of current's data and the bucket's stats change.
  void AddReplaceObject(std::string_view bucket, const std::string& object_key,
                        const ObjectMeta& meta, const std::optional<ObjectMeta>& current,
                        Batch* batch) {
    batch->Put(cf(kObjectsCf), object_key, codec::EncodeObjectMeta(meta));
    if (current.has_value()) AddReleaseData(*current, batch);
    const uint64_t old_size = current.has_value() ? current->size : 0;
    AddStatsDelta(bucket, current.has_value() ? 0 : 1,
                  static_cast<int64_t>(meta.size) - static_cast<int64_t>(old_size), batch);
  }

  // OK when bucket `name` exists; else kNoSuchBucket, or the read's error.
  Status RequireBucket(std::string_view name) {
    Result<std::optional<std::string>> raw = GetRaw(kBucketsCf, name, nullptr);
    if (!raw.ok()) return raw.status();
    return raw->has_value() ? Status::Ok() : NoSuchBucket(name);
  }

  // kNoSuchKey, or kNoSuchBucket when the bucket itself is missing.
  Status MissingObject(std::string_view bucket, std::string_view key) {
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    return Status(Code::kNoSuchKey, "no such key");
  }

  void AddReleaseData(const ObjectMeta& meta, Batch* batch) {
    for (const DataSegment& seg : SegmentsOf(meta)) AddReleaseSegment(seg, batch);
  }

  void AddReleaseSegment(const DataSegment& seg, Batch* batch) {
    if (seg.data_id == 0) return;
    if (seg.chunk_size == 0) {
      batch->Delete(cf(kUploadsCf), codec::FileRefKey(seg.data_id));
      batch->released_files.push_back(seg.data_id);
      return;
    }
    batch->DeleteRange(cf(kDataCf), codec::DataKey(seg.data_id, 0),
                       codec::DataKey(seg.data_id + 1, 0));
    NoteReleased(seg.data_id, seg.size);
  }

  // Remembers released data for the reclaimer. Noted before the release is written: compacting
  // a range whose release then failed costs a little work and changes nothing.
  void NoteReleased(uint64_t data_id, uint64_t bytes) {
    std::lock_guard lock(reclaim_mu_);
    released_ids_.push_back(data_id);
    released_bytes_ += bytes;
  }

  void MaybeWakeReclaimer(const Status& write_status) {
    if (!write_status.ok()) return;
    {
      std::lock_guard lock(reclaim_mu_);
      if (released_bytes_ < options_.reclaim_after_bytes) return;
      reclaim_wanted_ = true;
    }
    reclaim_cv_.notify_all();
  }

  void AddStatsDelta(std::string_view bucket, int64_t objects, int64_t bytes,
                     rocksdb::WriteBatch* batch) {
    if (objects == 0 && bytes == 0) return;
    batch->Merge(cf(kDefaultCf), codec::StatsKey(bucket), codec::EncodeStatsDelta(objects, bytes));
  }

  // Writes a metadata batch (synced); then unlinks the data files it released and wakes the
  // reclaimer when enough chunk data has been released.
  Status WriteReleasing(Batch* batch) {
    Status s = Apply(batch);
    MaybeWakeReclaimer(s);
    if (s.ok()) files_->Release(batch->released_files);
    return s;
  }

  void ReclaimLoop() {
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

  // Strictly increasing within this process, and at least now_ms << 16.
  uint64_t NextUploadStamp(int64_t now_ms) {
    const uint64_t floor = static_cast<uint64_t>(now_ms) << 16;
    uint64_t last = last_upload_stamp_.load();
    uint64_t next;
    do {
      next = std::max(floor, last + 1);
    } while (!last_upload_stamp_.compare_exchange_weak(last, next));
    return next;
  }

  std::shared_mutex& UploadMutex(std::string_view upload_id) {
    return upload_mu_[std::hash<std::string_view>{}(upload_id) % kStripes];
  }
  std::mutex& PartMutex(std::string_view upload_id, uint32_t part_number) {
    return part_mu_[(std::hash<std::string_view>{}(upload_id) * 31 + part_number) % kKeyStripes];
  }

  // The upload; kNoSuchUpload when unknown (or known under another bucket or key).
  Result<UploadRecord> FindUpload(std::string_view bucket, std::string_view key,
                                  std::string_view upload_id,
                                  const rocksdb::Snapshot* snapshot = nullptr) {
    if (upload_id.size() != codec::kUploadIdLength) return NoSuchUpload();
    Result<std::optional<std::string>> raw =
        GetRaw(kUploadsCf, codec::UploadKey(bucket, key, upload_id), snapshot);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) return NoSuchUpload();
    return codec::DecodeUpload(**raw);
  }

  // Every part of an upload, ascending.
  Result<std::vector<PartRecord>> AllParts(std::string_view upload_id) {
    std::vector<PartRecord> parts;
    Status s = ForEach(kUploadsCf, codec::PartPrefix(upload_id), codec::PartPrefixEnd(upload_id),
                       [&](std::string_view, std::string_view value) {
                         Result<PartRecord> part = codec::DecodePart(value);
                         if (!part.ok()) return part.status();
                         parts.push_back(std::move(part).value());
                         return Status::Ok();
                       });
    if (!s.ok()) return s;
    return parts;
  }

  // Adds the removal of an upload's parts and the release of their data to `batch`.
  Status AddReleaseParts(std::string_view upload_id, Batch* batch) {
    Result<std::vector<PartRecord>> parts = AllParts(upload_id);
    if (!parts.ok()) return parts.status();
    for (const PartRecord& part : *parts) AddReleaseSegment(part.data, batch);
    batch->DeleteRange(cf(kUploadsCf), codec::PartPrefix(upload_id),
                       codec::PartPrefixEnd(upload_id));
    return Status::Ok();
  }

  // Calls fn(key, value) for each key in [begin, end) of `family`; stops at the first error.
  template <typename Fn>
  Status ForEach(CfIndex family, const std::string& begin, const std::string& end, Fn&& fn) {
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(family)));
    for (it->Seek(begin); it->Valid(); it->Next()) {
      Status s = fn(ToView(it->key()), ToView(it->value()));
      if (!s.ok()) return s;
    }
    return FromRocks(it->status());
  }

  template <typename NameOf, typename OnEntry, typename OnPrefix>
  Result<bool> WalkListing(const ListingWalk& w, NameOf&& name_of, OnEntry&& on_entry,
                           OnPrefix&& on_prefix);

  Result<bool> AnyKeyIn(CfIndex family, const std::string& begin, const std::string& end) {
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(family)));
    it->Seek(begin);
    if (!it->status().ok()) return FromRocks(it->status());
    return it->Valid();
  }

  Result<bool> IsEmptyLocked(std::string_view name) {
    Result<bool> any = AnyKeyIn(kObjectsCf, codec::ObjectPrefix(name), codec::ObjectPrefixEnd(name));
    if (!any.ok() || *any) return any.ok() ? Result<bool>(false) : any;
    any = AnyKeyIn(kUploadsCf, codec::UploadPrefix(name), codec::UploadPrefixEnd(name));
    if (!any.ok()) return any;
    return !*any;
  }

  // Adds to `batch` the revocation of key `key_id`'s grant on `bucket`: the key goes when the
  // bucket was its only grant. REQUIRES: grant_mu_ held.
  Status RevokeLocked(std::string_view key_id, std::string_view bucket,
                      rocksdb::WriteBatch* batch) {
    Result<AccessKeyRecord> key = GetAccessKey(key_id);
    if (!key.ok()) {
      return key.status().code() == Code::kNoSuchAccessKey ? Status::Ok() : key.status();
    }
    key->grants.erase(std::string(bucket));
    if (key->grants.empty() && !key->all_buckets) {
      // The grant index entries go with the bucket (the caller deletes them).
      AccessKeyRecord gone = *key;
      gone.grants.clear();
      return AddDeleteKeyLocked(gone, /*drop_cosi_user=*/true, batch);
    } else {
      batch->Put(cf(kKeysCf), codec::AccessKeyKey(key_id), codec::EncodeAccessKey(*key));
    }
    return Status::Ok();
  }

  uint64_t ReserveFor(const FsSpace& space) const {
    return EffectiveReserve(options_.reserve_bytes, space.total_bytes);
  }

  // Every change to RocksDB goes through these two, synced unless options_.sync is false.
  // Below the engine's headroom nothing is written, deletes included (storage/capacity.h).
  Status Apply(rocksdb::WriteBatch* batch) {
    if (Status room = CheckEngineHeadroom(); !room.ok()) return room;
    return FromRocks(db_->Write(sync_, batch));
  }
  Status ApplyPut(rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                  const rocksdb::Slice& value) {
    if (Status room = CheckEngineHeadroom(); !room.ok()) return room;
    return FromRocks(db_->Put(sync_, family, key, value));
  }
  Status CheckEngineHeadroom() {
    Result<FsSpace> space = options_.statfs(options_.path);
    if (!space.ok()) return space.status();
    return CheckHeadroom(*space);
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
  bool ResumeIfRoom(const FsSpace& space, uint64_t reserve) {
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

  // Whether some family's active memtable holds an entry. A family RocksDB does not report on
  // counts as holding one, so the answer errs towards resuming as RocksDB itself would.
  bool AnyMemtableHoldsData() {
    for (rocksdb::ColumnFamilyHandle* family : handles_) {
      uint64_t entries = 1;
      db_->GetIntProperty(family, rocksdb::DB::Properties::kNumEntriesActiveMemTable, &entries);
      if (entries > 0) return true;
    }
    return false;
  }

  const StoreOptions options_;
  const std::shared_ptr<rocksdb::Env> env_;  // the DB's Env when not the default; outlives db_
  rocksdb::DB* db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  const std::unique_ptr<BlobFiles> files_;
  const std::shared_ptr<EngineErrorListener> engine_errors_;
  std::mutex resume_mu_;  // one DB::Resume at a time
  std::atomic<bool> needs_restart_{false};  // see ResumeIfRoom; never cleared in this process
  rocksdb::WriteOptions sync_;  // for metadata changes: synced unless options_.sync is false
  std::atomic<uint64_t> next_data_id_{1};
  std::atomic<uint64_t> last_upload_stamp_{0};
  std::array<std::shared_mutex, kStripes> bucket_mu_;
  std::array<std::mutex, kKeyStripes> key_mu_;
  std::array<std::shared_mutex, kStripes> upload_mu_;
  std::array<std::mutex, kKeyStripes> part_mu_;
  std::mutex grant_mu_;

  // The reclaimer: compacts the data family after enough bytes were released.
  std::vector<uint64_t> released_ids_;       // data ids released since the last reclaim
  uint64_t released_bytes_ = 0;              // their bytes
  std::atomic<bool> reclaim_cancel_{false};  // set on shutdown to cut a running compaction short
  std::mutex reclaim_mu_;
  std::condition_variable reclaim_cv_;
  bool reclaim_wanted_ = false;
  bool reclaiming_ = false;
  bool stopping_ = false;
  Status last_reclaim_;
  std::thread reclaimer_;  // last: started once everything above exists
};

// The walk ListObjects and ListUploads share. Keys of a bucket are contiguous in a family and
// in byte order. For each key from w.start up to the end of w.prefix, name_of(key, &name) gives
// its name and whether it is listed (false: at or before the marker, skipped). A listed name
// holding w.delimiter after the prefix rolls up into the common prefix ending there: that is
// passed to on_prefix once (when it sorts after w.marker) and the iterator seeks past every key
// under it, so a page costs O(page size) seeks however many keys the prefixes hold. Any other
// name is on_entry(name, value). Returns whether the page stopped at w.max (truncated), or
// kNoSuchBucket.
template <typename NameOf, typename OnEntry, typename OnPrefix>
Result<bool> StoreImpl::WalkListing(const ListingWalk& w, NameOf&& name_of, OnEntry&& on_entry,
                                    OnPrefix&& on_prefix) {
  if (Status s = RequireBucket(w.bucket); !s.ok()) return s;
  if (w.max == 0) return false;  // S3 answers max-keys=0 with an empty, untruncated page
  std::string upper_key = w.end;
  if (!w.prefix.empty()) {
    std::string succ = codec::PrefixSuccessor(w.prefix);
    if (!succ.empty()) upper_key = w.base + succ;
  }
  rocksdb::Slice upper(upper_key);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;  // the iterator also pins one implicit snapshot
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(w.family)));
  bool truncated = false;
  size_t count = 0;
  it->Seek(w.start);
  while (it->Valid()) {
    std::string_view name;
    Result<bool> listed = name_of(ToView(it->key()), &name);
    if (!listed.ok()) return listed.status();
    if (!*listed) {
      it->Next();
      continue;
    }
    const size_t pos =
        w.delimiter.empty() ? std::string_view::npos : name.find(w.delimiter, w.prefix.size());
    if (pos != std::string_view::npos) {
      std::string common(name.substr(0, pos + w.delimiter.size()));
      // As string_view: clang 14 with libstdc++ 12 finds no string > string_view (fuzz/ builds).
      if (std::string_view(common) > w.marker) {
        if (count == w.max) {
          truncated = true;
          break;
        }
        on_prefix(common);
        ++count;
      }
      std::string succ = codec::PrefixSuccessor(common);
      if (succ.empty()) break;
      it->Seek(w.base + succ);
      continue;
    }
    if (count == w.max) {
      truncated = true;
      break;
    }
    Status s = on_entry(name, ToView(it->value()));
    if (!s.ok()) return s;
    ++count;
    it->Next();
  }
  if (!it->status().ok()) return FromRocks(it->status());
  return truncated;
}

Result<ListPage> StoreImpl::ListObjects(const ListQuery& q) {
  ListPage page;
  const std::string base = codec::ObjectPrefix(q.bucket);
  const ListingWalk walk{.bucket = q.bucket,
                         .family = kObjectsCf,
                         .base = base,
                         .end = codec::ObjectPrefixEnd(q.bucket),
                         .start = base + std::max(q.prefix, q.start_after),
                         .prefix = q.prefix,
                         .delimiter = q.delimiter,
                         .marker = q.start_after,
                         .max = q.max_keys};
  Result<bool> truncated = WalkListing(
      walk,
      [&](std::string_view key, std::string_view* name) -> Result<bool> {
        *name = key.substr(base.size());
        return *name > std::string_view(q.start_after);  // skips only start_after itself
      },
      [&](std::string_view name, std::string_view value) {
        Result<codec::ObjectSummary> summary = codec::DecodeObjectSummary(value);
        if (!summary.ok()) return summary.status();
        page.objects.push_back(ListEntry{std::string(name), summary->size, std::move(summary->etag),
                                         summary->last_modified_ms});
        page.last = page.objects.back().key;
        return Status::Ok();
      },
      [&](const std::string& common) {
        page.common_prefixes.push_back(common);
        page.last = common;
      });
  if (!truncated.ok()) return truncated.status();
  page.truncated = *truncated;
  return page;
}

// Multipart uploads in a bucket, by key then initiation time (upload ids sort by time).
Result<ListUploadsPage> StoreImpl::ListUploads(const ListUploadsQuery& q) {
  ListUploadsPage page;
  const std::string base = codec::UploadPrefix(q.bucket);
  const std::string start = q.key_marker.empty() || q.key_marker < q.prefix
                                ? base + q.prefix
                                : codec::UploadKey(q.bucket, q.key_marker, q.upload_id_marker);
  const ListingWalk walk{.bucket = q.bucket,
                         .family = kUploadsCf,
                         .base = base,
                         .end = codec::UploadPrefixEnd(q.bucket),
                         .start = start,
                         .prefix = q.prefix,
                         .delimiter = q.delimiter,
                         .marker = q.key_marker,
                         .max = q.max_uploads};
  std::string key, id;  // of the entry being walked
  Result<bool> truncated = WalkListing(
      walk,
      [&](std::string_view raw, std::string_view* name) -> Result<bool> {
        if (!codec::DecodeUploadKeyName(q.bucket, raw, &key, &id)) {
          return Status(Code::kCorruption, "bad upload key");
        }
        *name = key;
        // Entries of key_marker itself come only after upload_id_marker (none without one).
        if (key != q.key_marker) return key > q.key_marker;
        return !q.upload_id_marker.empty() && id > q.upload_id_marker;
      },
      [&](std::string_view, std::string_view value) {
        Result<UploadRecord> upload = codec::DecodeUpload(value);
        if (!upload.ok()) return upload.status();
        page.next_key_marker = key;
        page.next_upload_id_marker = id;
        page.uploads.push_back(std::move(upload).value());
        return Status::Ok();
      },
      [&](const std::string& common) {
        page.common_prefixes.push_back(common);
        page.next_key_marker = common;
        page.next_upload_id_marker.clear();
      });
  if (!truncated.ok()) return truncated.status();
  page.truncated = *truncated;
  if (!page.truncated) {
    page.next_key_marker.clear();
    page.next_upload_id_marker.clear();
  }
  return page;
}

// ---- Writer implementation.
ChunkStream::ChunkStream(StoreImpl* store)
    : store_(store),
      chunk_size_(store->options().chunk_size),
      inline_limit_(store->options().inline_limit) {}

ChunkStream::~ChunkStream() {
  if (fd_ >= 0) ::close(fd_);
  // Best effort: if this fails (or the process dies first), Store::Open removes the file.
  if (file_id_ != 0 && !committed_) store_->files().Remove(file_id_).IgnoreError();
}

Status ChunkStream::Append(std::string_view data) {
  if (!status_.ok()) return status_;
  if (fd_ >= 0) {
    status_ = WriteFile(data);
    return status_;
  }
  while (!data.empty()) {
    // More bytes after a full chunk: a large object, whose bytes go to a file.
    if (buffer_.size() == chunk_size_) {
      status_ = StartFile();
      if (status_.ok()) status_ = WriteFile(data);
      return status_;
    }
    size_t take = std::min<size_t>(data.size(), chunk_size_ - buffer_.size());
    if (buffer_.size() + take > buffer_.capacity()) {
      buffer_.reserve(std::min<size_t>(chunk_size_,
                                       std::max(buffer_.size() + take, buffer_.capacity() * 2)));
    }
    buffer_.append(data.substr(0, take));
    data.remove_prefix(take);
    size_ += take;
  }
  return Status::Ok();
}

Status ChunkStream::StartFile() {
  const uint64_t id = store_->AllocateDataId();
  Result<int> fd = store_->files().Create(id);
  if (!fd.ok()) return fd.status();
  file_id_ = id;
  fd_ = *fd;
  std::string buffered = std::move(buffer_);
  buffer_ = std::string();
  size_ -= buffered.size();  // WriteFile counts them again
  return WriteFile(buffered);
}

Status ChunkStream::WriteFile(std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const Code code = errno == ENOSPC || errno == EDQUOT ? Code::kNoSpace : Code::kIOError;
      return Status(code, "writing an object data file failed: " +
                              std::string(std::strerror(errno)));
    }
    data.remove_prefix(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
  }
  // A body of unknown size (chunked) stops at the reserve, which deletes need; the writer's
  // file is removed when it is destroyed uncommitted.
  if (size_ - space_checked_ >= kSpaceCheckBytes) {
    space_checked_ = size_;
    if (Status s = store_->CheckSpaceFor(0); !s.ok()) return s;
  }
  // Start writeback early, so the fdatasync at Finish waits for the tail only and dirty pages
  // never pile up. Only a hint: its failure is caught by that fdatasync.
  if (size_ - kicked_ >= kWritebackBytes) {
    ::sync_file_range(fd_, static_cast<off_t>(kicked_), static_cast<off_t>(size_ - kicked_),
                      SYNC_FILE_RANGE_WRITE);
    kicked_ = size_;
  }
  return Status::Ok();
}

Result<DataSegment> ChunkStream::Finish(Batch* batch, bool allow_inline,
                                        std::string* inline_data) {
  if (!status_.ok()) return status_;
  DataSegment seg;
  seg.size = size_;
  if (fd_ >= 0) {
    // Unsynced stores (--ephemeral) skip this as they skip the WAL sync.
    if (store_->options().sync) status_ = store_->files().Sync(file_id_, fd_);
    ::close(fd_);
    fd_ = -1;
    if (!status_.ok()) return status_;
    seg.data_id = file_id_;
    seg.chunk_size = 0;
    batch->Put(store_->cf(kUploadsCf), codec::FileRefKey(file_id_), "");
  } else if (size_ == 0 || (allow_inline && size_ <= inline_limit_)) {
    if (inline_data != nullptr) *inline_data = std::move(buffer_);
  } else {
    seg.data_id = store_->AllocateDataId();
    seg.chunk_size = chunk_size_;
    batch->Put(store_->cf(kDataCf), codec::DataKey(seg.data_id, 0), buffer_);
  }
  buffer_ = std::string();
  return seg;
}

Result<ObjectMeta> WriterImpl::Commit(std::string_view key, ObjectMeta meta,
                                      const WriteCondition& cond) {
  if (commit_called_) return Status(Code::kInvalidArgument, "writer already committed");
  commit_called_ = true;
  Status appended = stream_.Append({});
  if (!appended.ok()) return appended;
  meta.size = stream_.size();
  if (meta.last_modified_ms == 0) meta.last_modified_ms = NowMs();
  meta.segments.clear();
  meta.part_sizes.clear();
  Batch batch;
  meta.inline_data.clear();
  Result<DataSegment> seg = stream_.Finish(&batch, /*allow_inline=*/true, &meta.inline_data);
  if (!seg.ok()) return seg.status();
  meta.data_id = seg->data_id;
  meta.chunk_size = seg->chunk_size;
  Status s = store_->CommitObject(bucket_, key, meta, cond, &batch);
  if (!s.ok()) return s;
  stream_.Committed();
  return meta;
}

Result<PartRecord> PartWriterImpl::Commit(uint32_t part_number, PartRecord meta) {
  if (commit_called_) return Status(Code::kInvalidArgument, "writer already committed");
  commit_called_ = true;
  if (part_number < 1 || part_number > 10000) {
    return Status(Code::kInvalidArgument, "part number must be in 1..10000");
  }
  Status appended = stream_.Append({});
  if (!appended.ok()) return appended;
  meta.part_number = part_number;
  meta.size = stream_.size();
  if (meta.last_modified_ms == 0) meta.last_modified_ms = NowMs();
  Batch batch;
  Result<DataSegment> data = stream_.Finish(&batch, /*allow_inline=*/false, nullptr);
  if (!data.ok()) return data.status();
  meta.data = *data;
  Status s = store_->CommitPart(bucket_, key_, upload_id_, meta, &batch);
  if (!s.ok()) return s;
  stream_.Committed();
  return meta;
}

}  // namespace

// RocksDB.Open's failure as Open reports it. A folder whose LOCK file another process holds
// reads "IO error: While lock file: <path>/LOCK: Resource temporarily unavailable" (fcntl's
// EAGAIN, or EACCES on some systems), which does not tell a person what to do; a second open in
// this process reads "lock hold by current process". Both are said in words.
Status OpenFailure(const rocksdb::Status& s, const std::string& path) {
  const std::string text = s.ToString();
  auto has = [&text](const std::string& part) { return text.find(part) != std::string::npos; };
  if (s.IsIOError() && has("While lock file: ") &&
      (has(std::strerror(EAGAIN)) || has(std::strerror(EACCES)))) {
    return Status(Code::kIOError, "another cubby process is using this data folder (it holds " +
                                      path + "/LOCK); stop it, or use another folder");
  }
  if (s.IsIOError() && has("lock hold by current process")) {
    return Status(Code::kIOError, "the store in " + path + " is already open in this process");
  }
  return Status(Code::kIOError, text);
}

Result<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  if (options.path.empty() || options.chunk_size == 0) {
    return Status(Code::kInvalidArgument, "store path is empty or chunk_size is 0");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.path, ec);
  if (ec) return Status(Code::kIOError, "create " + options.path + ": " + ec.message());
  // The format is checked before anything below writes to the folder (a read-write open of
  // RocksDB writes files itself), so a folder of a newer release stays as it was.
  Result<std::optional<uint32_t>> found = ReadFormatVersion(options.path);
  if (!found.ok()) return found.status();
  if (found->has_value() && **found > kFormatVersion) return FormatTooNew(**found);
  DbConfig config = MakeDbConfig(options);
  Result<std::unique_ptr<BlobFiles>> files = BlobFiles::Open(options.path + "/blobs");
  if (!files.ok()) return files.status();
  config.db.info_log = NewEngineLog(options.path);
  auto engine_errors = std::make_shared<EngineErrorListener>();
  config.db.listeners.push_back(engine_errors);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(config.db, options.path, config.column_families, &handles, &db);
  if (!s.ok()) return OpenFailure(s, options.path);
  auto store = std::make_unique<StoreImpl>(options, db, std::move(handles), std::move(*files),
                                           std::move(engine_errors), std::move(config.env));
  Status formatted = store->UpgradeFormat(found->has_value(), options.on_migration);
  if (!formatted.ok()) return formatted;
  Status recovered = store->Recover();
  if (!recovered.ok()) return recovered;
  return std::unique_ptr<Store>(std::move(store));
}

Status StoreImpl::Backup(const std::string& target_dir, const BackupProgressFn& progress) {
  return BackupStore(db_, options_, files_.get(), target_dir, progress);
}

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

Result<Store::MemoryUsage> StoreImpl::GetMemoryUsage() {
  rocksdb::DB* db = db_;
  MemoryUsage usage;
  // The block cache is shared, so its figures are the same from any family: read them once.
  if (!db->GetAggregatedIntProperty(rocksdb::DB::Properties::kSizeAllMemTables,
                                    &usage.memtables) ||
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

}  // namespace cubby::storage
