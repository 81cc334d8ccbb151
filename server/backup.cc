#include "server/backup.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "s3api/auth/auth.h"
#include "s3api/errors.h"
#include "s3api/xml.h"
#include "server/admin.h"
#include "server/master_key.h"
#include "storage/files.h"
#include "text/uri.h"

namespace cubby::server {
namespace {

namespace fs = std::filesystem;
using storage::Code;
using storage::Status;

// How often a running backup writes a progress line to the log.
constexpr std::chrono::seconds kLogEvery{5};

// Copies the regular files at the top of `from` (not the store folder) into `to`, synced,
// except the master key's (IsMasterKeyFileName).
Status CopyTopLevelFiles(const std::string& from, const std::string& to) {
  std::error_code ec;
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    // A backup never carries the key that opens it: the keyring goes, master.key stays.
    if (IsMasterKeyFileName(it->path().filename().string())) continue;
    const std::string dst = to + "/" + it->path().filename().string();
    // Keeps the mode (root-credentials is 0600); never replaces anything.
    fs::copy_file(it->path(), dst, fs::copy_options::none, ec);
    if (ec) return Status(Code::kIOError, "copy " + it->path().string() + ": " + ec.message());
    if (Status s = storage::SyncPath(dst, /*directory=*/false); !s.ok()) return s;
  }
  if (ec) return Status(Code::kIOError, "read " + from + ": " + ec.message());
  return Status::Ok();
}

// Removes a partial data folder unless Keep() was called.
class PartialFolder {
 public:
  explicit PartialFolder(std::string path) : path_(std::move(path)) {}
  ~PartialFolder() {
    if (path_.empty()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  void Keep() { path_.clear(); }

 private:
  std::string path_;
};

const char* StateName(BackupRunner::State state) {
  switch (state) {
    case BackupRunner::State::kNone:
      return "none";
    case BackupRunner::State::kRunning:
      return "running";
    case BackupRunner::State::kSucceeded:
      return "succeeded";
    case BackupRunner::State::kFailed:
      return "failed";
  }
  return "none";
}

s3api::HttpResponse XmlResponse(int status, std::string body) {
  return AdminResponse(status, "application/xml", std::move(body));
}

s3api::HttpResponse Error(const s3api::HttpRequest& request, s3api::ErrorCode code,
                          std::string_view message = {}) {
  std::string path = request.target.substr(0, request.target.find('?'));
  return XmlResponse(s3api::Info(code).http_status,
                     s3api::ErrorXml(code, path, request.request_id, message));
}

}  // namespace

Status CheckBackupTarget(const std::string& data_dir, const std::string& target) {
  return storage::CheckBackupTarget(data_dir, "the data folder " + data_dir, target);
}

Status BackupDataFolder(storage::Store& store, const std::string& data_dir,
                        const std::string& target, const storage::BackupProgressFn& progress) {
  if (Status s = CheckBackupTarget(data_dir, target); !s.ok()) return s;
  const fs::path path = storage::NormalTarget(target);
  std::string partial =
      (path.parent_path() / ("." + path.filename().string() + ".partial-XXXXXX")).string();
  if (::mkdtemp(partial.data()) == nullptr) return storage::ErrnoStatus("mkdtemp", partial);
  PartialFolder guard(partial);
  if (Status s = store.Backup(partial + "/" + std::string(kStoreFolder), progress); !s.ok()) {
    return s;
  }
  if (Status s = CopyTopLevelFiles(data_dir, partial); !s.ok()) return s;
  if (Status s = storage::SyncPath(partial); !s.ok()) return s;
  // rename(2) replaces an empty folder and fails on anything else: never an overwrite.
  if (::rename(partial.c_str(), path.c_str()) != 0) {
    if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR) {
      return Status(Code::kInvalidArgument,
                    "backup target exists and is not an empty folder: " + target);
    }
    return storage::ErrnoStatus("rename " + partial + " to", target);
  }
  guard.Keep();
  return storage::SyncPath(path.parent_path().string());
}

BackupRunner::~BackupRunner() {
  {
    std::lock_guard lock(mu_);
    cancel_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

storage::Result<BackupRunner::Job> BackupRunner::Start(const std::string& target) {
  std::lock_guard lock(mu_);
  if (job_.state == State::kRunning) {
    return Status(Code::kAborted, "a backup into " + job_.target + " is running");
  }
  if (Status s = CheckBackupTarget(data_dir_, target); !s.ok()) return s;
  if (thread_.joinable()) thread_.join();  // the previous job has finished
  job_ = Job{job_.id + 1, State::kRunning, target, {}, 0, ""};
  started_ = last_log_ = std::chrono::steady_clock::now();
  logger_.Info("backup started", {{"id", job_.id}, {"target", target}});
  thread_ = std::thread([this, id = job_.id, target] { Run(id, target); });
  return job_;
}

BackupRunner::Job BackupRunner::Latest() const {
  std::lock_guard lock(mu_);
  Job job = job_;
  if (job.state == State::kRunning) {
    job.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  return job;
}

bool BackupRunner::Report(const storage::BackupProgress& progress) {
  std::lock_guard lock(mu_);
  job_.progress = progress;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_log_ >= kLogEvery) {
    last_log_ = now;
    logger_.Info("backup progress", {{"id", job_.id},
                                     {"bytes_done", progress.bytes_done},
                                     {"bytes_total", progress.bytes_total},
                                     {"files_done", progress.files_done},
                                     {"files_total", progress.files_total}});
  }
  return !cancel_;
}

void BackupRunner::Run(uint64_t id, std::string target) {
  Status s = backup_(*store_, data_dir_, target,
                     [this](const storage::BackupProgress& p) { return Report(p); });
  std::lock_guard lock(mu_);
  job_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  job_.state = s.ok() ? State::kSucceeded : State::kFailed;
  if (!s.ok()) {
    job_.error = s.message();
    logger_.Error(
        "backup failed",
        {{"id", id}, {"target", target}, {"error", s.message()}, {"seconds", job_.seconds}});
    return;
  }
  logger_.Info("backup finished", {{"id", id},
                                   {"target", target},
                                   {"bytes", job_.progress.bytes_total},
                                   {"files", job_.progress.files_total},
                                   {"files_copied", job_.progress.files_copied},
                                   {"seconds", job_.seconds}});
}

std::string BackupJobXml(const BackupRunner::Job& job) {
  s3api::XmlWriter xml;
  xml.Open("Backup");
  xml.Element("Id", std::to_string(job.id));
  xml.Element("State", StateName(job.state));
  xml.Element("Target", job.target);
  xml.Element("BytesDone", std::to_string(job.progress.bytes_done));
  xml.Element("BytesTotal", std::to_string(job.progress.bytes_total));
  xml.Element("FilesDone", std::to_string(job.progress.files_done));
  xml.Element("FilesTotal", std::to_string(job.progress.files_total));
  xml.Element("FilesCopied", std::to_string(job.progress.files_copied));
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.3f", job.seconds);
  xml.Element("Seconds", seconds);
  xml.Element("Error", job.error);
  xml.Close();
  return std::move(xml).Finish();
}

s3api::HttpResponse HandleBackupRequest(const s3api::HttpRequest& request, const AdminDoor& door,
                                        BackupRunner& runner) {
  if (request.method != "GET" && request.method != "POST") {
    s3api::HttpResponse response = Error(request, s3api::ErrorCode::kMethodNotAllowed);
    response.Set("Allow", "GET, POST");
    return response;
  }
  std::string message;
  if (s3api::ErrorCode denied =
          Admit(request, door, request.method == "GET" ? "cubby:GetBackup" : "cubby:StartBackup",
                "*", &message);
      denied != s3api::ErrorCode::kNone) {
    return Error(request, denied, message);
  }
  if (request.method == "GET") return XmlResponse(200, BackupJobXml(runner.Latest()));
  const std::vector<text::NameValue> params = AdminQuery(request);
  const std::string* target = text::FindValue(params, "target");
  if (target == nullptr || target->empty()) {
    return Error(request, s3api::ErrorCode::kInvalidArgument,
                 "the target query parameter (an absolute path) is required");
  }
  storage::Result<BackupRunner::Job> job = runner.Start(*target);
  if (job.ok()) return XmlResponse(202, BackupJobXml(*job));
  if (job.status().code() == Code::kAborted) {
    return Error(request, s3api::ErrorCode::kOperationAborted, job.status().message());
  }
  if (job.status().code() == Code::kInvalidArgument) {
    return Error(request, s3api::ErrorCode::kInvalidArgument, job.status().message());
  }
  return Error(request, s3api::ErrorCode::kInternalError);
}

}  // namespace cubby::server
