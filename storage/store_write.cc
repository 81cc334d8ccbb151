// StoreImpl: writing objects (store_impl.h): the byte stream of a writer (ChunkStream, shared
// with parts), object commits under their write condition, deletes, metadata updates, and
// the release of the data an object replaces.
#include <fcntl.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "storage/blob_files.h"
#include "storage/codec.h"
#include "storage/store_impl.h"
#include "text/time.h"

namespace cubby::storage::internal {

namespace {

constexpr uint64_t kWritebackBytes = 8 << 20;  // start writeback of a data file every 8 MiB
// A data file of unknown final size checks free space against the reserve every this many
// bytes (a statvfs: cheap beside a MiB of writes).
constexpr uint64_t kSpaceCheckBytes = 1 << 20;

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

Result<ObjectMeta> WriterImpl::Commit(std::string_view key, ObjectMeta meta,
                                      const WriteCondition& cond) {
  if (commit_called_) return Status(Code::kInvalidArgument, "writer already committed");
  commit_called_ = true;
  Status appended = stream_.Append({});
  if (!appended.ok()) return appended;
  // An encrypted object's size is its plaintext's (the caller's); storage keeps the sealed size.
  if (meta.sealed()) {
    meta.encryption.stored_size = stream_.size();
  } else {
    meta.size = stream_.size();
  }
  if (meta.last_modified_ms == 0) meta.last_modified_ms = text::NowUnixMillis();
  meta.segments.clear();
  meta.part_sizes.clear();
  Batch batch;
  meta.inline_data.clear();
  Result<DataSegment> seg = stream_.Finish(&batch, /*allow_inline=*/true, &meta.inline_data);
  if (!seg.ok()) return seg.status();
  meta.data_id = seg->data_id;
  meta.chunk_size = seg->chunk_size;
  Status s = store_->CommitObject(bucket_, key, &meta, cond, &batch);
  if (!s.ok()) return s;
  stream_.Committed();
  return meta;
}

}  // namespace

std::vector<DataSegment> SegmentsOf(const ObjectMeta& meta) {
  if (!meta.segments.empty()) return meta.segments;
  if (meta.data_id == 0) return {};
  return {DataSegment{meta.data_id, meta.StoredSize(), meta.chunk_size}};
}

void SetDataOf(const ObjectMeta& source, ObjectMeta* meta) {
  meta->size = source.size;
  meta->part_sizes = source.part_sizes;
  meta->part_checksums = source.part_checksums;  // one per part, so with them
  meta->data_id = source.data_id;
  meta->chunk_size = source.chunk_size;
  meta->inline_data = source.inline_data;
  meta->segments = source.segments;
  meta->version_id = source.version_id;
  meta->version_seq = source.version_seq;
}

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
      buffer_.reserve(
          std::min<size_t>(chunk_size_, std::max(buffer_.size() + take, buffer_.capacity() * 2)));
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
      return Status(code,
                    "writing an object data file failed: " + std::string(std::strerror(errno)));
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

Result<DataSegment> ChunkStream::Finish(Batch* batch, bool allow_inline, std::string* inline_data) {
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

Result<std::unique_ptr<ObjectWriter>> StoreImpl::NewObjectWriter(std::string_view bucket) {
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  return std::unique_ptr<ObjectWriter>(std::make_unique<WriterImpl>(this, std::string(bucket)));
}

Status StoreImpl::CommitObject(std::string_view bucket, std::string_view key, ObjectMeta* meta,
                               const WriteCondition& cond, Batch* batch) {
  std::shared_lock bucket_lock(BucketMutex(bucket));
  std::lock_guard key_lock(KeyMutex(bucket, key));
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  const std::string object_key = codec::ObjectKey(bucket, key);
  Result<std::optional<ObjectMeta>> current = GetForWrite(object_key, cond);
  if (!current.ok()) return current.status();
  if (Status s = AddCommitObject(bucket, key, object_key, meta, *current, batch); !s.ok()) {
    return s;
  }
  return WriteReleasing(batch);
}

Status StoreImpl::DeleteObject(std::string_view bucket, std::string_view key) {
  return DeleteObjectVersioned(bucket, key).status();
}

Result<ObjectMeta> StoreImpl::UpdateObjectMeta(std::string_view bucket, std::string_view key,
                                               ObjectMeta meta, const WriteCondition& cond) {
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
  meta.lock = old.lock;  // the version's object lock is changed by its own calls only
  meta.encryption = old.encryption;  // the data stays as sealed (a change re-seals: a new write)
  if (meta.last_modified_ms == 0) meta.last_modified_ms = text::NowUnixMillis();
  Status s = ApplyPut(cf(kObjectsCf), object_key, codec::EncodeObjectMeta(meta));
  if (!s.ok()) return s;
  return meta;
}

Result<std::optional<ObjectMeta>> StoreImpl::GetForWrite(const std::string& object_key,
                                                         const WriteCondition& cond) {
  Result<std::optional<ObjectMeta>> current = GetObjectMeta(object_key, nullptr);
  if (!current.ok()) return current;
  Status s = CheckWriteCondition(cond, *current);
  if (!s.ok()) return s;
  return current;
}

void StoreImpl::AddReplaceObject(std::string_view bucket, const std::string& object_key,
                                 const ObjectMeta& meta, const std::optional<ObjectMeta>& current,
                                 Batch* batch) {
  batch->Put(cf(kObjectsCf), object_key, codec::EncodeObjectMeta(meta));
  if (current.has_value()) AddReleaseData(*current, batch);
  const uint64_t old_size = current.has_value() ? current->size : 0;
  AddStatsDelta(bucket, current.has_value() ? 0 : 1,
                static_cast<int64_t>(meta.size) - static_cast<int64_t>(old_size), batch);
}

void StoreImpl::AddReleaseData(const ObjectMeta& meta, Batch* batch) {
  for (const DataSegment& seg : SegmentsOf(meta)) AddReleaseSegment(seg, batch);
}

void StoreImpl::AddReleaseSegment(const DataSegment& seg, Batch* batch) {
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

Status StoreImpl::WriteReleasing(Batch* batch) {
  Status s = Apply(batch);
  MaybeWakeReclaimer(s);
  if (s.ok()) files_->Release(batch->released_files);
  return s;
}

}  // namespace cubby::storage::internal
