// StoreImpl: object versions (store_impl.h; contracts in store.h). The current version of a
// key stays in the objects family, so ListObjects and unversioned buckets are untouched;
// noncurrent versions and delete markers live in the versions family, newest first.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html
#include <openssl/rand.h>
#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "storage/codec.h"
#include "storage/store_impl.h"
#include "text/time.h"

namespace cubby::storage::internal {

namespace {

uint64_t NowUs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// A version's sequence: a hybrid clock per key, so the key's versions stay ordered even when
// the wall clock steps back.
uint64_t NextVersionSeq(uint64_t newest) { return std::max(NowUs(), newest + 1); }

Result<std::string> NewVersionId(uint64_t seq) {
  uint64_t random = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&random), sizeof random) != 1) {
    return Status(Code::kIOError, "RAND_bytes failed");
  }
  return codec::FormatVersionId(seq, random);
}

// A version id as a caller gives it: empty (the latest), "null", or one of ours.
struct VersionRef {
  enum Kind { kLatest, kNull, kId } kind = kLatest;
  uint64_t seq = 0;  // kId
  std::string_view id;
};

Result<VersionRef> ParseVersionRef(std::string_view version_id) {
  if (version_id.empty()) return VersionRef{};
  if (version_id == kNullVersionId) return VersionRef{VersionRef::kNull, 0, version_id};
  uint64_t seq = 0;
  if (!codec::ParseVersionId(version_id, &seq)) {
    return Status(Code::kInvalidArgument, "Invalid version id specified");
  }
  return VersionRef{VersionRef::kId, seq, version_id};
}

Status NoSuchVersion() {
  return Status(Code::kNoSuchVersion, "The specified version does not exist.");
}

// The name of a version entry: its id, "null" for the null version (a marker's form).
std::string MarkerOf(const ObjectMeta& meta) {
  return meta.version_id.empty() ? std::string(kNullVersionId) : meta.version_id;
}

}  // namespace

bool RetentionRuns(const ObjectRetention& r, int64_t now_ms) {
  return r.mode != RetentionMode::kNone && r.retain_until_ms > now_ms;
}

Status CheckDeletable(const ObjectLockState& lock, bool bypass_governance, int64_t now_ms) {
  if (lock.legal_hold == LegalHold::kOn) {
    return Status(Code::kObjectLocked, "the object version is under a legal hold");
  }
  if (!RetentionRuns(lock.retention, now_ms)) return Status::Ok();
  if (lock.retention.mode == RetentionMode::kGovernance && bypass_governance) return Status::Ok();
  return Status(Code::kObjectLocked, "the object version is under retention");
}

// ---- The versioning state.

VersioningState StoreImpl::VersioningOf(std::string_view bucket) {
  if (!any_versioned_.load(std::memory_order_acquire)) return VersioningState::kUnversioned;
  std::lock_guard lock(versioning_mu_);
  auto it = versioning_.find(std::string(bucket));
  return it == versioning_.end() ? VersioningState::kUnversioned : it->second;
}

void StoreImpl::NoteVersioning(std::string_view bucket, VersioningState state) {
  std::lock_guard lock(versioning_mu_);
  if (state == VersioningState::kUnversioned) {
    versioning_.erase(std::string(bucket));
    return;
  }
  versioning_[std::string(bucket)] = state;
  any_versioned_.store(true, std::memory_order_release);
}

Status StoreImpl::LoadVersioning() {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, cf(kBucketsCf)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    Result<BucketRecord> bucket = codec::DecodeBucket(ToView(it->value()));
    // A record that does not decode is left out, so the store still opens: reading it reports
    // kCorruption (GetBucket), as it did before this map existed.
    if (!bucket.ok()) continue;
    if (bucket->versioning != VersioningState::kUnversioned) {
      NoteVersioning(bucket->name, bucket->versioning);
    }
  }
  return FromRocks(it->status());
}

Status StoreImpl::SetBucketVersioning(std::string_view bucket, VersioningState state) {
  std::unique_lock bucket_lock(BucketMutex(bucket));
  Result<BucketRecord> record = GetBucket(bucket);
  if (!record.ok()) return record.status();
  if (record->versioning == state) return Status::Ok();
  if (state == VersioningState::kUnversioned) {
    return Status(Code::kInvalidArgument, "a versioned bucket cannot become unversioned again");
  }
  if (record->object_lock.enabled) {
    return Status(Code::kInvalidArgument, "a bucket with object lock stays versioning-enabled");
  }
  record->versioning = state;
  Status s = ApplyPut(cf(kBucketsCf), bucket, codec::EncodeBucket(*record));
  if (!s.ok()) return s;
  NoteVersioning(bucket, state);
  return Status::Ok();
}

// ---- Reading the versions family.

Result<std::optional<codec::StoredVersion>> StoreImpl::NewestNoncurrent(
    std::string_view bucket, std::string_view key, const rocksdb::Snapshot* snapshot,
    std::optional<uint64_t> skip) {
  const std::string prefix = codec::VersionKeyPrefix(bucket, key);
  const std::string begin = prefix + codec::kVersionTag;
  const std::string end = codec::PrefixSuccessor(begin);
  rocksdb::Slice upper(end);
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(kVersionsCf)));
  for (it->Seek(begin); it->Valid(); it->Next()) {
    std::string name;
    char tag = 0;
    uint64_t seq = 0;
    if (!codec::DecodeVersionKey(bucket, ToView(it->key()), &name, &tag, &seq)) {
      return Status(Code::kCorruption, "bad object version key");
    }
    if (skip.has_value() && seq == *skip) continue;
    Result<codec::StoredVersion> v = codec::DecodeVersion(ToView(it->value()));
    if (!v.ok()) return v.status();
    return std::optional<codec::StoredVersion>(std::move(v).value());
  }
  if (!it->status().ok()) return FromRocks(it->status());
  return std::optional<codec::StoredVersion>();
}

Result<std::optional<codec::StoredVersion>> StoreImpl::NoncurrentNull(
    std::string_view bucket, std::string_view key, const rocksdb::Snapshot* snapshot) {
  Result<std::optional<std::string>> pointer =
      GetRaw(kVersionsCf, codec::NullVersionKey(bucket, key), snapshot);
  if (!pointer.ok()) return pointer.status();
  if (!pointer->has_value()) return std::optional<codec::StoredVersion>();
  uint64_t seq = 0;
  if (!codec::DecodeSeq(**pointer, &seq)) {
    return Status(Code::kCorruption, "bad null version pointer");
  }
  Result<std::optional<std::string>> raw =
      GetRaw(kVersionsCf, codec::VersionKey(bucket, key, seq), snapshot);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return Status(Code::kCorruption, "the null version pointer is dangling");
  Result<codec::StoredVersion> v = codec::DecodeVersion(**raw);
  if (!v.ok()) return v.status();
  return std::optional<codec::StoredVersion>(std::move(v).value());
}

Result<std::optional<StoreImpl::FoundVersion>> StoreImpl::FindVersion(
    std::string_view bucket, std::string_view key, std::string_view version_id,
    const rocksdb::Snapshot* snapshot) {
  Result<VersionRef> ref = ParseVersionRef(version_id);
  if (!ref.ok()) return ref.status();
  Result<std::optional<ObjectMeta>> current =
      GetObjectMeta(codec::ObjectKey(bucket, key), snapshot);
  if (!current.ok()) return current.status();
  auto found_current = [&]() {
    return std::optional<FoundVersion>(
        FoundVersion{codec::StoredVersion{std::move(**current), false}, true});
  };
  auto found = [](std::optional<codec::StoredVersion> v) {
    if (!v.has_value()) return std::optional<FoundVersion>();
    return std::optional<FoundVersion>(FoundVersion{std::move(*v), false});
  };
  switch (ref->kind) {
    case VersionRef::kLatest: {
      if (current->has_value()) return found_current();
      // An unversioned bucket (never versioned: there is no way back) has no other versions.
      if (VersioningOf(bucket) == VersioningState::kUnversioned) {
        return std::optional<FoundVersion>();
      }
      Result<std::optional<codec::StoredVersion>> newest =
          NewestNoncurrent(bucket, key, snapshot, std::nullopt);
      if (!newest.ok()) return newest.status();
      return found(std::move(newest).value());
    }
    case VersionRef::kNull: {
      if (current->has_value() && (*current)->version_id.empty()) return found_current();
      Result<std::optional<codec::StoredVersion>> null = NoncurrentNull(bucket, key, snapshot);
      if (!null.ok()) return null.status();
      return found(std::move(null).value());
    }
    case VersionRef::kId: {
      if (current->has_value() && (*current)->version_id == ref->id) return found_current();
      Result<std::optional<std::string>> raw =
          GetRaw(kVersionsCf, codec::VersionKey(bucket, key, ref->seq), snapshot);
      if (!raw.ok()) return raw.status();
      if (!raw->has_value()) return std::optional<FoundVersion>();
      Result<codec::StoredVersion> v = codec::DecodeVersion(**raw);
      if (!v.ok()) return v.status();
      // Same sequence, other random part: not this version.
      if (v->meta.version_id != ref->id) return std::optional<FoundVersion>();
      return found(std::move(v).value());
    }
  }
  return Status(Code::kCorruption, "unknown version reference");
}

// ---- Changes. Each is one batch under the bucket stripe (shared) and the key stripe.

void StoreImpl::AddDemote(std::string_view bucket, std::string_view key, const ObjectMeta& current,
                          Batch* batch) {
  batch->Put(cf(kVersionsCf), codec::VersionKey(bucket, key, current.version_seq),
             codec::EncodeVersion(current, /*delete_marker=*/false));
  if (current.version_id.empty()) {
    batch->Put(cf(kVersionsCf), codec::NullVersionKey(bucket, key),
               codec::EncodeSeq(current.version_seq));
  }
}

void StoreImpl::AddPromote(std::string_view bucket, std::string_view key,
                           const std::string& object_key, const codec::StoredVersion& v,
                           Batch* batch) {
  batch->Delete(cf(kVersionsCf), codec::VersionKey(bucket, key, v.meta.version_seq));
  if (v.meta.version_id.empty()) {
    batch->Delete(cf(kVersionsCf), codec::NullVersionKey(bucket, key));
  }
  batch->Put(cf(kObjectsCf), object_key, codec::EncodeObjectMeta(v.meta));
  AddStatsDelta(bucket, 1, static_cast<int64_t>(v.meta.size), batch);
}

Status StoreImpl::AddDropNoncurrentNull(std::string_view bucket, std::string_view key,
                                        Batch* batch) {
  Result<std::optional<codec::StoredVersion>> null = NoncurrentNull(bucket, key, nullptr);
  if (!null.ok()) return null.status();
  if (!null->has_value()) return Status::Ok();
  const codec::StoredVersion& v = **null;
  batch->Delete(cf(kVersionsCf), codec::VersionKey(bucket, key, v.meta.version_seq));
  batch->Delete(cf(kVersionsCf), codec::NullVersionKey(bucket, key));
  if (!v.delete_marker) AddReleaseData(v.meta, batch);
  return Status::Ok();
}

Status StoreImpl::AddCommitObject(std::string_view bucket, std::string_view key,
                                  const std::string& object_key, ObjectMeta* meta,
                                  const std::optional<ObjectMeta>& current, Batch* batch) {
  const VersioningState state = VersioningOf(bucket);
  if (state == VersioningState::kUnversioned) {
    meta->version_id.clear();
    meta->version_seq = 0;
    AddReplaceObject(bucket, object_key, *meta, current, batch);
    return Status::Ok();
  }
  uint64_t newest = 0;
  if (current.has_value()) {
    newest = current->version_seq;  // the newest version (see the invariant)
  } else {
    Result<std::optional<codec::StoredVersion>> marker =
        NewestNoncurrent(bucket, key, nullptr, std::nullopt);
    if (!marker.ok()) return marker.status();
    if (marker->has_value()) newest = (*marker)->meta.version_seq;
  }
  meta->version_seq = NextVersionSeq(newest);
  meta->version_id.clear();
  if (state == VersioningState::kEnabled) {
    Result<std::string> id = NewVersionId(meta->version_seq);
    if (!id.ok()) return id.status();
    meta->version_id = std::move(id).value();
  }
  int64_t objects = 1;
  int64_t bytes = static_cast<int64_t>(meta->size);
  if (current.has_value()) {
    objects = 0;
    bytes -= static_cast<int64_t>(current->size);
    // A write of a suspended bucket replaces the null version; other versions stay.
    if (state == VersioningState::kSuspended && current->version_id.empty()) {
      AddReleaseData(*current, batch);
    } else {
      AddDemote(bucket, key, *current, batch);
    }
  }
  if (state == VersioningState::kSuspended) {
    if (Status s = AddDropNoncurrentNull(bucket, key, batch); !s.ok()) return s;
  }
  batch->Put(cf(kObjectsCf), object_key, codec::EncodeObjectMeta(*meta));
  AddStatsDelta(bucket, objects, bytes, batch);
  return Status::Ok();
}

Result<DeleteResult> StoreImpl::DeleteObjectVersioned(std::string_view bucket,
                                                      std::string_view key) {
  std::shared_lock bucket_lock(BucketMutex(bucket));
  std::lock_guard key_lock(KeyMutex(bucket, key));
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  const std::string object_key = codec::ObjectKey(bucket, key);
  Result<std::optional<ObjectMeta>> current = GetObjectMeta(object_key, nullptr);
  if (!current.ok()) return current.status();
  const VersioningState state = VersioningOf(bucket);
  Batch batch;
  if (current->has_value()) {
    const ObjectMeta& cur = **current;
    batch.Delete(cf(kObjectsCf), object_key);
    AddStatsDelta(bucket, -1, -static_cast<int64_t>(cur.size), &batch);
    if (state == VersioningState::kUnversioned ||
        (state == VersioningState::kSuspended && cur.version_id.empty())) {
      AddReleaseData(cur, &batch);
    } else {
      AddDemote(bucket, key, cur, &batch);
    }
  }
  if (state == VersioningState::kUnversioned) {
    if (!current->has_value()) return DeleteResult{};
    Status s = WriteReleasing(&batch);
    if (!s.ok()) return s;
    return DeleteResult{};
  }
  // DeleteMarker.html: the marker becomes the latest version; in a suspended bucket its id is
  // null and it replaces the null version.
  uint64_t newest = 0;
  if (current->has_value()) {
    newest = (*current)->version_seq;
  } else {
    Result<std::optional<codec::StoredVersion>> latest =
        NewestNoncurrent(bucket, key, nullptr, std::nullopt);
    if (!latest.ok()) return latest.status();
    if (latest->has_value()) newest = (*latest)->meta.version_seq;
  }
  ObjectMeta marker;
  marker.last_modified_ms = text::NowUnixMillis();
  marker.version_seq = NextVersionSeq(newest);
  if (state == VersioningState::kEnabled) {
    Result<std::string> id = NewVersionId(marker.version_seq);
    if (!id.ok()) return id.status();
    marker.version_id = std::move(id).value();
  } else {
    if (Status s = AddDropNoncurrentNull(bucket, key, &batch); !s.ok()) return s;
    // After the drop's delete of the pointer: the batch applies in order.
    batch.Put(cf(kVersionsCf), codec::NullVersionKey(bucket, key),
              codec::EncodeSeq(marker.version_seq));
  }
  batch.Put(cf(kVersionsCf), codec::VersionKey(bucket, key, marker.version_seq),
            codec::EncodeVersion(marker, /*delete_marker=*/true));
  Status s = WriteReleasing(&batch);
  if (!s.ok()) return s;
  return DeleteResult{true, marker.version_id};
}

Result<DeleteResult> StoreImpl::DeleteObjectVersion(std::string_view bucket, std::string_view key,
                                                    std::string_view version_id,
                                                    bool bypass_governance) {
  if (version_id.empty()) return Status(Code::kInvalidArgument, "Invalid version id specified");
  std::shared_lock bucket_lock(BucketMutex(bucket));
  std::lock_guard key_lock(KeyMutex(bucket, key));
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  Result<std::optional<FoundVersion>> found = FindVersion(bucket, key, version_id, nullptr);
  if (!found.ok()) return found.status();
  if (!found->has_value()) return NoSuchVersion();
  const codec::StoredVersion& v = (*found)->version;
  if (Status s = CheckDeletable(v.meta.lock, bypass_governance, text::NowUnixMillis()); !s.ok()) {
    return s;
  }
  const std::string object_key = codec::ObjectKey(bucket, key);
  Batch batch;
  bool has_current = false;
  if ((*found)->current) {
    batch.Delete(cf(kObjectsCf), object_key);
    AddStatsDelta(bucket, -1, -static_cast<int64_t>(v.meta.size), &batch);
  } else {
    batch.Delete(cf(kVersionsCf), codec::VersionKey(bucket, key, v.meta.version_seq));
    if (v.meta.version_id.empty()) {
      batch.Delete(cf(kVersionsCf), codec::NullVersionKey(bucket, key));
    }
    Result<bool> current = HasRaw(kObjectsCf, object_key);
    if (!current.ok()) return current.status();
    has_current = *current;
  }
  if (!v.delete_marker) AddReleaseData(v.meta, &batch);
  // DeletingObjectVersions.html: when the latest version goes, the next one becomes current;
  // a delete marker stays where it is (the key then reads as deleted).
  if (!has_current) {
    Result<std::optional<codec::StoredVersion>> next = NewestNoncurrent(
        bucket, key, nullptr,
        (*found)->current ? std::nullopt : std::optional<uint64_t>(v.meta.version_seq));
    if (!next.ok()) return next.status();
    if (next->has_value() && !(*next)->delete_marker) {
      AddPromote(bucket, key, object_key, **next, &batch);
    }
  }
  Status s = WriteReleasing(&batch);
  if (!s.ok()) return s;
  return DeleteResult{v.delete_marker, v.meta.version_id};
}

// ---- Object lock and access control of a version.

template <typename Change>
Status StoreImpl::ChangeVersion(std::string_view bucket, std::string_view key,
                                std::string_view version_id, Change&& change) {
  std::shared_lock bucket_lock(BucketMutex(bucket));
  std::lock_guard key_lock(KeyMutex(bucket, key));
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  Result<std::optional<FoundVersion>> found = FindVersion(bucket, key, version_id, nullptr);
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    return version_id.empty() ? Status(Code::kNoSuchKey, "no such key") : NoSuchVersion();
  }
  codec::StoredVersion& v = (*found)->version;
  if (v.delete_marker) return Status(Code::kNoSuchKey, "the version is a delete marker");
  if (Status s = change(&v.meta); !s.ok()) return s;
  if ((*found)->current) {
    return ApplyPut(cf(kObjectsCf), codec::ObjectKey(bucket, key), codec::EncodeObjectMeta(v.meta));
  }
  return ApplyPut(cf(kVersionsCf), codec::VersionKey(bucket, key, v.meta.version_seq),
                  codec::EncodeVersion(v.meta, /*delete_marker=*/false));
}

Status StoreImpl::PutObjectRetention(std::string_view bucket, std::string_view key,
                                     std::string_view version_id, const ObjectRetention& retention,
                                     bool bypass_governance) {
  if ((retention.mode == RetentionMode::kNone) != (retention.retain_until_ms == 0)) {
    return Status(Code::kInvalidArgument, "a retention needs both a mode and a date");
  }
  return ChangeVersion(bucket, key, version_id, [&](ObjectMeta* meta) {
    ObjectLockState* lock = &meta->lock;
    const ObjectRetention& old = lock->retention;
    if (RetentionRuns(old, text::NowUnixMillis())) {
      const bool keeps_or_extends =
          retention.mode == old.mode && retention.retain_until_ms >= old.retain_until_ms;
      if (!keeps_or_extends && (old.mode == RetentionMode::kCompliance || !bypass_governance)) {
        return Status(Code::kObjectLocked, "the retention can only be extended");
      }
    }
    lock->retention = retention;
    return Status::Ok();
  });
}

Status StoreImpl::PutObjectLegalHold(std::string_view bucket, std::string_view key,
                                     std::string_view version_id, LegalHold hold) {
  if (hold == LegalHold::kNever) {
    return Status(Code::kInvalidArgument, "a legal hold is set ON or OFF");
  }
  return ChangeVersion(bucket, key, version_id, [&](ObjectMeta* meta) {
    meta->lock.legal_hold = hold;
    return Status::Ok();
  });
}

Status StoreImpl::UpdateObjectAccess(std::string_view bucket, std::string_view key,
                                     std::string_view version_id, const ObjectChange& change) {
  return ChangeVersion(bucket, key, version_id, [&](ObjectMeta* meta) {
    ObjectMeta edited = *meta;
    if (Status s = change(&edited); !s.ok()) return s;
    meta->owner_id = std::move(edited.owner_id);
    meta->acl = std::move(edited.acl);
    return Status::Ok();
  });
}

Result<std::string> StoreImpl::PutObjectTags(std::string_view bucket, std::string_view key,
                                             std::string_view version_id, const ObjectTags& tags) {
  std::string changed;
  Status s = ChangeVersion(bucket, key, version_id, [&](ObjectMeta* meta) {
    meta->tags = tags;
    changed = meta->version_id;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return changed;
}

// ---- Reads.

Result<ObjectMeta> StoreImpl::HeadObjectVersion(std::string_view bucket, std::string_view key,
                                                std::string_view version_id,
                                                DeleteMarkerInfo* marker) {
  if (marker != nullptr) *marker = DeleteMarkerInfo{};
  // Current and noncurrent entries are read from one snapshot: a concurrent delete may move
  // a version between the families.
  rocksdb::ManagedSnapshot snapshot(db_);
  Result<std::optional<FoundVersion>> found =
      FindVersion(bucket, key, version_id, snapshot.snapshot());
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    if (version_id.empty()) return MissingObject(bucket, key);
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
    return NoSuchVersion();
  }
  codec::StoredVersion& v = (*found)->version;
  if (v.delete_marker) {
    if (marker != nullptr) *marker = DeleteMarkerInfo{true, v.meta.version_id};
    return Status(Code::kNoSuchKey, "the version is a delete marker");
  }
  return std::move(v.meta);
}

Result<VersionsPage> StoreImpl::ListObjectVersions(const VersionsQuery& q) {
  if (!q.version_id_marker.empty() && q.key_marker.empty()) {
    return Status(Code::kInvalidArgument,
                  "A version-id marker cannot be specified without a key marker.");
  }
  Result<VersionRef> marker_ref = ParseVersionRef(q.version_id_marker);
  if (!marker_ref.ok()) return marker_ref.status();
  if (Status s = RequireBucket(q.bucket); !s.ok()) return s;
  VersionsPage page;
  if (q.max_keys == 0) return page;

  rocksdb::ManagedSnapshot snapshot(db_);
  const std::string obj_lower = codec::ObjectKey(q.bucket, q.prefix);
  std::string obj_upper = codec::PrefixSuccessor(obj_lower);
  const std::string ver_lower = codec::VersionNamePrefix(q.bucket, q.prefix);
  std::string ver_upper = codec::PrefixSuccessor(ver_lower);
  rocksdb::Slice obj_upper_slice(obj_upper), ver_upper_slice(ver_upper);
  rocksdb::ReadOptions obj_ro, ver_ro;
  obj_ro.snapshot = ver_ro.snapshot = snapshot.snapshot();
  obj_ro.iterate_upper_bound = &obj_upper_slice;
  ver_ro.iterate_upper_bound = &ver_upper_slice;
  std::unique_ptr<rocksdb::Iterator> objs(db_->NewIterator(obj_ro, cf(kObjectsCf)));
  std::unique_ptr<rocksdb::Iterator> vers(db_->NewIterator(ver_ro, cf(kVersionsCf)));
  if (q.key_marker.empty() || q.key_marker < q.prefix) {
    objs->Seek(obj_lower);
    vers->Seek(ver_lower);
  } else {
    objs->Seek(codec::ObjectKey(q.bucket, q.key_marker));
    vers->Seek(codec::VersionNamePrefix(q.bucket, q.key_marker));
  }
  const size_t name_at = q.bucket.size() + 1;  // an objects-family key's name starts here

  // The key each iterator is at (false: done).
  std::string obj_name, ver_name;
  char ver_tag = 0;
  uint64_t ver_seq = 0;
  auto obj_at = [&]() -> bool {
    if (!objs->Valid()) return false;
    obj_name.assign(ToView(objs->key()).substr(name_at));
    return true;
  };
  auto ver_at = [&]() -> Result<bool> {
    if (!vers->Valid()) return false;
    if (!codec::DecodeVersionKey(q.bucket, ToView(vers->key()), &ver_name, &ver_tag, &ver_seq)) {
      return Status(Code::kCorruption, "bad object version key");
    }
    return true;
  };
  // Moves both iterators past key `name` (the next object key is name + "\0" or greater), or
  // past every key starting with `common`.
  auto skip_past_key = [&](const std::string& name) {
    objs->Seek(codec::ObjectKey(q.bucket, name) + '\0');
    vers->Seek(codec::PrefixSuccessor(codec::VersionKeyPrefix(q.bucket, name)));
  };
  auto skip_past_prefix = [&](const std::string& common) {
    objs->Seek(codec::PrefixSuccessor(codec::ObjectKey(q.bucket, common)));
    vers->Seek(codec::PrefixSuccessor(codec::VersionNamePrefix(q.bucket, common)));
  };

  size_t count = 0;
  bool full = false;  // a page's worth is listed; the next entry makes it truncated
  auto room = [&]() {
    if (count < q.max_keys) return true;
    page.truncated = true;
    return false;
  };
  auto emit = [&](const std::string& name, const ObjectMeta& meta, bool delete_marker,
                  bool latest) {
    ObjectVersion e;
    e.key = name;
    e.version_id = meta.version_id;
    e.is_latest = latest;
    e.delete_marker = delete_marker;
    e.last_modified_ms = meta.last_modified_ms;
    if (!delete_marker) {
      e.etag = meta.etag;
      e.size = meta.size;
      e.tags = meta.tags;
      e.storage_class = meta.storage_class;
    }
    e.owner_id = meta.owner_id;
    page.versions.push_back(std::move(e));
    page.next_key_marker = name;
    page.next_version_id_marker = MarkerOf(meta);
    ++count;
  };

  while (!full) {
    const bool has_obj = obj_at();
    Result<bool> has_ver = ver_at();
    if (!has_ver.ok()) return has_ver.status();
    if (!has_obj && !*has_ver) break;
    const std::string name = !has_obj    ? ver_name
                             : !*has_ver ? obj_name
                                         : std::min(obj_name, ver_name);
    const bool at_marker_key = !q.key_marker.empty() && name == q.key_marker;
    if (!q.key_marker.empty() &&
        (name < q.key_marker || (at_marker_key && q.version_id_marker.empty()))) {
      skip_past_key(name);
      continue;
    }
    if (!q.delimiter.empty()) {
      const size_t pos = name.find(q.delimiter, q.prefix.size());
      if (pos != std::string::npos) {
        const std::string common = name.substr(0, pos + q.delimiter.size());
        if (q.key_marker.empty() || common > q.key_marker) {
          if (!room()) break;
          page.common_prefixes.push_back(common);
          page.next_key_marker = common;
          page.next_version_id_marker.clear();
          ++count;
        }
        skip_past_prefix(common);
        continue;
      }
    }
    // This key's versions, newest first: the current object, then the versions family.
    std::optional<ObjectMeta> current;
    if (has_obj && obj_name == name) {
      Result<ObjectMeta> meta = codec::DecodeObjectMeta(ToView(objs->value()));
      if (!meta.ok()) return meta.status();
      current = std::move(meta).value();
    }
    // On the marker's key, only versions older than the marker are listed.
    std::optional<uint64_t> older_than;
    if (at_marker_key) {
      if (marker_ref->kind == VersionRef::kId) {
        older_than = marker_ref->seq;
      } else {  // "null": the null version's sequence, wherever it is
        if (current.has_value() && current->version_id.empty()) {
          older_than = current->version_seq;
        } else {
          Result<std::optional<codec::StoredVersion>> null =
              NoncurrentNull(q.bucket, name, snapshot.snapshot());
          if (!null.ok()) return null.status();
          // An unknown null marker lists nothing more of the key.
          older_than = null->has_value() ? (*null)->meta.version_seq : 0;
        }
      }
    }
    bool latest = true;
    if (current.has_value()) {
      if (!older_than.has_value() || current->version_seq < *older_than) {
        if (!room()) break;
        emit(name, *current, false, true);
      }
      latest = false;
    }
    if (older_than.has_value() && *older_than > 0) {
      // Straight to the versions after the marker (they sort newest first).
      vers->Seek(codec::VersionKey(q.bucket, name, *older_than));
      latest = false;  // a version the marker passed was newer
    }
    for (;;) {
      Result<bool> at = ver_at();
      if (!at.ok()) return at.status();
      if (!*at || ver_name != name) break;
      if (ver_tag != codec::kVersionTag || (older_than.has_value() && ver_seq >= *older_than)) {
        vers->Next();
        continue;
      }
      Result<codec::StoredVersion> v = codec::DecodeVersion(ToView(vers->value()));
      if (!v.ok()) return v.status();
      if (!room()) {
        full = true;
        break;
      }
      emit(name, v->meta, v->delete_marker, latest);
      latest = false;
      vers->Next();
    }
    if (full) break;
    skip_past_key(name);
  }
  if (!objs->status().ok()) return FromRocks(objs->status());
  if (!vers->status().ok()) return FromRocks(vers->status());
  if (!page.truncated) {
    page.next_key_marker.clear();
    page.next_version_id_marker.clear();
  }
  return page;
}

}  // namespace cubby::storage::internal
