// Store on RocksDB. Key layout and record encoding: codec.h. Options: db_options.cc.
//
// Locking (always acquired in this order, never two of one kind):
//   bucket stripe (shared_mutex on hash(bucket)): shared by object commits/deletes and grant
//     creation, exclusive by bucket create/update/delete, so a bucket cannot vanish between a
//     commit's existence check and its write.
//   key stripe (mutex on hash(bucket, key)): makes a commit's or delete's read of the current
//     object and its write one step, so replaced data is released exactly once.
//   grant_mu_: the grant index and key records it points to.
// Locks are held across the synced Write on purpose, but they are fine-grained, so commits of
// different keys reach DB::Write concurrently and share fsyncs through group commit.
#include "storage/store.h"

#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <shared_mutex>

#include "storage/codec.h"
#include "storage/db_options.h"

namespace cubby::storage {
namespace {

constexpr size_t kStripes = 64;

// The one mapping from rocksdb::Status. Callers handle NotFound themselves before this.
Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::Ok();
  if (s.IsCorruption()) return Status(Code::kCorruption, s.ToString());
  return Status(Code::kIOError, s.ToString());
}

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

class StoreImpl;

// ---- Reader.
class ReaderImpl final : public ObjectReader {
 public:
  ReaderImpl(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* data_cf,
             std::unique_ptr<rocksdb::ManagedSnapshot> snapshot, ObjectMeta meta)
      : db_(db), data_cf_(data_cf), snapshot_(std::move(snapshot)), meta_(std::move(meta)) {}

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
      if (meta_.data_id == 0) {
        chunk = meta_.inline_data;
      } else {
        uint64_t index = pos_ / meta_.chunk_size;
        Status s = LoadChunk(index);
        if (!s.ok()) return s;
        chunk = ToView(chunk_);
        chunk_start = index * meta_.chunk_size;
      }
      size_t off = static_cast<size_t>(pos_ - chunk_start);
      size_t take = std::min(n - copied, chunk.size() - off);
      std::memcpy(buf + copied, chunk.data() + off, take);
      copied += take;
      pos_ += take;
    }
    return copied;
  }

 private:
  Status LoadChunk(uint64_t index) {
    if (loaded_ && index == chunk_index_) return Status::Ok();
    loaded_ = false;
    chunk_.Reset();
    rocksdb::ReadOptions ro;
    ro.snapshot = snapshot_->snapshot();
    rocksdb::Status s =
        db_->Get(ro, data_cf_, codec::DataKey(meta_.data_id, index), &chunk_);
    if (s.IsNotFound()) return Status(Code::kCorruption, "object data chunk missing");
    if (!s.ok()) return FromRocks(s);
    uint64_t start = index * meta_.chunk_size;
    uint64_t expected = std::min<uint64_t>(meta_.chunk_size, meta_.size - start);
    if (chunk_.size() != expected) {
      chunk_.Reset();
      return Status(Code::kCorruption, "object data chunk has the wrong size");
    }
    loaded_ = true;
    chunk_index_ = index;
    return Status::Ok();
  }

  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* data_cf_;
  std::unique_ptr<rocksdb::ManagedSnapshot> snapshot_;  // null for inline objects
  ObjectMeta meta_;
  uint64_t pos_ = 0;
  rocksdb::PinnableSlice chunk_;  // the current chunk: memory bounded by one chunk
  uint64_t chunk_index_ = 0;
  bool loaded_ = false;
};

// ---- Writer.
class WriterImpl final : public ObjectWriter {
 public:
  WriterImpl(StoreImpl* store, std::string bucket);
  ~WriterImpl() override;

  Status Append(std::string_view data) override;
  uint64_t size() const override { return size_; }
  Result<ObjectMeta> Commit(std::string_view key, ObjectMeta meta,
                            const WriteCondition& cond) override;

 private:
  Status FlushChunk();

  StoreImpl* store_;
  const std::string bucket_;
  const uint32_t chunk_size_;
  const size_t inline_limit_;
  std::string buffer_;  // bytes not yet written: at most one chunk
  uint64_t size_ = 0;
  uint64_t data_id_ = 0;
  uint64_t chunks_written_ = 0;  // chunks in the data family (under a pending marker)
  Status status_;                // sticky write failure
  bool commit_called_ = false;
  bool committed_ = false;
};

// ---- Store.
class StoreImpl final : public Store {
 public:
  StoreImpl(const StoreOptions& options, rocksdb::DB* db,
            std::vector<rocksdb::ColumnFamilyHandle*> handles)
      : options_(options), db_(db), handles_(std::move(handles)) {
    sync_.sync = options_.sync;
  }

  ~StoreImpl() override {
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
    delete db_;
  }

  // Removes the data of writers that never committed and seeds the data id counter.
  Status Recover() {
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
    next_data_id_.store(max_id + 1);
    if (batch.Count() == 0) return Status::Ok();
    return FromRocks(db_->Write(sync_, &batch));
  }

  // ---- Used by readers and writers.
  rocksdb::DB* db() { return db_; }
  rocksdb::ColumnFamilyHandle* cf(CfIndex i) { return handles_[i]; }
  const StoreOptions& options() const { return options_; }
  uint64_t AllocateDataId() { return next_data_id_.fetch_add(1); }

  // Releases an uncommitted writer's chunks and marker. Unsynced: if it is lost in a crash,
  // Recover() does the same.
  Status ReleasePending(uint64_t data_id) {
    rocksdb::WriteBatch batch;
    batch.DeleteRange(cf(kDataCf), codec::DataKey(data_id, 0), codec::DataKey(data_id + 1, 0));
    batch.Delete(cf(kUploadsCf), codec::MarkerKey(data_id));
    return FromRocks(db_->Write(rocksdb::WriteOptions(), &batch));
  }

  // Adds to `batch` the object `meta` at (bucket, key) and the release of the object it
  // replaces, after checking `cond`; writes it synced.
  Status CommitObject(std::string_view bucket, std::string_view key, const ObjectMeta& meta,
                      const WriteCondition& cond, rocksdb::WriteBatch* batch) {
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::lock_guard key_lock(KeyMutex(bucket, key));
    Result<bool> exists = BucketExists(bucket);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(bucket);
    const std::string object_key = codec::ObjectKey(bucket, key);
    Result<std::optional<ObjectMeta>> current = GetObjectMeta(object_key, nullptr);
    if (!current.ok()) return current.status();
    if (cond.if_none_match_any && current->has_value()) {
      return Status(Code::kPreconditionFailed, "object exists (If-None-Match: *)");
    }
    if (cond.if_match && (!current->has_value() || (*current)->etag != *cond.if_match)) {
      return Status(Code::kPreconditionFailed, "etag does not match (If-Match)");
    }
    batch->Put(cf(kObjectsCf), object_key, codec::EncodeObjectMeta(meta));
    if (current->has_value()) AddReleaseData(**current, batch);
    return FromRocks(db_->Write(sync_, batch));
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
    Status s = FromRocks(db_->Put(sync_, cf(kBucketsCf), candidate.name,
                                  codec::EncodeBucket(candidate)));
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
    Result<bool> exists = BucketExists(bucket.name);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(bucket.name);
    return FromRocks(db_->Put(sync_, cf(kBucketsCf), bucket.name, codec::EncodeBucket(bucket)));
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
    Result<bool> exists = BucketExists(name);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(name);
    rocksdb::WriteBatch batch;
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
      batch.DeleteRange(cf(kUploadsCf), codec::UploadPrefix(name), codec::UploadPrefixEnd(name));
    }
    batch.Delete(cf(kBucketsCf), ToSlice(name));
    std::lock_guard grant_lock(grant_mu_);
    Status s = ForEach(kKeysCf, codec::GrantIndexPrefix(name), codec::GrantIndexPrefixEnd(name),
                       [&](std::string_view index_key, std::string_view key_id) {
                         batch.Delete(cf(kKeysCf), ToSlice(index_key));
                         return RevokeLocked(key_id, name, &batch);
                       });
    if (!s.ok()) return s;
    return FromRocks(db_->Write(sync_, &batch));
  }

  Result<bool> BucketIsEmpty(std::string_view name) override {
    Result<bool> exists = BucketExists(name);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(name);
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
    auto snapshot = std::make_unique<rocksdb::ManagedSnapshot>(db_);
    Result<std::optional<ObjectMeta>> meta =
        GetObjectMeta(codec::ObjectKey(bucket, key), snapshot->snapshot());
    if (!meta.ok()) return meta.status();
    if (!meta->has_value()) return MissingObject(bucket, key);
    // Inline objects carry their bytes in the meta: no need to pin anything.
    if ((*meta)->data_id == 0) snapshot.reset();
    return std::unique_ptr<ObjectReader>(std::make_unique<ReaderImpl>(
        db_, cf(kDataCf), std::move(snapshot), std::move(**meta)));
  }

  Result<std::unique_ptr<ObjectWriter>> NewObjectWriter(std::string_view bucket) override {
    Result<bool> exists = BucketExists(bucket);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(bucket);
    return std::unique_ptr<ObjectWriter>(std::make_unique<WriterImpl>(this, std::string(bucket)));
  }

  Status DeleteObject(std::string_view bucket, std::string_view key) override {
    std::shared_lock bucket_lock(BucketMutex(bucket));
    std::lock_guard key_lock(KeyMutex(bucket, key));
    Result<bool> exists = BucketExists(bucket);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(bucket);
    const std::string object_key = codec::ObjectKey(bucket, key);
    Result<std::optional<ObjectMeta>> current = GetObjectMeta(object_key, nullptr);
    if (!current.ok()) return current.status();
    if (!current->has_value()) return Status::Ok();
    rocksdb::WriteBatch batch;
    batch.Delete(cf(kObjectsCf), object_key);
    AddReleaseData(**current, &batch);
    return FromRocks(db_->Write(sync_, &batch));
  }

  Result<ListPage> ListObjects(const ListQuery& q) override;

  Result<ObjectMeta> UpdateObjectMeta(std::string_view, std::string_view, ObjectMeta,
                                      const WriteCondition&) override {
    return NotImplemented();
  }
  Result<BucketStats> GetBucketStats(std::string_view) override { return NotImplemented(); }
  Result<UploadRecord> CreateUpload(std::string_view, std::string_view, const ObjectMeta&,
                                    std::string_view, std::string_view) override {
    return NotImplemented();
  }
  Result<UploadRecord> GetUpload(std::string_view, std::string_view, std::string_view) override {
    return NotImplemented();
  }
  Result<std::unique_ptr<PartWriter>> NewPartWriter(std::string_view, std::string_view,
                                                    std::string_view) override {
    return NotImplemented();
  }
  Result<std::vector<PartRecord>> ListParts(std::string_view, std::string_view, std::string_view,
                                            uint32_t, size_t, bool*) override {
    return NotImplemented();
  }
  Result<ListUploadsPage> ListUploads(const ListUploadsQuery&) override { return NotImplemented(); }
  Result<ObjectMeta> CompleteUpload(std::string_view, std::string_view, std::string_view,
                                    const std::vector<uint32_t>&, ObjectMeta,
                                    const WriteCondition&) override {
    return NotImplemented();
  }
  Result<ObjectMeta> CompletedUpload(std::string_view, std::string_view,
                                     std::string_view) override {
    return NotImplemented();
  }
  Status AbortUpload(std::string_view, std::string_view, std::string_view) override {
    return NotImplemented();
  }
  Status ReclaimSpace() override { return NotImplemented(); }
  static Status NotImplemented() { return Status(Code::kIOError, "not implemented"); }

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
    batch.Put(cf(kKeysCf), codec::AccessKeyKey(key.access_key_id), codec::EncodeAccessKey(key));
    if (!key.grant_name.empty()) {
      for (const auto& [bucket, mode] : key.grants) {
        batch.Put(cf(kKeysCf), codec::GrantIndexKey(bucket, key.grant_name), key.access_key_id);
      }
    }
    return FromRocks(db_->Write(sync_, &batch));
  }

  Status DeleteAccessKey(std::string_view access_key_id) override {
    std::lock_guard grant_lock(grant_mu_);
    Result<AccessKeyRecord> key = GetAccessKey(access_key_id);
    if (!key.ok()) return key.status().code() == Code::kNoSuchAccessKey ? Status::Ok() : key.status();
    rocksdb::WriteBatch batch;
    batch.Delete(cf(kKeysCf), codec::AccessKeyKey(access_key_id));
    if (!key->grant_name.empty()) {
      for (const auto& [bucket, mode] : key->grants) {
        const std::string index_key = codec::GrantIndexKey(bucket, key->grant_name);
        Result<std::optional<std::string>> target = GetRaw(kKeysCf, index_key, nullptr);
        if (!target.ok()) return target.status();
        if (target->has_value() && **target == access_key_id) {
          batch.Delete(cf(kKeysCf), index_key);
        }
      }
    }
    return FromRocks(db_->Write(sync_, &batch));
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
    Result<bool> exists = BucketExists(bucket);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(bucket);
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
    rocksdb::WriteBatch batch;
    batch.Put(cf(kKeysCf), codec::AccessKeyKey(candidate.access_key_id),
              codec::EncodeAccessKey(candidate));
    batch.Put(cf(kKeysCf), index_key, candidate.access_key_id);
    Status s = FromRocks(db_->Write(sync_, &batch));
    if (!s.ok()) return s;
    *created = true;
    return candidate;
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

  // ---- Settings.
  Result<std::string> GetSetting(std::string_view name) override {
    Result<std::optional<std::string>> raw = GetRaw(kDefaultCf, name, nullptr);
    if (!raw.ok()) return raw.status();
    if (!raw->has_value()) return Status(Code::kNoSuchKey, "no such setting: " + std::string(name));
    return std::move(**raw);
  }

  Status PutSetting(std::string_view name, std::string_view value) override {
    return FromRocks(db_->Put(sync_, cf(kDefaultCf), ToSlice(name), ToSlice(value)));
  }

  Result<uint64_t> DebugCountDataChunks() override {
    uint64_t n = 0;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, cf(kDataCf)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    if (!it->status().ok()) return FromRocks(it->status());
    return n;
  }

 private:
  std::shared_mutex& BucketMutex(std::string_view bucket) {
    return bucket_mu_[std::hash<std::string_view>{}(bucket) % kStripes];
  }
  std::mutex& KeyMutex(std::string_view bucket, std::string_view key) {
    size_t h = std::hash<std::string_view>{}(bucket) * 31 + std::hash<std::string_view>{}(key);
    return key_mu_[h % kStripes];
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

  Result<bool> BucketExists(std::string_view name) {
    Result<std::optional<std::string>> raw = GetRaw(kBucketsCf, name, nullptr);
    if (!raw.ok()) return raw.status();
    return raw->has_value();
  }

  // kNoSuchKey, or kNoSuchBucket when the bucket itself is missing.
  Status MissingObject(std::string_view bucket, std::string_view key) {
    Result<bool> exists = BucketExists(bucket);
    if (!exists.ok()) return exists.status();
    if (!*exists) return NoSuchBucket(bucket);
    return Status(Code::kNoSuchKey, "no such key");
  }

  void AddReleaseData(const ObjectMeta& meta, rocksdb::WriteBatch* batch) {
    if (meta.data_id == 0) return;
    batch->DeleteRange(cf(kDataCf), codec::DataKey(meta.data_id, 0),
                       codec::DataKey(meta.data_id + 1, 0));
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
      batch->Delete(cf(kKeysCf), codec::AccessKeyKey(key_id));
    } else {
      batch->Put(cf(kKeysCf), codec::AccessKeyKey(key_id), codec::EncodeAccessKey(*key));
    }
    return Status::Ok();
  }

  const StoreOptions options_;
  rocksdb::DB* db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::WriteOptions sync_;  // for metadata changes: synced unless options_.sync is false
  std::atomic<uint64_t> next_data_id_{1};
  std::array<std::shared_mutex, kStripes> bucket_mu_;
  std::array<std::mutex, kStripes> key_mu_;
  std::mutex grant_mu_;
};

// Listing. Keys of a bucket are contiguous in the objects family and in byte order. With a
// delimiter, each common prefix is emitted once and the iterator seeks past every key under it,
// so a page costs O(page size) seeks however many keys the prefixes hold.
Result<ListPage> StoreImpl::ListObjects(const ListQuery& q) {
  Result<bool> exists = BucketExists(q.bucket);
  if (!exists.ok()) return exists.status();
  if (!*exists) return NoSuchBucket(q.bucket);
  ListPage page;
  // S3 returns an empty, untruncated page for max-keys=0.
  if (q.max_keys == 0) return page;

  const std::string base = codec::ObjectPrefix(q.bucket);
  std::string upper_key;
  if (!q.prefix.empty()) {
    std::string succ = codec::PrefixSuccessor(q.prefix);
    upper_key = succ.empty() ? codec::ObjectPrefixEnd(q.bucket) : base + succ;
  } else {
    upper_key = codec::ObjectPrefixEnd(q.bucket);
  }
  rocksdb::Slice upper(upper_key);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;  // the iterator also pins one implicit snapshot
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(kObjectsCf)));

  const std::string& start = std::max(q.prefix, q.start_after);
  it->Seek(base + start);
  // Skips past every key starting with `p`; false when nothing can follow.
  auto seek_past = [&](std::string_view p) {
    std::string succ = codec::PrefixSuccessor(p);
    if (succ.empty()) return false;
    it->Seek(base + succ);
    return true;
  };

  while (it->Valid()) {
    std::string_view key = ToView(it->key()).substr(base.size());
    if (key <= std::string_view(q.start_after)) {  // only start_after itself
      it->Next();
      continue;
    }
    if (!q.delimiter.empty()) {
      size_t pos = key.find(q.delimiter, q.prefix.size());
      if (pos != std::string_view::npos) {
        std::string common(key.substr(0, pos + q.delimiter.size()));
        if (common > q.start_after) {
          if (page.objects.size() + page.common_prefixes.size() == q.max_keys) {
            page.truncated = true;
            break;
          }
          page.common_prefixes.push_back(common);
          page.last = common;
        }
        if (!seek_past(common)) break;
        continue;
      }
    }
    if (page.objects.size() + page.common_prefixes.size() == q.max_keys) {
      page.truncated = true;
      break;
    }
    Result<codec::ObjectSummary> summary = codec::DecodeObjectSummary(ToView(it->value()));
    if (!summary.ok()) return summary.status();
    page.objects.push_back(ListEntry{std::string(key), summary->size, std::move(summary->etag),
                                     summary->last_modified_ms});
    page.last = page.objects.back().key;
    it->Next();
  }
  if (!it->status().ok()) return FromRocks(it->status());
  return page;
}

// ---- Writer implementation.
WriterImpl::WriterImpl(StoreImpl* store, std::string bucket)
    : store_(store),
      bucket_(std::move(bucket)),
      chunk_size_(store->options().chunk_size),
      inline_limit_(store->options().inline_limit) {}

WriterImpl::~WriterImpl() {
  // Best effort: if this fails (or the process dies first), Store::Open removes the leftovers.
  if (!committed_ && chunks_written_ > 0) store_->ReleasePending(data_id_).IgnoreError();
}

Status WriterImpl::Append(std::string_view data) {
  if (commit_called_) return Status(Code::kInvalidArgument, "append after commit");
  if (!status_.ok()) return status_;
  while (!data.empty()) {
    // Flush a full buffer only when more bytes follow, so the last chunk goes with the commit.
    if (buffer_.size() == chunk_size_) {
      status_ = FlushChunk();
      if (!status_.ok()) return status_;
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

Status WriterImpl::FlushChunk() {
  rocksdb::WriteBatch batch;
  uint64_t id = chunks_written_ == 0 ? store_->AllocateDataId() : data_id_;
  // The marker goes in the same batch as the first chunk: after a crash, no chunk without it.
  if (chunks_written_ == 0) batch.Put(store_->cf(kUploadsCf), codec::MarkerKey(id), "");
  batch.Put(store_->cf(kDataCf), codec::DataKey(id, chunks_written_), buffer_);
  Status s = FromRocks(store_->db()->Write(rocksdb::WriteOptions(), &batch));
  if (!s.ok()) return s;
  data_id_ = id;
  ++chunks_written_;
  buffer_.clear();
  return Status::Ok();
}

Result<ObjectMeta> WriterImpl::Commit(std::string_view key, ObjectMeta meta,
                                      const WriteCondition& cond) {
  if (commit_called_) return Status(Code::kInvalidArgument, "writer already committed");
  commit_called_ = true;
  if (!status_.ok()) return status_;
  meta.size = size_;
  if (meta.last_modified_ms == 0) meta.last_modified_ms = NowMs();
  rocksdb::WriteBatch batch;
  if (chunks_written_ == 0 && size_ <= inline_limit_) {
    meta.data_id = 0;
    meta.chunk_size = 0;
    meta.inline_data = std::move(buffer_);
  } else {
    if (chunks_written_ == 0) data_id_ = store_->AllocateDataId();
    meta.data_id = data_id_;
    meta.chunk_size = chunk_size_;
    meta.inline_data.clear();
    batch.Put(store_->cf(kDataCf), codec::DataKey(data_id_, chunks_written_), buffer_);
    if (chunks_written_ > 0) batch.Delete(store_->cf(kUploadsCf), codec::MarkerKey(data_id_));
  }
  buffer_ = std::string();
  Status s = store_->CommitObject(bucket_, key, meta, cond, &batch);
  if (!s.ok()) return s;
  committed_ = true;
  return meta;
}

}  // namespace

Result<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  if (options.path.empty() || options.chunk_size == 0) {
    return Status(Code::kInvalidArgument, "store path is empty or chunk_size is 0");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.path, ec);
  if (ec) return Status(Code::kIOError, "create " + options.path + ": " + ec.message());
  DbConfig config = MakeDbConfig(options);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(config.db, options.path, config.column_families, &handles, &db);
  if (!s.ok()) return Status(Code::kIOError, s.ToString());
  auto store = std::make_unique<StoreImpl>(options, db, std::move(handles));
  Status recovered = store->Recover();
  if (!recovered.ok()) return recovered;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace cubby::storage
