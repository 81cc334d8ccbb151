#include "storage/blob_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "storage/files.h"
#include "text/encoding.h"

namespace cubby::storage {
namespace {

constexpr int kFanout = 256;

// Creates `path` as a folder if missing; *created tells whether it did.
Status MakeDir(const std::string& path, bool* created) {
  if (::mkdir(path.c_str(), 0700) == 0) {
    *created = true;
    return Status::Ok();
  }
  if (errno == EEXIST) return Status::Ok();
  return ErrnoStatus("mkdir", path);
}

std::string ParentOf(const std::string& path) { return path.substr(0, path.rfind('/')); }

}  // namespace

Result<std::unique_ptr<BlobFiles>> BlobFiles::Open(std::string root) {
  bool created_root = false;
  Status s = MakeDir(root, &created_root);
  if (!s.ok()) return s;
  bool created_any = false;
  for (int i = 0; i < kFanout; ++i) {
    s = MakeDir(root + "/" + text::HexUint64(static_cast<uint64_t>(i), 2), &created_any);
    if (!s.ok()) return s;
  }
  // New folders must survive a crash before any file in them is acknowledged.
  if (created_any) {
    s = SyncPath(root);
    if (!s.ok()) return s;
  }
  if (created_root) {
    s = SyncPath(ParentOf(root));
    if (!s.ok()) return s;
  }
  return std::unique_ptr<BlobFiles>(new BlobFiles(std::move(root)));
}

std::string BlobFiles::PathOf(uint64_t id) const {
  return root_ + "/" + text::HexUint64(id % kFanout, 2) + "/" + text::HexUint64(id, 16);
}

Result<std::vector<uint64_t>> BlobFiles::List() const {
  std::vector<uint64_t> ids;
  for (int i = 0; i < kFanout; ++i) {
    const std::string dir = root_ + "/" + text::HexUint64(static_cast<uint64_t>(i), 2);
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return ErrnoStatus("opendir", dir);
    errno = 0;
    while (dirent* e = ::readdir(d)) {
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      uint64_t id = 0;
      auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id, 16);
      // Not a name this store gives (an editor's backup, a copy): not ours to list or remove.
      if (name.size() != 16 || ec != std::errc() || end != name.data() + name.size() ||
          static_cast<int>(id % kFanout) != i) {
        continue;
      }
      ids.push_back(id);
    }
    const int read_errno = errno;
    ::closedir(d);
    if (read_errno != 0) {
      errno = read_errno;
      return ErrnoStatus("readdir", dir);
    }
  }
  return ids;
}

Result<int> BlobFiles::Create(uint64_t id) {
  const std::string path = PathOf(id);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus("create", path);
  return fd;
}

Status BlobFiles::Sync(uint64_t id, int fd) {
  const std::string path = PathOf(id);
  if (::fdatasync(fd) != 0) return ErrnoStatus("fdatasync", path);
  return SyncPath(ParentOf(path));
}

Result<int> BlobFiles::OpenForRead(uint64_t id) const {
  const std::string path = PathOf(id);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) return fd;
  if (errno == ENOENT) return Status(Code::kCorruption, "object data file missing: " + path);
  return ErrnoStatus("open", path);
}

Status BlobFiles::Remove(uint64_t id) {
  const std::string path = PathOf(id);
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return Status::Ok();
  return ErrnoStatus("unlink", path);
}

void BlobFiles::UnlinkQuietly(uint64_t id) {
  // Deliberately ignored: a file that stays is unreferenced garbage the next Open removes.
  Remove(id).IgnoreError();
}

void BlobFiles::Pin(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return;
  std::lock_guard lock(mu_);
  for (uint64_t id : ids) ++pins_[id];
}

void BlobFiles::Unpin(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return;
  std::vector<uint64_t> unlink;
  {
    std::lock_guard lock(mu_);
    for (uint64_t id : ids) {
      auto it = pins_.find(id);
      if (it == pins_.end()) continue;
      if (--it->second > 0) continue;
      pins_.erase(it);
      // Under a hold the file stays deferred; EndHold unlinks it.
      if (holds_ == 0 && deferred_.erase(id) > 0) unlink.push_back(id);
    }
  }
  for (uint64_t id : unlink) UnlinkQuietly(id);
}

void BlobFiles::Release(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return;
  std::vector<uint64_t> unlink;
  {
    // Exclusive: every reader that could have seen these ids' records has pinned them by now.
    std::unique_lock gate(gate_);
    std::lock_guard lock(mu_);
    for (uint64_t id : ids) {
      if (holds_ > 0 || pins_.count(id) > 0) {
        deferred_.insert(id);
      } else {
        unlink.push_back(id);
      }
    }
  }
  for (uint64_t id : unlink) UnlinkQuietly(id);
}

void BlobFiles::BeginHold() {
  std::lock_guard lock(mu_);
  ++holds_;
}

void BlobFiles::EndHold() {
  std::vector<uint64_t> unlink;
  {
    std::lock_guard lock(mu_);
    if (--holds_ > 0) return;
    for (auto it = deferred_.begin(); it != deferred_.end();) {
      if (pins_.count(*it) > 0) {
        ++it;
        continue;
      }
      unlink.push_back(*it);
      it = deferred_.erase(it);
    }
  }
  for (uint64_t id : unlink) UnlinkQuietly(id);
}

size_t BlobFiles::DebugDeferred() {
  std::lock_guard lock(mu_);
  return deferred_.size();
}

}  // namespace cubby::storage
