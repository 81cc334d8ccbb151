#include "storage/backup.h"

#include <fcntl.h>
#include <rocksdb/utilities/checkpoint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <vector>

#include "storage/codec.h"
#include "storage/db_options.h"
#include "storage/engine_log.h"
#include "storage/files.h"

// Why the backup is consistent: the RocksDB checkpoint is a consistent image of every column
// family at one instant C; the only thing it lacks is the large object bodies, which live as
// plain files under <store>/blobs and are referenced from the checkpoint by file-reference keys
// in the "uploads" family (written in the same batch as the record that owns the file).
//  1. A hold is taken on BlobFiles before the checkpoint. From then until the end of the backup,
//     no Release or Unpin unlinks a file (they only defer it).
//  2. Every file the checkpoint references exists at C: a file is unlinked only (a) by its
//     writer before its reference was ever written (never referenced), or (b) by a release after
//     the batch removing its reference was durable. A release that unlinked before the hold
//     began had its batch durable before C, so C does not reference that file; one that runs
//     after the hold began unlinks nothing. Recovery's sweep happens only at Open.
//  3. So after the checkpoint, each file it references (read from the checkpoint itself, opened
//     read-only) is still on disk and immutable (committed files are never written again):
//     linking or copying it gives the exact bytes C refers to. A missing one is a bug, reported
//     as kCorruption rather than producing a backup with a hole.
// In-flight writes at C left pending-write markers and maybe unreferenced files in the image:
// Store::Open's recovery removes both when the backup is opened, as after a crash.
namespace cubby::storage {
namespace {

namespace fs = std::filesystem;

// A name beside `target` that nothing uses yet (the checkpoint creates it).
std::string PartialName(const std::string& target) {
  static std::atomic<uint64_t> counter{0};
  const fs::path path = NormalTarget(target);
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return (path.parent_path() /
          ("." + path.filename().string() + ".partial-" + std::to_string(::getpid()) + "-" +
           std::to_string(now) + "-" + std::to_string(counter.fetch_add(1))))
      .string();
}

// The data ids whose files the checkpoint in `dir` references.
Result<std::vector<uint64_t>> ReferencedIds(const StoreOptions& options, const std::string& dir) {
  StoreOptions at = options;
  at.path = dir;
  DbConfig config = MakeDbConfig(at);
  config.db.info_log = NewSilentEngineLog();  // the backup gets no LOG file of its own
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      rocksdb::DB::OpenForReadOnly(config.db, dir, config.column_families, &handles, &raw);
  if (!s.ok()) return Status(Code::kIOError, "open the checkpoint: " + s.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::vector<uint64_t> ids;
  Status result = Status::Ok();
  {
    const std::string start(1, codec::kFileRefTag), end(1, codec::kFileRefTag + 1);
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, handles[kUploadsCf]));
    for (it->Seek(start); it->Valid(); it->Next()) {
      uint64_t id = 0;
      if (!codec::DecodeFileRefKey(std::string_view(it->key().data(), it->key().size()), &id)) {
        result = Status(Code::kCorruption, "bad file reference in the checkpoint");
        break;
      }
      ids.push_back(id);
    }
    if (result.ok() && !it->status().ok()) {
      result = Status(Code::kIOError, "read the checkpoint: " + it->status().ToString());
    }
  }
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  db->Close().PermitUncheckedError();
  if (!result.ok()) return result;
  return ids;
}

// Copies `src` to a new file `dst` and syncs its data.
Status CopyFile(const std::string& src, const std::string& dst) {
  int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return ErrnoStatus("open", src);
  int out = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0) {
    Status s = ErrnoStatus("create", dst);
    ::close(in);
    return s;
  }
  std::vector<char> buf(1 << 20);
  Status s = Status::Ok();
  for (;;) {
    ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s = ErrnoStatus("read", src);
      break;
    }
    if (n == 0) break;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = ::write(out, buf.data() + off, static_cast<size_t>(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        s = ErrnoStatus("write", dst);
        break;
      }
      off += w;
    }
    if (!s.ok()) break;
  }
  if (s.ok() && ::fdatasync(out) != 0) s = ErrnoStatus("fdatasync", dst);
  ::close(out);
  ::close(in);
  return s;
}

// Hard-links `src` as `dst`; copies when the two are on different filesystems (EXDEV) or the
// filesystem has no hard links. *copied tells which. A missing `src` is kCorruption.
Status LinkOrCopy(const std::string& src, const std::string& dst, bool* copied) {
  *copied = false;
  if (::link(src.c_str(), dst.c_str()) == 0) return Status::Ok();
  if (errno == ENOENT && ::access(src.c_str(), F_OK) != 0) {
    return Status(Code::kCorruption, "data file referenced by the checkpoint is missing: " + src);
  }
  if (errno != EXDEV && errno != EPERM && errno != ENOTSUP && errno != EMLINK) {
    return ErrnoStatus("link " + src + " to", dst);
  }
  *copied = true;
  return CopyFile(src, dst);
}

// Bytes and files under `dir` (the checkpoint, before the data files join it).
Status Measure(const std::string& dir, BackupProgress* progress) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    progress->bytes_total += it->file_size(ec);
    ++progress->files_total;
  }
  if (ec) return Status(Code::kIOError, "measure " + dir + ": " + ec.message());
  progress->bytes_done = progress->bytes_total;
  progress->files_done = progress->files_total;
  return Status::Ok();
}

// Links or copies the data files `ids` of `files` into the backup folder `dir`, reporting each.
Status AddDataFiles(BlobFiles* files, const std::vector<uint64_t>& ids, const std::string& dir,
                    BackupProgress* progress, const BackupProgressFn& report) {
  for (uint64_t id : ids) {
    struct stat st {};
    if (::stat(files->PathOf(id).c_str(), &st) != 0) {
      return Status(Code::kCorruption,
                    "data file referenced by the checkpoint is missing: " + files->PathOf(id));
    }
    progress->bytes_total += static_cast<uint64_t>(st.st_size);
    ++progress->files_total;
  }
  if (report && !report(*progress)) return Status(Code::kAborted, "backup cancelled");
  Result<std::unique_ptr<BlobFiles>> backup = BlobFiles::Open(dir + "/blobs");
  if (!backup.ok()) return backup.status();
  std::set<std::string> touched;
  for (uint64_t id : ids) {
    const std::string dst = (*backup)->PathOf(id);
    bool copied = false;
    if (Status s = LinkOrCopy(files->PathOf(id), dst, &copied); !s.ok()) return s;
    touched.insert(dst.substr(0, dst.rfind('/')));
    struct stat st {};
    if (::stat(dst.c_str(), &st) != 0) return ErrnoStatus("stat", dst);
    progress->bytes_done += static_cast<uint64_t>(st.st_size);
    ++progress->files_done;
    if (copied) ++progress->files_copied;
    if (report && !report(*progress)) return Status(Code::kAborted, "backup cancelled");
  }
  for (const std::string& folder : touched) {
    if (Status s = SyncPath(folder); !s.ok()) return s;
  }
  return Status::Ok();
}

// Removes the partial folder unless Keep() was called.
class PartialGuard {
 public:
  explicit PartialGuard(std::string path) : path_(std::move(path)) {}
  ~PartialGuard() {
    if (path_.empty()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
    fs::remove_all(path_ + ".tmp", ec);  // the checkpoint's own staging name
  }
  void Keep() { path_.clear(); }

 private:
  std::string path_;
};

}  // namespace

Status BackupStore(rocksdb::DB* db, const StoreOptions& options, BlobFiles* files,
                   const std::string& target_dir, const BackupProgressFn& progress) {
  if (Status s = CheckBackupTarget(options.path, "the store", target_dir); !s.ok()) return s;
  const std::string target = NormalTarget(target_dir).string();
  const std::string partial = PartialName(target);
  PartialGuard guard(partial);
  BlobHold hold(files);  // before the checkpoint: see the argument at the top of this file
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status rs = rocksdb::Checkpoint::Create(db, &raw);
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush 0: memtables are flushed first, so the image needs no WAL replay.
  if (rs.ok()) rs = checkpoint->CreateCheckpoint(partial, 0);
  if (!rs.ok()) return Status(Code::kIOError, "checkpoint into " + partial + ": " + rs.ToString());
  BackupProgress done;
  if (Status s = Measure(partial, &done); !s.ok()) return s;
  Result<std::vector<uint64_t>> ids = ReferencedIds(options, partial);
  if (!ids.ok()) return ids.status();
  if (Status s = AddDataFiles(files, *ids, partial, &done, progress); !s.ok()) return s;
  if (Status s = SyncPath(partial); !s.ok()) return s;
  // rename(2) replaces an empty folder and fails on a non-empty one (ENOTEMPTY/EEXIST): a
  // target filled since CheckTarget is never overwritten.
  if (::rename(partial.c_str(), target.c_str()) != 0) {
    if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR || errno == EISDIR) {
      return Status(Code::kInvalidArgument,
                    "backup target exists and is not an empty folder: " + target);
    }
    return ErrnoStatus("rename " + partial + " to", target);
  }
  guard.Keep();
  return SyncPath(fs::path(target).parent_path().string());
}

}  // namespace cubby::storage
