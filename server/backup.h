// Online backups of a running cubby's data folder, and the admin endpoint that starts them.
//
//   POST /_cubby/backup?target=/abs/path   starts a backup into target (on the server's
//                                          filesystem): 202 and the job's state (below)
//   GET  /_cubby/backup                    the state of the latest backup (State "none" if none)
//
// Both need a request signed (SigV4 or SigV2, header or presigned) with the root key: anonymous
// and non-root callers get 403 AccessDenied, bad signatures their S3 error. A target that is
// not absolute, is inside the data folder, has no parent folder, or exists and is not an empty
// folder gets 400 InvalidArgument; a POST while a backup runs gets 409 OperationAborted. The
// state is an XML document:
//   <Backup><Id/><State>running|succeeded|failed|none</State><Target/><BytesDone/>
//   <BytesTotal/><FilesDone/><FilesTotal/><FilesCopied/><Seconds/><Error/></Backup>
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "s3api/http.h"
#include "server/admin.h"
#include "server/log.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::server {

inline constexpr std::string_view kStoreFolder = "db";  // the store inside a data folder

// OK when `target` may receive a backup of the data folder `data_dir`: absolute, not inside
// data_dir (nor data_dir itself), in an existing folder, and absent or an empty folder.
// kInvalidArgument with a message saying which rule failed.
storage::Status CheckBackupTarget(const std::string& data_dir, const std::string& target);

// Backs up the data folder `data_dir`, whose store is `store`, into `target`: the store (see
// Store::Backup) as target/db and every regular file at data_dir's top level (the
// root-credentials file, the keyring and the like; never master.key: server/master_key.h),
// copied and synced. Built under a ".<name>.partial-*"
// folder beside target and renamed into place at the end, so a folder at target is always a
// whole data folder that `cubby --data-dir target` opens as it is. Errors: as
// CheckBackupTarget, then as Store::Backup.
storage::Status BackupDataFolder(storage::Store& store, const std::string& data_dir,
                                 const std::string& target,
                                 const storage::BackupProgressFn& progress);

// Runs one backup at a time on its own thread and remembers the latest one. Thread-safe.
// Destroying it cancels a running backup (its partial folder is removed) and waits for it.
class BackupRunner {
 public:
  enum class State { kNone, kRunning, kSucceeded, kFailed };
  struct Job {
    uint64_t id = 0;
    State state = State::kNone;
    std::string target;
    storage::BackupProgress progress;
    double seconds = 0;  // so far while running
    std::string error;   // when failed
  };

  // What a job runs: BackupDataFolder in production, a stand-in in tests.
  using BackupFn = std::function<storage::Status(storage::Store& store, const std::string& data_dir,
                                                 const std::string& target,
                                                 const storage::BackupProgressFn& progress)>;

  // `store` and `logger` must outlive the runner.
  BackupRunner(storage::Store* store, std::string data_dir, Logger* logger,
               BackupFn backup = BackupDataFolder)
      : store_(store),
        data_dir_(std::move(data_dir)),
        logger_(*logger),
        backup_(std::move(backup)) {}
  ~BackupRunner();

  // Starts a backup into `target` and returns its job. kInvalidArgument (CheckBackupTarget),
  // kAborted while another backup runs.
  storage::Result<Job> Start(const std::string& target);
  Job Latest() const;

 private:
  void Run(uint64_t id, std::string target);
  bool Report(const storage::BackupProgress& progress);

  storage::Store* store_;
  const std::string data_dir_;
  Logger& logger_;
  const BackupFn backup_;
  mutable std::mutex mu_;  // guards everything below
  Job job_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_log_;
  bool cancel_ = false;
  std::thread thread_;
};

// The /_cubby/backup endpoint (see the file comment) as a plain function of the request: GET
// needs cubby:GetBackup, POST cubby:StartBackup (Admit; resource "*").
s3api::HttpResponse HandleBackupRequest(const s3api::HttpRequest& request, const AdminDoor& door,
                                        BackupRunner& runner);

// The state document of `job`.
std::string BackupJobXml(const BackupRunner::Job& job);

}  // namespace cubby::server
