// StoreImpl: buckets, their emptiness and their stats (store_impl.h).
#include <rocksdb/db.h>

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "storage/codec.h"
#include "storage/store_impl.h"
#include "text/time.h"

namespace cubby::storage::internal {

namespace {

Status NoSuchBucket(std::string_view name) {
  return Status(Code::kNoSuchBucket, "no such bucket: " + std::string(name));
}

}  // namespace

Status StoreImpl::CreateBucket(const BucketRecord& bucket) {
  bool created = false;
  Result<BucketRecord> r = GetOrCreateBucket(bucket, &created);
  if (!r.ok()) return r.status();
  if (!created) {
    return Status(Code::kBucketAlreadyExists, "bucket exists: " + bucket.name);
  }
  return Status::Ok();
}

Result<BucketRecord> StoreImpl::GetOrCreateBucket(const BucketRecord& candidate, bool* created) {
  *created = false;
  if (candidate.name.empty() || candidate.name.find('\0') != std::string::npos) {
    return Status(Code::kInvalidArgument, "bucket name is empty or holds a NUL byte");
  }
  auto bucket_lock = LockBucketForChange(candidate.name);
  Result<BucketRecord> existing = GetBucket(candidate.name);
  if (existing.ok() || existing.status().code() != Code::kNoSuchBucket) return existing;
  Status s = ApplyPut(cf(kBucketsCf), candidate.name, codec::EncodeBucket(candidate));
  if (!s.ok()) return s;
  NoteVersioning(candidate.name, candidate.versioning);
  *created = true;
  return candidate;
}

Result<BucketRecord> StoreImpl::GetBucket(std::string_view name) {
  Result<std::optional<std::string>> raw = GetRaw(kBucketsCf, name, nullptr);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return NoSuchBucket(name);
  return codec::DecodeBucket(**raw);
}

Status StoreImpl::UpdateBucket(std::string_view name, const BucketChange& change) {
  auto bucket_lock = LockBucketForChange(name);
  Result<BucketRecord> bucket = GetBucket(name);
  if (!bucket.ok()) return bucket.status();
  if (Status s = change(&*bucket); !s.ok()) return s;
  bucket->name = std::string(name);
  bucket->versioning = VersioningOf(name);  // SetBucketVersioning's to change
  return ApplyPut(cf(kBucketsCf), name, codec::EncodeBucket(*bucket));
}

Result<std::vector<BucketRecord>> StoreImpl::ListBuckets() {
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

Status StoreImpl::DeleteBucket(std::string_view name, bool force) {
  auto bucket_lock = LockBucketForChange(name);
  if (Status s = RequireBucket(name); !s.ok()) return s;
  Batch batch;
  if (!force) {
    Result<bool> empty = IsEmptyLocked(name);
    if (!empty.ok()) return empty.status();
    if (!*empty) return Status(Code::kBucketNotEmpty, "bucket is not empty: " + std::string(name));
  } else {
    // Every commit and delete in this bucket holds the bucket lock shared, so the set of
    // objects cannot change under this scan. Object lock binds the bucket's owner too: one
    // version under retention or a legal hold keeps the whole bucket (governance is not
    // bypassed here; nothing in this call says a caller may).
    const int64_t now_ms = text::NowUnixMillis();
    auto releasable = [&](std::string_view key, const ObjectMeta& meta) {
      Status s = CheckDeletable(meta.lock, /*bypass_governance=*/false, now_ms);
      if (!s.ok()) {
        return Status(Code::kObjectLocked, "a version of \"" + std::string(key) + "\" in bucket " +
                                               std::string(name) + " is locked: " + s.message());
      }
      AddReleaseData(meta, &batch);
      return Status::Ok();
    };
    const std::string begin = codec::ObjectPrefix(name), end = codec::ObjectPrefixEnd(name);
    Status s = ForEach(kObjectsCf, begin, end, [&](std::string_view key, std::string_view value) {
      Result<ObjectMeta> meta = codec::DecodeObjectMeta(value);
      if (!meta.ok()) return meta.status();
      return releasable(key.substr(begin.size()), *meta);
    });
    if (!s.ok()) return s;
    batch.DeleteRange(cf(kObjectsCf), begin, end);
    // Noncurrent versions: the versions family's keys of a bucket share the objects' range.
    s = ForEach(kVersionsCf, begin, end, [&](std::string_view key, std::string_view value) {
      std::string object_key;
      char tag = 0;
      uint64_t seq = 0;
      if (!codec::DecodeVersionKey(name, key, &object_key, &tag, &seq)) {
        return Status(Code::kCorruption, "bad object version key");
      }
      if (tag != codec::kVersionTag) return Status::Ok();  // the null pointer
      Result<codec::StoredVersion> v = codec::DecodeVersion(value);
      if (!v.ok()) return v.status();
      return v->delete_marker ? Status::Ok() : releasable(object_key, v->meta);
    });
    if (!s.ok()) return s;
    batch.DeleteRange(cf(kVersionsCf), begin, end);
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
  s = WriteReleasing(&batch);
  if (s.ok()) NoteVersioning(name, VersioningState::kUnversioned);
  return s;
}

Result<bool> StoreImpl::BucketIsEmpty(std::string_view name) {
  if (Status s = RequireBucket(name); !s.ok()) return s;
  return IsEmptyLocked(name);
}

Result<BucketStats> StoreImpl::GetBucketStats(std::string_view bucket) {
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  return stats_cache_.Get(bucket, [&]() -> Result<std::pair<BucketStats, uint64_t>> {
    // A snapshot, so the cache knows which writes the value includes (stats_cache.h).
    const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
    const uint64_t sequence = snapshot->GetSequenceNumber();
    Result<std::optional<std::string>> raw =
        GetRaw(kDefaultCf, codec::StatsKey(bucket), snapshot);
    db_->ReleaseSnapshot(snapshot);
    if (!raw.ok()) return raw.status();
    BucketStats stats;
    if (!raw->has_value()) return std::make_pair(stats, sequence);
    int64_t objects, bytes;
    if (!codec::DecodeStatsDelta(**raw, &objects, &bytes) || objects < 0 || bytes < 0) {
      return Status(Code::kCorruption, "bad bucket stats record");
    }
    stats.objects = static_cast<uint64_t>(objects);
    stats.bytes = static_cast<uint64_t>(bytes);
    return std::make_pair(stats, sequence);
  });
}

Status StoreImpl::RequireBucket(std::string_view name) {
  Result<std::optional<std::string>> raw = GetRaw(kBucketsCf, name, nullptr);
  if (!raw.ok()) return raw.status();
  return raw->has_value() ? Status::Ok() : NoSuchBucket(name);
}

Result<bool> StoreImpl::IsEmptyLocked(std::string_view name) {
  Result<bool> any = AnyKeyIn(kObjectsCf, codec::ObjectPrefix(name), codec::ObjectPrefixEnd(name));
  if (!any.ok() || *any) return any.ok() ? Result<bool>(false) : any;
  any = AnyKeyIn(kVersionsCf, codec::ObjectPrefix(name), codec::ObjectPrefixEnd(name));
  if (!any.ok() || *any) return any.ok() ? Result<bool>(false) : any;
  any = AnyKeyIn(kUploadsCf, codec::UploadPrefix(name), codec::UploadPrefixEnd(name));
  if (!any.ok()) return any;
  return !*any;
}

void StoreImpl::AddStatsDelta(std::string_view bucket, int64_t objects, int64_t bytes,
                              rocksdb::WriteBatch* batch) {
  if (objects == 0 && bytes == 0) return;
  batch->Merge(cf(kDefaultCf), codec::StatsKey(bucket), codec::EncodeStatsDelta(objects, bytes));
}

}  // namespace cubby::storage::internal
