// StoreImpl: multipart uploads (store_impl.h): uploads, their parts and part writers,
// completion into one object whose data is the parts' (no bytes copied), abort.
#include <openssl/rand.h>
#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "storage/codec.h"
#include "storage/store_impl.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::storage::internal {

namespace {

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

Result<PartRecord> PartWriterImpl::Commit(uint32_t part_number, PartRecord meta) {
  if (commit_called_) return Status(Code::kInvalidArgument, "writer already committed");
  commit_called_ = true;
  if (part_number < 1 || part_number > 10000) {
    return Status(Code::kInvalidArgument, "part number must be in 1..10000");
  }
  Status appended = stream_.Append({});
  if (!appended.ok()) return appended;
  meta.part_number = part_number;
  // A sealed part's size is its plaintext's (the caller's); data.size the sealed bytes.
  if (meta.wrapped_key.empty()) meta.size = stream_.size();
  if (meta.last_modified_ms == 0) meta.last_modified_ms = text::NowUnixMillis();
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

Status StoreImpl::CommitPart(std::string_view bucket, std::string_view key,
                             std::string_view upload_id, const PartRecord& part, Batch* batch) {
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

Result<UploadRecord> StoreImpl::CreateUpload(std::string_view bucket, std::string_view key,
                                             const ObjectMeta& meta,
                                             std::string_view checksum_algorithm,
                                             std::string_view checksum_type,
                                             std::string_view initiator_id) {
  UploadRecord upload;
  upload.bucket = std::string(bucket);
  upload.key = std::string(key);
  upload.initiated_ms = text::NowUnixMillis();
  Result<std::string> id = NewUploadId(NextUploadStamp(upload.initiated_ms));
  if (!id.ok()) return id.status();
  upload.upload_id = std::move(id).value();
  upload.meta = meta;
  // Only the caller-visible metadata is kept: the object's bytes come from its parts.
  SetDataOf(ObjectMeta(), &upload.meta);
  upload.checksum_algorithm = std::string(checksum_algorithm);
  upload.checksum_type = std::string(checksum_type);
  upload.initiator_id = std::string(initiator_id);
  std::shared_lock bucket_lock(BucketMutex(bucket));
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  Status s = ApplyPut(cf(kUploadsCf), codec::UploadKey(bucket, key, upload.upload_id),
                      codec::EncodeUpload(upload));
  if (!s.ok()) return s;
  return upload;
}

Result<UploadRecord> StoreImpl::GetUpload(std::string_view bucket, std::string_view key,
                                          std::string_view upload_id) {
  return FindUpload(bucket, key, upload_id);
}

Result<std::unique_ptr<PartWriter>> StoreImpl::NewPartWriter(std::string_view bucket,
                                                             std::string_view key,
                                                             std::string_view upload_id) {
  if (Status s = FindUpload(bucket, key, upload_id).status(); !s.ok()) return s;
  return std::unique_ptr<PartWriter>(std::make_unique<PartWriterImpl>(
      this, std::string(bucket), std::string(key), std::string(upload_id)));
}

Result<std::vector<PartRecord>> StoreImpl::ListParts(std::string_view bucket, std::string_view key,
                                                     std::string_view upload_id,
                                                     uint32_t part_number_marker, size_t max_parts,
                                                     bool* truncated) {
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

Result<ObjectMeta> StoreImpl::CompleteUpload(std::string_view bucket, std::string_view key,
                                             std::string_view upload_id,
                                             const std::vector<uint32_t>& part_numbers,
                                             ObjectMeta meta, const WriteCondition& cond) {
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
  Result<UploadRecord> upload = FindUpload(bucket, key, upload_id);
  if (!upload.ok()) return upload.status();
  Result<std::vector<PartRecord>> all = AllParts(upload_id);
  if (!all.ok()) return all.status();

  Batch batch;
  SetDataOf(ObjectMeta(), &meta);
  meta.encryption.wrapped_key.clear();
  meta.encryption.part_keys.clear();
  meta.encryption.stored_size = 0;
  if (meta.sealed()) meta.encryption.upload_id = std::string(upload_id);
  // The parts' checksums of the upload's algorithm, when every chosen part has one.
  bool part_checksums = !upload->checksum_algorithm.empty();
  auto part = all->begin();
  for (uint32_t wanted : part_numbers) {
    for (; part != all->end() && part->part_number < wanted; ++part) {
      AddReleaseSegment(part->data, &batch);  // uploaded but not chosen
    }
    if (part == all->end() || part->part_number != wanted) {
      return Status(Code::kInvalidPart, "no part number " + std::to_string(wanted));
    }
    meta.segments.push_back(part->data);
    if (meta.sealed()) {
      if (part->wrapped_key.empty()) {
        return Status(Code::kCorruption, "part " + std::to_string(wanted) + " is not sealed");
      }
      meta.encryption.part_keys.push_back(part->wrapped_key);
    }
    meta.part_sizes.push_back(part->size);
    meta.size += part->size;
    if (part_checksums) {
      auto it = part->checksums.find(upload->checksum_algorithm);
      if (it == part->checksums.end()) {
        part_checksums = false;
      } else {
        meta.part_checksums.push_back(it->second);
      }
    }
    ++part;
  }
  if (!part_checksums) meta.part_checksums.clear();
  for (; part != all->end(); ++part) AddReleaseSegment(part->data, &batch);
  if (meta.last_modified_ms == 0) meta.last_modified_ms = text::NowUnixMillis();

  const std::string object_key = codec::ObjectKey(bucket, key);
  Result<std::optional<ObjectMeta>> current = GetForWrite(object_key, cond);
  if (!current.ok()) return current.status();
  if (Status s = AddCommitObject(bucket, key, object_key, &meta, *current, &batch); !s.ok()) {
    return s;
  }
  batch.DeleteRange(cf(kUploadsCf), codec::PartPrefix(upload_id), codec::PartPrefixEnd(upload_id));
  batch.Delete(cf(kUploadsCf), codec::UploadKey(bucket, key, upload_id));
  codec::CompletedRecord done{std::string(bucket), std::string(key), meta.etag,
                              meta.last_modified_ms, text::NowUnixMillis()};
  batch.Put(cf(kUploadsCf), codec::CompletedKey(upload_id), codec::EncodeCompleted(done));
  Status s = WriteReleasing(&batch);
  if (!s.ok()) return s;
  return meta;
}

Result<ObjectMeta> StoreImpl::CompletedUpload(std::string_view bucket, std::string_view key,
                                              std::string_view upload_id) {
  if (upload_id.size() != codec::kUploadIdLength) return NoSuchUpload();
  Result<std::optional<std::string>> raw =
      GetRaw(kUploadsCf, codec::CompletedKey(upload_id), nullptr);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return NoSuchUpload();
  Result<codec::CompletedRecord> done = codec::DecodeCompleted(**raw);
  if (!done.ok()) return done.status();
  if (done->bucket != bucket || done->key != key ||
      text::NowUnixMillis() - done->completed_ms > kCompletedTtlMs) {
    return NoSuchUpload();
  }
  // Only while the object it produced is still there.
  Result<std::optional<ObjectMeta>> current = GetObjectMeta(codec::ObjectKey(bucket, key), nullptr);
  if (!current.ok()) return current.status();
  if (!current->has_value() || (*current)->etag != done->etag ||
      (*current)->last_modified_ms != done->last_modified_ms) {
    return NoSuchUpload();
  }
  return std::move(**current);
}

Status StoreImpl::AbortUpload(std::string_view bucket, std::string_view key,
                              std::string_view upload_id) {
  std::shared_lock bucket_lock(BucketMutex(bucket));
  std::unique_lock upload_lock(UploadMutex(upload_id));
  if (Status s = FindUpload(bucket, key, upload_id).status(); !s.ok()) return s;
  Batch batch;
  Status s = AddReleaseParts(upload_id, &batch);
  if (!s.ok()) return s;
  batch.Delete(cf(kUploadsCf), codec::UploadKey(bucket, key, upload_id));
  return WriteReleasing(&batch);
}

uint64_t StoreImpl::NextUploadStamp(int64_t now_ms) {
  const uint64_t floor = static_cast<uint64_t>(now_ms) << 16;
  uint64_t last = last_upload_stamp_.load();
  uint64_t next;
  do {
    next = std::max(floor, last + 1);
  } while (!last_upload_stamp_.compare_exchange_weak(last, next));
  return next;
}

Result<UploadRecord> StoreImpl::FindUpload(std::string_view bucket, std::string_view key,
                                           std::string_view upload_id,
                                           const rocksdb::Snapshot* snapshot) {
  if (upload_id.size() != codec::kUploadIdLength) return NoSuchUpload();
  Result<std::optional<std::string>> raw =
      GetRaw(kUploadsCf, codec::UploadKey(bucket, key, upload_id), snapshot);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return NoSuchUpload();
  return codec::DecodeUpload(**raw);
}

Result<std::vector<PartRecord>> StoreImpl::AllParts(std::string_view upload_id) {
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

Status StoreImpl::AddReleaseParts(std::string_view upload_id, Batch* batch) {
  Result<std::vector<PartRecord>> parts = AllParts(upload_id);
  if (!parts.ok()) return parts.status();
  for (const PartRecord& part : *parts) AddReleaseSegment(part.data, batch);
  batch->DeleteRange(cf(kUploadsCf), codec::PartPrefix(upload_id), codec::PartPrefixEnd(upload_id));
  return Status::Ok();
}

}  // namespace cubby::storage::internal
