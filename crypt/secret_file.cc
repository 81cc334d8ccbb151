#include "crypt/secret_file.h"

#include <fcntl.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "text/encoding.h"

namespace cubby::crypt {
namespace {

constexpr std::string_view kTempInfix = ".tmp-";

Status Errno(const std::string& what, const std::string& path, int err) {
  return Status(Code::kIOError, what + " " + path + ": " + std::strerror(err));
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes all of `content` to `fd`, fixes its mode to 0600 and fsyncs it.
Status WriteAndSync(int fd, const std::string& path, std::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Errno("write", path, errno);
    done += static_cast<size_t>(w);
  }
  // The umask can only have narrowed 0600; be exact anyway.
  if (::fchmod(fd, 0600) != 0) return Errno("chmod", path, errno);
  if (::fsync(fd) != 0) return Errno("fsync", path, errno);
  return Status::Ok();
}

Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open folder", dir, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return Errno("fsync folder", dir, err);
  return Status::Ok();
}

}  // namespace

Status WriteSecretFile(const std::string& path, std::string_view content, bool replace) {
  unsigned char suffix[8];
  if (RAND_bytes(suffix, sizeof suffix) != 1) return Status(Code::kInternal, "RAND_bytes failed");
  const std::string tmp =
      path + std::string(kTempInfix) +
      text::HexEncode(std::string_view(reinterpret_cast<const char*>(suffix), sizeof suffix));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Errno("create", tmp, errno);
  Status status = WriteAndSync(fd, tmp, content);
  ::close(fd);
  if (status.ok()) {
    const int rc =
        replace ? ::rename(tmp.c_str(), path.c_str())
                : ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
    if (rc != 0) {
      const int err = errno;
      status = Status(err == EEXIST ? Code::kAlreadyExists : Code::kIOError,
                      "rename to " + path + ": " + std::strerror(err));
    }
  }
  if (!status.ok()) {
    ::unlink(tmp.c_str());
    return status;
  }
  return SyncDir(DirName(path));
}

void RemoveSecretTempFiles(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string prefix =
      path.substr(slash == std::string::npos ? 0 : slash + 1) + std::string(kTempInfix);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(DirName(path), ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().filename().string().starts_with(prefix)) ::unlink(it->path().c_str());
  }
}

}  // namespace cubby::crypt
