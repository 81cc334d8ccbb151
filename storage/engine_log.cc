#include "storage/engine_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace cubby::storage {
namespace {

class SilentLog final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char*, va_list) override {}
};

class FileLog final : public rocksdb::Logger {
 public:
  FileLog(std::string dir, size_t max_bytes)
      : path_(dir + "/LOG"), old_path_(dir + "/LOG.old"), max_bytes_(max_bytes) {
    std::lock_guard lock(mu_);
    Reopen();
  }
  ~FileLog() override {
    if (fd_ >= 0) ::close(fd_);
  }

  using rocksdb::Logger::Logv;
  // Lines as RocksDB's own logger writes them: "2026/11/26-06:00:38.539350 25611 message".
  void Logv(const char* format, va_list ap) override {
    char line[1024];
    size_t used = Stamp(line, sizeof line);
    va_list copy;
    va_copy(copy, ap);
    const int n = std::vsnprintf(line + used, sizeof line - used, format, copy);
    va_end(copy);
    if (n < 0) return;
    std::string long_line;
    std::string_view text;
    if (used + static_cast<size_t>(n) + 1 < sizeof line) {
      used += static_cast<size_t>(n);
      line[used++] = '\n';
      text = std::string_view(line, used);
    } else {  // a long line (an options dump, statistics)
      long_line.assign(line, used);
      long_line.resize(used + static_cast<size_t>(n) + 1);
      std::vsnprintf(long_line.data() + used, static_cast<size_t>(n) + 1, format, ap);
      long_line.back() = '\n';
      text = long_line;
    }
    std::lock_guard lock(mu_);
    if (fd_ < 0) return;
    if (size_ + text.size() > max_bytes_ && size_ > 0) Roll();
    if (fd_ < 0) return;
    // One write per line; a short or failed one (ENOSPC) drops the rest of the line.
    const ssize_t written = ::write(fd_, text.data(), text.size());
    if (written > 0) size_ += static_cast<size_t>(written);
  }

  size_t GetLogFileSize() const override {
    std::lock_guard lock(mu_);
    return size_;
  }

 private:
  static size_t Stamp(char* out, size_t cap) {
    struct timespec now;
    ::clock_gettime(CLOCK_REALTIME, &now);
    struct tm parts;
    ::localtime_r(&now.tv_sec, &parts);
    const int n = std::snprintf(out, cap, "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %ld ",
                                parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                                parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1000,
                                static_cast<long>(::syscall(SYS_gettid)));
    return n > 0 ? static_cast<size_t>(n) : 0;
  }

  // REQUIRES: mu_ held.
  void Reopen() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    size_ = 0;
    struct stat st;
    if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = static_cast<size_t>(st.st_size);
  }
  // REQUIRES: mu_ held. A failed rename keeps appending to the full LOG rather than losing it.
  void Roll() {
    if (::rename(path_.c_str(), old_path_.c_str()) == 0) Reopen();
  }

  const std::string path_;
  const std::string old_path_;
  const size_t max_bytes_;
  mutable std::mutex mu_;
  int fd_ = -1;
  size_t size_ = 0;
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewEngineLog(const std::string& dir, size_t max_bytes) {
  return std::make_shared<FileLog>(dir, max_bytes);
}

std::shared_ptr<rocksdb::Logger> NewSilentEngineLog() { return std::make_shared<SilentLog>(); }

}  // namespace cubby::storage
