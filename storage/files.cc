#include "storage/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cubby::storage {

namespace fs = std::filesystem;

Status ErrnoStatus(std::string_view what, const std::string& path) {
  const Code code = errno == ENOSPC || errno == EDQUOT ? Code::kNoSpace : Code::kIOError;
  return Status(code, std::string(what) + " " + path + ": " + std::strerror(errno));
}

Status SyncPath(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  if (fd < 0) return ErrnoStatus("open", path);
  int rc = ::fsync(fd);
  Status s = rc == 0 ? Status::Ok() : ErrnoStatus("fsync", path);
  ::close(fd);
  return s;
}

fs::path NormalTarget(const std::string& target) {
  fs::path path = fs::path(target).lexically_normal();
  return path.has_filename() ? path : path.parent_path();
}

Status CheckBackupTarget(const std::string& source_dir, std::string_view source_name,
                         const std::string& target) {
  if (target.empty() || target.front() != '/') {
    return Status(Code::kInvalidArgument, "backup target must be an absolute path: " + target);
  }
  const fs::path path = NormalTarget(target);
  if (!path.has_filename()) {
    return Status(Code::kInvalidArgument, "backup target must name a folder: " + target);
  }
  std::error_code ec;
  const std::string source = fs::weakly_canonical(fs::absolute(source_dir), ec).string();
  const std::string resolved = fs::weakly_canonical(path, ec).string();
  if (ec) return Status(Code::kInvalidArgument, "cannot resolve " + target + ": " + ec.message());
  if (resolved == source || resolved.starts_with(source + "/")) {
    return Status(Code::kInvalidArgument,
                  "backup target " + target + " is inside " + std::string(source_name));
  }
  if (!fs::is_directory(path.parent_path(), ec)) {
    return Status(Code::kInvalidArgument,
                  "backup target's parent is not a folder: " + path.parent_path().string());
  }
  fs::file_status st = fs::symlink_status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status(Code::kIOError, "stat " + target + ": " + ec.message());
  }
  if (!fs::exists(st)) return Status::Ok();
  if (fs::is_directory(st) && fs::is_empty(path, ec) && !ec) return Status::Ok();
  return Status(Code::kInvalidArgument,
                "backup target exists and is not an empty folder: " + target);
}

}  // namespace cubby::storage
