// StoreImpl: reading objects (store_impl.h). A reader pins its version: chunks through a
// RocksDB snapshot, data files through BlobFiles pins.
#include <fcntl.h>
#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "storage/blob_files.h"
#include "storage/codec.h"
#include "storage/store_impl.h"

namespace cubby::storage::internal {

namespace {

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
    // The stored bytes: the plaintext's for plain objects, the sealed bytes for encrypted ones.
    end_ = segments_.empty() ? meta_.inline_data.size() : start;
  }

  ~ReaderImpl() override {
    CloseFile();
    files_->Unpin(pinned_);
  }

  const ObjectMeta& meta() const override { return meta_; }

  Status Seek(uint64_t offset) override {
    if (offset > end_) {
      return Status(Code::kInvalidArgument, "seek past the end of the object");
    }
    pos_ = offset;
    return Status::Ok();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    size_t copied = 0;
    while (copied < n && pos_ < end_) {
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
    if (pos_ >= end_ || segments_.empty() || max == 0) return std::optional<FileSpan>();
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
  uint64_t end_ = 0;  // stored bytes of the object (see the constructor)
  rocksdb::PinnableSlice chunk_;  // the current chunk: memory bounded by one chunk
  size_t seg_index_ = 0;
  uint64_t chunk_index_ = 0;
  bool loaded_ = false;
  int fd_ = -1;  // the open data file of segment fd_seg_
  size_t fd_seg_ = 0;
};

}  // namespace

Result<ObjectMeta> StoreImpl::HeadObject(std::string_view bucket, std::string_view key) {
  Result<std::optional<ObjectMeta>> meta = GetObjectMeta(codec::ObjectKey(bucket, key), nullptr);
  if (!meta.ok()) return meta.status();
  if (meta->has_value()) return std::move(**meta);
  return MissingObject(bucket, key);
}

Result<std::unique_ptr<ObjectReader>> StoreImpl::OpenObject(std::string_view bucket,
                                                            std::string_view key) {
  return OpenObjectVersion(bucket, key, {}, nullptr);
}

Result<std::unique_ptr<ObjectReader>> StoreImpl::OpenObjectVersion(std::string_view bucket,
                                                                   std::string_view key,
                                                                   std::string_view version_id,
                                                                   DeleteMarkerInfo* marker) {
  if (marker != nullptr) *marker = DeleteMarkerInfo{};
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
    // The latest version without a version id: the current object (in a versioned bucket a
    // latest delete marker is looked up only when there is none).
    Result<std::optional<FoundVersion>> version =
        FindVersion(bucket, key, version_id, snapshot->snapshot());
    if (!version.ok()) return version.status();
    if (!version->has_value() || (*version)->version.delete_marker) {
      gate.unlock();
      if (version->has_value()) {
        if (marker != nullptr) {
          *marker = DeleteMarkerInfo{true, (*version)->version.meta.version_id};
        }
        return Status(Code::kNoSuchKey, "the version is a delete marker");
      }
      if (version_id.empty()) return MissingObject(bucket, key);
      if (Status s = RequireBucket(bucket); !s.ok()) return s;
      return Status(Code::kNoSuchVersion, "The specified version does not exist.");
    }
    found = std::move((*version)->version.meta);
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

Result<std::optional<ObjectMeta>> StoreImpl::GetObjectMeta(const std::string& object_key,
                                                           const rocksdb::Snapshot* snapshot) {
  Result<std::optional<std::string>> raw = GetRaw(kObjectsCf, object_key, snapshot);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return std::optional<ObjectMeta>();
  Result<ObjectMeta> meta = codec::DecodeObjectMeta(**raw);
  if (!meta.ok()) return meta.status();
  return std::optional<ObjectMeta>(std::move(meta).value());
}

Status StoreImpl::MissingObject(std::string_view bucket, std::string_view key) {
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  return Status(Code::kNoSuchKey, "no such key");
}

}  // namespace cubby::storage::internal
